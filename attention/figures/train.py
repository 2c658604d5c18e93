"""Watch it learn's figures (pages/train.py): the loss and accuracy curves, the probe's attention
per head beside the pattern that solves the task, and the induction run's phase and role curves
(a recorded training's: replay.py)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.layout import (
    HEAD_COLOURS,
    SEQUENTIAL,
    f32,
    figure,
    grid,
    panel_title,
    position_axis,
    title,
    token_labels,
)
from attention.i18n import tr


def loss_and_accuracy() -> dict:
    """Loss on the left axis, accuracy (0-100%) on the right, over training steps."""
    return {
        # TRANSLATORS: an axis title: training steps
        "xaxis": {"title": {"text": tr("step")}, "rangemode": "tozero"},
        "yaxis": {"title": {"text": tr("loss")}, "rangemode": "tozero"},
        "yaxis2": {
            "title": {"text": tr("accuracy")},
            "overlaying": "y",
            "side": "right",
            "range": [0, 1.02],
            "tickformat": ".0%",
            "dtick": 0.25,
            "showgrid": False,
        },
    }


def step_line(step: int, colour: str = "#555555", dash: str = "dash") -> dict:
    """A vertical line across the plot at `step`: the snapshot shown, or the phase change."""
    line = {"color": colour, "width": 2, "dash": dash}
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": step,
        "x1": step,
        "y0": 0,
        "y1": 1,
        "line": line,
    }


def step_note(step: int, text: str, colour: str = "#d62728", y: float = 1.0, **place) -> dict:
    """Words at the top of a step_line (above the plot at y 1; `place`: xanchor, yanchor...)."""
    where = {"yanchor": "bottom"} if y >= 1 else {}
    font = {"color": colour, "size": 12}
    return {
        "text": text,
        "x": step,
        "xref": "x",
        "y": y,
        "yref": "paper",
        "showarrow": False,
        "font": font,
    } | (where | place)


def training_curves(
    losses: list[float], accuracies: list[tuple[int, float]], marker: int | None = None
) -> go.Figure:
    """Training loss per step (left axis) and held-out accuracy at each snapshot (right axis);
    a vertical line at step `marker` (the snapshot shown beside it)."""
    steps = np.arange(1, len(losses) + 1, dtype=np.int32)
    acc_steps = np.array([s for s, _ in accuracies], dtype=np.int32)
    acc = f32([a for _, a in accuracies])
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": tr("loss (cross-entropy)"),
            "x": steps,
            "y": f32(losses),
            "line": {"color": "#0072b2"},
            "hovertemplate": tr("step %{x}<br>loss %{y:.4f}<extra></extra>"),
        },
        {
            "type": "scatter",
            "mode": "lines",
            "name": tr("accuracy (held out)"),
            "x": acc_steps,
            "y": acc,
            "yaxis": "y2",
            "line": {"color": "#d55e00", "dash": "dot"},
            "hovertemplate": tr("step %{x}<br>accuracy %{y:.1%}<extra></extra>"),
        },
    ]
    shapes = []
    if marker is not None:
        shapes.append(step_line(marker))
    return figure(
        data,
        {
            "title": title(
                tr("Loss and accuracy")
                if marker is None
                else tr("Loss and accuracy · showing step {step}", step=marker)
            ),
            "shapes": shapes,
            **loss_and_accuracy(),
            "legend": {"orientation": "h", "y": -0.25},
            "height": 380,
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )


def pattern_figure(
    weights: np.ndarray,
    expected: np.ndarray | None,
    tokens: list[str],
    step: int,
    layer: int | None = None,
    expected_name: str | None = None,
    height: int = 520,
    cols: int | None = None,
) -> go.Figure:
    """The probe's attention weights per head at one step, and the pattern that solves the task
    (blank rows: nothing is asked there). Rows are queries, columns keys, as everywhere. Heads
    are named "layer.head" when `layer` is given; `cols` panels a row (a phone: 2), all in one
    row by default; `expected_name` names the pattern that solves it (default: the task's)."""
    labels = token_labels(tokens)
    n = len(labels)
    prefix = "" if layer is None else f"{layer}."
    # each panel: (weights, its name, its title when the panels take several rows)
    panels = [
        (
            w,
            tr("head {head}, step {step}", head=f"{prefix}{h}", step=step),
            tr("head {head}", head=f"{prefix}{h}"),
        )
        for h, w in enumerate(weights)
    ]
    if expected is not None:
        expected_name = tr("expected (solves the task)") if expected_name is None else expected_name
        panels.append((expected, expected_name, expected_name))
    data, layout = [], {"annotations": []}
    cols = min(cols or len(panels), len(panels))
    rows = -(-len(panels) // cols)
    room = {"head": 0.1, "foot": 0.18} if rows > 1 else {}  # titles and key labels between rows
    for (z, name, short), cell in zip(panels, grid(len(panels), cols, **room), strict=True):
        first, last = cell.index % cols == 0, cell.index == len(panels) - 1
        z = f32(z).copy()
        z[np.triu(np.ones((n, n), dtype=bool), 1)] = np.nan  # causal: never looked at
        data.append(
            {
                "type": "heatmap",
                "z": z,
                "name": name,
                **cell.axes,
                "colorscale": SEQUENTIAL,
                "zmin": 0.0,
                "zmax": 1.0,
                "showscale": last,
                "hoverongaps": False,
                "colorbar": {"thickness": 10},
                "hovertemplate": tr("query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>"),
            }
        )
        # fixed ranges: a row with nothing asked (all NaN) must not shrink its panel
        layout[f"xaxis{cell.suffix}"] = position_axis(labels, tr("keys →")) | {
            "domain": [cell.x0, cell.x1],
            "anchor": f"y{cell.suffix}",
            "range": [-0.5, n - 0.5],
        }
        layout[f"yaxis{cell.suffix}"] = position_axis(labels, tr("← queries") if first else "") | {
            "anchor": f"x{cell.suffix}",
            "domain": [cell.y0, cell.y1],
            "range": [n - 0.5, -0.5],
            "showticklabels": first,
        }
        layout["annotations"].append(panel_title(name if rows == 1 else short, cell))
    height = int(min(height, max(300, 120 + 22 * n))) if rows == 1 else 60 + 240 * rows
    return figure(data, layout | {"height": height, "margin": {"l": 10, "r": 10, "t": 40, "b": 10}})


# --- the induction run ------------------------------------------------------------------------


def phase_curves(
    losses: list[float],
    steps: list[int],
    second: list[float],
    first: list[float],
    phase_step: int | None,
    marker: int | None = None,
) -> go.Figure:
    """The loss per step with the phase change marked; accuracy on the repeated span's second copy
    (predictable) against the same places in the first copy (not yet: chance), per snapshot."""
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": tr("loss"),
            "x": np.arange(1, len(losses) + 1, dtype=np.int32),
            "y": f32(losses),
            "line": {"color": "#0072b2"},
            "hovertemplate": tr("step %{x}<br>loss %{y:.3f}<extra></extra>"),
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": tr("accuracy, second copy"),
            "x": np.array(steps, np.int32),
            "y": f32(second),
            "yaxis": "y2",
            "line": {"color": "#d55e00"},
            "hovertemplate": tr("step %{x}<br>second copy %{y:.1%}<extra></extra>"),
        },
        {
            "type": "scatter",
            "mode": "lines",
            "name": tr("accuracy, first copy (chance)"),
            "x": np.array(steps, np.int32),
            "y": f32(first),
            "yaxis": "y2",
            "line": {"color": "#999999", "dash": "dot"},
            "hovertemplate": tr("step %{x}<br>first copy %{y:.1%}<extra></extra>"),
        },
    ]
    shapes, notes = [], []
    if phase_step is not None:
        shapes.append(step_line(phase_step, "#d62728", "solid"))
        notes.append(step_note(phase_step, tr("phase change, step {step}", step=phase_step)))
    if marker is not None:
        shapes.append(step_line(marker))
    return figure(
        data,
        {
            "title": title(tr("Loss, and accuracy on the repeat")),
            **loss_and_accuracy(),
            "shapes": shapes,
            "annotations": notes,
            "legend": {"orientation": "h", "y": -0.25},
            "height": 400,
            "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        },
    )


def role_curves(
    steps: list[int], previous: np.ndarray, induction: np.ndarray, marker: int | None = None
) -> go.Figure:
    """Every head's score over training: layer 0's previous-token scores (solid) and the last
    layer's induction scores (dashed), one colour per head. previous, induction: (S, L, H)."""
    x = np.array(steps, np.int32)
    last = induction.shape[1] - 1
    data = []
    for head in range(previous.shape[2]):
        colour = HEAD_COLOURS[head % len(HEAD_COLOURS)]
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": tr("{head} previous-token", head=f"0.{head}"),
                "x": x,
                "y": f32(previous[:, 0, head]),
                "line": {"color": colour},
                "hovertemplate": tr(
                    "step %{{x}}<br>head {head} previous-token %{{y:.2f}}<extra></extra>", head=f"0.{head}"
                ),
            }
        )
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": tr("{head} induction", head=f"{last}.{head}"),
                "x": x,
                "y": f32(induction[:, last, head]),
                "line": {"color": colour, "dash": "dash"},
                "hovertemplate": tr(
                    "step %{{x}}<br>head {head} induction %{{y:.2f}}<extra></extra>", head=f"{last}.{head}"
                ),
            }
        )
    shapes = [] if marker is None else [step_line(marker)]
    return figure(
        data,
        {
            "title": title(tr("Each head's role as it trains")),
            "xaxis": {"title": {"text": tr("step")}, "rangemode": "tozero"},
            # TRANSLATORS: an axis title: a head's role score, 0 to 1
            "yaxis": {"title": {"text": tr("score")}, "range": [0, 1.02]},
            "shapes": shapes,
            "legend": {"orientation": "h", "y": -0.25},
            "height": 420,
            "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        },
    )
