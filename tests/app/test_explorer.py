"""The Explorer page under Streamlit's AppTest: defaults, every knob, bad settings, the URL, and
the first minute of a class (own text, notes, numbers in cells, labels, the link)."""

import numpy as np
import pytest

from attention.chapter3.trace import STEPS
from attention.explorer import ExplorerConfig
from attention.explorer.config import MAX_TOKENS
from attention.explorer.query_params import to_query_params
from tests.app.conftest import (
    figure,
    figures,
    messages,
    session,
    show,
    step,
    step_figures,
    step_names,
    step_titles,
    steps_figure,
    url_params,
    z,
)
from tests.specs import decode
from ui.explorer.controls import EXAMPLES, _config_of

WIDGETS = ("text_input", "text_area", "number_input", "selectbox", "checkbox", "toggle", "radio")


def widget(at, key):
    for kind in WIDGETS:
        for element in at.get(kind):
            if element.key == key:
                return element
    raise AssertionError(f"no widget {key!r}")


def set_value(at, key, value):
    """As a learner does it: the widget changes, its callbacks run, the page reruns."""
    return widget(at, key).set_value(value).run()


def weights(at) -> np.ndarray:
    return step(at, "weights")


def test_default_view_is_the_weights_of_head_0():
    at = session().run()
    assert not at.exception
    assert step_names(at) == ["weights"]
    assert "weights (1, 2, 6, 6), head 0" in step_titles(at)


def test_defaults_render_the_books_example(app):
    at = app.run()
    assert not at.exception
    assert at.text_input(key="w_text").value == "Your journey starts with one step"
    assert step_names(at) == [name for name in STEPS if name != "dropped_weights"]  # no dropout by default
    assert all(d["z"]["dtype"] == "f4" for f in step_figures(at) for d in f["data"] if d["type"] == "heatmap")
    assert steps_figure(at)["layout"]["yaxis"]["ticktext"] == [
        "Your",
        "journey",
        "starts",
        "with",
        "one",
        "step",
    ]
    w = weights(at)
    assert w.shape == (6, 6)
    np.testing.assert_allclose(w.sum(axis=1), 1, atol=1e-6)
    assert np.all(np.triu(w, 1) == 0)  # causal by default
    assert "scores (1, 2, 6, 6), head 0" in step_titles(at)
    assert len(at.radio(key="head").options) == 2
    at = show(at, "vectors")
    out = z(figure(at, "output (1, 6, 2)"))
    np.testing.assert_allclose(out[0], [0.3190, 0.4858], atol=1e-4)  # the book's printed numbers


def test_heads_4_gives_four_heatmaps(app):
    at = set_value(app.run(), "w_d_out", 8)
    at = set_value(at, "w_heads", 4)
    assert not at.exception
    assert len(at.radio(key="head").options) == 4
    at = at.radio(key="head").set_value(3).run()
    assert "head 3" in step_titles(at)
    at = show(at, "heads")
    grid = [f for f in figures(at) if f["data"][0].get("showscale") is False]
    assert len(grid) == 1 and len(grid[0]["data"]) == 4
    assert grid[0]["data"][0]["z"]["dtype"] == "u1"  # thumbnails carry colour only


def test_all_heads_of_a_one_head_module_is_one_named_thumbnail(app):
    """The grid of one head has no title of its own: its name is its panel's (it once raised)."""
    at = show(set_value(app.run(), "w_heads", 1), "heads")
    assert not at.exception
    grid = [f for f in figures(at) if f["data"][0].get("showscale") is False]
    assert len(grid) == 1 and grid[0]["layout"]["meta"]["name"].startswith("head 0 (heatmap")


def test_causal_switch(app):
    at = app.run()
    assert np.all(np.triu(weights(at), 1) == 0)
    assert "masked_scores" in step_names(at)
    at = at.checkbox(key="w_causal").uncheck().run()
    assert not at.exception
    assert np.all(weights(at)[np.triu_indices(6, 1)] > 0)
    assert "masked_scores" not in step_names(at)


def test_dropout_in_train_mode_marks_and_scales(app):
    at = set_value(app.run(), "w_dropout", 0.5)
    at = set_value(at, "w_train", True)
    dropped, kept_w = step(at, "dropped_weights"), weights(at)
    assert "×2" in step_titles(at)
    keep = dropped > 0
    np.testing.assert_allclose(dropped[keep], kept_w[keep] * 2, rtol=1e-6)
    fig = next(f for f in step_figures(at) if f["data"][0]["name"] == "dropped_weights")
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
    at = show(app.run(), "vectors")
    at = set_value(at, "w_embedding", "random")
    at = set_value(at, "w_d_in", 5)
    assert "(1, 6, 5)" in figure(at, "x (embeddings)")["layout"]["title"]["text"]
    at = set_value(at, "w_d_out", 6)
    assert "(1, 6, 6)" in figure(at, "output")["layout"]["title"]["text"]


