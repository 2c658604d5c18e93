"""Compare's figure: A, B and their difference."""

import json
from dataclasses import replace

import numpy as np

from attention import run
from attention.figures.compare import comparison_figure, comparison_matrices
from tests.figures.test_explorer import HOSTILE
from tests.specs import decode


def test_comparison_figure_escapes_tokens_and_takes_the_difference():
    a = run(HOSTILE)
    b = run(replace(HOSTILE, causal=False))
    za, zb, why = comparison_matrices(a, b, "weights", 1, 1)
    assert why is None
    spec = comparison_figure(a.tokens.texts, za, zb, ("A: <i>x</i>", "B"), "weights").to_plotly_json()
    heat = {d["name"]: decode(d["z"]) for d in spec["data"]}
    np.testing.assert_array_equal(heat["A"], a.weights[0, 1].numpy())
    np.testing.assert_array_equal(heat["A − B"], heat["A"] - heat["B"])
    text = json.dumps(spec, default=str)
    assert "<img" not in text and "onerror" in text and "&lt;" in text  # the tokens, escaped
    assert "<i>" not in text  # and the titles
    wider = run(replace(HOSTILE, d_out=8))
    za, zb, why = comparison_matrices(a, wider, "output")
    assert why.startswith("output has shape")
    names = [
        d["name"]
        for d in comparison_figure(a.tokens.texts, za, zb, ("A", "B"), "output").to_plotly_json()["data"]
    ]
    assert names == ["A", "B"]
