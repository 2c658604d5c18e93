"""Today's attention's charts (ui/model/today.py): the weight on the first token per layer, how
alike heads that share keys look, the KV cache per token beside other models', and the weight by
distance back (a sliding layer's band). Numbers from attention.model.today."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.layout import f32, figure, title
from attention.i18n import number, tr
from attention.model.today import Distances, Likeness, Sinks

BLUE, ORANGE, GREY = "#1f77b4", "#d95f02", "#7f7f7f"


def _bars(layers: int, series: list[tuple[str, np.ndarray, str]], heading: str, axis: str) -> go.Figure:
    """Grouped bars, one group per layer."""
    names = [tr("layer {layer}", layer=layer) for layer in range(layers)]
    data = [
        {
            "type": "bar",
            "x": names,
            "y": f32(np.nan_to_num(values)),
            "name": name,
            "marker": {"color": colour},
            "hovertemplate": "%{x}: %{y:.3f}<extra>" + name + "</extra>",
        }
        for name, values, colour in series
    ]
    layout = {
        "title": title(heading, size=14),
        "barmode": "group",
        "yaxis": {"title": {"text": axis}, "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.2},
        "height": 340,
        "margin": {"l": 60, "r": 10, "t": 40, "b": 70},
    }
    return figure(data, layout)


def sinks_figure(sinks: Sinks) -> go.Figure:
    typed, started = sinks.by_layer()
    return _bars(
        len(typed),
        [
            (tr("your sentence as typed"), typed, BLUE),
            (tr("after the start token"), started, ORANGE),
        ],
        tr("Weight on the first token, mean of each layer's heads"),
        tr("weight (1 = all of it)"),
    )


def likeness_figure(likeness: Likeness) -> go.Figure:
    return _bars(
        len(likeness.same_group),
        [
            (tr("heads that share keys and values"), likeness.same_group, ORANGE),
            (tr("heads that do not"), likeness.other_groups, GREY),
        ],
        tr("How alike two heads' weights are (1 = the same)"),
        tr("similarity"),
    )


def cache_figure(rows: list[tuple[str, int]], highlight: str) -> go.Figure:
    """Bytes per token of each model's KV cache, this model's bar in orange."""
    names = [name for name, _ in rows]
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "y": names,
            "x": f32([size for _, size in rows]),
            "marker": {"color": [ORANGE if name == highlight else BLUE for name in names]},
            "text": [number(size) for _, size in rows],
            "textposition": "auto",
            "hovertemplate": "%{y}: %{x:,} B<extra></extra>",
        }
    ]
    layout = {
        "title": title(tr("KV cache per token, in bytes"), size=14),
        "xaxis": {"type": "log", "title": {"text": tr("bytes per token (log scale)")}},
        "yaxis": {"autorange": "reversed"},
        "height": 80 + 34 * len(rows),
        "margin": {"l": 140, "r": 10, "t": 40, "b": 50},
    }
    return figure(data, layout)


def distance_figure(distances: Distances) -> go.Figure:
    """Mean weight by distance back, one line per layer; sliding layers dashed."""
    weight = distances.weight
    data = []
    for layer, window in enumerate(distances.windows):
        kind = tr("sliding window {window}", window=window) if window else tr("full")
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": list(range(weight.shape[1])),
                "y": f32(weight[layer]),
                # TRANSLATORS: {kind} is a layer's kind: full (it reads every token) or sliding (only the last
                # few)
                "name": tr("layer {layer} ({kind})", layer=layer, kind=kind),
                "line": {"dash": "dash" if window else "solid", "width": 2},
                "hovertemplate": tr("distance back %{x}: weight %{y:.4f}") + "<extra></extra>",
            }
        )
    layout = {
        "title": title(tr("Weight by how far back the key is"), size=14),
        "xaxis": {"title": {"text": tr("tokens back (0 = the token itself)")}},
        "yaxis": {"title": {"text": tr("mean weight (log scale)")}, "type": "log"},
        "legend": {"orientation": "h", "y": -0.25},
        "height": 380,
        "margin": {"l": 60, "r": 10, "t": 40, "b": 90},
    }
    return figure(data, layout)


def score_figure(distances: Distances) -> go.Figure:
    """Mean scaled score (before the mask and the softmax) by distance back, one line per layer."""
    fig = distance_figure(distances)
    for line, scores in zip(fig.data, distances.score, strict=True):
        line.y = f32(scores)
        line.hovertemplate = tr("distance back %{x}: score %{y:.3f}") + "<extra></extra>"
    fig.update_layout(
        title=title(tr("Score by how far back the key is"), size=14),
        yaxis={"title": {"text": tr("mean scaled score")}, "type": "linear"},
    )
    return fig
