"""The intervention lab's figures: the loss on every token before and after a knockout, the top
next tokens before and after, a head-importance map; and the map's CSV and JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention.figures.layout import (
    DIVERGING,
    SHARE_PX,
    cell_numbers,
    f32,
    figure,
    position_axis,
    title,
    token_labels,
)
from attention.figures.model import probability_bars
from attention.i18n import N_, tr
from attention.model.interventions import HeadMap
from attention.model.lab import stretches

BEFORE, AFTER = "#1f5fbf", "#d55e00"  # blue as the untouched model everywhere; vermilion (Okabe-Ito) after
# the lines' and bars' names, by run: the model untouched, with heads knocked out, alone
NAMES = {
    # TRANSLATORS: the model as it is, no head knocked out (a line's or a chart's name)
    "before": N_("untouched"),
    # TRANSLATORS: the model with the chosen heads knocked out (a line's or a chart's name)
    "after": N_("knocked out"),
    "sentence": N_("loss"),  # alone: the sentence as the model reads it
}
COLOURS = {"before": BEFORE, "after": AFTER, "sentence": BEFORE}


def loss_figure(
    tokens: Sequence[str], loss: dict[str, np.ndarray], repeats: Sequence[int], width_px: int
) -> go.Figure:
    """−log p(token t | tokens before it) at every position, before and after; the repeated tokens
    (where an earlier copy tells the next one) shaded."""
    labels = token_labels(tokens)
    positions = np.arange(len(tokens), dtype=np.int16)
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": positions,
            "y": f32(loss[when]),
            "name": tr(NAMES[when]),
            "line": {"color": COLOURS[when], "width": 2},
            "marker": {"size": 5},
            "customdata": labels,
            "hovertemplate": tr(
                "%{{x}}: %{{customdata}}<br>{name}: %{{y:.3f}} nats<extra></extra>", name=tr(NAMES[when])
            ),
        }
        for when in NAMES
        if when in loss
    ]
    shade = {"type": "rect", "xref": "x", "yref": "paper", "y0": 0, "y1": 1, "layer": "below"}
    shade |= {"fillcolor": "#999999", "opacity": 0.15, "line": {"width": 0}}
    shapes = [shade | {"x0": a - 0.5, "x1": b + 0.5} for a, b in stretches(repeats)]
    return figure(
        data,
        {
            "title": title(tr("Loss on each token (nats)"), size=14),
            "xaxis": position_axis(
                labels, tr("token (grey: repeated, an earlier copy tells it)") if shapes else tr("token")
            )
            | {"tickangle": -60},
            "yaxis": {"title": {"text": tr("−log p(token | tokens before)")}, "rangemode": "tozero"},
            "shapes": shapes,
            "legend": {"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right", "yanchor": "bottom"},
            "showlegend": len(data) > 1,
            "height": 380,
            "width": width_px,
            "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        },
    )


def next_figure(next_tokens: dict[str, list[tuple[int, str, float]]], narrow: bool = False) -> go.Figure:
    """The top next tokens after the last one, untouched and knocked out, side by side (stacked on
    a phone); each most likely on top."""
    data, layout = [], {}
    for i, when in enumerate(("before", "after")):
        rows, name, colour = next_tokens[when], tr(NAMES[when]), COLOURS[when]
        suffix = "" if i == 0 else "2"
        probabilities = f32([p for _, _, p in rows])
        data.append(
            probability_bars(rows, colour) | {"name": name, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
        )
        domain = (
            ([0, 1], [0.55 * (1 - i), 0.45 + 0.55 * (1 - i)])
            if narrow
            else ([0.55 * i, 0.45 + 0.55 * i], [0, 1])
        )
        layout[f"xaxis{suffix}"] = {
            "domain": domain[0],
            "range": [0, min(1.0, float(probabilities.max()) * 1.3 + 0.05)],
            "title": {"text": tr("probability, {name}", name=name)},
            "anchor": f"y{suffix}",
        }
        layout[f"yaxis{suffix}"] = {
            "domain": domain[1],
            "tickmode": "array",
            "tickvals": list(range(len(rows))),
            "ticktext": token_labels([text for _, text, _ in rows]),
            "autorange": "reversed",
            "anchor": f"x{suffix}",
        }
    rows = max(len(r) for r in next_tokens.values())
    return figure(
        data,
        layout
        | {
            "title": title(tr("Next token: untouched | knocked out"), size=14),
            "showlegend": False,
            "height": (2 if narrow else 1) * (60 + 26 * rows) + 60,
            "margin": {"l": 10, "r": SHARE_PX, "t": 50, "b": 10},
        },
    )


# A map's title, by kind and whether it is an estimate (attribution)
HEADINGS = {
    ("ablation", False): N_("Loss change, one head knocked out (nats)"),
    ("ablation", True): N_("Loss change, one head knocked out (nats) (estimate)"),
    ("patching", False): N_("Recovery, one head patched (1 = clean)"),
    ("patching", True): N_("Recovery, one head patched (1 = clean) (estimate)"),
}


def importance_figure(grid: HeadMap, kind: str, width_px: int) -> go.Figure:
    """An (L, H) head-importance map: for ablation, the change in loss when each head alone is
    knocked out (diverging around 0: red, the loss rises without it); for patching, the share of
    the clean prediction a head alone brings back (0..1 and beyond)."""
    values = grid.values
    layers, heads = values.shape
    heading = tr(HEADINGS[kind, grid.method == "attribution"])
    if kind == "ablation":
        bound = max(float(np.nanmax(np.abs(values))), 1e-6)
        scale = {"zmin": -bound, "zmax": bound, "colorscale": DIVERGING}
        hover = tr("head %{y}.%{x}<br>loss change %{z:+.4f} nats<extra></extra>")
        text = "%{z:+.2f}"
    else:
        bound = max(1.0, float(np.nanmax(np.abs(values))))
        scale = {"zmin": -bound, "zmax": bound, "colorscale": DIVERGING}
        hover = tr("head %{y}.%{x}<br>recovery %{z:.4f} (1 = clean)<extra></extra>")
        text = "%{z:.0%}"
    data = [
        {
            "type": "heatmap",
            "z": f32(values),
            **scale,
            "xgap": 1,
            "ygap": 1,
            "colorbar": {"thickness": 10},
            "hovertemplate": hover,
            **cell_numbers(heads, width_px) | {"texttemplate": text if heads <= 16 else ""},
        }
    ]
    return figure(
        data,
        {
            "title": title(heading, size=14),
            "xaxis": {
                "tickvals": list(range(heads)),
                "ticktext": [tr("head {head}", head=h) for h in range(heads)],
                "side": "top",
            },
            "yaxis": {
                "tickvals": list(range(layers)),
                "ticktext": [tr("layer {layer}", layer=layer) for layer in range(layers)],
                "autorange": "reversed",
                "automargin": True,
            },
            "width": width_px,
            "height": 130 + min(40, max(24, width_px // (heads + 2))) * layers,
            "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        },
    )


def map_csv(grid: HeadMap, kind: str) -> str:
    """One row per head: layer, head, and its value (loss change in nats, or recovery)."""
    column = "loss_change" if kind == "ablation" else "recovery"
    rows = [
        {"layer": layer, "head": head, column: float(grid.values[layer, head])}
        for layer, head in np.ndindex(grid.values.shape)
    ]
    return pd.DataFrame(rows).to_csv(index=False)


def map_json(
    grid: HeadMap, kind: str, source: str, ids: Sequence[int], tokens: Sequence[str], corrupted=None
) -> str:
    """The map with what it was measured on (the keys of `python -m attention.model importance`)."""
    out = {
        "schema": "attention-explorer/map/1",
        "model": source,
        "kind": kind,
        "method": grid.method,
        "metric": grid.metric.name,
        "ids": list(ids),
        "tokens": list(tokens),
        "positions": list(grid.positions),
        "values": grid.values.tolist(),
        "base": grid.base,
    }
    if kind == "patching":
        out |= {"corrupted_ids": list(corrupted or ()), "clean": grid.clean, "corrupted": grid.base}
    return json.dumps(out)
