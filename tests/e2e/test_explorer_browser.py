"""The Explorer in headless Chromium against `streamlit run`."""

from urllib.parse import urlencode

from tests.e2e.conftest import ARTIFACTS, CHART_WITH, chart_data, script_done, type_sentence, wait_idle

HOSTILE = '<b>x</b> <a href="https://example.com">y</a> <img src=x onerror=alert(1)>'


def tick_labels(page) -> list[str] | None:
    """The query-axis tick labels of the weights panel (the default view), as drawn."""
    return page.evaluate(
        f"""() => {{ const d = ({CHART_WITH})('weights'); if (!d) return null;
            return Array.from(d.querySelectorAll('.subplot.xy .ytick text'), e => e.textContent); }}"""
    )


def show_all_steps(page) -> None:
    page.get_by_text("all steps side by side").click()
    page.wait_for_function(f"() => ({CHART_WITH})('scores')", timeout=30_000)
    wait_idle(page)


def test_page_loads_with_token_tick_labels_and_screenshot(server, page):
    page.goto(server)
    wait_idle(page)
    assert tick_labels(page) == ["Your", "journey", "starts", "with", "one", "step"]
    assert chart_data(page, "weights") is not None and chart_data(page, "scores") is None
    show_all_steps(page)
    assert chart_data(page, "scores") is not None and chart_data(page, "masked_scores") is not None
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer.png"), full_page=True)
    assert (ARTIFACTS / "explorer.png").stat().st_size > 50_000


def test_changing_a_control_updates_the_heatmaps(server, page):
    page.goto(server)
    wait_idle(page)
    before = chart_data(page, "weights")
    page.get_by_text("causal mask").click()
    last = f"() => {{ const d = ({CHART_WITH})('weights'); return d && d.calcdata[0][0].z[0][5] > 0; }}"
    page.wait_for_function(last, timeout=30_000)
    wait_idle(page)
    after = chart_data(page, "weights")
    assert before[0][5] == 0 and after[0][5] > 0  # row 0 now looks at the last key

    type_sentence(page, "Hello shiny sun!", "Control+Enter")
    wait_idle(page)
    assert tick_labels(page) == ["Hello", "shiny", "sun"]


def test_html_in_the_sentence_stays_literal_text(server, page):
    query = urlencode({"text": HOSTILE, "tokenizer": "words_punct", "embedding": "random", "d_in": "4"})
    page.goto(f"{server}/?{query}")
    wait_idle(page)
    labels = tick_labels(page)
    assert "<" in labels and "&lt;" not in "".join(labels)  # escaped once: drawn as the character
    for view in ("Tokens", "Share, code & downloads", "Query focus"):  # views that echo the text
        page.get_by_text(view, exact=True).first.click()
        script_done(page, 30_000)
        page.wait_for_timeout(500)
        assert page.get_by_role("textbox", name="Sentence").input_value() == HOSTILE
        assert page.locator('[data-testid="stMain"] a[href="https://example.com"]').count() == 0
        assert page.locator("img[src='x']").count() == 0
        assert page.locator("[data-testid='stMain'] b:text-is('x')").count() == 0
        assert page.locator(".js-plotly-plot b:text-is('x'), .js-plotly-plot a[href]").count() == 0
    assert page.dialogs == []


def test_share_link_reproduces_the_numbers_in_a_fresh_page(server, browser):
    params = {
        "text": "the cat saw the dog and the cat ran",
        "embedding": "random",
        "d_in": "8",
        "variant": "mha",
    }
    params |= {"d_out": "8", "heads": "4", "dropout": "0.3", "train": "1", "seed": "99"}
    pages = []
    for _ in range(2):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        pg = context.new_page()
        pg.goto(f"{server}/?{urlencode(params)}")
        wait_idle(pg)
        show_all_steps(pg)
        pages.append((context, pg))
    first, second = (pg for _, pg in pages)
    for title in ("scores", "weights", "dropped_weights"):
        a, b = chart_data(first, title), chart_data(second, title)
        assert a is not None and a == b, title
    assert tick_labels(first)[0] == "the" and len(tick_labels(first)) == 9
    assert "seed=99" in first.url and "dropout=0.3" in first.url
    for context, _ in pages:
        context.close()


def test_hover_names_the_tokens_and_says_masked(server, page):
    page.goto(f"{server}/?{urlencode({'text': 'the cat saw the dog', 'embedding': 'random', 'd_in': '4'})}")
    wait_idle(page)
    box = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()

    def hover(row: int, col: int) -> str:  # the middle of a cell of the 5 x 5 weights panel
        page.mouse.move(box["x"] + box["width"] * (col + 0.5) / 5, box["y"] + box["height"] * (row + 0.5) / 5)
        page.wait_for_timeout(400)
        return page.evaluate("() => document.querySelector('.hoverlayer').textContent")

    text = hover(3, 1)  # the second "the" looking at "cat"
    assert "query the" in text and "key cat" in text and "weights 0." in text
    assert "masked (−inf)" in hover(0, 4)