def test_blog_example_reproduces_the_blog(app):
    at = (
        app.run()
        .selectbox(key="w_preset")
        .select("Life is short, eat dessert first (Raschka's blog, d_v ≠ d_k)")
    )
    at = at.run()
    assert not at.exception
    np.testing.assert_allclose(
        step(at, "scores")[1], [8.5808, -7.6597, 3.2558, 1.0395, 11.1466, -0.4800], atol=1e-4
    )
    np.testing.assert_allclose(weights(at)[1], [0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458], atol=1e-4)


def test_simplified_shows_hello_shiny_sun(app):
    at = app.run().selectbox(key="w_preset").select("Hello shiny sun! (worked by hand, no weights)").run()
    assert not at.exception
    assert step_names(at) == ["scores", "weights"]  # no scaling, mask or dropout in section 3.3
    at = show(at, "vectors")
    np.testing.assert_allclose(z(figure(at, "output"))[1], [0.3990, 0.3854, 0.8610], atol=1e-4)


@pytest.mark.parametrize(
    "changes, message, shown",
    [
        (
            {"w_d_out": 10, "w_heads": 3},
            "d_out=10 is not divisible by num_heads=3; try 2 or 5 heads",
            {"w_heads": 2},
        ),
        ({"w_text": "   "}, "The text is empty", {"w_text": "Your journey starts with one step"}),
        ({"w_embedding": "random", "w_text": " ".join(["w"] * (MAX_TOKENS + 50))}, "the limit is 256", {}),
        (
            {"w_text": "my own words", "w_embedding": "book"},
            "exist only for its example sentences",
            {"w_embedding": "random"},
        ),
        (
            {"w_embedding": "custom", "w_matrix": "1, 2; x"},
            "is neither random, book nor a matrix",
            {"w_embedding": "book"},
        ),
    ],
)
def test_invalid_settings_show_the_message_and_the_value_used(app, changes, message, shown):
    """The sidebar shows what is computed, and the note says why."""
    at = app.run()
    for key, value in changes.items():
        at = set_value(at, key, value)
    assert not at.exception
    assert message in messages(at)
    assert at.warning  # the visible note
    for key, value in shown.items():
        assert widget(at, key).value == value, key
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
    params = url_params(at)
    assert {k: params[k] for k in to_query_params(config)} == to_query_params(config)
    assert params["step"] == "all"  # and the view
    assert steps_figure(at)["layout"]["yaxis"]["ticktext"] == ["the", "cat", "saw", "the", "dog"]  # repeats
    assert len(at.radio(key="head").options) == 3
    assert not messages(at)


def test_bad_query_params_are_corrected_with_a_note(app):
    app.query_params.update({"heads": "3", "d_out": "10", "dropout": "1", "seed": "abc", "variant": "gpt"})
    at = app.run()
    assert not at.exception
    text = messages(at)
    assert "dropout=1.0 must be in [0, 1)" in text and "seed='abc' is not a number" in text
    assert "variant='gpt' is not one of" in text and "not divisible by num_heads=3" in text
    assert url_params(at)["heads"] == "2" and at.number_input(key="w_heads").value == 2


def test_html_in_tokens_is_escaped(app):
    at = set_value(app.run(), "w_embedding", "random")
    at = set_value(at, "w_text", "<b>x</b> <img src=x onerror=alert(1)>")
    labels = steps_figure(at)["layout"]["yaxis"]["ticktext"]
    assert "b" in labels and all("<" not in label for label in labels)
    at = set_value(at, "w_tokenizer", "chars")
    labels = steps_figure(at)["layout"]["yaxis"]["ticktext"]
    assert "&lt;" in labels and "<" not in "".join(labels)


def test_code_and_downloads_are_offered(app):
    at = show(app.run(), "share")
    code = [c.value for c in at.code if "import torch" in c.value]
    assert code and "MultiHeadAttention(d_in=3, d_out=2, context_length=6" in code[0]
    assert any("?text=" in c.value and "step=all" in c.value for c in at.code)  # the link, with the view


