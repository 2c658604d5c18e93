"""Inside a model's lab under AppTest: each experiment, the head picker and mode, the importance
maps (ablation and patching, exact and estimated, preset or typed corrupted sentence), the link,
the exports; every number the backend's; bad input said and the page going on."""

import json

import numpy as np
import pytest

from attention.model import catalog, lab, sentence
from attention.model.attribution import attribution_map
from attention.model.checkpoint import load_gpt2
from attention.model.interventions import Metric, ablation_map, patching_map
from tests.app.conftest import figure, session, url_params
from tests.specs import decode


@pytest.fixture(scope="module")
def bundled():
    return load_gpt2(catalog.BUNDLED_PATH), catalog.info(catalog.BUNDLED, catalog.BUNDLED_PATH)


def page(**params):
    at = session(120)
    at.switch_page("pages/model.py")
    at.query_params.update({"model": catalog.BUNDLED, "view": "lab"} | params)  # the copy model's numbers
    return at


def words(at) -> str:
    return " ".join(m.value for m in at.markdown).replace("\\", "")


def said(at) -> str:
    return " ".join(m.value for m in [*at.warning, *at.info, *at.text, *at.error, *at.caption]).replace(
        "\\", ""
    )


def loss_lines(at) -> dict[str, np.ndarray]:
    fig = figure(at, "Loss on each token")
    return {d["name"]: decode(d["y"]) for d in fig["data"]}


def test_the_lab_opens_with_no_head_picked_and_says_what_to_do():
    at = page().run()
    assert not at.exception and at.multiselect(key="m_ko").value == []
    assert "Pick at least one head to knock out" in said(at)
    assert [b.label for b in at.button] == list(lab.EXPERIMENTS.values())
    assert {"Heads 1.0, 1.1, 1.2, 1.3", "Heads 0.1, 0.2", "Heads 0.0, 0.1, 0.2, 0.3"} <= {
        c.value for c in at.caption
    }


