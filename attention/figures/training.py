"""Watch it learn's figures: the loss and accuracy curves, and the probe's attention per head beside
the pattern that solves the task."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.layout import (
    SEQUENTIAL,
    f32,
    figure,
    grid,
    panel_title,
    position_axis,
    title,
    token_labels,
)


def training_curves(
    losses: list[float], accuracies: list[tuple[int, float]], marker: int | None = None
) -> go.Figure:
    """Training loss per step (left axis) and held-out accuracy at each snapshot (right axis);
    a vertical line at step `marker` (the snapshot shown beside it)."""
    steps = np.arange(1, len(losses) + 1, dtype=np.int32)
    acc_steps = np.array([s for s, _ in accuracies], dtype=np.int32)
    acc = f32([a for _, a in accuracies])
    data = [
        {"type": "scatter", "mode": "lines", "name": "loss (cross-entropy)", "x": steps, "y": f32(losses),
         "line": {"color": "#0072b2"}, "hovertemplate": "step %{x}<br>loss %{y:.4f}<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "accuracy (held out)", "x": acc_steps, "y": acc,
         "yaxis": "y2", "line": {"color": "#d55e00", "dash": "dot"},
         "hovertemplate": "step %{x}<br>accuracy %{y:.1%}<extra></extra>"},
    ]  # fmt: skip
    shapes = []
    if marker is not None:
        shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": marker, "x1": marker, "y0": 0,
                       "y1": 1, "line": {"color": "#555555", "width": 2, "dash": "dash"}})  # fmt: skip
    return figure(
        data,
        {
            "title": title("Loss and accuracy" + ("" if marker is None else f" · showing step {marker}")),
            "shapes": shapes,
            "xaxis": {"title": {"text": "step"}, "rangemode": "tozero"},
            "yaxis": {"title": {"text": "loss"}, "rangemode": "tozero"},
            "yaxis2": {"title": {"text": "accuracy"}, "overlaying": "y", "side": "right", "range": [0, 1.02],
                       "tickformat": ".0%", "dtick": 0.25, "showgrid": False},
            "legend": {"orientation": "h", "y": -0.25},
            "height": 380,
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )  # fmt: skip


def pattern_figure(
    weights: np.ndarray, expected: np.ndarray | None, tokens: list[str], step: int
) -> go.Figure:
    """The probe's attention weights per head at one step, and the pattern that solves the task
    (blank rows: nothing is asked there). Rows are queries, columns keys, as everywhere."""
    labels = token_labels(tokens)
    n = len(labels)
    panels = [(w, f"head {h}, step {step}") for h, w in enumerate(weights)]
    if expected is not None:
        panels.append((expected, "expected (solves the task)"))
    data, layout = [], {"annotations": []}
    for (z, name), cell in zip(panels, grid(len(panels), len(panels)), strict=True):
        first, last = cell.index == 0, cell.index == len(panels) - 1
        z = f32(z).copy()
        z[np.triu(np.ones((n, n), dtype=bool), 1)] = np.nan  # causal: never looked at
        data.append(
            {"type": "heatmap", "z": z, "name": name, **cell.axes, "colorscale": SEQUENTIAL, "zmin": 0.0,
             "zmax": 1.0, "showscale": last, "hoverongaps": False, "colorbar": {"thickness": 10},
             "hovertemplate": "query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>"}
        )  # fmt: skip
        # fixed ranges: a row with nothing asked (all NaN) must not shrink its panel
        layout[f"xaxis{cell.suffix}"] = position_axis(labels, "keys →") | {
            "domain": [cell.x0, cell.x1], "anchor": f"y{cell.suffix}", "range": [-0.5, n - 0.5]}  # fmt: skip
        layout[f"yaxis{cell.suffix}"] = position_axis(labels, "← queries" if first else "") | {
            "anchor": f"x{cell.suffix}", "range": [n - 0.5, -0.5], "showticklabels": first}  # fmt: skip
        layout["annotations"].append(panel_title(name, cell))
    height = int(min(520, max(300, 120 + 22 * n)))
    return figure(data, layout | {"height": height, "margin": {"l": 10, "r": 10, "t": 40, "b": 10}})
