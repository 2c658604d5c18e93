"""Nothing a reader sees is cut, in the languages that run longest, in Chromium: the worst cases
found at a laptop's 1366 x 768 and a phone's 390 x 844, one page each. `everything_cut` reads the
whole page (tests/e2e/clipping.py: text, formulas, plotly text, the toolbar, data grids); each test
also checks its own case by name, so that a failure says what was cut."""

import re

import pytest

from tests.e2e.clipping import everything_cut
from tests.e2e.conftest import script_done, skip

pytestmark = pytest.mark.e2e

PHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/18.0 Mobile/15E148 Safari/604.1"
)
# a box's content wider than the box (scrollWidth counts what overflows, hidden or not)
OVERFLOWING = """(selector) => [...document.querySelectorAll(selector)]
    .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.trim().slice(0, 60))"""
BOX = "(e) => { const r = e.getBoundingClientRect(); return [r.left, r.right, window.innerWidth]; }"


@pytest.fixture
def opened(browser):
    """opened(path, phone=False): a page opened in its own context at 1366 x 768 (or as a phone), its
    script run and its charts drawn."""
    contexts = []

    def open_(path: str, phone: bool = False, charts: int = 1):
        size = {"width": 390, "height": 844} if phone else {"width": 1366, "height": 768}
        context = browser.new_context(viewport=size, **({"user_agent": PHONE} if phone else {}))
        contexts.append(context)
        page = context.new_page()
        page.goto(path)
        script_done(page, timeout=120_000)
        if charts:
            page.wait_for_function(
                "(n) => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n", arg=charts
            )
        page.wait_for_timeout(800)  # plotly lays its text out after the first frame
        return page

    yield open_
    for context in contexts:
        context.close()


def test_head_importance_method_control_is_whole_at_1366_in_polish(server, opened):
    """Its second option ("Fast estimate: a…") scrolled out of its column: now the options wrap."""
    page = opened(f"{server}/model?view=map&lang=pl")
    options = page.locator(".st-key-m_method button:has(p)")  # not the help's "?"
    assert options.count() == 2
    assert page.evaluate(OVERFLOWING, ".st-key-m_method button:has(p), .st-key-m_method button p") == []
    for option in options.all():
        left, right, width = option.evaluate(BOX)
        control = page.locator(".st-key-m_method").evaluate(BOX)
        assert control[0] - 1 <= left and right <= control[1] + 1 <= width + 1, option.text_content()
    assert everything_cut(page) == []


def test_the_next_token_shares_are_whole_in_afrikaans(server, opened):
    """The top share (99.5%) stood beside a bar that fills the axis and was clipped ("95." and a
    blank): every share is drawn, inside its chart."""
    page = opened(f"{server}/model?view=next&lang=af")
    bars = page.locator(".js-plotly-plot", has=page.locator(".barlayer text")).first
    shares = bars.locator(".barlayer text")
    texts = shares.all_text_contents()
    assert len(texts) >= 5 and all(re.fullmatch(r"\d+\.\d%", t) for t in texts), texts
    svg = bars.locator("svg.main-svg").first.bounding_box()
    for share in shares.all():
        box = share.bounding_box()
        inside = svg["x"] <= box["x"] and box["x"] + box["width"] <= svg["x"] + svg["width"]
        assert inside, share.text_content()
    assert everything_cut(page) == []


def test_the_runs_table_is_on_the_page_at_1366(server, opened):
    """Watch it learn's table of finished runs had its last column off the page's edge."""
    page = opened(f"{server}/train?lang=pl", charts=0)
    page.locator(".st-key-tr_task input").click()
    page.get_by_role("option").filter(has_text=re.compile("GPTModel")).click()
    script_done(page)
    page.locator(".st-key-tr_pace label").last.click()  # as fast as it goes
    script_done(page)
    steps = page.locator(".st-key-ind_steps input")
    steps.fill("120")  # not a step count test_train_browser trains: no run shared with it
    steps.press("Enter")
    script_done(page)
    page.locator(".st-key-tr_play button").click()
    table = page.locator("[data-testid=stTable], [data-testid=stDataFrame]").last  # a grid, before
    table.wait_for(timeout=120_000)
    script_done(page)
    page.wait_for_timeout(800)
    left, right, width = table.evaluate(BOX)
    assert left >= 0 and right <= width
    headers = table.locator("th")
    assert headers.count() == 9
    for header in headers.all():
        left, right, width = header.evaluate(BOX)
        assert left >= 0 and right <= width, header.text_content()
    assert page.evaluate(OVERFLOWING, "[data-testid=stTable] th, [data-testid=stTable] td") == []
    assert everything_cut(page) == []


def test_learn_on_a_phone_in_ukrainian_cuts_no_formula(server, opened):
    """The formulas ran past a phone's edge: on a phone they stand one under another, each
    within the page."""
    page = opened(f"{server}/learn?lang=uk", phone=True)
    formulas = page.locator(".katex-display")
    assert formulas.count() >= 4
    for formula in formulas.all():  # each fits the page: none even needs a swipe in its box
        left, right, width = formula.evaluate(BOX)
        drawn = formula.locator(".katex-html").evaluate(BOX)
        assert left >= 0 and right <= width and left - 1 <= drawn[0] and drawn[1] <= right + 1
    assert everything_cut(page, phone=True) == []


@pytest.mark.parametrize("path", ["languages?lang=af", "model?view=map&lang=pl", "model?view=next&lang=ja"])
def test_chart_titles_on_a_phone_wrap_and_stand_clear_of_the_toolbar(server, opened, path):
    """A chart's title ran off a phone's chart or under plotly's toolbar: every title is inside its
    chart and below the toolbar, shown (on hover) or not."""
    page = opened(f"{server}/{path}", phone=True, charts=0 if path.startswith("languages") else 1)
    if path.startswith("languages"):  # its chart comes after its predict-first question
        skip(page, "languages_predict")
        script_done(page, timeout=120_000)
        page.wait_for_selector(".js-plotly-plot .gtitle")
        page.wait_for_timeout(800)
    titles = page.locator(".js-plotly-plot .gtitle")
    assert titles.count() >= 1
    for chart in page.locator(".js-plotly-plot", has=page.locator(".gtitle")).all():
        chart.scroll_into_view_if_needed()
        chart.hover()  # the toolbar shows
        bar, title = chart.locator(".modebar").bounding_box(), chart.locator(".gtitle").bounding_box()
        assert bar and title["y"] >= bar["y"] + bar["height"], chart.locator(".gtitle").text_content()
    assert everything_cut(page, phone=True) == []
