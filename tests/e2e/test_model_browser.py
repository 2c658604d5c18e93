"""Inside a model, in headless Chromium: the bundled model's head roles, one click to its
induction head on a repeated sentence, the head's steps drawn; a click on a head in the grid
opens it (a tap on a phone); the roles' buttons and table whole at 1366 px; screenshots to look at."""

import re

import pytest

from tests.e2e.conftest import ARTIFACTS, script_done, trace_names

THUMBNAIL = """(axis) => { const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    d => (d.data || []).some(t => t.customdata)); const L = gd._fullLayout, r = gd.getBoundingClientRect();
    const xa = L['x' + axis], ya = L['y' + axis];  // a point off the middle: anywhere on it counts
    return [r.left + xa._offset + xa._length * 0.2, r.top + ya._offset + ya._length * 0.8]; }"""


def test_open_the_induction_head_from_the_roles(server, page):
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{server}/model?model=bundled")  # the copy model, whose heads the test knows
    script_done(page)
    page.get_by_text("Tokens as the model sees them").wait_for(timeout=60_000)
    page.get_by_text("Head roles", exact=True).first.click()
    button = page.get_by_role("button", name=re.compile(r"Open the best induction head \(\d+\.\d+\)"))
    button.wait_for(timeout=120_000)
    cut = page.evaluate(
        """() => [...document.querySelectorAll('.stButton button .stMarkdownEllipsis')]
            .filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent)"""
    )
    assert cut == []  # every "Open the best … head" label whole (three of four were cut at 1366 px)
    table = page.locator('[data-testid="stDataFrame"]').bounding_box()
    assert table["height"] >= 35 * 13  # every row of the 12 and the header: no inner scroll
    head = re.search(r"\((\d+)\.(\d+)\)", button.inner_text()).groups()
    button.click()
    script_done(page)
    page.get_by_text(f"queries, head {head[0]}.{head[1]}").first.wait_for(timeout=60_000)
    page.wait_for_function(
        f"() => location.search.includes('head={head[1]}') && location.search.includes('view=head')"
    )
    names = trace_names(page)
    assert "weights" in names
    page.get_by_text("was opened as this model's best induction head").wait_for(timeout=30_000)
    page.wait_for_timeout(500)  # the scroll to the top runs in its frame once it loads
    chart = page.locator(".stPlotlyChart").first.bounding_box()
    assert chart["height"] <= 610 and chart["y"] < 768  # starts on screen, whole once scrolled (was 924)
    assert chart["y"] >= 0  # not scrolled past: the click was far down the roles, the page goes back up
    assert page.get_by_text("Traceback").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1366, "height": 2000})
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / "model_induction_head.png"))


@pytest.mark.parametrize("phone", [False, True], ids=["click at 1366 px", "tap on a phone"])
def test_a_click_on_a_head_in_the_grid_opens_it(server, browser, phone):
    size = {"width": 390, "height": 844} if phone else {"width": 1366, "height": 768}
    mobile = {"user_agent": "Mozilla/5.0 (iPhone) Mobile Mobi", "has_touch": True, "is_mobile": True}
    context = browser.new_context(viewport=size, **(mobile if phone else {}))
    page = context.new_page()
    try:
        page.goto(f"{server}/model?model=bundled")  # the copy model, whose heads the test knows
        script_done(page)
        grid = page.locator(".stPlotlyChart").first
        grid.wait_for(timeout=60_000)
        grid.scroll_into_view_if_needed()
        assert grid.locator(".modebar").count() == 0  # no toolbar over the heads' titles
        x, y = page.evaluate(THUMBNAIL, "axis7")  # the bundled model's 2 x 4 heads: 1.2 is the 7th
        page.mouse.move(x, y)
        page.locator(".hovertext").first.wait_for(timeout=5_000)
        assert "head 1.2: click to open" in page.locator(".hovertext").first.text_content()
        page.touchscreen.tap(x, y) if phone else page.mouse.click(x, y)
        page.wait_for_function(
            "() => ['view=head', 'layer=1', 'head=2'].every(p => location.search.includes(p))",
            timeout=60_000,
        )
        script_done(page)
        page.get_by_text("queries, head 1.2").first.wait_for(timeout=60_000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"model_grid_click{'_phone' if phone else ''}.png"))
    finally:
        context.close()
