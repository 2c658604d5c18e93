"""Inside a model's figures and exports, built from plain arrays and tokens, no model run."""

import io
import json

import numpy as np
import pandas as pd

from attention.figures import model as figures
from attention.figures.explorer import StepPanel
from tests.specs import decode

RNG = np.random.default_rng(0)
WEIGHTS = RNG.random((2, 3, 4, 4)).astype(np.float32)  # (L, H, T, T)
TOKENS = ("the", "·cat", "<b>", "the")


def test_every_heads_weights_as_json_say_their_layout():
    data = json.loads(figures.weights_json("bundled", TOKENS, (5, 6, 7, 5), WEIGHTS))
    assert data["model"] == "bundled" and data["tokens"] == list(TOKENS) and data["ids"] == [5, 6, 7, 5]
    assert data["layout"] == "weights[layer][head][query][key]" and data["shape"] == [2, 3, 4, 4]
    np.testing.assert_allclose(np.array(data["weights"]), WEIGHTS, atol=5e-6)


def test_one_heads_weights_as_csv_rows_queries_columns_keys():
    frame = pd.read_csv(io.StringIO(figures.head_csv(WEIGHTS, TOKENS, 1, 2)), index_col=0)
    names = ["0:the", "1:·cat", "2:<b>", "3:the"]  # repeated tokens stay apart by position
    assert list(frame.index) == names and list(frame.columns) == names
    np.testing.assert_allclose(frame.to_numpy(), WEIGHTS[1, 2], rtol=1e-6)


def test_the_grid_frames_the_chosen_head_and_sends_one_byte_per_cell():
    spec = figures.model_grid(WEIGHTS, (1, 2)).to_plotly_json()
    assert len(spec["data"]) == 6 and spec["data"][0]["z"]["dtype"] == "u1"
    (frame,) = spec["layout"]["shapes"]
    assert frame["type"] == "rect" and frame["line"]["color"] == "#d62728"


def test_next_token_bars_most_likely_on_top():
    spec = figures.next_token_bars([(3, "·cat", 0.6), (9, "<b>", 0.3)], 1.0).to_plotly_json()
    (bars,) = spec["data"]
    np.testing.assert_allclose(decode(bars["x"]), [0.6, 0.3], rtol=1e-6)
    assert spec["layout"]["yaxis"]["autorange"] == "reversed"
    assert "<b>" not in spec["layout"]["yaxis"]["ticktext"][1]  # a token is escaped


def test_the_grids_click_targets_sit_on_their_heads_and_name_them():
    spec = figures.model_grid(WEIGHTS, (0, 0), TOKENS, clickable=True).to_plotly_json()
    (targets,) = [d for d in spec["data"] if d["type"] == "scatter"]
    assert targets["customdata"] == [[layer, head] for layer in range(2) for head in range(3)]
    x, y = decode(targets["x"]), decode(targets["y"])
    for i, (cx, cy) in enumerate(zip(x, y, strict=True)):  # each target in its thumbnail's middle
        axis = "" if i == 0 else str(i + 1)
        (x0, x1), (y0, y1) = (
            spec["layout"][f"xaxis{axis}"]["domain"],
            spec["layout"][f"yaxis{axis}"]["domain"],
        )
        assert x0 < cx < x1 and y0 < cy < y1
    assert spec["layout"]["dragmode"] is False and "&lt;b&gt;" in spec["layout"]["yaxis"]["ticktext"]
    plain = figures.model_grid(WEIGHTS).to_plotly_json()  # the lab's grids: no targets, no labels
    assert {d["type"] for d in plain["data"]} == {"heatmap"}
    assert not plain["layout"]["yaxis"].get("showticklabels")


def _panel(weights: np.ndarray) -> StepPanel:
    return StepPanel("weights", weights, "weights = softmax(masked_scores)", "weights (1, 1, T, T), head 0.0")


def test_one_heads_chart_fits_a_laptop_screen_with_readable_ellipsised_labels():
    n = 128
    tokens = [f"·token{i}" if i % 2 else "·extraordinarily" for i in range(n)]
    spec = figures.head_figure(tokens, _panel(np.tril(np.ones((n, n), np.float32)) / 2), 960).to_plotly_json()
    layout = spec["layout"]
    assert layout["height"] <= figures.HEAD_HEIGHT
    plot_px = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    assert plot_px / len(layout["yaxis"]["tickvals"]) >= figures.LABEL_PX  # no label over another
    assert (
        "·extraord…" in layout["xaxis"]["ticktext"] and "·extraordinarily" not in layout["xaxis"]["ticktext"]
    )


def test_a_fitted_colour_scale_is_said_on_the_chart():
    n = 30
    diffuse = np.tril(np.ones((n, n), np.float32)) / np.arange(1, n + 1, dtype=np.float32)[:, None]
    spec = figures.head_figure([f"t{i}" for i in range(n)], _panel(diffuse), 960).to_plotly_json()
    assert (
        "yellow = " in spec["layout"]["title"]["subtitle"]["text"]
        and "not 1" in spec["layout"]["title"]["subtitle"]["text"]
    )
    assert spec["data"][0]["colorbar"]["title"]["text"] == "fitted"
    sharp = np.eye(n, dtype=np.float32)  # fitted to 0..1 anyway: nothing to say
    spec = figures.head_figure([f"t{i}" for i in range(n)], _panel(sharp), 960).to_plotly_json()
    assert "fitted" not in spec["layout"]["title"]["subtitle"]["text"]


def test_every_heads_lines_in_the_token_view_are_apart_and_in_its_colour():
    same = np.zeros((3, 4, 4), np.float32)
    same[:, 3, 1] = 1.0  # every head looks from token 3 at token 1 only: one line each, same place
    spec = figures.token_view(list(TOKENS), same, 3, [0, 1, 2]).to_plotly_json()
    lines = [d for d in spec["data"] if d.get("mode") == "lines" and d["x"] != [None]]
    assert len({tuple(d["y"][:2]) for d in lines}) == 3 and len({d["line"]["color"] for d in lines}) == 3
    assert all(abs(d["y"][1] - 1) < 0.5 for d in lines)  # still within the key's row
    legend = [d["name"] for d in spec["data"] if d.get("name")]
    assert legend == ["head 0", "head 1", "head 2"]
