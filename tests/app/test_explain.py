"""Inside a model's "Where it decided" and "Which explanation?" under AppTest: the logit lens, the
logit's parts and each method's scores are the backend's own; a click on a head opens it in the lab;
the position and the baseline change the table and stay in the address; the flow-skipped note on a
long sentence; the predict-first questions answered from the numbers; bad links get a note."""

import dataclasses
import json

import numpy as np
import pytest
import torch
from streamlit.proto.WidgetStates_pb2 import WidgetState

from attention.model import catalog, lab, sentence
from attention.model.checkpoint import load_gpt2
from attention.model.explain import FLOW_MAX_TOKENS, NAMES, explain
from attention.model.lens import logit_lens, logit_parts
from tests.app.conftest import SHOW, answer, figure, session, skip, url_params
from tests.specs import decode

LONG = sentence.SENTENCE + " " + sentence.SENTENCE  # 64 tokens: more than flow takes
SHOWN = 5e-5  # the table shows 4 decimals: a tiny negative is drawn as 0, not as "−0.0000"


@pytest.fixture(scope="module")
def bundled():
    model = load_gpt2(catalog.BUNDLED_PATH)
    info = catalog.info(catalog.BUNDLED, None)
    ids, tokens = sentence.encode(info, sentence.SENTENCE, model.cfg["context_length"])
    return model, info, ids, tokens


def page(**params):
    at = session(120)
    at.switch_page("pages/model.py")
    at.query_params.update({"model": catalog.BUNDLED} | params)  # the copy model's numbers
    return at


def said(at) -> str:
    elements = [*at.markdown, *at.caption, *at.warning, *at.info, *at.text, *at.success, *at.error]
    return " ".join(e.value for e in elements).replace("\\", "")


def click_point(at, key: str, customdata: list[int]):
    """A click on a plotly chart's point (AppTest cannot click one): the chart's selection sent
    with the other widgets' state, as the browser sends it."""
    (chart,) = [c for c in at.get("plotly_chart") if c.proto.id.endswith(key)]
    states = at._tree.get_widget_states()
    state = WidgetState(id=chart.proto.id)
    selection = {"points": [{"customdata": customdata}], "point_indices": [0], "box": [], "lasso": []}
    state.string_value = json.dumps({"selection": selection})
    states.widgets.append(state)
    return at._run(states)


def answered(at):
    """Past both predict-first questions without predicting."""
    return skip(skip(at, "m_predict_attention"), "m_predict_removal")


RHO = "Spearman ρ"


def table(at):
    """The table's scores, one row per token (the ρ row, moved to the top of a long table, apart)."""
    frame = at.dataframe[0].value
    return frame.drop(index=RHO)


def rho(at):
    return at.dataframe[0].value.loc[RHO]


# --- Where it decided --------------------------------------------------------------------------


def test_the_lens_and_the_logits_parts_are_the_backends(bundled):
    model, _, ids, tokens = bundled
    at = page(view="lens").run()
    assert not at.exception and not at.error
    lens = logit_lens(model, torch.tensor([ids]))
    fig = figure(at, "<b>What the model would predict if it stopped")
    np.testing.assert_allclose(decode(fig["data"][0]["z"]), lens.final_logprobs.exp().numpy(), rtol=1e-5)
    np.testing.assert_array_equal(decode(fig["data"][1]["z"])[0], lens.commit.numpy() + 0.5)
    assert fig["layout"]["yaxis"]["ticktext"] == ["embeddings", "layer 0", "layer 1"]
    parts = logit_parts(model, torch.tensor([ids]), len(ids) - 1)
    bars = decode(figure(at, "<b>The logit, part by part")["data"][0]["x"])
    attention = (parts.heads.sum(1) + parts.attention_bias).numpy()
    expected = [parts.embeddings, attention[0], parts.mlps[0], attention[1], parts.mlps[1], parts.norm_shift]
    np.testing.assert_allclose(bars[:-1], expected, rtol=1e-5, atol=1e-6)
    heads = figure(at, "<b>Each head's direct contribution")
    np.testing.assert_allclose(decode(heads["data"][0]["z"]), parts.heads.numpy(), rtol=1e-5, atol=1e-6)
    targets = heads["data"][1]
    assert targets["customdata"][6] == [1, 2] and targets["text"][6] == f"{parts.heads[1, 2]:+.4f}"
    assert targets["hovertemplate"].startswith("head %{customdata[0]}.%{customdata[1]}: %{text}")
    assert f"(logit {parts.logit:.4f})" in said(at)
    assert f"add up to {parts.total:.4f}, which is the logit" in said(at)
    assert "Decided at" in said(at) and url_params(at)["position"] == str(len(ids) - 1)


