"""Compare's figures: A, B and their difference, on one scale."""

import json
from dataclasses import replace

import numpy as np

from attention.explorer import run
from attention.figures.compare import comparison_figures, comparison_matrices, difference
from tests.figures.test_explorer import HOSTILE
from tests.specs import decode


def test_comparison_escapes_tokens_and_titles_and_takes_the_difference():
    a = run(HOSTILE)
    b = run(replace(HOSTILE, causal=False))
    za, zb, why = comparison_matrices(a, b, "weights", 1, 1)
    assert why is None
    specs = [
        f.to_plotly_json()
        for f in comparison_figures(a.tokens.texts, za, zb, ("A: <i>x</i>", "B"), "weights")
    ]
    heat = {s["data"][0]["name"]: decode(s["data"][0]["z"]) for s in specs}
    np.testing.assert_array_equal(heat["A"], a.weights[0, 1].numpy())
    np.testing.assert_array_equal(heat["A − B"], heat["A"] - heat["B"])
    text = json.dumps(specs, default=str)
    assert "<img" not in text and "onerror" in text and "&lt;" in text  # the tokens, escaped
    assert "<i>" not in text  # and the titles


def test_shapes_that_differ_give_no_difference_panel():
    a = run(HOSTILE)
    wider = run(replace(HOSTILE, d_out=8))
    za, zb, why = comparison_matrices(a, wider, "output")
    assert why.startswith("output has shape")
    names = [
        f.to_plotly_json()["data"][0]["name"]
        for f in comparison_figures(a.tokens.texts, za, zb, ("A", "B"), "output")
    ]
    assert names == ["A", "B"]


def test_masked_on_both_sides_is_no_change_on_one_side_is_blank():
    za = np.array([[1.0, np.nan], [0.5, 0.5]], dtype=np.float32)
    zb = np.array([[1.0, np.nan], [np.nan, 1.0]], dtype=np.float32)
    diff = difference(za, zb)
    assert diff[0, 1] == 0 and np.isnan(diff[1, 0]) and diff[1, 1] == -0.5
