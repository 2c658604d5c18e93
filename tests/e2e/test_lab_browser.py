"""The lab in headless Chromium: "Knock out the induction heads" from the opening page, the loss
on the repeat jumping in the drawn chart, the link holding the heads; screenshots at 1366x768
and at a phone's width to look at."""

import numpy as np

from tests.e2e.conftest import ARTIFACTS, script_done

PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"

LOSS_LINES = """() => { const d = [...document.querySelectorAll('.js-plotly-plot')].find(
    d => (d.data || []).some(t => t.name === 'knocked out' && t.type === 'scatter'));
    return d ? Object.fromEntries(d._fullData.map(t => [t.name, Array.from(t.y)])) : null; }"""


def knock_out_the_induction_heads(page, server) -> dict[str, np.ndarray]:
    page.goto(f"{server}/model?model=bundled")  # the copy model, whose numbers the test knows
    script_done(page)
    page.get_by_text("Knock out heads", exact=True).first.click()
    page.get_by_role("button", name="Knock out the induction heads").click()
    page.wait_for_function(f"({LOSS_LINES}) !== null", timeout=120_000)
    script_done(page)
    page.wait_for_function("() => location.search.includes('ko=1.0%2C1.1%2C1.2%2C1.3')")
    assert page.get_by_text("Traceback").count() == 0
    return {k: np.array(v, dtype=float) for k, v in page.evaluate(LOSS_LINES).items()}


def test_knock_out_the_induction_heads_at_1366(server, page):
    page.set_viewport_size({"width": 1366, "height": 768})
    lines = knock_out_the_induction_heads(page, server)
    repeat = slice(18, 32)  # the second copy of the example sentence, after its first token
    assert np.nanmean(lines["untouched"][repeat]) < 0.5 and np.nanmean(lines["knocked out"][repeat]) > 10
    page.get_by_text("went from 0.07 to").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()  # the loss chart, the paragraph above
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / "lab_induction_1366.png"))


def test_knock_out_the_induction_heads_on_a_phone(server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, user_agent=PHONE)
    page = context.new_page()
    try:
        lines = knock_out_the_induction_heads(page, server)
        assert np.nanmean(lines["knocked out"][18:32]) > 10
        page.get_by_text("went from 0.07 to").scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "lab_induction_phone.png"))
    finally:
        context.close()
