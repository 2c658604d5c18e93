"""The Explorer's figures: what reaches the browser, built from a trace and nothing else."""

import numpy as np

from attention import ExplorerConfig, run
from attention.figures import explorer as figures
from tests.specs import decode

HOSTILE = ExplorerConfig(text="<b>x</b> <img src=x onerror=alert(1)> the the", tokenizer="words_punct",
                         embedding="random", d_in=4, d_out=4, heads=2, dropout=0.5, train=True)  # fmt: skip


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
    spec = figures.heads_grid(trace.weights[0].numpy()).to_plotly_json()
    assert len(spec["data"]) == 2 and all(d["z"]["dtype"] == "u1" for d in spec["data"])
    assert [a["text"] for a in spec["layout"]["annotations"]] == ["<b>head 0</b>", "<b>head 1</b>"]


def test_query_bar_greys_masked_keys():
    trace = run(HOSTILE)
    spec = figures.query_bar(trace.tokens.texts, trace.weights[0, 0, 2].numpy(), trace.mask[2].numpy(), 2)
    colours = spec.to_plotly_json()["data"][0]["marker"]["color"]
    assert colours[:3] == ["#1f5fbf"] * 3 and set(colours[3:]) == {"#bbbbbb"}
