"""The Modern attention page under AppTest: each question hides its answer until the learner
predicts, each answer's numbers are the backend's for the learner's sentence, and a bad sentence
gets a message, not a traceback."""

import numpy as np
import pytest

from attention.explorer import ExplorerConfig
from attention.lessons import modern as lesson
from tests.app.conftest import SHOW, answer, figure, figures, messages, open_page
from tests.specs import decode

QUESTIONS = ("cache", "groups", "window", "rope", "online")


@pytest.fixture
def page():
    return open_page("pages/modern.py")


def markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def answered(at):
    return at.toggle(key="modern_everything").set_value(True).run()


def config(text="the cat sat on the mat because the cat was tired", **knobs):
    return ExplorerConfig(
        text=text,
        embedding="random",
        d_in=32,
        d_out=32,
        heads=8,
        kv_groups=2,
        seed=123,
        variant="gqa",
        **knobs,
    )


def test_every_question_hides_its_answer_until_predicted(page):
    assert not page.exception
    assert not figures(page) and not page.dataframe  # nothing answered yet
    for name in QUESTIONS:
        question = page.button_group(key=f"modern_check_{name}")
        assert question.value is None and question.label.startswith("Predict: ")  # asked, unanswered
        assert question.options[-1] == SHOW  # or see the answer without a guess
    at = answer(page, "modern_check_groups", "2")
    assert not at.exception
    assert "Distinct key matrices the query heads (8) read, counted in the trace: **2**" in markdown(at)
    assert len(figures(at)) == 1  # the 8 heads' weights, the other answers still hidden


def test_every_answer_shows_the_backends_numbers(page):
    at = answered(page)
    assert not at.exception and not at.error
    assert len(figures(at)) == 6  # cache, heads, window, RoPE twice, tiles
    text = markdown(at)
    generation = lesson.kv_cache(config())
    assert f"**{generation.largest_difference:.1e}**" in text
    assert "with the cache **528**, without it **4,048**" in text  # 8 heads x sum t, sum t^2
    assert "with a window of 4: **4 layers**" in text
    shift = lesson.rope_shift(config(), 5)
    assert f"with RoPE **{shift.rope_change:.1e}**" in text and shift.rope_change < 1e-5
    assert shift.absolute_change > 0.1
    assert "T × tile = **44**, where chapter 3 holds T × T = **121**" in text


def test_the_window_slider_bands_the_weights(page):
    at = answered(page)
    at = at.slider(key="modern_window").set_value(2).run()
    weights = decode(figure(at, "<b>Head 0's weights, window 2")["data"][0]["z"])
    back = np.arange(11)[:, None] - np.arange(11)[None, :]
    assert (weights[back >= 2] == 0).all() and (weights[(back >= 0) & (back < 2)] > 0).all()
    assert "with a window of 2: **10 layers**" in markdown(at)


def test_online_tiles_table_follows_the_tile_and_query(page):
    at = answered(page)
    at = at.slider(key="modern_tile").set_value(3).run()
    at = at.selectbox(key="modern_q").set_value(10).run()
    table = at.dataframe[-1].value
    expected = lesson.online(config(tile=3), 10).tiles
    assert list(table["keys"]) == ["0–2", "3–5", "6–8", "9–10"]
    assert list(table["running sum l"]) == list(expected["running sum l"])
    assert table["old sum rescaled by"].iloc[0] == "— (none yet)"  # nothing before the first tile
    rescaled = [float(v) for v in table["old sum rescaled by"].iloc[1:]]
    assert all(0 < v <= 1 for v in rescaled)  # exp(m_old - m_new): a new maximum shrinks the sum
    at = at.selectbox(key="modern_q").set_value(0).run()  # the first query: later tiles all masked
    assert list(at.dataframe[-1].value["largest score in the tile"])[1:] == ["all masked"] * 3


@pytest.mark.parametrize(
    "text, note",
    [
        ("", "example sentence"),
        ("!!! ???", "example sentence"),
        ("hello", "is one token; this page needs two or more"),
        (" ".join(["word"] * 40), None),
        ("<script>alert(1)</script> **bold** $x$", None),
    ],
)
def test_bad_sentences_get_a_message_not_a_traceback(page, text, note):
    at = page.text_input(key="modern_text").set_value(text).run()
    at = answered(at)
    assert not at.exception
    if note:
        assert note in messages(at)
    assert len(figures(at)) == 6  # every answer drawn


def test_a_long_sentence_is_cut_with_a_word_not_a_warning(page):
    at = answered(page.text_input(key="modern_text").set_value(" ".join(["word"] * 40)).run())
    assert "this page uses its first 16" in at.info[0].value and not at.warning


def test_an_unusable_sentence_keeps_the_pages_embedding(page):
    at = answered(page.text_input(key="modern_text").set_value("!!!").run())
    table = next(d.value for d in at.dataframe if "new token" in d.value.columns)
    assert list(table["new token"]) == ["Your", "journey", "starts", "with", "one", "step"]
    assert "Distinct key matrices the query heads (8) read, counted in the trace: **2**" in markdown(at)


def test_tiles_drawn_as_lines_on_the_weights(page):
    at = answered(page).slider(key="modern_tile").set_value(3).run()
    tiles = figure(at, "<b>Head 0's weights, keys in tiles of 3")
    lines = [shape["x0"] for shape in tiles["layout"]["shapes"]]
    assert lines == [2.5, 5.5, 8.5]  # 11 keys: 0-2, 3-5, 6-8, 9-10
    online = decode(tiles["data"][0]["z"])
    plain = lesson.kv_cache(config()).full.weights[0, 0].numpy()  # chapter 3's causal weights
    np.testing.assert_allclose(online, plain, atol=1e-6)