@pytest.mark.parametrize("experiment", list(lab.EXPERIMENTS))
def test_each_experiment_is_one_click_and_shows_the_models_own_numbers(bundled, experiment):
    model, info = bundled
    at = page(text="a b c").run()
    at = at.button(key=f"m_exp_{experiment}").click().run()
    assert not at.exception
    assert at.text_input(key="m_text").value == sentence.SENTENCE  # the stage: a repeated phrase
    picked = at.multiselect(key="m_ko").value
    ids, tokens = sentence.encode(info, sentence.SENTENCE, 128)
    expected = lab.knockout(model, info, ids, tokens, [tuple(map(int, h.split("."))) for h in picked])
    lines = loss_lines(at)
    np.testing.assert_allclose(lines["knocked out"][1:], expected.loss["after"][1:], rtol=1e-5)
    np.testing.assert_allclose(lines["untouched"][1:], expected.loss["before"][1:], rtol=1e-5)
    assert "went from 0.07 to" in words(at)
    # the next tokens, untouched | knocked out, are the model's own
    bars = figure(at, "Next token: untouched | knocked out")
    assert decode(bars["data"][1]["x"])[0] == pytest.approx(expected.next["after"][0][2], rel=1e-5)
    # every head's attention, knocked out and untouched
    grids = [
        f
        for f in (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
        if f["data"][0]["type"] == "heatmap"
    ]
    assert len(grids) == 2


def test_picking_heads_and_mean_mode_reach_the_numbers_and_the_link(bundled):
    model, info = bundled
    at = page().run()
    at = at.multiselect(key="m_ko").set_value(["0.2", "1.3"]).run()
    at = at.segmented_control(key="m_mode").set_value("mean").run()
    assert not at.exception
    ids, tokens = sentence.encode(info, sentence.SENTENCE, 128)
    expected = lab.knockout(model, info, ids, tokens, ((0, 2), (1, 3)), "mean")
    np.testing.assert_allclose(loss_lines(at)["knocked out"][1:], expected.loss["after"][1:], rtol=1e-5)
    assert "heads 0.2 and 1.3 replaced by their mean over this sentence" in words(at)
    params = url_params(at)
    assert params["view"] == "lab" and params["ko"] == "0.2,1.3" and params["mode"] == "mean"
    fresh = page(**params).run()  # the link opens the same knockout
    assert fresh.multiselect(key="m_ko").value == ["0.2", "1.3"]
    assert fresh.segmented_control(key="m_mode").value == "mean"
    np.testing.assert_allclose(loss_lines(fresh)["knocked out"], loss_lines(at)["knocked out"])


def test_the_watch_it_learn_link_opens_its_head_knocked_out():
    at = page(view="lab", ko="1.0", layer="1", head="0", text="Alice was Alice was").run()
    assert not at.exception and at.multiselect(key="m_ko").value == ["1.0"]
    assert "head 1.0 zeroed" in words(at)


@pytest.mark.parametrize(
    "ko, message",
    [
        ("9.9", "Head 9.9 does not exist: the model's layers are 0–1, and each has heads 0–3"),
        ("abc", "'abc' is not a head"),
        ("<script>alert(1)</script>", "is not a head"),
        (",,,", "No head given"),
    ],
)
def test_a_bad_head_in_the_link_is_said_and_nothing_is_knocked_out(ko, message):
    at = page(ko=ko).run()
    assert not at.exception and message in said(at)
    assert at.multiselect(key="m_ko").value == []


@pytest.mark.parametrize(
    "params, message",
    [
        ({"text": " "}, "The text is empty"),
        ({"text": "word " * 300}, "this page shows at most 128"),
        ({"mode": "half"}, "mode='half' is not one of zero, mean"),
        ({"map": "x", "view": "map"}, "map='x' is not one of"),
    ],
)
def test_bad_input_in_the_lab_gets_a_clear_message_and_the_page_goes_on(params, message):
    at = page(ko="1.0", **params).run()
    assert not at.exception and message in said(at)


def map_z(at) -> np.ndarray:
    fig = figure(at, "Loss change" if at.segmented_control(key="m_map").value == "ablation" else "Recovery")
    return decode(fig["data"][0]["z"])


def test_the_ablation_map_is_the_backends_exact_map_then_its_estimate(bundled):
    model, info = bundled
    ids, _ = sentence.encode(info, sentence.SENTENCE, 128)
    metric = Metric(positions=lab.repeat_positions(ids))
    at = page(view="map").run()
    assert not at.exception
    np.testing.assert_allclose(map_z(at), ablation_map(model, ids, metric).values, rtol=1e-5, atol=1e-6)
    assert "Knocked out alone, the heads that change the loss most: 0.2 (+5.71 nats)" in words(at)
    at = at.segmented_control(key="m_method").set_value("attribution").run()
    np.testing.assert_allclose(map_z(at), attribution_map(model, ids, metric).values, rtol=1e-5, atol=1e-6)
    assert "estimated by attribution" in words(at)
    assert url_params(at)["method"] == "attribution"
    at = at.segmented_control(key="m_method").set_value("exact").run()
    at = at.segmented_control(key="m_mode").set_value("mean").run()  # the knockout's own mode, here too
    np.testing.assert_allclose(
        map_z(at), ablation_map(model, ids, metric, "mean").values, rtol=1e-5, atol=1e-6
    )


def test_the_patching_map_uses_the_twin_or_a_typed_sentence_of_the_same_length(bundled):
    model, info = bundled
    ids, _ = sentence.encode(info, sentence.SENTENCE, 128)
    metric = Metric(positions=lab.repeat_positions(ids))
    at = page(view="map").run().segmented_control(key="m_map").set_value("patching").run()
    assert not at.exception
    twin = lab.corrupted_twin(info, ids)
    np.testing.assert_allclose(map_z(at), patching_map(model, ids, twin, metric).values, rtol=1e-4, atol=1e-5)
    assert "Corrupted: Alice" in said(at)
    typed = sentence.SENTENCE.replace("Alice was beginning", "Bob was starting", 1)
    corrupted, _ = sentence.encode(info, typed, 128)
    assert len(corrupted) == len(ids)
    at = at.text_input(key="m_corrupted").set_value(typed).run()
    np.testing.assert_allclose(
        map_z(at), patching_map(model, ids, corrupted, metric).values, rtol=1e-4, atol=1e-5
    )
    assert url_params(at)["corrupted"] == typed and url_params(at)["map"] == "patching"
    at = at.text_input(key="m_corrupted").set_value("Too short.").run()
    assert not at.exception
    assert f"The corrupted sentence has 3 tokens and yours has {len(ids)}" in said(at)


def test_a_sentence_that_does_not_repeat_asks_for_a_corrupted_one():
    at = page(view="map", map="patching", text="The cat sat on the mat").run()
    assert not at.exception and "Nothing in this sentence repeats" in said(at)


def test_the_exports_hold_the_map(bundled):
    at = page(view="map").run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["The map (CSV)", "The map and its inputs (JSON)"]


def test_an_exact_map_of_a_big_model_waits_in_the_heavy_work_line(bundled, monkeypatch):
    """Past HEAVY_PARAMETERS an exact map takes a SWEEPS slot (the line shown); the estimate does not."""
    from attention import slots
    from ui.model import caches as models

    monkeypatch.setattr(models, "HEAVY_PARAMETERS", 0)
    monkeypatch.setattr(slots.SWEEPS, "capacity", 1)
    asked = []
    real_ask = slots.SWEEPS.ask
    monkeypatch.setattr(slots.SWEEPS, "ask", lambda ticket: asked.append(ticket) or real_ask(ticket))
    at = page(view="map", text="a b a b a b").run()
    assert not at.exception and asked and slots.SWEEPS.running == 0  # asked, then gave it back
    asked.clear()
    at.segmented_control(key="m_method").set_value("attribution").run()
    assert not asked


def test_no_clear_role_gets_a_sentence_not_a_button(monkeypatch):
    from ui.model import caches as models

    monkeypatch.setattr(
        models,
        "roles",
        lambda source, gpt, info, probes="random": {
            r: np.zeros((2, 4)) for r in ("previous", "first", "duplicate", "induction")
        },
    )
    at = page().run()
    assert not at.exception
    assert [b.label for b in at.button] == ["Knock out every head of layer 0"]
    assert "No head of this model has a clear induction role" in said(at)


def test_a_one_token_sentence_says_what_a_knockout_needs():
    at = page(ko="1.0", text="Hi").run()
    assert not at.exception and "A knockout needs at least 2 tokens" in said(at)


@pytest.mark.parametrize(
    "key, value", [("m_mode", "mean"), ("m_map", "patching"), ("m_method", "attribution")]
)
def test_a_click_on_the_chosen_option_keeps_it(key, value):
    at = page(view="lab" if key == "m_mode" else "map", ko="1.0").run()
    at = at.segmented_control(key=key).set_value(value).run()
    at = at.segmented_control(key=key).set_value(None).run()  # what a click on the chosen option sends
    assert not at.exception and at.segmented_control(key=key).value == value


def test_a_link_to_the_map_with_heads_keeps_them_for_the_lab():
    at = page(view="map", ko="1.0,1.3").run()
    assert not at.exception and url_params(at)["ko"] == "1.0,1.3"
    at = at.segmented_control(key="m_view").set_value("lab").run()
    assert at.multiselect(key="m_ko").value == ["1.0", "1.3"]
