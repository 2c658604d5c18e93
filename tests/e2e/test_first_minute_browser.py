"""The first minute of a class, in Chromium: what only a browser shows — positions on
the screen, overlaps, the clipboard, history — and a screenshot of every page at a laptop's,
a projector's and a phone's size (artifacts/<page>_<viewport>.png)."""

from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from tests.e2e.conftest import ARTIFACTS, script_done, type_sentence, wait_idle

VIEWPORTS = {"laptop": (1366, 768), "projector": (1920, 1080), "phone": (390, 844)}
PAGES = {
    "explorer": "",
    "learn": "learn",
    "modern": "modern",
    "compare": "compare",
    "scaling": "scaling",
    "train": "train",
    "model": "model",
}
PHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/18.0 Mobile/15E148 Safari/604.1"
)
BOXES = (
    """(selector) => [...document.querySelectorAll(selector)].map(e => e.getBoundingClientRect().toJSON())"""
)


def open_at(browser, url: str, viewport: str, **options):
    width, height = VIEWPORTS[viewport]
    if viewport == "phone":
        options.setdefault("user_agent", PHONE)  # as a phone's browser says it: the app draws for it
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    page = context.new_page()
    page.goto(url)
    script_done(page)
    page.wait_for_timeout(800)
    return context, page


def boxes(page, selector: str) -> list[dict]:
    return page.evaluate(BOXES, selector)


def overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def heatmap_top(page) -> float:
    page.wait_for_selector(".js-plotly-plot .nsewdrag", timeout=30_000)
    return min(b["y"] for b in boxes(page, ".js-plotly-plot .nsewdrag"))


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_at_three_sizes(server, browser, name, viewport):
    projector = "?projector=1" if viewport == "projector" else ""
    context, page = open_at(browser, f"{server}/{PAGES[name]}{projector}", viewport)
    if name in ("explorer", "learn", "compare", "model"):
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
        page.wait_for_timeout(500)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}_{viewport}.png"))
    assert page.locator('[data-testid="stException"]').count() == 0
    width = VIEWPORTS[viewport][0]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # nothing runs off the side
    context.close()


def test_a_heatmap_is_above_the_fold_on_a_laptop_and_on_a_projector(server, browser):
    """Items 4 and 15: at least 30% of the screen's height shows the heatmap on arrival."""
    for viewport, query in (("laptop", ""), ("projector", "?projector=1")):
        context, page = open_at(browser, f"{server}/{query}", viewport)
        assert heatmap_top(page) < VIEWPORTS[viewport][1] * 0.7, viewport
        context.close()


def test_projector_mode_enlarges_axis_titles_and_survives_a_reload(server, browser):
    """Axis titles and subtitles grow too; the mode is in the link and kept on reload."""
    context, page = open_at(browser, server, "projector")
    size = "() => parseFloat(getComputedStyle(document.querySelector('.js-plotly-plot .g-ytitle text'))"
    size += ".fontSize)"
    root = "() => getComputedStyle(document.documentElement).fontSize"
    page.wait_for_selector(".js-plotly-plot .g-ytitle text", timeout=30_000)
    before = page.evaluate(size)
    assert page.evaluate(root) == "16px"
    page.get_by_text("Projector: large text, high contrast").click()
    page.wait_for_function("() => location.search.includes('projector=1')", timeout=30_000)
    wait_idle(page)
    assert page.evaluate(size) > before
    page.reload()
    wait_idle(page)
    assert page.evaluate(root) == "22px"  # the page's text, not only the charts
    assert page.evaluate(size) > before
    context.close()


def test_copy_link_copies_the_whole_view_in_one_click(server, browser):
    """The Share view's Copy link copies the link it shows: the whole view, without the Share tab."""
    query = urlencode({"seed": "7", "view": "share"})
    context, page = open_at(browser, f"{server}/?{query}", "laptop")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page.frame_locator("iframe").get_by_role("button", name="Copy link").click()
    page.frame_locator("iframe").get_by_text("Copied").wait_for(timeout=10_000)
    copied = page.evaluate("() => navigator.clipboard.readText()")
    shown = page.locator('[data-testid="stCode"]').first.inner_text().strip()
    assert copied == shown and copied.startswith(f"{server}/?")
    params = parse_qs(urlparse(copied).query)
    assert params["seed"] == ["7"] and "view" not in params
    context.close()


