"""Modern attention in headless Chromium: an answer appears once predicted, and a sliding
window's band is drawn hatched cell by cell (not the causal triangle alone)."""

from tests.e2e.conftest import ARTIFACTS, script_done


def test_modern_page_predicts_then_shows_the_window_band(server, page):
    page.goto(f"{server}/modern")
    script_done(page)
    page.get_by_text("4 · Why does RoPE").wait_for(timeout=30_000)
    assert page.locator(".js-plotly-plot").count() == 0  # nothing answered before predicting
    page.get_by_text("No: it sees only itself and the 3 tokens before it").click()
    page.get_by_text("Right. Answer: No: it sees").wait_for(timeout=30_000)
    page.get_by_text("Head 0's weights, window 4").wait_for(timeout=30_000)
    script_done(page)
    # the band's masked cells: one hatched rectangle per run of masked cells in a row. 11 tokens,
    # window 4: rows 0-9 have later keys (10 runs), rows 4-10 keys 4 or more back (7 runs)
    runs = page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')]
            .filter(p => (p.layout.title.text || '').includes('window 4'))
            .map(p => p.data.find(t => t.name === 'masked').x.filter(v => v === null).length)"""
    )
    assert runs == [17]
    assert page.locator(".js-plotly-plot .scatterlayer path.js-fill").count() >= 1  # drawn filled
    page.wait_for_timeout(500)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "modern_window.png"))
    assert page.dialogs == []
