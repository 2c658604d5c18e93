"""The Learn page in headless Chromium: predict first, then the live numbers appear."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, script_done


def test_learn_page_predicts_then_shows_and_screenshot(server, page):
    page.goto(f"{server}/learn")
    script_done(page)
    page.get_by_text("Exercise 3.3").wait_for(timeout=30_000)
    assert page.get_by_text("context = [0.4419, 0.6515, 0.5683]").count() == 0  # not before predicting
    question = page.get_by_role("radiogroup").filter(has_text="0: Your")  # step 2's: which key
    question.get_by_text("1: journey", exact=True).click()  # (the tables of step 3 name it too)
    page.get_by_text("Right. Answer: 1: journey").wait_for(timeout=30_000)
    page.get_by_text("context = [0.4419, 0.6515, 0.5683]").wait_for(timeout=30_000)
    page.get_by_text("goes toward 1").click()
    page.get_by_text("Right. Answer: goes toward 1").wait_for(timeout=30_000)
    script_done(page)  # the run that wrote "Right" draws the answer's table too
    page.wait_for_timeout(500)  # the table is a canvas: it paints after the run
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "learn.png"))
    assert (ARTIFACTS / "learn.png").stat().st_size > 30_000
    assert page.dialogs == []


def test_a_new_sentence_of_the_same_length_starts_unanswered(server, page):
    """The book's sentence and "The cat sat on the mat" have 6 tokens each: the same question and
    options. After the switch no option shows picked, and the old one answers when pressed."""
    page.goto(f"{server}/learn")
    script_done(page)
    question = page.get_by_role("radiogroup").filter(has_text="1 / T")  # the causal mask's check
    question.get_by_text("0", exact=True).click()
    page.get_by_text("Right. Answer: 0").wait_for(timeout=30_000)
    page.get_by_text("my own sentence", exact=True).click()
    page.wait_for_function("() => location.search.includes('sentence=own')", timeout=30_000)
    script_done(page)  # the rerun the click started, not the idle page before it (a busy machine)
    expect(page.get_by_text("Right. Answer: 0")).to_have_count(0, timeout=30_000)
    picked = question.get_by_role("radio", checked=True)
    expect(picked).to_have_count(0, timeout=30_000)  # the old pick is gone
    question.get_by_text("0", exact=True).click()
    page.get_by_text("Right. Answer: 0").wait_for(timeout=30_000)


def boxes(page, *selectors: str) -> list[dict]:
    """Each selector's first element's box on the page (x, y, width, height)."""
    return [page.locator(s).first.bounding_box() for s in selectors]


def test_rows_sit_side_by_side_on_a_screen_and_stack_on_a_phone(server, browser):
    """ui/widgets.row: the two matrices each take half the column at 1366 px, one under the other
    on a phone; the sentence box sits beside its seed on a screen and above it on a 430 px phone."""
    pairs = (".st-key-learn_qk", ".st-key-learn_qk_weights")
    sentence = (".st-key-learn_text", ".st-key-learn_seed")
    for width, side_by_side in ((1366, True), (430, False)):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        try:
            page.goto(f"{server}/learn")
            page.wait_for_selector(".st-key-learn_qk_weights .js-plotly-plot svg.main-svg", timeout=60_000)
            script_done(page)
            for left, right in (boxes(page, *pairs), boxes(page, *sentence)):
                if side_by_side:
                    assert abs(left["y"] - right["y"]) < 2 and right["x"] >= left["x"] + left["width"]
                else:
                    assert right["y"] >= left["y"] + left["height"]
            (qk,) = boxes(page, pairs[0])
            main = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
            if side_by_side:  # halves of the column, as st.columns(2) made them
                assert 0.4 * main["width"] < qk["width"] < 0.5 * main["width"]
        finally:
            context.close()
