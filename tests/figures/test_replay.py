"""A recorded training's figures: the losses given, the baselines as flat lines, the step an
induction head appears and the step the loss starts counting every token marked; each layer's best
head over the steps."""

import numpy as np

from attention.figures.replay import best_per_layer, recorded_curves
from tests.specs import decode


def test_the_loss_curves_carry_the_record_and_mark_its_steps():
    fig = recorded_curves([9.0, 8.0, 7.0, 6.0], [2, 4], [8.5, 7.5], {"unigram": 6.5, "bigram": 5.1}, 4, 3)
    fig = fig.to_plotly_json()
    train, held, unigram, bigram = fig["data"]
    np.testing.assert_allclose(decode(train["y"]), [9, 8, 7, 6])
    np.testing.assert_allclose(decode(held["y"]), [8.5, 7.5])
    assert list(unigram["y"]) == [6.5, 6.5] and list(bigram["y"]) == [5.1, 5.1]
    notes = {a["text"]: a["x"] for a in fig["layout"]["annotations"]}
    assert notes == {"induction head, step 4": 4}
    assert [shape["x0"] for shape in fig["layout"]["shapes"]] == [4, 3]  # the head's step, the one shown


def test_the_induction_tasks_steps_are_their_own_line_on_a_band():
    """The Shakespeare recipe's stage 1 trains on the induction task: its loss is not the plays'."""
    fig = recorded_curves([4.0, 3.0, 9.0, 8.0], [2, 4], [10.0, 7.5], {"unigram": 6.5}, 2, task_steps=2)
    fig = fig.to_plotly_json()
    lines = {d["name"]: d for d in fig["data"]}
    np.testing.assert_allclose(decode(lines["training loss, the plays"]["y"]), [9, 8])
    np.testing.assert_allclose(decode(lines["training loss, the plays"]["x"]), [3, 4])
    np.testing.assert_allclose(decode(lines["training loss, induction task"]["y"]), [4, 3])
    band = fig["layout"]["shapes"][0]
    assert band["type"] == "rect" and (band["x0"], band["x1"]) == (0, 2)
    assert "stage 1: the task, no plays" in {a["text"] for a in fig["layout"]["annotations"]}


def test_each_layers_best_head_over_the_steps():
    scores = {role: np.random.default_rng(0).random((3, 2, 4)) for role in ("previous", "induction")}
    fig = best_per_layer([100, 200, 300], scores).to_plotly_json()
    lines = {d["name"]: decode(d["y"]) for d in fig["data"]}
    np.testing.assert_allclose(lines["layer 1 induction"], scores["induction"][:, 1].max(-1), rtol=1e-6)
    assert len(lines) == 4
