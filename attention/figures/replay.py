"""Watch it learn's figures for a recorded training (ui/train/replay.py): the loss against the unigram
and bigram baselines, and each layer's best previous-token and induction head over the steps."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.layout import HEAD_COLOURS, f32, figure, title
from attention.figures.train import step_line, step_note
from attention.i18n import N_, tr

# a baseline's line and its hover, by the record's name for it
BASELINES = {
    "unigram": (N_("unigram model, held out"), N_("unigram: %{y:.3f}<extra></extra>")),
    "bigram": (N_("bigram model, held out"), N_("bigram: %{y:.3f}<extra></extra>")),
}
# each role's line and its hover
ROLE_LINES = {
    "previous": (
        N_("layer {layer} previous"),
        N_("step %{{x}}<br>layer {layer}'s best previous %{{y:.2f}}<extra></extra>"),
    ),
    "induction": (
        N_("layer {layer} induction"),
        N_("step %{{x}}<br>layer {layer}'s best induction %{{y:.2f}}<extra></extra>"),
    ),
}


def recorded_curves(
    losses: list[float],
    steps: list[int],
    held_out: list[float],
    baselines: dict[str, float],
    appears: int | None,
    marker: int | None = None,
    task_steps: int = 0,
) -> go.Figure:
    """The training loss per step and the held-out loss per snapshot, against what a unigram and a
    bigram model of the training text get on the held-out plays; the step where an induction head
    appears marked. The first `task_steps` trained on the induction task, not on the plays: their
    loss is its own line, over a shaded band."""
    x = np.arange(1, len(losses) + 1, dtype=np.int32)
    task = min(task_steps, len(losses))
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": tr("training loss, the plays") if task_steps else tr("training loss"),
            "x": x[task:],
            "y": f32(losses[task:]),
            "line": {"color": "#0072b2", "width": 1},
            "hovertemplate": tr("step %{x}<br>training loss %{y:.3f}<extra></extra>"),
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": tr("held-out plays"),
            "x": np.array(steps, np.int32),
            "y": f32(held_out),
            "line": {"color": "#d55e00"},
            "hovertemplate": tr("step %{x}<br>held-out loss %{y:.3f}<extra></extra>"),
        },
    ]
    for (name, value), dash in zip(baselines.items(), ("dot", "dash"), strict=False):
        line, hover = BASELINES.get(name, (f"{name} model, held out", f"{name}: %{{y:.3f}}<extra></extra>"))
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": tr(line),
                "x": [1, max(steps[-1] if steps else 1, len(losses))],
                "y": [value, value],
                "line": {"color": "#777777", "dash": dash},
                "hovertemplate": tr(hover),
            }
        )
    shapes, notes = [], []
    if task_steps:
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": tr("training loss, induction task"),
                "x": x[:task],
                "y": f32(losses[:task]),
                "line": {"color": "#009e73", "width": 1},
                "hovertemplate": tr("step %{x}<br>induction task's loss %{y:.3f}<extra></extra>"),
            }
        )
        band = {"type": "rect", "xref": "x", "yref": "paper", "x0": 0, "x1": task_steps, "y0": 0, "y1": 1}
        shapes.append(band | {"fillcolor": "#009e73", "opacity": 0.08, "line": {"width": 0}})
        notes.append(step_note(task_steps / 2, tr("stage 1: the task, no plays"), "#00704f", 0.02))
    if appears is not None:
        shapes.append(step_line(appears, "#d62728", "solid"))
        notes.append(step_note(appears, tr("induction head, step {step}", step=appears)))
    if marker is not None:
        shapes.append(step_line(marker))
    return figure(
        data,
        {
            "title": title(tr("Loss (nats per token)")),
            "xaxis": {"title": {"text": tr("step")}, "rangemode": "tozero"},
            "yaxis": {"title": {"text": tr("loss")}, "range": [0, 12]},
            "shapes": shapes,
            "annotations": notes,
            "legend": {"orientation": "h", "y": -0.25},
            "height": 420,
            "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        },
    )


def best_per_layer(steps: list[int], scores: dict[str, np.ndarray], marker: int | None = None) -> go.Figure:
    """Each layer's best score over training, for the previous-token role (solid) and the induction
    role (dashed), one colour per layer. scores: role -> (S, L, H) on natural-text probes."""
    x = np.array(steps, np.int32)
    data = []
    for role, dash in (("previous", "solid"), ("induction", "dash")):
        name, hover = ROLE_LINES[role]
        for layer in range(scores[role].shape[1]):
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": tr(name, layer=layer),
                    "x": x,
                    "y": f32(np.nanmax(scores[role][:, layer], axis=-1)),
                    "line": {"color": HEAD_COLOURS[layer % len(HEAD_COLOURS)], "dash": dash},
                    "hovertemplate": tr(hover, layer=layer),
                }
            )
    return figure(
        data,
        {
            "title": title(tr("Each layer's best head, on Shakespeare's text")),
            "xaxis": {"title": {"text": tr("step")}, "rangemode": "tozero"},
            "yaxis": {"title": {"text": tr("score")}, "range": [0, 1.02]},
            "shapes": [] if marker is None else [step_line(marker)],
            "legend": {"orientation": "h", "y": -0.25},
            "height": 420,
            "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        },
    )
