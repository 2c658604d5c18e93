"""Inside a model's Token view: one token's lines to the tokens it attends to, every chosen head's
in its colour (BertViz's head view, drawn natively)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.layout import HEAD_COLOURS, figure, token_labels
from attention.i18n import tr

BANDS = (0.02, 0.1, 0.25, 0.5, 0.75, 1.01)  # weight bands: a band's lines share one width and opacity


def token_view(tokens: list[str], weights: np.ndarray, query: int, heads: list[int]) -> go.Figure:
    """BertViz's head view: the tokens twice, queries on the left and keys on the right; a line from
    the chosen query to each key it looks at (weight over 0.02), thicker and darker as the weight
    grows; one colour per head. Several heads' lines are drawn thinner and each a little apart
    (within the row), so that one head's lines cannot hide another's. weights: (H, T, T) of one layer."""
    labels = token_labels(tokens)
    n = len(labels)
    widest = 8 if len(heads) == 1 else 4
    data = []
    for i, head in enumerate(heads):
        row = weights[head, query]
        colour = HEAD_COLOURS[head % len(HEAD_COLOURS)]
        shift = 0.0 if len(heads) == 1 else 0.6 * (i / (len(heads) - 1) - 0.5)  # rows: -0.3 .. 0.3
        for low, high in zip(BANDS, BANDS[1:], strict=False):
            keys = np.flatnonzero((row >= low) & (row < high))
            if not len(keys):
                continue
            x, y, text = [], [], []
            for key in keys:  # one segment each, None between them
                x += [0, 1, None]
                y += [query + shift, int(key) + shift, None]
                note = tr(
                    "head {head}: {query} → {key}: {weight:.3f}",
                    head=head,
                    query=labels[query],
                    key=labels[key],
                    weight=row[key],
                )
                text += [note, note, None]
            data.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": y,
                    "text": text,
                    "mode": "lines",
                    "showlegend": False,
                    "line": {"color": colour, "width": 1 + widest * high / 1.01},
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
                "name": tr("head {head}", head=head),
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
            "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "title": {"text": tr("colour:")}},
            "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        },
    )
