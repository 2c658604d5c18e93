"""Figures and tables: what reaches the browser, built from a trace and nothing else."""

import json

import numpy as np

from attention import ExplorerConfig, figures, run
from tests.app.conftest import decode

HOSTILE = ExplorerConfig(text="<b>x</b> <img src=x onerror=alert(1)> the the", tokenizer="words_punct",
                         embedding="random", d_in=4, d_out=4, heads=2, dropout=0.5, train=True)  # fmt: skip


def test_token_labels_escape_html_and_show_whitespace():
    assert figures.token_label("<b>") == "&lt;b&gt;"
    assert figures.token_label(" ") == "␣"
    assert figures.token_label("x" * 40).endswith("…") and len(figures.token_label("x" * 40)) == 16


def test_steps_figure_panels_are_float32_and_exact():
    trace = run(HOSTILE)
    spec = figures.steps_figure(trace, head=1).to_plotly_json()
    heat = {d["name"]: d for d in spec["data"] if d["type"] == "heatmap"}
    assert list(heat) == ["scores", "scaled_scores", "masked_scores", "weights", "dropped_weights"]
    assert heat["weights"]["z"]["dtype"] == "f4"  # a float32 typed array, not a list
    np.testing.assert_array_equal(decode(heat["weights"]["z"]), trace.weights[0, 1].numpy())
    assert np.isnan(decode(heat["masked_scores"]["z"])[0, -1])  # −inf travels as NaN, hatched over
    ticks = spec["layout"]["yaxis"]["ticktext"]
    assert ticks.count("the") == 2 and all("<" not in t for t in ticks)
    dropped = [d for d in spec["data"] if d.get("name") == "dropped"][0]
    keep = trace.dropout_mask[0, 1].numpy()
    assert len(decode(dropped["x"])) == int((~keep & np.tril(np.ones_like(keep, bool))).sum())


def test_heads_grid_sends_one_byte_per_cell():
    trace = run(HOSTILE)
    spec = figures.heads_grid(trace).to_plotly_json()
    assert len(spec["data"]) == 2 and all(d["z"]["dtype"] == "u1" for d in spec["data"])


def test_weighted_sum_equals_the_context_row():
    trace = run(HOSTILE)
    frame = figures.weighted_sum_frame(trace, head=0, query=3)
    np.testing.assert_allclose(frame.iloc[:-1].sum().to_numpy(), frame.iloc[-1].to_numpy(), atol=1e-6)


def test_matrix_frame_labels_rows_and_columns_with_tokens():
    trace = run(HOSTILE)
    frame = figures.matrix_frame(trace, "weights", head=0)
    assert frame.shape == (trace.num_tokens, trace.num_tokens) and frame.index[0] == "0:<"
    assert "the" in frame.columns[-1]


def test_trace_json_has_every_tensor_and_can_keep_one_head():
    trace = run(HOSTILE)
    whole = json.loads(figures.trace_json(trace))
    assert (
        set(whole["tensors"]) == set(trace.TENSORS) and whole["tensors"]["masked_scores"][0][0][0][-1] is None
    )
    one = json.loads(figures.trace_json(trace, head=1))
    assert np.array_equal(np.array(one["tensors"]["weights"])[0, 0], trace.weights[0, 1].numpy())


def test_comparison_figure_escapes_tokens_and_takes_the_difference():
    a = run(HOSTILE)
    b = run(ExplorerConfig(**{**HOSTILE.__dict__, "causal": False}))
    spec = figures.comparison_figure(a, b, "weights", 1, 1).to_plotly_json()
    heat = {d["name"]: decode(d["z"]) for d in spec["data"]}
    np.testing.assert_array_equal(heat["A"], a.weights[0, 1].numpy())
    np.testing.assert_array_equal(heat["A − B"], heat["A"] - heat["B"])
    text = json.dumps(spec, default=str)
    assert "<img" not in text and "onerror" in text and "&lt;" in text  # the tokens, escaped
    wider = run(ExplorerConfig(**{**HOSTILE.__dict__, "d_out": 8}))
    assert figures.comparison_matrices(a, wider, "output")[2].startswith("output has shape")
    assert [d["name"] for d in figures.comparison_figure(a, wider, "output").to_plotly_json()["data"]] == [
        "A",
        "B",
    ]


def test_scaling_figure_draws_the_quadratic_reference_through_the_last_point():
    import pandas as pd

    rows = [{"variant": "mha", "module": "M", "mode": "forward", "device": "cpu", "tokens": t, "heads": 2,
             "d": 8, "ms": 0.01 * t, "peak_bytes": 8 * t * t, "attention_bytes": 8 * t * t}
            for t in (8, 16, 32)]  # fmt: skip
    for measure in ("ms", "peak_bytes"):
        spec = figures.scaling_figure(pd.DataFrame(rows), measure).to_plotly_json()
        assert spec["layout"]["xaxis"]["type"] == spec["layout"]["yaxis"]["type"] == "log"
        ref = next(d for d in spec["data"] if d["name"] == "O(T²) reference slope")
        y = decode(ref["y"])
        np.testing.assert_allclose(y / y[-1], [1 / 16, 1 / 4, 1])
    assert spec["data"][-1]["name"].startswith("attention matrix")
