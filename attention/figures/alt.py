"""A chart's text alternative, computed from the figure itself: its name (what it shows, its kind
and size, what its rows and columns are) and one sentence of what to notice in its numbers (the
largest value, each row's largest, the diagonal; a curve's start, end and extremes; the highest
and lowest bar). Plotly draws a heatmap as one image, so a screen reader gets nothing of it but
this; the browser reads it from the figure's `layout.meta` (static/a11y.js puts it on the chart as
role="img" and aria-label, the sentence as its description, and builds the numbers' table from
the figure's own data on request).

Read from the figure that is drawn, so every chart gets one without its builder knowing, and the
words follow the figure's own titles (already in the session's language)."""

from __future__ import annotations

import html
import re

import numpy as np
import plotly.graph_objects as go

from attention.figures.fit import BREAK, TAG
from attention.i18n import tr, tr_n

_ARROWS = re.compile(r"\s*[←→↑↓]\s*")
ROWS_LISTED = 8  # "largest in each row" is listed up to this many rows; more would be a paragraph
LABEL_CHARS = 24  # a token longer than this is cut in the sentence (the table has it whole)
CURVES_LISTED = 4


def plain(text: object) -> str:
    """Plotly's markup as plain words: tags dropped, line breaks as spaces, entities unescaped, the
    arrows that point at an axis dropped ("← queries (looking)" -> "queries (looking)")."""
    words = html.unescape(TAG.sub("", BREAK.sub(" ", str(text or ""))))
    return " ".join(_ARROWS.sub(" ", words).split())


class _Plain:
    """A plotly object's own dict, read like the object (a missing property: None) without plotly's
    validators: read through them, the text alternative cost more than building the figure (0.7
    against 0.4 ms for a step's heatmap; benchmarks.classroom's explore mix builds one per change)."""

    __slots__ = ("_props",)

    def __init__(self, props: dict):
        self._props = props

    def __getattr__(self, name: str):
        return _plain_value(self._props.get(name))

    __getitem__ = __getattr__


def _plain_value(value):
    if isinstance(value, dict):
        return _Plain(value)
    if isinstance(value, list | tuple) and value and isinstance(value[0], dict):
        return [_Plain(v) for v in value]
    return value


def _text(part) -> str:
    """A title's text, where there is a title."""
    return plain(part.text) if part is not None else ""


def describe(fig: go.Figure) -> dict[str, str]:
    """{"name": …, "summary": …} for `fig`, in this rerun's language. Reads the figure's own data
    and layout (plotly's _data and _layout: what it validated them into)."""
    fig = _Plain({"data": fig._data, "layout": fig._layout})
    layout = fig.layout
    heatmaps = [t for t in fig.data if t.type == "heatmap" and t.z is not None and t.visible is not False]
    # a subplot's title names the chart only where there is one plot (a grid's first is its first head)
    title = _text(layout.title) or (plain(_first_annotation(layout)) if len(heatmaps) <= 1 else "")
    # the subtitle says which head, layer or shape: a chart of another head has another name
    subtitle = _text(layout.title.subtitle) if layout.title is not None else ""
    if title and subtitle:
        title = f"{title}: {subtitle}"
    bars = [t for t in fig.data if t.type == "bar" and t.visible is not False]
    curves = [t for t in fig.data if t.type == "scatter" and _is_curve(t)]
    if heatmaps:
        kind, summary = _heatmaps(fig, heatmaps)
    elif bars:
        kind, summary = tr("bar chart"), " ".join(_bar_words(fig, t, len(bars) > 1) for t in bars)
    elif curves:
        kind = tr("line chart")
        summary = " ".join(_curve_words(t, len(curves) > 1) for t in curves[:CURVES_LISTED])
    else:
        kind, summary = tr("chart"), ""
    name = f"{title} ({kind})" if title else kind
    return {"name": name, "summary": summary}


def _first_annotation(layout) -> str:
    return layout.annotations[0].text if layout.annotations else ""


def _is_curve(trace) -> bool:
    """A line or points that carry numbers: not a shape drawn as a filled polygon (a mask's
    outline), not a marker nobody can hover."""
    return trace.visible is not False and (trace.fill in (None, "none")) and trace.hoverinfo != "skip"


def _heatmaps(fig: _Plain, traces: list) -> tuple[str, str]:
    z = values(traces[0])
    rows, columns = z.shape if z.ndim == 2 else (1, z.size)
    if len(traces) > 1:  # a grid of heads: each its own heatmap, one sentence for them all
        kind = tr_n(
            "{n} heatmap, each {rows} × {columns}",
            "{n} heatmaps, each {rows} × {columns}",
            len(traces),
            n=len(traces),
            rows=rows,
            columns=columns,
        )
        return kind, _grid_words(fig, traces)
    kind = tr("heatmap, {rows} × {columns}", rows=rows, columns=columns)
    ytitle, xtitle = _axis_title(fig.layout, traces[0], "y"), _axis_title(fig.layout, traces[0], "x")
    if ytitle and xtitle:
        # TRANSLATORS: {rows} and {columns} are a heatmap's axis titles, e.g. "queries (looking)"
        kind += "; " + tr("rows: {rows}, columns: {columns}", rows=ytitle, columns=xtitle)
    return kind, _matrix_words(fig.layout, traces[0], z)


