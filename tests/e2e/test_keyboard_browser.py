"""A predict-first question by keyboard alone, in Chromium (WCAG 2.1.1): its options are pills, a
radio group to the browser. The arrow keys move the focus through the options and answer nothing
(were a move the answer, the first one would be judged); Space or Enter answers with the option in
focus."""

from playwright.sync_api import expect

from tests.e2e.conftest import script_done

Q = "check_ids"  # Learn's first predict-first question: "How many rows does x have?"
RIGHT, _, LAST = "6: one per token", "6: one per vocabulary word", "3: one per embedding dimension"


def test_arrow_keys_look_through_the_options_and_space_or_enter_answers(server, page):
    page.goto(f"{server}/learn")
    script_done(page)
    question = page.locator(f".st-key-{Q}")
    group = question.get_by_role("radiogroup")
    expect(group).to_have_accessible_name("Predict: How many rows does the embedding matrix x have?")
    options = group.get_by_role("radio")
    feedback = page.locator('[data-testid="stAlert"]').filter(has_text="Answer: ")
    options.first.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(options.nth(2)).to_be_focused()  # the focus moved, twice
    assert options.nth(2).inner_text().strip() == LAST
    page.wait_for_timeout(1_000)  # a rerun the keys would have started has begun by now
    script_done(page)
    expect(group.get_by_role("radio", checked=True)).to_have_count(0)
    assert feedback.count() == 0  # nothing judged
    assert page.locator(".st-key-learn_x").count() == 0  # (the matrix x answers it)

    page.keyboard.press("Space")
    expect(feedback).to_have_count(1, timeout=30_000)
    assert feedback.inner_text().startswith(f"Not quite. Answer: {RIGHT}")  # judged: the last option
    page.locator(".st-key-learn_x").wait_for(timeout=30_000)  # and revealed
    expect(group.get_by_role("radio", checked=True)).to_have_text(LAST)
    assert page.dialogs == []

    top = page.locator(".st-key-check_top").get_by_role("radio")  # step 2's, which key wins
    top.first.focus()
    page.keyboard.press("ArrowRight")
    expect(top.nth(1)).to_be_focused()
    page.keyboard.press("Enter")
    page.get_by_text("Right. Answer: 1: journey").wait_for(timeout=30_000)
    expect(top.nth(1)).to_be_checked()
