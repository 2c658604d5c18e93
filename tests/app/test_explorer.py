"""The Explorer page under Streamlit's AppTest: defaults, every knob, bad settings, the URL."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention import ExplorerConfig
from attention.config import MAX_TOKENS
from attention.query_params import to_query_params
from tests.app.conftest import (
    APP,
    decode,
    figure,
    figures,
    messages,
    show,
    step,
    step_names,
    step_titles,
    steps_figure,
    z,
)


def set_value(at, key, value):
    at.session_state[key] = value
    return at.run()


def weights(at) -> np.ndarray:
    return step(at, "weights")


def test_default_view_is_the_weights_of_head_0():
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert step_names(at) == ["weights"]
    assert "weights (1, 2, 6, 6), head 0" in step_titles(at)


def test_defaults_render_the_books_example(app):
    at = app.run()
    assert not at.exception
    assert at.text_area(key="w_text").value == "Your journey starts with one step"
    fig = steps_figure(at)
    assert step_names(at) == ["scores", "scaled_scores", "masked_scores", "weights"]
    assert all(d["z"]["dtype"] == "f4" for d in fig["data"] if d["type"] == "heatmap")  # float32, not lists
    assert fig["layout"]["yaxis"]["ticktext"] == ["Your", "journey", "starts", "with", "one", "step"]
    w = weights(at)
    assert w.shape == (6, 6)
    np.testing.assert_allclose(w.sum(axis=1), 1, atol=1e-6)
    assert np.all(np.triu(w, 1) == 0)  # causal by default
    assert "scores (1, 2, 6, 6), head 0" in step_titles(at)
    assert len(at.radio(key="head").options) == 2
    at = show(at, "Vectors")
    out = z(figure(at, "output (1, 6, 2)"))
    np.testing.assert_allclose(out[0], [0.3190, 0.4858], atol=1e-4)  # the book's printed numbers


def test_heads_4_gives_four_heatmaps(app):
    at = app.run()
    at.session_state["w_d_out"] = 8
    at = set_value(at, "w_heads", 4)
    assert not at.exception
    assert len(at.radio(key="head").options) == 4
    at = set_value(at, "head", 3)
    assert "head 3" in step_titles(at)
    at = show(at, "All heads")
    grid = [f for f in figures(at) if f["data"][0].get("showscale") is False]
    assert len(grid) == 1 and len(grid[0]["data"]) == 4
    assert grid[0]["data"][0]["z"]["dtype"] == "u1"  # thumbnails carry colour only


def test_causal_switch(app):
    at = app.run()
    assert np.all(np.triu(weights(at), 1) == 0)
    assert "masked_scores" in step_names(at)
    at = set_value(at, "w_causal", False)
    assert not at.exception
    assert np.all(weights(at)[np.triu_indices(6, 1)] > 0)
    assert "masked_scores" not in step_names(at)


def test_dropout_in_train_mode_marks_and_scales(app):
    at = app.run()
    at.session_state["w_dropout"] = 0.5
    at = set_value(at, "w_train", True)
    fig = steps_figure(at)
    dropped, kept_w = step(at, "dropped_weights"), weights(at)
    assert "×2" in step_titles(at)
    keep = dropped > 0
    np.testing.assert_allclose(dropped[keep], kept_w[keep] * 2, rtol=1e-6)
    marks = [d for d in fig["data"] if d.get("name") == "dropped"]
    assert marks and len(decode(marks[0]["x"])) == int(np.sum(~keep & (np.tril(np.ones((6, 6))) > 0)))


@pytest.mark.parametrize(
    "key, value",
    [
        ("w_seed", 7),
        ("w_variant", "wrapper"),
        ("w_variant", "v2"),
        ("w_bias", True),
        ("w_tokenizer", "chars"),
        ("w_embedding", "random"),
    ],
)
def test_each_knob_changes_the_numbers(app, key, value):
    at = app.run()
    before = step(at, "scores")
    at = set_value(at, key, value)
    assert not at.exception, at.exception
    after = step(at, "scores")
    assert after.shape != before.shape or not np.allclose(after, before)


def test_d_in_and_d_out_change_the_shapes(app):
    at = show(app.run(), "Vectors")
    at = set_value(at, "w_embedding", "random")
    at = set_value(at, "w_d_in", 5)
    assert "(1, 6, 5)" in figure(at, "x (embeddings)")["layout"]["title"]["text"]
    at = set_value(at, "w_d_out", 6)
    assert "(1, 6, 6)" in figure(at, "output")["layout"]["title"]["text"]


def test_blog_preset_reproduces_document_001(app):
    at = app.run()
    at.selectbox(key="w_preset").select("Life is short, eat dessert first (document 001)").run()
    assert not at.exception
    scores = step(at, "scores")
    np.testing.assert_allclose(scores[1], [8.5808, -7.6597, 3.2558, 1.0395, 11.1466, -0.4800], atol=1e-4)
    np.testing.assert_allclose(weights(at)[1], [0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458], atol=1e-4)


def test_simplified_shows_hello_shiny_sun(app):
    at = app.run()
    at.selectbox(key="w_preset").select("Hello shiny sun! (document 000)").run()
    assert not at.exception
    assert step_names(at) == ["scores", "weights"]  # no scaling, mask or dropout in section 3.3
    at = show(at, "Vectors")
    np.testing.assert_allclose(z(figure(at, "output"))[1], [0.3990, 0.3854, 0.8610], atol=1e-4)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"w_d_out": 10, "w_heads": 3}, "d_out=10 is not divisible by num_heads=3; try 2 or 5 heads"),
        ({"w_text": "   "}, "The text is empty"),
        ({"w_text": " ".join(["w"] * (MAX_TOKENS + 50)), "w_embedding": "random"}, "the limit is 256"),
        ({"w_text": "my own words"}, "only for the documents' sentences"),
        ({"w_embedding": "custom", "w_matrix": "1, 2; x"}, "is neither random, book nor a matrix"),
    ],
)
def test_invalid_settings_show_the_message_and_keep_the_page(app, changes, message):
    at = app.run()
    for key, value in changes.items():
        at.session_state[key] = value
    at = at.run()
    assert not at.exception
    assert message in messages(at)
    assert at.warning  # the visible note
    assert len(step_names(at)) >= 2  # the rest of the page still renders, with the values used instead


def test_query_params_round_trip(app):
    config = ExplorerConfig(
        text="the cat saw the dog",
        embedding="random",
        d_in=5,
        variant="wrapper",
        d_out=3,
        heads=3,
        dropout=0.25,
        train=True,
        bias=True,
        seed=42,
        causal=False,
    )
    for key, value in to_query_params(config).items():
        app.query_params[key] = value
    at = app.run()
    assert not at.exception
    assert {
        k: at.query_params[k][0] if isinstance(at.query_params[k], list) else at.query_params[k]
        for k in at.query_params
    } == to_query_params(config)
    fig = steps_figure(at)
    assert fig["layout"]["yaxis"]["ticktext"] == ["the", "cat", "saw", "the", "dog"]  # repeats keep rows
    assert len(at.radio(key="head").options) == 3
    assert not messages(at)


def test_bad_query_params_are_corrected_with_a_note(app):
    app.query_params.update({"heads": "3", "d_out": "10", "dropout": "1", "seed": "abc", "variant": "gpt"})
    at = app.run()
    assert not at.exception
    text = messages(at)
    assert "dropout=1.0 must be in [0, 1)" in text and "seed='abc' is not a number" in text
    assert "variant='gpt' is not one of" in text and "not divisible by num_heads=3" in text
    assert at.query_params["heads"] in ("2", ["2"])


def test_html_in_tokens_is_escaped(app):
    at = app.run()
    at.session_state["w_embedding"] = "random"
    at = set_value(at, "w_text", "<b>x</b> <img src=x onerror=alert(1)>")
    labels = steps_figure(at)["layout"]["yaxis"]["ticktext"]
    assert "b" in labels and all("<" not in label for label in labels)
    at = set_value(at, "w_tokenizer", "chars")
    labels = steps_figure(at)["layout"]["yaxis"]["ticktext"]
    assert "&lt;" in labels and "<" not in "".join(labels)


def test_code_and_downloads_are_offered(app):
    at = show(app.run(), "Share, code & downloads")
    code = [c.value for c in at.code if "import torch" in c.value]
    assert code and "MultiHeadAttention(d_in=3, d_out=2, context_length=6" in code[0]
    assert any(c.value.startswith("?text=") for c in at.code)


@pytest.mark.parametrize("view", ["All heads", "Vectors", "Query focus", "Tokens", "Share, code & downloads"])
def test_every_view_renders_with_dropout_and_repeated_tokens(app, view):
    config = ExplorerConfig(
        text="the cat saw the dog", embedding="random", d_in=4, d_out=4, heads=2, dropout=0.5, train=True
    )
    for key, value in to_query_params(config).items():
        app.query_params[key] = value
    at = show(app.run(), view)
    assert not at.exception
    assert not messages(at)


def test_query_focus_sums_the_weighted_values(app):
    at = show(app.run(), "Query focus")
    bar = figure(at, "weights of query “journey”")
    weights_row = decode(bar["data"][0]["y"])
    np.testing.assert_allclose(weights_row.sum(), 1, atol=1e-6)
    at = set_value(at, "query", 4)
    assert figure(at, "weights of query “one”")
    table = at.dataframe[0].value
    np.testing.assert_allclose(table.iloc[:-1].sum().to_numpy(), table.iloc[-1].to_numpy(), atol=1e-6)


@pytest.mark.parametrize(
    "text",
    [
        "x" * 10_000,  # one huge word: cut to 5,000 characters, label cut to 16
        "I ❤️ 🍕 👩‍💻 مرحبا بالعالم 我喜欢你 e\u0301\u0301 zero\u200bwidth \x07bell",
        "[x](javascript:alert(1)) **bold** <script>alert(1)</script>",
        "\u200b\u200b",  # invisible only: no tokens
    ],
)
def test_odd_text_never_raises(app, text):
    at = app.run()
    at.session_state["w_embedding"] = "random"
    at = set_value(at, "w_text", text)
    assert not at.exception
    assert step_names(at)
    assert all(len(label) <= 16 for label in steps_figure(at)["layout"]["yaxis"]["ticktext"])


def test_settings_survive_a_visit_to_the_learn_page(app):
    at = app.run()
    at.session_state["w_d_out"] = 8
    at = set_value(at, "w_heads", 4)
    at.switch_page("pages/learn.py")
    at = at.run()
    assert not at.exception
    at.switch_page("pages/explorer.py")
    at = at.run()
    assert not at.exception
    assert at.number_input(key="w_heads").value == 4 and len(at.radio(key="head").options) == 4