def test_a_click_on_a_head_opens_it_in_the_lab_knocked_out():
    at = page(view="lens").run()
    at = click_point(at, "m_dla_heads", [1, 2])
    assert not at.exception
    assert at.session_state["m_view"] == "lab" and at.multiselect(key="m_ko").value == ["1.2"]
    assert url_params(at)["ko"] == "1.2" and url_params(at)["view"] == "lab"
    assert "Loss on each token" in json.dumps([json.loads(c.proto.spec) for c in at.get("plotly_chart")])


def test_the_position_picks_the_prediction_whose_logit_is_split(bundled):
    model, _, ids, _ = bundled
    at = page(view="lens", position="5").run()
    parts = logit_parts(model, torch.tensor([ids]), 5)
    assert at.selectbox(key="m_position").value == 5
    assert f"(logit {parts.logit:.4f})" in said(at)


# --- Which explanation? ------------------------------------------------------------------------


def test_the_table_is_the_backends_and_the_position_changes_it(bundled):
    model, _, ids, tokens = bundled
    at = answered(page(view="explain").run())
    assert not at.exception and not at.error
    e = explain(model, torch.tensor([ids]))
    frame = table(at)
    assert list(frame.index[:2]) == [f"0: {tokens[0]}", f"1: {tokens[1]}"] and len(frame) == len(ids)
    np.testing.assert_allclose(frame["ablation"], e.scores["ablation"], rtol=1e-6, atol=SHOWN)
    np.testing.assert_allclose(frame["attention rollout"], e.scores["rollout"], rtol=1e-6, atol=SHOWN)
    assert rho(at)["attention flow"] == pytest.approx(e.correlations["flow"]) and rho(at)["ablation"] == 1
    at = at.selectbox(key="m_position").set_value(20).run()
    e = explain(model, torch.tensor([ids]), 20)
    frame = table(at)
    assert len(frame) == 21 and url_params(at)["position"] == "20"
    np.testing.assert_allclose(frame["gradient × input"], e.scores["gradient"], rtol=1e-5, atol=SHOWN)
    chart = figure(at, "<b>Which tokens mattered")
    assert decode(chart["data"][0]["z"]).shape == (5, 21)


def test_the_baseline_is_said_changes_the_ablation_and_stays_in_the_address(bundled):
    model, _, ids, _ = bundled
    at = answered(page(view="explain").run())
    assert "replaced by the mean token embedding" in said(at)
    at = at.segmented_control(key="m_baseline").set_value("zero").run()
    e = explain(model, torch.tensor([ids]), baseline="zero")
    np.testing.assert_allclose(table(at)["ablation"], e.scores["ablation"], rtol=1e-6, atol=SHOWN)
    assert "replaced by zeros" in said(at) and url_params(at)["baseline"] == "zero"


