"""The Explorer's figures: what reaches the browser, built from a trace and nothing else."""

import numpy as np

from attention.chapter3.trace import STEPS
from attention.explorer import ExplorerConfig, run
from attention.figures import explorer as figures
from tests.specs import decode

HOSTILE = ExplorerConfig(
    text="<b>x</b> <img src=x onerror=alert(1)> the the",
    tokenizer="words_punct",
    embedding="random",
    d_in=4,
    d_out=4,
    heads=2,
    dropout=0.5,
    train=True,
)


def test_steps_figure_panels_are_float32_and_exact():
    trace = run(HOSTILE)
    specs = [
        figures.step_figure(trace.tokens.texts, panel).to_plotly_json()
        for panel in figures.step_panels(trace, head=1)
    ]
    heat = {d["name"]: d for spec in specs for d in spec["data"] if d["type"] == "heatmap"}
    assert list(heat) == list(STEPS)  # every step, in the order the computation takes them
    assert heat["weights"]["z"]["dtype"] == "f4"  # a float32 typed array, not a list
    np.testing.assert_array_equal(decode(heat["weights"]["z"]), trace.weights[0, 1].numpy())
    assert np.isnan(decode(heat["masked_scores"]["z"])[0, -1])  # −inf travels as NaN, hatched over
    ticks = specs[0]["layout"]["yaxis"]["ticktext"]
    assert ticks.count("the") == 2 and all("<" not in t for t in ticks)
    dropped = [d for d in specs[-1]["data"] if d.get("name") == "dropped"][0]
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


def test_long_text_thins_labels_fits_colours_and_drops_the_marks():
    """250 tokens stay readable and cheap to draw."""
    config = ExplorerConfig(
        text=" ".join(f"w{i}" for i in range(250)),
        embedding="random",
        d_in=8,
        d_out=8,
        heads=2,
        dropout=0.1,
        train=True,
    )
    trace = run(config)
    panel = figures.step_panels(trace, 0, ["dropped_weights"])[0]
    spec = figures.step_figure(trace.tokens.texts, panel, fitted=True).to_plotly_json()
    assert len(spec["layout"]["xaxis"]["ticktext"]) <= 48 and spec["layout"]["xaxis"]["tickvals"][1] == 6
    heat = spec["data"][0]
    finite = panel.z[np.isfinite(panel.z)]
    assert heat["zmin"] == float(finite.min()) and heat["zmax"] == float(np.quantile(finite, 0.99)) < 0.05
    assert [d.get("name") for d in spec["data"]] == ["dropped_weights", "masked"]  # no 30,000 ✕ marks


def test_numbers_in_cells_as_many_decimals_as_fit():
    trace = run(ExplorerConfig())
    panel = figures.step_panels(trace, 0, ["weights"])[0]
    wide = figures.step_figure(trace.tokens.texts, panel, numbers=True, width_px=960).to_plotly_json()
    narrow = figures.step_figure(trace.tokens.texts, panel, numbers=True, width_px=300).to_plotly_json()
    assert wide["data"][0]["texttemplate"] == "%{z:.4f}" and narrow["data"][0]["texttemplate"] == "%{z:.2f}"
    plain = figures.step_figure(trace.tokens.texts, panel).to_plotly_json()
    assert "texttemplate" not in plain["data"][0]