@pytest.mark.parametrize("view", ["heads", "vectors", "query", "tokens", "share"])
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
    at = show(app.run(), "query")
    bar = figure(at, "weights of query “journey”")
    np.testing.assert_allclose(decode(bar["data"][0]["y"]).sum(), 1, atol=1e-6)
    at = at.selectbox(key="query").set_value(4).run()
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
    at = set_value(app.run(), "w_embedding", "random")
    at.session_state["w_text"] = text  # a URL or paste can bring more than the box's 5,000
    at = at.run()
    assert not at.exception
    assert step_names(at)
    assert all(len(label) <= 16 for label in steps_figure(at)["layout"]["yaxis"]["ticktext"])


def test_settings_survive_a_visit_to_the_learn_page(app):
    at = set_value(app.run(), "w_d_out", 8)
    at = set_value(at, "w_heads", 4)
    at = show(at, "vectors")
    at.switch_page("pages/learn.py")
    at = at.run()
    assert not at.exception
    at.switch_page("pages/explorer.py")
    at.query_params.clear()
    for key, value in at.session_state["_explorer_link"].items():  # the sidebar link carries the view
        at.query_params[key] = value
    at = at.run()
    assert not at.exception
    assert at.number_input(key="w_heads").value == 4 and len(at.radio(key="head").options) == 4
    assert at.session_state["view"] == "vectors"  # the view too


# --- the first minute of a class ---------------------------------------------------------------------


def test_typing_your_own_sentence_does_not_warn():
    """The main action switches to the seeded embedding quietly, and the sidebar says so."""
    at = session().run()
    at = set_value(at, "w_text", "the cat sat on the mat")
    assert not at.exception and not at.warning
    assert at.radio(key="w_embedding").value == "random"
    assert steps_figure(at)["layout"]["yaxis"]["ticktext"][:3] == ["the", "cat", "sat"]


def test_a_link_with_own_text_uses_the_seeded_embedding_quietly():
    at = session()
    at.query_params["text"] = "my own words"
    at = at.run()
    assert not at.warning and at.radio(key="w_embedding").value == "random"


def test_the_page_says_the_weights_are_untrained_and_links_to_trained_ones():
    """A learner must not read meaning into random weights, and finds trained ones."""
    at = session().run()
    words = " ".join(c.value for c in [*at.markdown, *at.caption])
    assert "random (seed 123), not trained" in words and "For trained heads, see" in words
    assert any(link.label == "Watch it learn" for link in at.get("page_link"))  # the page links


def test_numbers_in_cells_while_small_and_a_toggle_otherwise():
    """The book prints 4 decimals: so do small views; a large one draws colour only, on request."""
    at = session().run()
    fig = steps_figure(at)
    assert fig["data"][0]["texttemplate"] == "%{z:.4f}"  # the book's 4 decimals
    at = set_value(at, "w_text", " ".join(f"w{i}" for i in range(20)))
    assert "texttemplate" not in steps_figure(at)["data"][0]
    at = at.toggle(key="numbers").set_value(True).run()
    assert "texttemplate" in steps_figure(at)["data"][0]


def test_the_summary_is_in_words_with_the_jargon_in_its_tooltip():
    """Plain words for a learner, the shapes for the teacher."""
    at = session().run()
    summary = next(m for m in at.markdown if "tokens" in m.value and "output" in m.value)
    assert "6 tokens · 2 heads · output 6 × 2" in summary.value
    assert "T = 6" in summary.help and "head_dim" in summary.help


def test_dropout_shows_the_dropped_weights_by_default():
    """With dropout on, the step that feeds the context is the one shown first."""
    at = session().run()
    at = set_value(at, "w_dropout", 0.5)
    at = set_value(at, "w_train", True)
    assert step_names(at) == ["dropped_weights"]


def test_a_head_count_that_does_not_divide_is_shown_as_used_with_correct_plurals():
    """The note says "try 1 head", not "1 heads"."""
    at = session().run()
    at = set_value(at, "w_embedding", "random")
    at = set_value(at, "w_d_out", 1)
    at = set_value(at, "w_heads", 2)
    text = messages(at)
    assert "try 1 head, or first raise d_out to a multiple of 2 (e.g. 2)." in text, text
    assert "1 heads" not in text
    assert at.number_input(key="w_heads").value == 1


