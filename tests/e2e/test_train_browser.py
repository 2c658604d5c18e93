"""Watch it learn, in headless Chromium: a short run plays live and ends with its pattern; Pause,
Resume and Stop while it trains; leaving mid-run; the induction run opened in Inside a model."""

import re

from deploy.local import ROOT, start_streamlit
from tests.e2e.conftest import ARTIFACTS, script_done, trace_names


def test_short_training_run_plays_and_shows_the_learned_pattern(server, page):
    page.goto(f"{server}/train")
    script_done(page)
    page.get_by_text("Press Play").wait_for(timeout=30_000)
    steps = page.get_by_label("steps")
    steps.fill("100")
    steps.press("Enter")
    script_done(page)
    page.get_by_role("button", name="Play").click()
    page.get_by_text("step 100/100").wait_for(timeout=60_000)
    page.get_by_text("Finished: accuracy on unseen sequences").wait_for(timeout=60_000)
    script_done(page)
    names = trace_names(page)
    assert "head 0, step 100" in names and "expected (solves the task)" in names
    assert "loss (cross-entropy)" in names
    assert page.get_by_text("Traceback").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "train.png"))


def test_pause_and_resume_while_it_plays(server, page):
    page.goto(f"{server}/train")
    script_done(page)
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


def test_an_induction_head_forms_and_opens_in_inside_a_model(server, browser):
    """The induction run at three sizes: pick it, play a short run, pause and resume, then open the
    best induction head of the saved model in Inside a model."""
    ARTIFACTS.mkdir(exist_ok=True)
    sizes = (("1366", (1366, 768), False), ("1920", (1920, 1080), False), ("phone", (390, 844), True))
    for name, viewport, phone in sizes:
        context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            user_agent="Mozilla/5.0 (iPhone) Mobile Safari" if phone else None,
        )
        page = context.new_page()
        page.goto(f"{server}/train")
        script_done(page)
        page.get_by_text("Press Play").wait_for(timeout=30_000)
        page.get_by_label("Task").click()
        page.get_by_role("option", name=re.compile("induction head forms")).click()
        page.get_by_text("Run the 1-layer control").wait_for(timeout=30_000)
        script_done(page)
        page.get_by_text("as fast as it goes", exact=True).click()
        script_done(page)
        steps = page.get_by_label("steps")
        # three runs, none shared (the phone's has a seed of its own); at 1366 past the phase change
        # (step ~477): a clear induction head to open
        steps.fill({"1366": "700", "1920": "100", "phone": "100"}[name])
        steps.press("Enter")
        script_done(page)
        if phone:
            seed = page.get_by_label("seed", exact=True)
            seed.fill("4")
            seed.press("Enter")
            script_done(page)
        page.get_by_role("button", name="Play").click()
        if name == "1366":  # pause mid-run, resume: the same run goes on
            page.get_by_text(re.compile(r"step [1-9]\d*/700")).wait_for(timeout=60_000)
            page.get_by_role("button", name="Pause").click()
            page.get_by_text(re.compile(r"Paused at step \d+")).wait_for(timeout=60_000)
            page.get_by_role("button", name="Resume").click()
        page.get_by_text(re.compile(r"Finished \d+ steps")).wait_for(timeout=180_000)
        script_done(page)
        names = trace_names(page)
        assert "accuracy, second copy" in names and "induction head" in names
        assert page.get_by_text("Traceback").count() == 0
        page.wait_for_timeout(500)
        page.screenshot(path=str(ARTIFACTS / f"induction_{name}.png"), full_page=True)
        if name == "1366":
            page.get_by_text(re.compile(r"best induction head \(1\.\d\)")).click()
            page.wait_for_url(re.compile(r"/model\?"), timeout=30_000)
            page.get_by_text(re.compile(r"Induction run: 2 layers, seed 3, step 700")).first.wait_for(
                timeout=60_000
            )
            script_done(page)
            assert page.get_by_text("Traceback").count() == 0
            page.screenshot(path=str(ARTIFACTS / "induction_opened_1366.png"), full_page=True)
        context.close()


def pick_induction(page) -> None:
    page.get_by_label("Task").click()
    page.get_by_role("option", name=re.compile("induction head forms")).click()
    page.get_by_text("Run the 1-layer control").wait_for(timeout=30_000)
    script_done(page)


def test_stop_while_the_induction_run_trains_leaves_no_error(browser):
    """Stop frees the model while the previous rerun is still inside its chunk of training: that
    rerun raised AttributeError ('NoneType' object has no attribute 'step') in the server's log.
    A server of its own, so its log is this test's alone."""
    proc, url = start_streamlit(ROOT / "app.py")
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/train")
        script_done(page)
        page.get_by_text("Press Play").wait_for(timeout=30_000)
        pick_induction(page)
        page.get_by_text("as fast as it goes", exact=True).click()
        script_done(page)
        for _ in range(4):  # each Stop lands inside a chunk of 50 steps (~2 s)
            page.get_by_role("button", name="Play").click()
            page.get_by_text(re.compile(r"step [1-9]\d*/1000")).first.wait_for(timeout=60_000)
            page.get_by_role("button", name="Stop").click()
            page.get_by_text(re.compile(r"Stopped at step \d+")).wait_for(timeout=60_000)
            script_done(page)
        page.wait_for_timeout(3000)  # a chunk still in flight would fail within this
        assert page.locator('[data-testid="stException"]').count() == 0
        page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        proc.log.seek(0)
        log = proc.log.read().decode(errors="replace")
    assert "Traceback" not in log and "Error" not in log, log[-3000:]


def test_leaving_mid_run_and_coming_back_says_what_became_of_it(server, page):
    page.goto(f"{server}/train")
    script_done(page)
    page.get_by_text("Press Play").wait_for(timeout=30_000)
    seed = page.get_by_label("seed")  # settings no other test on this server trains (runs are shared)
    seed.fill("11")
    seed.press("Enter")
    script_done(page)
    page.get_by_role("button", name="Play").click()  # 300 steps at the watching pace: ~10 s
    page.get_by_text(re.compile(r"step [1-9]\d*/300")).wait_for(timeout=60_000)
    sidebar = page.get_by_test_id("stSidebarUserContent")
    sidebar.get_by_role("link", name="Explorer").click()
    page.wait_for_url(re.compile(r"/(\?.*)?$"), timeout=30_000)
    script_done(page)
    sidebar.get_by_role("link", name="Watch it learn").click()
    page.get_by_text(re.compile(r"was training at step \d+ of 300 when you left this page")).wait_for(
        timeout=30_000
    )
    assert page.get_by_text("Press Play: 300 steps").count() == 1
    assert page.get_by_text("Traceback").count() == 0
