"""Inside a model's figures: every head as a thumbnail, the role scores, one token's lines to the
tokens it attends to (BertViz's head view, drawn natively), the next-token bars; and its exports,
every head's weights as JSON and one head's as CSV."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention.figures.layout import (
    HEAD_COLOURS,
    SEQUENTIAL,
    cell_numbers,
    f32,
    figure,
    grid,
    thumbnails,
    title,
    token_labels,
)

THUMB_CELLS = 32  # a thumbnail shows at most 32 x 32 cells (block maxima): its payload stays small


def _shrink(w: np.ndarray, cells: int = THUMB_CELLS) -> np.ndarray:
    """(T, T) -> at most (cells, cells): the largest weight in each block, so a sharp pattern (one
    key per query) stays visible when a thumbnail is smaller than the matrix."""
    t = w.shape[-1]
    if t <= cells:
        return w
    edges = np.linspace(0, t, cells + 1).astype(int)
    return np.array(
        [
            [w[a:b, c:d].max() for c, d in zip(edges, edges[1:], strict=False)]
            for a, b in zip(edges, edges[1:], strict=False)
        ]
    )


def model_grid(weights: np.ndarray, chosen: tuple[int, int] | None = None) -> go.Figure:
    """Every head's weights (L, H, T, T) as L rows of H thumbnails, colour only (uint8); the chosen
    head framed. Titles are "layer.head", zero-based, as the literature names heads."""
    layers, heads = weights.shape[:2]
    cells = grid(layers * heads, heads, gap_x=0.012, head=0.18)
    shrunk = [_shrink(weights[layer, head]) for layer in range(layers) for head in range(heads)]
    titles = [f"{layer}.{head}" for layer in range(layers) for head in range(heads)]
    data, layout = thumbnails(cells, shrunk, titles, title_size=11)
    if chosen is not None:  # frame the chosen head
        cell = cells[chosen[0] * heads + chosen[1]]
        pad = 0.004
        frame = {"x0": cell.x0 - pad, "x1": cell.x1 + pad, "y0": cell.y0 - pad, "y1": cell.y1 + pad}
        layout["shapes"] = [
            {
                "type": "rect",
                "xref": "paper",
                "yref": "paper",
                **frame,
                "line": {"color": "#d62728", "width": 3},
            }
        ]
    size = max(60, min(110, 1100 // heads))
    return figure(
        data, layout | {"height": 30 + layers * (size + 18), "margin": {"l": 5, "r": 5, "t": 5, "b": 5}}
    )


def role_heatmap(scores: np.ndarray, role: str, caption: str) -> go.Figure:
    """A role's (L, H) scores, 0..1, with the numbers in the cells."""
    layers, heads = scores.shape
    z = f32(scores)
    data = [
        {
            "type": "heatmap",
            "z": z,
            "zmin": 0.0,
            "zmax": 1.0,
            "colorscale": SEQUENTIAL,
            "name": role,
            "colorbar": {"thickness": 10},
            "xgap": 1,
            "ygap": 1,
            "hovertemplate": f"head %{{y}}.%{{x}}<br>{role} score %{{z:.3f}}<extra></extra>",
            **cell_numbers(heads, 420) | {"texttemplate": "%{z:.2f}"},
        }
    ]
    return figure(
        data,
        {
            "title": title(caption, size=13),
            "xaxis": {"title": {"text": "head"}, "tickmode": "linear", "dtick": 1, "side": "top"},
            "yaxis": {"title": {"text": "layer"}, "tickmode": "linear", "dtick": 1, "autorange": "reversed"},
            "height": 120 + 28 * layers,
            "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        },
    )


BANDS = (0.02, 0.1, 0.25, 0.5, 0.75, 1.01)  # weight bands: a band's lines share one width and opacity


def token_view(tokens: list[str], weights: np.ndarray, query: int, heads: list[int]) -> go.Figure:
    """BertViz's head view: the tokens twice, queries on the left and keys on the right; a line from
    the chosen query to each key it looks at (weight over 0.02), thicker and darker as the weight
    grows; one colour per head. weights: (H, T, T) of one layer."""
    labels = token_labels(tokens)
    n = len(labels)
    data = []
    for head in heads:
        row = weights[head, query]
        colour = HEAD_COLOURS[head % len(HEAD_COLOURS)]
        for low, high in zip(BANDS, BANDS[1:], strict=False):
            keys = np.flatnonzero((row >= low) & (row < high))
            if not len(keys):
                continue
            x, y, text = [], [], []
            for key in keys:  # one segment each, None between them
                x += [0, 1, None]
                y += [query, int(key), None]
                note = f"head {head}: {labels[query]} → {labels[key]}: {row[key]:.3f}"
                text += [note, note, None]
            data.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": y,
                    "text": text,
                    "mode": "lines",
                    "showlegend": False,
                    "line": {"color": colour, "width": 1 + 8 * high / 1.01},
                    "opacity": 0.3 + 0.7 * high / 1.01,
                    "hovertemplate": "%{text}<extra></extra>",
                }
            )
        data.append(
            {
                "type": "scatter",
                "x": [None],
                "y": [None],
                "mode": "lines",
                "name": f"head {head}",
                "line": {"color": colour, "width": 4},
            }
        )
    marks = {"type": "scatter", "mode": "text", "hoverinfo": "skip", "showlegend": False}
    colours = ["#d62728" if i == query else "#31333f" for i in range(n)]
    y = np.arange(n, dtype=np.float32)
    data.append(
        marks
        | {
            "x": np.zeros(n, np.float32),
            "y": y,
            "text": labels,
            "textposition": "middle left",
            "textfont": {"size": 13, "color": colours},
        }
    )
    data.append(
        marks
        | {
            "x": np.ones(n, np.float32),
            "y": y,
            "text": labels,
            "textposition": "middle right",
            "textfont": {"size": 13},
        }
    )
    hidden = {"showticklabels": False, "showgrid": False, "zeroline": False}
    return figure(
        data,
        {
            "xaxis": hidden | {"range": [-0.6, 1.6]},
            "yaxis": hidden | {"range": [n - 0.5, -0.5]},
            "height": int(min(1800, 60 + 22 * n)),
            "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom"},
            "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        },
    )