def test_simplified_attention_says_nothing_it_does_not_do():
    """No scaling, mask, heads; the causal box it shows is unticked."""
    at = session().run()
    at = at.selectbox(key="w_preset").select("Hello shiny sun! (worked by hand, no weights)").run()
    at = at.segmented_control(key="step").set_value("all").run()
    titles = step_titles(at)
    assert "head 0" not in titles and "softmax(scores)" in titles and "masked" not in titles
    summary = next(m.value for m in at.markdown if "tokens" in m.value)
    assert "head" not in summary
    assert at.checkbox(key="na_causal").value is False and at.checkbox(key="na_causal").disabled
    assert at.number_input(key="na_heads").value == 1
    captions = " ".join(c.value for c in [*at.caption, *at.markdown])
    assert "÷ √d_k" not in captions and "Hatched" not in captions and "No trainable weights" in captions


def test_scaled_scores_do_not_read_as_an_equation(app):
    """The title "scores / √2 = 1.414" read as if the scores were 1.414."""
    titles = step_titles(app.run())
    assert "scaled_scores = scores / √d_k" in titles and "d_k = 1, √d_k ≈ 1" in titles
    assert "√1 = 1" not in titles


def test_query_focus_labels_dropped_weights_and_prints_no_negative_zero():
    """After dropout the bar shows dropped_weights, named so; the table never prints −0."""
    at = session()
    config = ExplorerConfig(
        text="a b c d e f g h i j k l m n",
        embedding="random",
        d_in=4,
        d_out=4,
        heads=2,
        dropout=0.5,
        train=True,
        seed=3,
    )
    for key, value in to_query_params(config).items():
        at.query_params[key] = value
    at.query_params.update({"view": "query", "query": "13"})
    at = at.run()
    assert figure(at, "dropped_weights (after dropout) of query “n”")
    table = at.dataframe[0]
    assert table.value.index[-1] == "= context"  # 15 rows: all shown, the sum last
    shown = table.proto.styler.display_values if hasattr(table.proto, "styler") else ""
    assert "-0.0000" not in str(shown)


def test_unknown_parameters_are_ignored_silently():
    """A learning platform's utm_source is no error."""
    at = session()
    at.query_params.update({"utm_source": "moodle", "utm_medium": "course", "seed": "5"})
    at = at.run()
    assert not at.warning and at.number_input(key="w_seed").value == 5


def test_a_click_on_the_chosen_step_goes_back_to_the_default_and_a_bare_url():
    at = session().run()
    at = at.segmented_control(key="step").set_value("scores").run()
    assert url_params(at) != {}
    at = at.segmented_control(key="step").set_value(None).run()  # the chosen option clicked again
    assert not at.exception and at.segmented_control(key="step").value == "weights"
    assert url_params(at) == {}  # the opening view again: no step=weights in the address


def test_the_link_holds_the_view_and_a_link_restores_it():
    """View, step, head and query are in the URL."""
    at = session().run()
    at = set_value(at, "w_d_out", 4)
    at = at.radio(key="head").set_value(1).run()
    at = at.segmented_control(key="step").set_value("scores").run()
    params = url_params(at)
    assert params["head"] == "1" and params["step"] == "scores" and params["d_out"] == "4"
    fresh = session()
    fresh.query_params.update(params)
    fresh = fresh.run()
    assert step_names(fresh) == ["scores"] and "head 1" in step_titles(fresh)
    np.testing.assert_array_equal(step(fresh, "scores"), step(at, "scores"))


def test_the_opening_view_leaves_the_url_bare():
    """No history entry of our own on arrival; Back leaves the site."""
    at = session().run()
    assert url_params(at) == {}


def test_a_url_the_page_did_not_write_is_loaded_back_then_is_undone():
    """Back restores the previous settings (the browser reruns with the older URL)."""
    at = session().run()
    at = set_value(at, "w_seed", 9)
    assert url_params(at)["seed"] == "9"
    at.query_params.clear()  # Back to the bare opening URL
    at = at.run()
    assert at.number_input(key="w_seed").value == 123 and url_params(at) == {}


def test_editing_the_sentence_returns_the_example_box_to_your_own_settings():
    """The example box says when the settings are no longer the example's."""
    at = session().run()
    assert at.selectbox(key="w_preset").value.startswith("Your journey starts")
    at = set_value(at, "w_text", "Your journey starts with two steps")
    assert at.selectbox(key="w_preset").value == "— your own settings —"


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_a_link_to_each_example_names_that_example_in_the_example_box(index):
    """The example box of a link's first run: the example whose settings the link holds (the
    first, where two hold the same), found the slow way here, from each example's own config."""
    config = _config_of(EXAMPLES[index]).normalised()
    first = next(e for e in EXAMPLES if _config_of(e).normalised() == config)
    at = session()
    at.query_params.update(to_query_params(config))
    at = at.run()
    assert not at.exception
    assert at.selectbox(key="w_preset").value == first["name"]
    at = set_value(at, "w_seed", config.seed + 1)  # no example has it: your own settings
    assert at.selectbox(key="w_preset").value == "— your own settings —"