def test_flow_is_skipped_on_a_long_sentence_and_the_page_says_so(bundled):
    _, info, _, _ = bundled
    assert len(sentence.encode(info, LONG, 128)[0]) > FLOW_MAX_TOKENS
    at = answered(page(view="explain", text=LONG).run())
    assert not at.exception
    assert "Attention flow is left out" in said(at) and f"up to {FLOW_MAX_TOKENS} tokens" in said(at)
    assert "attention flow" not in table(at).columns and "attention rollout" in table(at).columns
    at = at.selectbox(key="m_position").set_value(10).run()  # a short prefix: flow is back
    assert "attention flow" in table(at).columns and "Attention flow is left out" not in said(at)


def test_the_predictions_are_asked_first_and_answered_from_the_numbers(bundled):
    model, _, ids, tokens = bundled
    at = page(view="explain").run()
    assert not at.dataframe and at.button_group(key="m_predict_attention").options[-1] == SHOW
    e = explain(model, torch.tensor([ids]))
    same = int(np.argmax(e.scores["attention"])) == int(np.argmax(e.scores["ablation"]))
    at = answer(at, "m_predict_attention", "Yes, the same token")
    assert ("Right" if same else "Not quite") in said(at)
    assert f"ρ = {e.correlations['attention']:.2f}" in said(at)
    best = int(np.argmax(e.scores["ablation"]))
    at = answer(at, "m_predict_removal", f"{best}: {tokens[best]}")
    assert "Right" in said(at) and f"by {e.scores['ablation'][best]:.2f}" in said(at)
    assert len(table(at)) == len(ids)


def test_on_the_copy_model_the_copied_token_matters_and_the_page_names_who_agrees(bundled):
    """Inside the second copy, the token being copied (the one after the current token's earlier
    copy) is among the two the ablation says matter most; the paragraph names the methods that
    point at the ablation's top token."""
    model, _, ids, _ = bundled
    period = lab.repeat_period(ids)
    position = lab.repeat_positions(ids)[3]
    at = answered(page(view="explain", position=str(position)).run())
    ablation = table(at)["ablation"].to_numpy()
    assert position - period + 1 in np.argsort(ablation)[-2:]
    e = explain(model, torch.tensor([ids]), position)
    best = int(np.argmax(e.scores["ablation"]))
    named = {m: s for m, s in e.scores.items() if s is not None and m != "ablation"}
    agree = [NAMES[m] for m, s in named.items() if int(np.argmax(s)) == best]
    if agree:
        assert f"Pointing at the same token as the ablation: {', '.join(agree)}." in said(at)
    else:
        assert "No method puts that token first." in said(at)


@pytest.mark.parametrize(
    ("params", "note"),
    [
        ({"position": "x"}, "position='x'"),
        ({"position": "999"}, "position="),
        ({"position": "100", "text": "a b c"}, "past the sentence's last token"),
        ({"baseline": "bogus"}, "baseline='bogus'"),
    ],
)
def test_a_bad_link_gets_a_note_and_the_page_goes_on(params, note):
    at = page(view="lens", **params).run()
    assert not at.exception and note in said(at)
    assert figure(at, "<b>The logit, part by part")


def test_an_explanation_on_a_big_model_waits_in_the_heavy_work_line(monkeypatch):
    """Past HEAVY_PARAMETERS an explanation (T + 1 forwards in a batch and a backward pass) takes a
    SWEEPS slot and gives it back; the lens does not (only the sentence's view, read once)."""
    from attention import slots
    from ui.model import caches as models

    monkeypatch.setattr(models, "HEAVY_PARAMETERS", 0)
    # nothing made before: tests/app/test_lab.py's map reads the same sentence, and run first in
    # this process (pytest-xdist's order) its view, still held, went without the line
    monkeypatch.setattr(models, "_made", type(models._made)())
    asked = []
    real_ask = slots.SWEEPS.ask
    monkeypatch.setattr(slots.SWEEPS, "ask", lambda ticket: asked.append(ticket) or real_ask(ticket))
    at = page(view="lens", text="a b a b a b").run()
    assert not at.exception and len(asked) == 1  # the sentence's view (ui.model.caches.view)
    at = answered(page(view="explain", text="a b a b a b").run())
    assert not at.exception and len(asked) > 1 and slots.SWEEPS.running == 0 and len(table(at)) == 6


