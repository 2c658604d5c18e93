"""The Learn page in headless Chromium: it loads with live numbers, and a self-check answers."""

from tests.e2e.conftest import ARTIFACTS


def test_learn_page_loads_answers_and_screenshot(server, page):
    page.goto(f"{server}/learn")
    page.wait_for_selector('[data-test-script-state="notRunning"]', timeout=60_000)
    page.get_by_text("Exercise 3.3").wait_for(timeout=30_000)
    assert page.get_by_text("context = [0.4419, 0.6515, 0.5683]").count() == 1
    page.get_by_text("goes toward 1").click()
    page.get_by_text("Right: goes toward 1").wait_for(timeout=30_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "learn.png"))
    assert (ARTIFACTS / "learn.png").stat().st_size > 30_000
    assert page.dialogs == []
