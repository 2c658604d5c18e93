"""The Learn page under AppTest: the book's numbers, live sums, immediate feedback, and predict
before you see, and the view kept in the URL."""

import pytest

from tests.app.conftest import SHOW, answer, figures, session, skip, unescaped, url_params
from tests.specs import decode
from ui.widgets import code_block


@pytest.fixture
def learn():
    at = session()
    at.switch_page("pages/learn.py")
    return at


def everything(at):
    return at.toggle(key="learn_everything").set_value(True).run()


def text_of(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.code] + [i.value for i in at.info]
    parts += [df.value.to_string() for df in at.dataframe]
    return "\n".join(parts)


def heatmaps(at) -> dict[str, dict]:
    """Every heatmap on the page by its title."""
    return {
        f["layout"]["title"]["text"].strip("<b>/"): f
        for f in figures(at)
        if f["data"][0]["type"] == "heatmap"
    }


def test_journey_reproduces_the_book(learn):
    at = everything(learn.run())
    assert not at.exception
    page = text_of(at)
    assert "0.55·0.43 + 0.87·0.15 + 0.66·0.89 = 0.9544" in page  # a dot product term by term
    assert "0.1385·x(0) + 0.2379·x(1) + 0.2333·x(2) + 0.1240·x(3) + 0.1082·x(4) + 0.1581·x(5)" in page
    assert "context = [0.4419, 0.6515, 0.5683]" in page
    assert "1.2705, 1.8524, 1.8111, 1.0795, 0.5577" in page  # v1 scores, seed 123
    assert "width **2**" in page and "**2,360,064**" in page  # exercises 3.2 and 3.3


def test_hello_shiny_sun_and_the_hand_rounding(learn):
    at = learn.run().radio(key="learn_source").set_value("Hello shiny sun!").run()
    at = everything(at)
    assert not at.exception
    page = text_of(at)
    assert "context = [0.3990, 0.3854, 0.8610]" in page
    assert "[0.3992, 0.3858, 0.8610]" in page  # the page says why the hand-worked numbers differ


def test_switching_the_query_changes_the_worked_sums(learn):
    at = everything(learn.run())
    before = text_of(at)
    at = at.selectbox(key="learn_query").set_value(4).run()
    after = text_of(at)
    assert "z(4) = " in after and "z(1) = " not in after
    assert "0.77·0.43 + 0.25·0.15 + 0.10·0.89" in after and before != after


@pytest.mark.parametrize(
    "key, right, wrong",
    [
        ("check_ids", "6: one per token", "3: one per embedding dimension"),
        ("check_top", "1: journey", "0: Your"),
        ("check_scale", "goes toward 1", "goes toward 0"),
        ("check_mask", "0", "1 / T"),
        ("check_dropout", "0.4", "0.1"),
        (
            "check_transpose",
            "(b, num_heads, num_tokens, head_dim) = (1, 3, 6, 4)",
            "(b, num_tokens, head_dim, num_heads) = (1, 6, 4, 3)",
        ),
    ],
)
def test_self_checks_give_immediate_feedback(learn, key, right, wrong):
    at = learn.run()
    assert not at.success and not at.error
    at = answer(at, key, right)
    assert len(at.success) == 1 and at.success[0].value.startswith("Right")
    at = answer(at, key, wrong)
    assert len(at.error) == 1 and at.error[0].value.startswith("Not quite")


def test_the_two_masks_agree_and_dropout_averages_to_one(learn):
    page = text_of(everything(learn.run()))
    diff = float(page.split("Largest difference: **")[1].split("**")[0])
    assert diff < 1e-6
    sums = page.split("they do: **")[1].split("**")[0].split(", ")
    assert all(abs(float(s) - 1) < 0.1 for s in sums)


def test_own_sentence_and_bad_input(learn):
    at = learn.run().radio(key="learn_source").set_value("my own sentence").run()
    at = everything(at.text_input(key="learn_text").set_value("the cat saw the dog").run())
    assert not at.exception
    assert "nn.Embedding(4, 3)" in text_of(at)
    at = at.text_input(key="learn_text").set_value("   ").run()
    assert not at.exception and "The text is empty" in at.error[0].value


@pytest.mark.parametrize("lang, example", [("en", "The cat sat on the mat"), ("uk", "Кіт сидів на килимку")])
def test_the_own_sentence_box_starts_in_the_readers_language(learn, lang, example):
    learn.query_params["lang"] = lang
    at = learn.run().radio(key="learn_source").set_value("my own sentence").run()
    assert not at.exception and at.text_input(key="learn_text").value == example
    assert url_params(at)["text"] == example  # written out: a link opens the same sentence anywhere