def test_my_matrix_starts_as_the_current_x_without_a_warning():
    """Switching to "my matrix" keeps the numbers: it starts as the x on the page."""
    at = session().run()
    before = step(at, "weights")
    at = set_value(at, "w_embedding", "custom")
    assert not at.warning
    assert at.text_area(key="w_matrix").value.startswith("0.43, 0.15, 0.89; 0.55, 0.87, 0.66")
    np.testing.assert_array_equal(step(at, "weights"), before)  # the same x, so the same numbers


def test_the_sentence_is_one_line_that_enter_applies():
    """A text input (Enter submits), not a text area (Enter adds a line)."""
    at = session().run()
    assert at.text_input(key="w_text") and not [t for t in at.text_area if t.key == "w_text"]


# --- a view control reruns only the view (an st.fragment) ----------------------------------------


def test_a_view_control_reruns_only_the_body_fragment(monkeypatch):
    """AppTest reruns the whole script on a widget change; a browser asks for the fragment alone.
    Ask as the browser does (RerunData's fragment queue): only the body (sentence, summary, view)
    is run and sent, with the new setting applied; the sidebar is not."""
    import streamlit.testing.v1.local_script_runner as runner

    at = session().run()
    assert at.text_input(key="w_text").value == "Your journey starts with one step"  # the default
    assert at.sidebar.children
    (fragment,) = list(at._fragment_storage._fragments)
    with_numbers = steps_figure(at)
    assert with_numbers["data"][0]["texttemplate"] == "%{z:.4f}"

    rerun_data = runner.RerunData
    monkeypatch.setattr(runner, "RerunData", lambda **kw: rerun_data(**kw, fragment_id_queue=[fragment]))
    at = at.toggle(key="numbers").set_value(False).run()
    assert not at.exception
    assert not at.sidebar.children  # the knobs were not run or sent again
    without_numbers = steps_figure(at)  # the view did run, with the new setting
    assert "texttemplate" not in without_numbers["data"][0]
    assert without_numbers["data"][0]["z"] == with_numbers["data"][0]["z"]  # the same trace


def test_every_view_the_url_names_has_a_button():
    from attention.explorer.query_params import VIEWS
    from ui.explorer.view_controls import VIEW_LABELS

    assert list(VIEW_LABELS) == list(VIEWS)


def test_a_views_choices_survive_a_visit_to_another_view(monkeypatch):
    """Steps on scaled_scores without numbers -> Tokens -> Steps, each a fragment rerun as the
    browser asks for it: the step and the toggle come back as they were (Streamlit forgets a
    widget a run does not draw; Tokens draws neither)."""
    import streamlit.testing.v1.local_script_runner as runner

    at = session().run()
    (fragment,) = list(at._fragment_storage._fragments)
    rerun_data = runner.RerunData
    monkeypatch.setattr(runner, "RerunData", lambda **kw: rerun_data(**kw, fragment_id_queue=[fragment]))
    at = at.segmented_control(key="step").set_value("scaled_scores").run()
    at = at.toggle(key="numbers").set_value(False).run()
    for view in ("tokens", "vectors", "steps"):
        at = at.segmented_control(key="view").set_value(view).run()
    assert not at.exception
    assert at.segmented_control(key="step").value == "scaled_scores"
    assert at.toggle(key="numbers").value is False
    assert "texttemplate" not in steps_figure(at)["data"][0]  # and the chart is drawn that way


def test_a_notes_correction_stays_while_the_view_changes(monkeypatch):
    """A link's bad value is named in a note; clicks in the view (fragment reruns of the body, as
    the browser asks for them) keep it, as the settings it explains have not changed."""
    import streamlit.testing.v1.local_script_runner as runner

    at = session(seed="abc").run()
    assert at.warning and any("seed" in t.value for t in at.text)
    (fragment,) = list(at._fragment_storage._fragments)
    rerun_data = runner.RerunData
    monkeypatch.setattr(runner, "RerunData", lambda **kw: rerun_data(**kw, fragment_id_queue=[fragment]))
    at = at.toggle(key="numbers").set_value(False).run()
    assert at.warning and any("seed" in t.value for t in at.text)