def test_enter_applies_the_sentence(server, page):
    """A one-line box; Enter submits (Ctrl+Enter is not discoverable)."""
    page.goto(server)
    wait_idle(page)
    type_sentence(page, "Hello shiny sun!", "Enter")
    assert page.get_by_role("textbox", name="Sentence").input_value() == "Hello shiny sun!"


def test_back_undoes_a_change_and_leaves_for_the_previous_page(server, page):
    """No bogus entries; every Back shows something else."""
    page.goto(server)
    wait_idle(page)
    assert urlparse(page.url).query == ""  # the opening view adds no entry of its own
    page.get_by_text("causal mask").first.click()
    page.wait_for_function("() => location.search.includes('causal=0')", timeout=30_000)
    wait_idle(page)
    page.get_by_role("link", name="Compare").click()
    page.get_by_text("Sentence (both sides)").wait_for(timeout=30_000)
    assert urlparse(page.url).path == "/compare" and urlparse(page.url).query == ""
    page.get_by_role("link", name="Explorer").click()
    page.wait_for_function("() => location.search.includes('causal=0')", timeout=30_000)
    wait_idle(page)
    page.go_back()
    page.get_by_text("Sentence (both sides)").wait_for(timeout=30_000)  # back on Compare, at once
    assert urlparse(page.url).path == "/compare"
    page.go_back()
    page.wait_for_function("() => location.search.includes('causal=0')", timeout=30_000)
    wait_idle(page)
    assert not page.get_by_role("checkbox", name="causal mask").is_checked()
    page.go_back()  # the change is undone
    page.wait_for_function("() => location.search === ''", timeout=30_000)
    wait_idle(page)
    assert page.get_by_role("checkbox", name="causal mask").is_checked()


def test_axis_titles_clear_the_subtitles_at_eleven_tokens(server, page):
    """The axis title "keys (looked at) →" overlapped each panel's subtitle."""
    words = " ".join(f"word{i}" for i in range(11))
    page.goto(f"{server}/?{urlencode({'text': words, 'step': 'all'})}")
    wait_idle(page)
    page.wait_for_timeout(500)
    titles, subtitles = (
        boxes(page, ".js-plotly-plot .g-xtitle"),
        boxes(page, ".js-plotly-plot .gtitle-subtitle"),
    )
    ticks = boxes(page, ".js-plotly-plot .xtick text")
    assert len(titles) == len(subtitles) == 4
    assert not any(overlap(a, b) for a in titles + ticks for b in subtitles)


@pytest.mark.parametrize("path", ["?step=all", "compare"])
def test_a_phone_stacks_the_charts_and_the_toolbar_covers_no_title(server, browser, path):
    """On 390 px the step panels and Compare's three heatmaps stack; the toolbar
    (shown on hover) stays off the titles."""
    context, page = open_at(browser, f"{server}/{path}", "phone")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    page.wait_for_timeout(800)
    charts = boxes(page, ".js-plotly-plot")
    assert len(charts) >= 3
    assert not any(overlap(a, b) for i, a in enumerate(charts) for b in charts[i + 1 :])
    assert all(c["width"] > 300 for c in charts)  # one a row, full width
    for chart in page.locator(".js-plotly-plot").all()[:3]:
        chart.scroll_into_view_if_needed()
        chart.hover()
        page.wait_for_timeout(200)
        bar = chart.locator(".modebar-container").bounding_box()
        title = chart.locator(".gtitle").bounding_box()
        assert bar and title and not overlap(bar, title)
    context.close()


def test_a_phone_navigates_from_the_top_without_the_sidebar_in_the_way(server, browser):
    """A link in the sidebar left it open over the new page on a phone; there the links sit on top."""
    context, page = open_at(browser, server, "phone")
    assert page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]').count() == 0
    page.get_by_text("Pages", exact=True).click()
    page.get_by_role("link", name="Compare").click()
    page.get_by_text("Sentence (both sides)").wait_for(timeout=30_000)
    sidebar = page.locator('[data-testid="stSidebar"]').bounding_box()
    assert sidebar is None or sidebar["x"] + sidebar["width"] <= 1  # collapsed, off the screen
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    numbers = page.evaluate("() => document.querySelectorAll('.js-plotly-plot .heatmaplayer text').length")
    assert numbers == 0  # no numbers crammed into 25 px cells
    context.close()
