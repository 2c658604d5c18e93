"""Class mode's histogram: how many students picked each option, per vote, for the projector."""

from __future__ import annotations

import html
import unicodedata

import plotly.graph_objects as go

from attention.figures.layout import figure

VOTE_COLOURS = ("#9ecae1", "#3182bd")  # the first vote pale, the vote after discussion strong
RIGHT = "#2ca02c"
LINE = 24  # columns per line of an option's label (a wide character, CJK or Hangul, takes two): a
# phone's chart is ~340 px wide, and plotly cuts a label its margin cannot hold (a Ukrainian option
# lost its first words at 390 px)


def answer_bars(
    options: list[str], counts: list[list[int]], names: list[str], right: int | None
) -> go.Figure:
    """One horizontal bar per option and vote (counts: votes × options, oldest first); the right
    option's label in green and marked ✓ once it is revealed (`right`: its index)."""
    lines = [_lines(o if len(o) <= 60 else o[:59] + "…") for o in options]
    labels = ["<br>".join(html.escape(line) for line in wrapped) for wrapped in lines]
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


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _lines(text: str) -> list[str]:
    """A label in lines of at most LINE columns, broken at spaces (each kept at its line's end, so
    the text a screen reader's table reads has every space: static/a11y.js), never inside a word or
    at a hyphen; one with Chinese or Japanese characters, which need no spaces, between any two of
    its characters (Korean puts spaces between its words)."""
    pieces = []
    for word in text.split(" "):
        if any(_width(c) == 2 and "HANGUL" not in unicodedata.name(c, "") for c in word):
            pieces += [(c, "") for c in word[:-1]] + [(word[-1:], " ")]
        else:
            pieces.append((word, " "))
    lines, line = [], ""
    for word, after in pieces:
        if line and _width(line + word) > LINE:
            lines.append(line)
            line = ""
        line += word + after
    return [*lines, line.removesuffix(" ")]