def test_the_blogs_vocabulary_for_an_own_sentence(learn):
    at = learn.run().radio(key="learn_source").set_value("my own sentence").run()
    at = at.text_input(key="learn_text").set_value("Life is short, eat dessert first").run()
    assert "{'Life': 0, 'dessert': 1, 'eat': 2, 'first': 3, 'is': 4, 'short': 5}" in text_of(at)
    # a formula for every step: alone, or under its step's title in one element (ui/widgets.formulas)
    assert len(at.latex) + sum(m.value.count("$$") // 2 for m in at.markdown) == 6
    titles = [m.value.split("\n")[0] for m in at.markdown if m.value.startswith("## ")]
    assert [t[3] for t in titles] == list("123456") and not at.header  # each title in one element


def test_tags_in_a_sentence_stay_text_in_step_ones_vocabulary_and_ids(learn):
    """Step 1's title, formulas, vocabulary and ids are one element that reads HTML: the
    vocabulary is one line of a code block (ui/widgets.code_block), the ids table escapes every
    token, and no token opens a tag or closes the element's one block early."""
    at = learn.run().radio(key="learn_source").set_value("my own sentence").run()
    at = at.text_input(key="learn_text").set_value("<img src=x onerror=alert(1)> ``` </div> <div>").run()
    assert not at.exception
    (step1,) = [m.value for m in at.markdown if m.value.startswith("## 1 ·")]
    before, _, rest = step1.partition('<div class="ae-wrap">\n\n```\n')
    code, _, after = rest.partition("\n```\n\n</div>")
    assert before and after and "<" not in before  # the title, the recipe, the formulas
    assert code.startswith("vocabulary = {'1': 0, '<': 1,") and "\n" not in code  # text, in code
    assert "<" not in after.replace("\\<", "") and "| \\< | 1 |" in after  # the ids: escaped


def test_a_code_block_holds_any_line_as_text():
    """Its fence is longer than any run of backticks in the line, which stays one line."""
    for line, fence in (("a", "```"), ("x ``` y", "````"), ("`````", "``````"), ("a\nb", "```")):
        block = code_block(line)
        assert block == f'<div class="ae-wrap">\n\n{fence}\n{line.replace(chr(10), " ")}\n{fence}\n\n</div>'


# --- every matrix drawn, every question asked before its answer ---------------------------------


def test_every_step_with_a_matrix_has_its_heatmap_with_numbers(learn):
    """Scores, weights, the mask triangle, both masking methods, the dropout mask, each head."""
    maps = heatmaps(everything(learn.run()))
    titles = [
        "ω = x · xᵀ, every query",
        "α = softmax(ω), row by row",
        "ω = queries · keysᵀ",
        "The mask: 1 where a query may not look (a later key)",
        "A: multiply by tril, renormalise",
        "B: −inf before the softmax",
        "m: 1 = kept, 0 = dropped",
        "head 0",
        "head 1",
        "head 2",
    ]
    for title in titles:
        assert title in maps, (title, list(maps))
        assert "texttemplate" in maps[title]["data"][0], title  # numbers in the cells
    mask = decode(maps["The mask: 1 where a query may not look (a later key)"]["data"][0]["z"])
    assert mask.tolist() == [[float(j > i) for j in range(6)] for i in range(6)]


def test_each_question_comes_before_what_answers_it(learn):
    """Nothing that answers a question is on the page before the learner predicts."""
    at = learn.run()
    page = text_of(at)
    assert "**x** (1, 6, 3)" not in page and "α = exp(ω)/Σ" not in page
    assert "largest weight, unscaled" not in page
    assert "keys.transpose(1, 2)" not in page and "Largest difference" not in page
    assert not [t for t in heatmaps(at) if t.startswith(("A:", "head ", "m:"))]
    at = answer(at, "check_ids", "6: one per token")
    assert "**x** (1, 6, 3)" in text_of(at)
    at = skip(at, "check_top")  # or ask to see without predicting
    assert "Not quite" not in text_of(at)  # no guess judged
    assert "α = exp(ω)/Σ" in text_of(at)


def test_a_question_skipped_stays_answered_in_another_language(learn):
    """Show me without predicting is an option in the page's words: a language switch drops the
    old words from the options (the question forgets the pick), and what it showed stays shown."""
    at = skip(learn.run(), "check_ids")
    assert "(1, 6, 3)" in text_of(at)
    at = at.selectbox(key="lang").set_value("uk").run()
    assert not at.exception and at.button_group(key="check_ids").options[-1] != SHOW
    assert "(1, 6, 3)" in text_of(at)  # the matrix x, still shown


def test_a_pick_stays_picked_and_judged_in_another_language(learn):
    """A language switch changes the options' words, and Streamlit forgets a pick that is no option
    any more: the question keeps its position (questions._pick_in_these_words), so it shows the
    same option, in the new words, judged, and what it answered stays shown; and back again."""
    at = answer(learn.run(), "check_ids", "6: one per token")
    assert "(1, 6, 3)" in text_of(at) and at.success
    at = at.selectbox(key="lang").set_value("uk").run()
    question = at.button_group(key="check_ids")
    assert not at.exception and question.value == unescaped(question.options[0]) != "6: one per token"
    assert "(1, 6, 3)" in text_of(at) and at.success[0].value.startswith("Правильно.")
    at = at.selectbox(key="lang").set_value("en").run()
    assert at.button_group(key="check_ids").value == "6: one per token" and at.success


def test_options_differ_even_when_the_numbers_are_equal(learn):
    """A question of "6 | 6 | 3" asks nothing: the transpose sizes are named."""
    at = learn.run()
    ids = [o.replace("\\", "") for o in at.button_group(key="check_ids").options]  # shown escaped
    assert (
        len(set(ids)) == 4
        and ids[3] == SHOW
        and ids[0] == "6: one per token"
        and ids[1] == "6: one per vocabulary word"
    )
    transpose = at.button_group(key="check_transpose")
    assert "num_tokens" in transpose.label and all(
        "num_heads" in o.replace("\\", "") for o in transpose.options[:-1]
    )


def test_answers_reset_when_the_sentence_changes(learn):
    at = answer(learn.run(), "check_mask", "0")
    assert at.success
    at = at.radio(key="learn_source").set_value("Hello shiny sun!").run()
    assert not at.success and at.button_group(key="check_mask").value is None


def test_the_pages_sentence_and_settings_are_in_its_url(learn):
    at = learn.run().radio(key="learn_source").set_value("my own sentence").run()
    at = at.text_input(key="learn_text").set_value("the cat saw the dog").run()
    at = at.number_input(key="learn_seed").set_value(7).run()
    params = url_params(at)
    assert params == {"sentence": "own", "text": "the cat saw the dog", "seed": "7"}
    fresh = session()
    fresh.switch_page("pages/learn.py")
    fresh.query_params.update(params)
    fresh = fresh.run()
    assert fresh.text_input(key="learn_text").value == "the cat saw the dog"
    assert fresh.number_input(key="learn_seed").value == 7 and not fresh.warning


def test_dropout_shows_every_column(learn):
    """The dropout step's matrices are whole (heatmaps, all T columns)."""
    maps = heatmaps(everything(learn.run()))
    for title in ("m: 1 = kept, 0 = dropped", "train: α·m/(1−p), kept ×2", "eval: no dropout"):
        assert decode(maps[title]["data"][0]["z"]).shape == (6, 6)


def test_a_new_sentence_of_the_same_length_clears_the_pick_in_the_browser(learn):
    """The book's sentence and the default own sentence both have 6 tokens: the same question, the
    same options. The server forgetting the answer is not enough: the browser keeps showing a pick
    it is not told to clear (and a click on it changes nothing), so the reset must be sent."""
    at = answer(learn.run(), "check_mask", "0")
    assert at.success
    at = at.radio(key="learn_source").set_value("my own sentence").run()
    assert at.text_input(key="learn_text").value == "The cat sat on the mat"  # 6 tokens, as the book's
    mask = at.button_group(key="check_mask")
    assert not at.success and mask.value is None
    assert mask.proto.set_value and not mask.proto.raw_values  # the browser is told: no pick
    at = answer(at, "check_mask", "0")  # and picking it again answers
    assert at.success


def test_tags_in_a_sentence_stay_text_in_the_tables_side_by_side(learn):
    """The W and q, k, v tables travel as one element that reads HTML (ui/widgets.side_by_side):
    a learner's token reaches it escaped, never as a tag, and no row of it closes the element early."""
    at = learn.run().radio(key="learn_source").set_value("my own sentence").run()
    at = at.toggle(key="learn_everything").set_value(True).run()
    at = at.text_input(key="learn_text").set_value("<img src=x onerror=alert(1)> </div> <div>").run()
    assert not at.exception
    (step3,) = [m.value for m in at.markdown if '<div class="ae-row">' in m.value]
    above, _, tables = step3.partition('<div class="ae-row">')
    assert above.startswith("## 3 ·") and "$$" in above and "<" not in above  # title and formulas
    tables = '<div class="ae-row">' + tables
    rows = tables.split('<div class="ae-row">')[1:]
    assert len(rows) == 2 and "**W_query**" in rows[0] and "**queries**" in rows[1]
    assert tables.count("<div") == tables.count("</div>") == 8  # the layout's own, nothing more
    for row in rows:
        assert (row.count("<div"), row.count("</div>")) == (3, 4)  # its three cells, then its own end
        assert "<img" not in row
