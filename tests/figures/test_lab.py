"""The lab's figures and exports: the loss lines and bars carry the numbers given, tokens are
escaped, the map's scale is centred on 0, and the CSV/JSON hold every head's value."""

import io
import json

import numpy as np
import pandas as pd

from attention.figures import lab as figures
from attention.model.interventions import HeadMap, Metric
from tests.specs import decode

TOKENS = ("<b>x</b>", "·a", "·b", "·a", "·b")


def test_the_loss_lines_are_the_numbers_given_and_tokens_are_escaped():
    loss = {"before": np.array([np.nan, 3.0, 2.0, 1.0, 0.1]), "after": np.array([np.nan, 3.0, 2.5, 4.0, 5.0])}
    fig = figures.loss_figure(TOKENS, loss, (4,), 900).to_plotly_json()
    before, after = fig["data"]
    np.testing.assert_allclose(decode(after["y"])[1:], loss["after"][1:])
    assert before["name"] == "untouched" and after["name"] == "knocked out"
    assert "&lt;b&gt;" in fig["layout"]["xaxis"]["ticktext"][0] and "<b>" not in str(
        fig["layout"]["xaxis"]["ticktext"]
    )
    (shade,) = fig["layout"]["shapes"]
    assert (shade["x0"], shade["x1"]) == (3.5, 4.5)


def test_the_next_bars_stand_side_by_side_or_stacked_on_a_phone():
    rows = {"before": [(1, "·a", 0.9), (2, "<i>", 0.1)], "after": [(3, "·c", 0.5), (1, "·a", 0.2)]}
    wide = figures.next_figure(rows).to_plotly_json()["layout"]
    assert wide["xaxis"]["domain"][1] < wide["xaxis2"]["domain"][0]
    assert "&lt;i&gt;" in wide["yaxis"]["ticktext"][1]
    phone = figures.next_figure(rows, narrow=True).to_plotly_json()["layout"]
    assert phone["yaxis"]["domain"][0] > phone["yaxis2"]["domain"][1]


def grid(values, method="exact") -> HeadMap:
    return HeadMap(np.asarray(values, dtype=float), 1.0, Metric(), clean=0.5, positions=(3, 4), method=method)


def test_the_map_is_centred_on_zero_and_says_when_it_is_an_estimate():
    fig = figures.importance_figure(grid([[0.5, -2.0], [0.1, 0.0]]), "ablation", 600).to_plotly_json()
    data = fig["data"][0]
    assert (data["zmin"], data["zmax"]) == (-2.0, 2.0)
    np.testing.assert_allclose(decode(data["z"]), [[0.5, -2.0], [0.1, 0.0]])
    estimate = figures.importance_figure(grid([[0.5, 1.2]], "attribution"), "patching", 600).to_plotly_json()
    assert "(estimate)" in estimate["layout"]["title"]["text"]
    assert estimate["data"][0]["zmax"] == 1.2


def test_the_exports_hold_every_head():
    values = [[0.5, -2.0, 1.0], [0.1, 0.0, 3.0]]
    frame = pd.read_csv(io.StringIO(figures.map_csv(grid(values), "ablation")))
    assert list(frame.columns) == ["layer", "head", "loss_change"] and len(frame) == 6
    assert frame.loc[(frame["layer"] == 1) & (frame["head"] == 2), "loss_change"].item() == 3.0
    out = json.loads(
        figures.map_json(grid(values), "patching", "bundled", [1, 2, 1, 2, 1], TOKENS, [7, 7, 1, 2, 1])
    )
    assert out["values"] == values and out["kind"] == "patching" and out["corrupted_ids"] == [7, 7, 1, 2, 1]
    assert out["clean"] == 0.5 and out["corrupted"] == 1.0 and out["positions"] == [3, 4]


def test_each_stretch_of_repeated_tokens_is_shaded_on_its_own():
    loss = {"before": np.arange(12.0), "after": np.arange(12.0)}
    fig = figures.loss_figure([f"t{i}" for i in range(12)], loss, (3, 8, 9, 10), 900).to_plotly_json()
    assert [(s["x0"], s["x1"]) for s in fig["layout"]["shapes"]] == [(2.5, 3.5), (7.5, 10.5)]
