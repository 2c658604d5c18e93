"""Class mode's histogram: how many students picked each option, per vote, for the projector."""

from __future__ import annotations

import html
import textwrap

import plotly.graph_objects as go

from attention.figures.layout import figure

VOTE_COLOURS = ("#9ecae1", "#3182bd")  # the first vote pale, the vote after discussion strong
RIGHT = "#2ca02c"
LINE = 24  # characters per line of an option's label: a phone's chart is ~340 px wide, and plotly
# cuts a label its margin cannot hold (a Ukrainian option lost its first words at 390 px)


def answer_bars(
    options: list[str], counts: list[list[int]], names: list[str], right: int | None
) -> go.Figure:
    """One horizontal bar per option and vote (counts: votes × options, oldest first); the right
    option's label in green and marked ✓ once it is revealed (`right`: its index)."""
    lines = [textwrap.wrap(o if len(o) <= 60 else o[:59] + "…", LINE) or [""] for o in options]
    # " <br>": the space stays in the label's text (a screen reader's table reads it: static/a11y.js)
    labels = [" <br>".join(html.escape(line) for line in wrapped) for wrapped in lines]
    if right is not None:
        labels[right] = f"<b style='color:{RIGHT}'>✓ {labels[right]}</b>"
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "y": labels,
            "x": row,
            "name": name,
            "text": row,
            "textposition": "outside",
            "cliponaxis": False,
            "marker": {"color": VOTE_COLOURS[-len(counts) + i]},
            "hovertemplate": "%{y}: %{x}<extra>" + html.escape(name) + "</extra>",
        }
        for i, (row, name) in enumerate(zip(counts, names, strict=True))
    ]
    top = max((max(row) for row in counts if row), default=0)
    layout = {
        "barmode": "group",
        "height": 90 + max(44 * max(1, len(counts)), 22 * max(map(len, lines), default=1)) * len(options),
        "margin": {"t": 10, "b": 30, "l": 10, "r": 40},
        "yaxis": {"autorange": "reversed", "automargin": True, "tickfont": {"size": 16}},
        "xaxis": {"range": [0, max(1, top) * 1.15], "dtick": max(1, round(top / 5)) if top else 1},
        "legend": {"orientation": "h", "y": -0.12} if len(counts) > 1 else {},
        "showlegend": len(counts) > 1,
        "font": {"size": 15},
    }
    return figure(data, layout)
