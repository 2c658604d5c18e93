"""Watch it learn, in headless Chromium: a short run plays live and ends with its pattern."""

import re

from tests.e2e.conftest import ARTIFACTS


def test_short_training_run_plays_and_shows_the_learned_pattern(server, page):
    page.goto(f"{server}/train")
    page.wait_for_selector('[data-test-script-state="notRunning"]', timeout=60_000)
    page.get_by_text("Press Play").wait_for(timeout=30_000)
    steps = page.get_by_label("steps")
    steps.fill("100")
    steps.press("Enter")
    page.wait_for_selector('[data-test-script-state="notRunning"]', timeout=60_000)
    page.get_by_role("button", name="Play").click()
    page.get_by_text("step 100/100").wait_for(timeout=60_000)
    page.get_by_text("Finished: accuracy on unseen sequences").wait_for(timeout=60_000)
    page.wait_for_selector('[data-test-script-state="notRunning"]', timeout=60_000)
    names = page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')]
            .flatMap(d => (d.data || []).map(t => t.name))"""
    )
    assert "head 0, step 100" in names and "expected (solves the task)" in names
    assert "loss (cross-entropy)" in names
    assert page.get_by_text("Traceback").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "train.png"))


def test_pause_and_resume_while_it_plays(server, page):
    page.goto(f"{server}/train")
    page.wait_for_selector('[data-test-script-state="notRunning"]', timeout=60_000)
    page.get_by_text("Press Play").wait_for(timeout=30_000)
    page.get_by_role("button", name="Play").click()  # 300 steps at the watching pace: ~10 s
    page.get_by_text(re.compile(r"step [1-9]\d*/300")).wait_for(timeout=60_000)
    assert page.get_by_role("button", name="Stop").is_enabled()  # both usable while it plays
    page.get_by_role("button", name="Pause").click()
    page.get_by_text(re.compile(r"Paused at step \d+")).wait_for(timeout=60_000)
    paused = int(
        re.search(r"Paused at step (\d+)", page.get_by_text(re.compile("Paused at step")).inner_text())[1]
    )
    assert 0 < paused < 300
    page.get_by_role("button", name="Resume").click()
    page.get_by_text("Finished: accuracy on unseen sequences").wait_for(timeout=120_000)
    assert page.get_by_text("Traceback").count() == 0