def next_token_bars(candidates: list[tuple[int, str, float]], temperature: float) -> go.Figure:
    """The top next tokens, most likely on top, with their probabilities."""
    texts = token_labels([text for _, text, _ in candidates])
    probabilities = f32([p for _, _, p in candidates])
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "x": probabilities,
            "y": np.arange(len(texts), dtype=np.int16),
            "text": [f"{p:.1%}" for p in probabilities],
            "textposition": "outside",
            "marker": {"color": "#1f5fbf"},
            "hovertemplate": "%{x:.4f}<extra></extra>",
        }
    ]
    return figure(
        data,
        {
            "title": title(f"Next token: softmax(logits / {temperature:g})", size=14),
            "xaxis": {
                "title": {"text": "probability"},
                "range": [0, min(1.0, float(probabilities.max()) * 1.25 + 0.05)],
            },
            "yaxis": {
                "tickmode": "array",
                "tickvals": list(range(len(texts))),
                "ticktext": texts,
                "autorange": "reversed",
            },
            "height": 90 + 30 * len(texts),
            "margin": {"l": 10, "r": 40, "t": 50, "b": 10},
        },
    )


def weights_json(source: str, tokens: Sequence[str], ids: Sequence[int], weights: np.ndarray) -> str:
    """Every head's weights (L, H, T, T), rounded to 5 decimals, with the model, tokens and ids."""
    grid = {
        "model": source,
        "tokens": list(tokens),
        "ids": list(ids),
        "layout": "weights[layer][head][query][key]",
        "shape": list(weights.shape),
    }
    return json.dumps(grid | {"weights": weights.round(5).tolist()})


def head_csv(weights: np.ndarray, tokens: Sequence[str], layer: int, head: int) -> str:
    """One head's (T, T) weights as CSV: a row per query, a column per key, each named "i:token"."""
    names = [f"{i}:{t}" for i, t in enumerate(tokens)]
    return pd.DataFrame(weights[layer, head], index=names, columns=names).to_csv()
