"""Inside a model's figures and exports, built from plain arrays and tokens, no model run."""

import io
import json

import numpy as np
import pandas as pd

from attention.figures import model as figures
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