def _axis(layout, trace, along: str):
    """The layout's axis a trace is drawn on, along "x" or "y" ("y2" -> layout.yaxis2)."""
    return layout[along + "axis" + (getattr(trace, along + "axis") or along)[1:]]


def _axis_title(layout, trace, along: str) -> str:
    axis = _axis(layout, trace, along)
    return _text(axis.title) if axis is not None else ""


def _labels(layout, trace, along: str, n: int) -> list[str]:
    """The names of a heatmap's rows (along="y") or columns ("x"): the trace's own, else the
    axis's tick text for each position (tokens: design.md, integer positions with tick text)."""
    own = getattr(trace, along)
    if own is not None and len(own) == n:
        return [_short(v) for v in own]
    axis = _axis(layout, trace, along)
    ticks = dict(zip(axis.tickvals or (), axis.ticktext or (), strict=False)) if axis is not None else {}
    return [_short(ticks.get(i, i)) for i in range(n)]


def _short(value: object) -> str:
    text = plain(value)
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _matrix_words(layout, trace, z: np.ndarray) -> str:
    if z.ndim != 2 or not np.isfinite(z).any():
        return ""
    rows, columns = _labels(layout, trace, "y", z.shape[0]), _labels(layout, trace, "x", z.shape[1])
    filled = np.where(np.isfinite(z), z, -np.inf)
    r, c = np.unravel_index(int(np.argmax(filled)), z.shape)
    largest = {"value": _value(z[r, c]), "row": rows[r], "column": columns[c]}
    # TRANSLATORS: {row} and {column} name a heatmap's row and column: a token, or a number
    words = [tr("Largest value: {value}, in row {row}, column {column}.", **largest)]
    live = np.isfinite(z).any(axis=1)
    best = np.argmax(filled, axis=1)
    if z.shape[0] == z.shape[1] and z.shape[0] > 1:
        on_diagonal = int(((best == np.arange(z.shape[0])) & live).sum())
        words.append(
            tr_n(
                "In {count} of {n} row, the largest value is on the diagonal.",
                "In {count} of {n} rows, the largest value is on the diagonal.",
                int(live.sum()),
                count=on_diagonal,
                n=int(live.sum()),
            )
        )
    if z.shape[0] <= ROWS_LISTED:
        pairs = "; ".join(f"{rows[i]} → {columns[best[i]]}" for i in range(z.shape[0]) if live[i])
        # TRANSLATORS: {pairs} lists "row → column" pairs, e.g. "Your → journey; step → one"
        words.append(tr("Largest in each row: {pairs}.", pairs=pairs))
    return " ".join(words)


def values(trace) -> np.ndarray:
    """A heatmap's numbers: a grid's thumbnails travel as bytes (round(weight * 255), zmax 255:
    attention/figures/layout.thumbnails), read back as weights, to the 1/255 they were sent with."""
    z = np.asarray(trace.z)
    if z.dtype == np.uint8 and trace.zmax == 255:
        return z / 255.0
    return z.astype(float)


def _grid_words(fig: _Plain, traces: list) -> str:
    """Which heatmap of a grid holds the largest value (a grid's titles are its annotations, one
    per heatmap, in order: layout.thumbnails)."""
    peaks = [np.nanmax(v) if np.isfinite(v := values(t)).any() else -np.inf for t in traces]
    top = int(np.argmax(peaks))
    titles = fig.layout.annotations or []
    name = plain(traces[top].name) or (plain(titles[top].text) if len(titles) >= len(traces) else str(top))
    # TRANSLATORS: {name} is one heatmap's name in a grid of them, e.g. "head 3"
    return tr("The largest value, {value}, is in {name}.", value=_value(round(peaks[top], 2)), name=name)


def _bar_words(fig: _Plain, trace, named: bool) -> str:
    horizontal = trace.orientation == "h"
    values = np.asarray(trace.x if horizontal else trace.y, dtype=float)
    if not values.size or not np.isfinite(values).any():
        return ""
    labels = trace.y if horizontal else trace.x
    labels = [_short(v) for v in labels] if labels is not None else [str(i) for i in range(values.size)]
    high, low = int(np.nanargmax(values)), int(np.nanargmin(values))
    # TRANSLATORS: {high} and {low} are bars' labels (a token, a language, an answer's option)
    words = tr(
        "Highest: {high} ({high_value}); lowest: {low} ({low_value}).",
        high=labels[high],
        high_value=_value(values[high]),
        low=labels[low],
        low_value=_value(values[low]),
    )
    return f"{plain(trace.name)}: {words}" if named and trace.name else words


def _curve_words(trace, named: bool) -> str:
    values = np.asarray(trace.y if trace.y is not None else (), dtype=float)
    if not values.size or not np.isfinite(values).any():
        return ""
    kept = values[np.isfinite(values)]
    words = tr(
        "From {first} to {last}; lowest {low}, highest {high}.",
        first=_value(kept[0]),
        last=_value(kept[-1]),
        low=_value(kept.min()),
        high=_value(kept.max()),
    )
    return f"{plain(trace.name)}: {words}" if named and trace.name else words


def _value(v: float) -> str:
    """A number as the chart's hover shows it, about: 4 significant digits, the book's point."""
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e9 else f"{v:.4g}"
