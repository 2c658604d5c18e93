"""The Learn page's worked values, straight from attention.lessons.chapter3."""

import pytest
import torch

from attention.errors import ConfigError
from attention.explorer import ExplorerConfig, run
from attention.lessons import chapter3 as lesson
from tests import book

JOURNEY = ExplorerConfig(variant="v1")
HELLO = ExplorerConfig(text="Hello shiny sun!", variant="v1")


def test_worked_query_journey():
    work = lesson.worked_query(JOURNEY, 1)
    assert work.dot_terms[0] == "0.55·0.43 + 0.87·0.15 + 0.66·0.89"
    assert [round(s, 4) for s in work.scores] == book.JOURNEY_SCORES
    assert [round(w, 4) for w in work.weights] == book.JOURNEY_WEIGHTS
    assert work.weights == pytest.approx([e / work.exp_sum for e in work.exps], abs=1e-6)
    assert [round(v, 4) for v in work.context] == book.JOURNEY_CONTEXT
    assert work.context == pytest.approx(
        [sum(col) for col in zip(*work.context_terms, strict=True)], abs=1e-6
    )
    assert work.top_key == 1


def test_hello_shiny_sun_exact():
    assert [round(v, 4) for v in lesson.worked_query(HELLO, 1).context] == book.HELLO_CONTEXT_EXACT


def test_unscaled_softmax_saturates_and_scaled_does_not():
    rows = lesson.scaling_demo()
    unscaled = [r["largest weight, unscaled"] for r in rows]
    assert unscaled == sorted(unscaled) and unscaled[-1] > 0.9
    assert all(r["largest weight, scaled"] < 0.5 for r in rows)


def test_causal_two_ways_agree():
    two = lesson.causal_two_ways(JOURNEY)
    torch.testing.assert_close(two["renormalised"], two["minus_inf"])
    assert (torch.triu(two["minus_inf"], 1) == 0).all()


def test_dropout_rows_average_to_one():
    demo = lesson.dropout_demo(JOURNEY, 0.5, draws=4000)
    assert demo["trace"].dropout_mask is not None and demo["eval"].dropout_mask is None
    torch.testing.assert_close(demo["mean_row_sums"], torch.ones(6), atol=0.06, rtol=0)


def test_multihead_shapes_and_exercises():
    shapes = dict(lesson.multihead_shapes(1, 6, 3, 12, 4))
    assert shapes["keys.transpose(1, 2)"] == "(1, 4, 6, 3)"
    assert shapes["attn_scores = queries @ keys.transpose(2, 3)"] == "(1, 4, 6, 6)"
    out = lesson.exercise_3_2()
    assert out.shape == (2, 6, 2)
    torch.testing.assert_close(out[0, 0], torch.tensor(book.EXERCISE_3_2_FIRST_ROW), atol=1e-4, rtol=0)
    assert lesson.parameter_count() == book.GPT2_SMALL_MHA_PARAMETERS


def test_the_lessons_config_book_vectors_or_a_seeded_embedding():
    book_config = lesson.sentence_config("Your journey starts with one step", 123, own=False)
    assert (book_config.variant, book_config.d_in, book_config.d_out) == ("v1", 3, 2)
    assert book_config.embedding == "book"
    own = lesson.sentence_config("the cat saw the dog", 7, own=True)
    assert own.embedding == "random" and own.seed == 7
    with pytest.raises(ConfigError, match="empty"):
        lesson.sentence_config("   ", 123, own=True)


def test_a_long_sentence_is_cut_to_its_first_tokens_and_a_short_one_kept():
    config = lesson.sentence_config(" ".join("abcdefghijklmnop"), 1, own=True)
    short = lesson.first_tokens(config)
    assert short.tokens.texts == tuple("abcdefghijkl") and len(short.tokens) == lesson.MAX_TOKENS
    assert lesson.first_tokens(JOURNEY) is JOURNEY


def test_trainable_weights_are_the_modules_that_made_the_trace():
    weights = lesson.trainable_weights(JOURNEY)
    assert list(weights) == ["W_query", "W_key", "W_value"]
    assert all(w.shape == (3, 2) for w in weights.values())
    x = torch.tensor(book.INPUTS)  # (6, 3)
    trace = run(JOURNEY)
    torch.testing.assert_close(x @ torch.from_numpy(weights["W_query"]), trace.queries[0, 0])
    torch.testing.assert_close(x @ torch.from_numpy(weights["W_key"]), trace.keys[0, 0])