def test_on_a_projector_the_rows_grow_with_the_text():
    heights = {}
    for projector in (False, True):
        at = page(view="lens", **({"projector": "1"} if projector else {})).run()
        heights[projector] = [
            figure(at, title)["layout"]["height"]
            for title in ("<b>What the model would predict", "<b>The logit, part by part", "<b>Each head's")
        ]
        font = figure(at, "<b>The logit, part by part")["layout"].get("font", {"size": 14})
        assert font["size"] == (20 if projector else 14)  # 14 x 1.4 on a projector
    assert all(big > small for big, small in zip(heights[True], heights[False], strict=True))


def test_a_new_sentence_asks_the_questions_again_and_keeps_the_results_in_view():
    at = page(view="explain").run()
    at = answer(at, "m_predict_attention", "Yes, the same token")
    at = answer(at, "m_predict_removal", "16: ·Alice")
    assert len(at.dataframe) == 1
    at = at.text_input(key="m_text").set_value("a b c d e f a b c d e f").run()
    assert not at.exception
    asked = [at.button_group(key=k).value for k in ("m_predict_attention", "m_predict_removal")]
    assert asked == [None, None]  # no feedback about the old sentence's numbers
    assert not at.success and not at.error and len(table(at)) == 12


def test_a_tie_is_not_graded_the_page_says_why_and_shows_the_numbers(bundled, monkeypatch):
    """Two removals that hurt the prediction almost equally leave no single right answer: no
    question is asked, the page says so with both numbers, and the results are shown."""
    from ui.model import caches

    real = caches.explain

    def tied(model, ids, position=None, baseline="mean"):
        e = real(model, ids, position, baseline)
        drops = e.scores["ablation"].copy()
        first, second = np.argsort(-drops)[:2]
        drops[second] = drops[first] - 0.01
        return dataclasses.replace(e, scores={**e.scores, "ablation": drops})

    monkeypatch.setattr(caches, "explain", tied)
    at = page(view="explain", text="a tie: the cat sat on the mat and the dog sat").run()
    assert not at.exception
    assert "No question this time" in said(at) and "almost equally" in said(at)
    questions = [q for q in at.button_group if q.key.startswith("m_predict")]
    assert not questions and at.dataframe  # nothing graded; the numbers in view


def shakespeare(**params):
    at = session(120)
    at.switch_page("pages/model.py")
    at.query_params.update({"model": catalog.SHAKESPEARE} | params)
    return at


def test_a_sentence_in_another_language_is_said_to_be_outside_what_the_model_learned():
    korean = shakespeare(view="explain", text="당신의 여정은 한 걸음으로 시작됩니다").run()
    english = shakespeare(view="explain", text="Your journey starts with one step").run()
    assert not korean.exception and not english.exception
    assert "does not look like English" in said(korean)
    assert "does not look like English" not in said(english)


def test_the_lens_promises_a_token_in_each_cell_only_where_the_cells_hold_one():
    """At the main column's width a short sentence's cells name their top token and the caption
    says so; a long sentence's cells are too narrow, and the caption says to hover instead."""
    from attention.figures import lens as lens_figures

    short = page(view="lens", text="Your journey starts with one step").run()
    long = page(view="lens", text=" ".join(["Alice was beginning to get very tired"] * 6)).run()
    assert "Each cell names that stage's top token" in said(short)
    assert "too narrow here to name them" in said(long) and "Each cell names" not in said(long)
    texts = [t.get("texttemplate") for t in json.loads(long.get("plotly_chart")[0].proto.spec)["data"]]
    assert "%{text}" not in texts[:1]  # the lens trace writes nothing in its cells
    assert lens_figures.cells_named(3, 6, 760, tall=False) and not lens_figures.cells_named(
        3, 40, 760, tall=False
    )
