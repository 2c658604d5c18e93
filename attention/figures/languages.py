"""The language lesson's chart: the same sentence's GPT-2 tokens and attention cells per language."""

from __future__ import annotations

import html

import plotly.graph_objects as go

from attention.figures.layout import chart_title, figure


def cost_bars(
    names: list[str], tokens: list[int], cells: list[int], title: str, axes: tuple[str, str], hover: str
) -> go.Figure:
    """Two bars per language: tokens (left axis) and T² attention cells (right axis). `hover` is the
    bar's hover text with %{y} and %{customdata} (the ratio to the first language)."""
    names = [html.escape(n) for n in names]
    tokens_axis, cells_axis = axes
    base_t, base_c = max(tokens[0], 1), max(cells[0], 1)
    data = [
        {
            "type": "bar", "x": names, "y": tokens, "name": tokens_axis, "offsetgroup": 0,
            "customdata": [round(t / base_t, 1) for t in tokens], "hovertemplate": hover,
            "marker": {"color": "#4c78a8"}, "text": tokens, "textposition": "outside", "cliponaxis": False,
        },
        {
            "type": "bar", "x": names, "y": cells, "name": cells_axis, "offsetgroup": 1, "yaxis": "y2",
            "customdata": [round(c / base_c, 1) for c in cells], "hovertemplate": hover,
            "marker": {"color": "#f58518"}, "text": cells, "textposition": "outside", "cliponaxis": False,
        },
    ]  # fmt: skip
    layout = {
        "title": chart_title(title),
        "barmode": "group",
        "height": 380,
        "margin": {"t": 70, "b": 40, "l": 50, "r": 60},
        "yaxis": {"title": {"text": tokens_axis}, "rangemode": "tozero"},
        "yaxis2": {"title": {"text": cells_axis}, "overlaying": "y", "side": "right", "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.15},
    }
    return figure(data, layout)
