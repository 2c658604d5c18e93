"""A predict-first question by keyboard alone, in Chromium (WCAG 2.1.1): the arrow keys move the
choice through the options and answer nothing (each one selects the next option; were that the
answer, the first move would be judged), then Tab reaches Check and Enter answers with the option
chosen."""

from playwright.sync_api import expect

from tests.e2e.conftest import script_done

Q = "check_ids"  # Learn's first predict-first question: "How many rows does x have?"
RIGHT, _, LAST = "6: one per token", "6: one per vocabulary word", "3: one per embedding dimension"


def test_arrow_keys_look_through_the_options_and_check_answers(server, page):
    page.goto(f"{server}/learn")
    script_done(page)
    question = page.locator(f".st-key-{Q}")
    feedback = page.locator('[data-testid="stAlert"]').filter(has_text="Answer: ")
    question.locator("input[type=radio]").first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(question.locator("input:checked")).to_have_count(1)
    chosen = question.locator("label").filter(has=page.locator("input:checked")).inner_text()
    assert chosen.strip() == LAST  # the choice moved, twice
    page.wait_for_timeout(1_000)  # a rerun the keys would have started has begun by now
    script_done(page)
    assert feedback.count() == 0  # nothing judged
    assert page.locator(".st-key-learn_x").count() == 0  # (the matrix x answers it)

    page.keyboard.press("Tab")
    expect(page.locator(f".st-key-{Q}_check button")).to_be_focused()
    page.keyboard.press("Enter")
    expect(feedback).to_have_count(1, timeout=30_000)
    assert feedback.inner_text().startswith(f"Not quite. Answer: {RIGHT}")  # judged: the last option
    page.locator(".st-key-learn_x").wait_for(timeout=30_000)  # and revealed
    expect(question.locator("input:checked")).to_have_count(1)
    assert question.locator("label").filter(has=page.locator("input:checked")).inner_text().strip() == LAST
    assert page.dialogs == []
