"""The Compare and Scaling pages in headless Chromium: drawn numbers, and a sweep that stops."""

import re
import subprocess

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import ARTIFACTS, chart_data, script_done, wait_idle


def test_compare_draws_a_b_and_their_difference(server, page):
    page.goto(f"{server}/compare")
    wait_idle(page)
    a, b, diff = (chart_data(page, name) for name in ("A", "B", "A − B"))
    assert a and b and diff
    assert all(abs(diff[i][j] - (a[i][j] - b[i][j])) < 1e-6 for i in range(len(a)) for j in range(len(a)))
    assert page.get_by_text("Every variant matches the reference").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "compare.png"), full_page=True)
    assert page.dialogs == []


def _sweeps_running() -> int:
    found = subprocess.run(["pgrep", "-f", "attention.bench scaling"], capture_output=True, text=True)
    return len(found.stdout.split())


def test_scaling_sweep_shows_progress_and_stop_kills_it(server, page):
    page.goto(f"{server}/scaling")
    script_done(page)
    # the longest allowed sweep with every variant: long enough to stop halfway
    page.get_by_role("button", name="Run sweep").wait_for(timeout=30_000)
    slider = page.get_by_role("slider")
    slider.focus()
    slider.press("End")
    script_done(page)
    page.get_by_role("button", name="Run sweep").click()
    page.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)
    page.get_by_text(re.compile(r"\d+/\d+: T = ")).wait_for(timeout=60_000)  # a row has arrived
    assert _sweeps_running() == 1
    page.get_by_role("button", name="Stop").click()
    page.get_by_text("Stopped after").wait_for(timeout=60_000)
    try:  # what finished is drawn (plotly's script loads with the page's first chart: give it time)
        page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    except PlaywrightTimeout as error:  # say what the page showed instead
        raise AssertionError(page.inner_text("main")[-3000:]) from error
    page.wait_for_timeout(500)
    assert _sweeps_running() == 0  # Stop killed the child process
    assert page.get_by_text("Traceback").count() == 0
    page.screenshot(path=str(ARTIFACTS / "scaling.png"), full_page=True)


def test_explorer_still_answers_after_the_sweep(server, page):
    """Run after the sweep test in this file: no sweep process is left over, and the Explorer's
    heatmap is drawn with numbers."""
    assert _sweeps_running() == 0
    page.goto(server)
    wait_idle(page)
    weights = chart_data(page, "weights")
    assert weights and all(abs(sum(row) - 1) < 1e-3 for row in weights)
