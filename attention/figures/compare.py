"""Compare's figure: A, B and A − B side by side. `comparison_matrices` reads the two matrices off
two traces; `comparison_figure` draws plain arrays."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from attention.figures.layout import (
    DIVERGING,
    SEQUENTIAL,
    colour,
    f32,
    figure,
    grid,
    panel_title,
    position_axis,
    token_labels,
)
from attention.trace import AttentionTrace

COMPARABLE = {  # trace field -> what one cell is; per head, except output
    "weights": "weight",
    "scaled_scores": "scaled score",
    "scores": "score",
    "dropped_weights": "weight after dropout",
    "context": "context value",
    "output": "output value",
}


def comparison_matrices(a: AttentionTrace, b: AttentionTrace, name: str, head_a: int = 0, head_b: int = 0):
    """The two matrices to compare (float32, −inf as NaN), or a reason they cannot be compared."""
    za = f32(a.output[0] if name == "output" else getattr(a, name)[0, head_a])
    zb = f32(b.output[0] if name == "output" else getattr(b, name)[0, head_b])
    if za.shape != zb.shape:
        return za, zb, f"{name} has shape {za.shape} in A and {zb.shape} in B: no difference to take"
    return za, zb, None


def comparison_figure(
    tokens: list[str], za: np.ndarray, zb: np.ndarray, titles: tuple[str, str], name: str
) -> go.Figure:
    """A, B and (when the shapes agree) A − B, one figure. Rows are queries (tokens for context
    and output); the difference uses the diverging scale centred on 0, so 'no change' is white."""
    labels = token_labels(tokens)
    n = len(labels)
    square = za.shape[-1] == n and name not in ("context", "output")
    value = COMPARABLE[name]
    panels = [(za, titles[0], value), (zb, titles[1], value)]
    if za.shape == zb.shape:
        with np.errstate(invalid="ignore"):
            diff = za - zb
        diff[np.isnan(diff)] = 0.0 if np.array_equal(np.isnan(za), np.isnan(zb)) else np.nan
        panels.append((diff, "A − B", f"difference in {value}"))
    sequential = name in ("weights", "dropped_weights")
    data, layout = [], {"annotations": []}
    for (z, panel, cell_name), cell in zip(
        panels, grid(len(panels), len(panels), gap_x=0.07, right=0.02), strict=True
    ):
        z = z.copy()
        z[np.isneginf(z)] = np.nan
        first = cell.index == 0
        data.append(
            {"type": "heatmap", "z": z, "name": ["A", "B", "A − B"][cell.index], "hoverongaps": False,
             **cell.axes,
             "colorbar": {"thickness": 10, "x": cell.x1 + 0.005, "xanchor": "left", "len": 0.9},
             **colour(SEQUENTIAL if sequential and cell.index < 2 else DIVERGING, z),
             "hovertemplate": ("query %{y}<br>key %{x}" if square else "token %{y}<br>dimension %{x}")
             + f"<br>{cell_name} %{{z:.4f}}<extra></extra>"}
        )  # fmt: skip
        x_axis = position_axis(labels, "keys →") if square else {"title": {"text": "dimension"}}
        layout[f"xaxis{cell.suffix}"] = x_axis | {"domain": [cell.x0, cell.x1], "anchor": f"y{cell.suffix}"}
        layout[f"yaxis{cell.suffix}"] = position_axis(labels, "queries" if square else "tokens") | {
            "anchor": f"x{cell.suffix}", "autorange": "reversed", "showticklabels": first,
            "title": {"text": ("← queries" if square else "tokens") if first else ""},
        }  # fmt: skip
        layout["annotations"].append(panel_title(html.escape(panel), cell))
    height = int(min(700, max(300, 150 + 26 * n)))
    return figure(data, layout | {"height": height, "margin": {"l": 10, "r": 10, "t": 40, "b": 10}})
