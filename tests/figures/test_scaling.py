"""Scaling's figure: log-log axes and the O(T²) reference."""

import numpy as np
import pandas as pd

from attention.figures.scaling import scaling_figure
from tests.specs import decode


def test_scaling_figure_draws_the_quadratic_reference_through_the_last_point():
    rows = [
        {
            "variant": "mha",
            "module": "M",
            "mode": "forward",
            "device": "cpu",
            "tokens": t,
            "heads": 2,
            "d": 8,
            "ms": 0.01 * t,
            "peak_bytes": 8 * t * t,
            "attention_bytes": 8 * t * t,
        }
        for t in (8, 16, 32)
    ]
    for measure in ("ms", "peak_bytes"):
        spec = scaling_figure(pd.DataFrame(rows), measure).to_plotly_json()
        assert spec["layout"]["xaxis"]["type"] == spec["layout"]["yaxis"]["type"] == "log"
        ref = next(d for d in spec["data"] if d["name"] == "O(T²) reference slope")
        y = decode(ref["y"])
        np.testing.assert_allclose(y / y[-1], [1 / 16, 1 / 4, 1])
    assert spec["data"][-1]["name"].startswith("attention matrix")
