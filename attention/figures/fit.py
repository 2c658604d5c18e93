"""A chart's words fitted to the width it is drawn at: plotly never wraps a title, so a long one (a
translation runs ~30% longer than English; a phone is 360 px) runs off the chart; and plotly's
toolbar (the modebar, shown on hover at the top right) is drawn over whatever is there.

`fit(fig, width_px)` wraps the title, subtitle and axis titles at spaces (between characters in
Japanese, Chinese and Korean) to the width, and where the title would reach under the toolbar (a
phone, a narrow column, a long title) gives the toolbar a strip of its own above the title. Widths
are estimates from the characters (the browser's fonts are not known here): generous ones.
"""

from __future__ import annotations

import html
import re

import plotly.graph_objects as go

TOOLBAR_PX = 30  # the toolbar's row at the top of a chart: 26 px buttons, 2 px from the edge
TOOLBAR_WIDTH = 236  # its 7 buttons for a 2-d chart and Streamlit's full-screen one (measured: 224 px)
LINE = 1.3  # a line's height, in font sizes
LIFT_PX = 12  # measured (plotly 7): 11 px for 2 lines at 15 px, and for 3
EDGE_PX = 10  # kept free at a chart's edge
Y_LABELS_PX = 70  # what a y-axis's labels and title take beside the plot, at least (automargin)
# a character about 1 em wide: Hangul jamo, CJK (with its punctuation, kana), Hangul syllables,
# full-width forms
_WIDE = re.compile("[\u1100-\u11ff\u2e80-\ua4cf\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")
TAG = re.compile(r"<[^>]*>")  # plotly's markup: a tag, and a line break (alt.py reads them too)
BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
# a tag, a space, one wide character, or a run of anything else
_PIECES = re.compile(r"<[^>]*>|\s+|" + _WIDE.pattern + r"|[^<\s" + _WIDE.pattern[1:-1] + r"]+")
# never first on a line (Japanese kinsoku): closing punctuation, small kana, the long-vowel mark
NO_START = set("、。，．・：；？！ー）」』】〉》〕ゝゞ々ぁぃぅぇぉっゃゅょァィゥェォッャュョ")
NARROW_EM = 0.58  # a Latin or Cyrillic character's width, in font sizes (bold Source Sans's widest ~0.55)


def text_px(text: str, size: float) -> float:
    """About how wide plotly draws `text` (its markup: tags take no room, <br> breaks lines) at
    `size` px: its widest line."""
    return max(_plain_px(html.unescape(TAG.sub("", line)), size) for line in BREAK.split(text))


def _plain_px(line: str, size: float) -> float:
    wide = len(_WIDE.findall(line))
    return (wide + (len(line) - wide) * NARROW_EM) * size


def wrap(text: str, width_px: float, size: float) -> str:
    """`text` with a <br> wherever a line would be wider than `width_px` at `size` px: at a space,
    or between two wide characters; a word wider than the line stands alone. Tags are kept whole
    (plotly carries <b> across a <br>); the <br>s already there are kept."""
    lines = []
    for given in BREAK.split(text):
        line, used = "", 0.0
        for piece in _PIECES.findall(given):
            px = 0.0 if piece.startswith("<") else _plain_px(html.unescape(piece), size)
            if piece.isspace():
                line, used = (line + piece, used + px) if line else (line, used)
                continue
            if used + px > width_px and line.strip() and piece not in NO_START:
                lines.append(line.rstrip())
                line, used = "", 0.0
            line, used = line + piece, used + px
        lines.append(line.rstrip())
    return "<br>".join(lines)


def _lines(text: str) -> int:
    return len(BREAK.split(text))


def fit(fig: go.Figure, width_px: int) -> go.Figure:
    """In place, for a chart drawn about `width_px` wide: its title, subtitle and axis titles
    wrapped to the width (the margins grow by the lines added), and the toolbar across the top,
    over the title's row where the title leaves it room, else in a strip of its own above
    everything (the chart grows by it)."""
    layout = fig.layout.to_plotly_json()
    base = (layout.get("font") or {}).get("size", 14)
    margin = {"t": 80, "b": 80, "l": 80, "r": 80} | (layout.get("margin") or {})
    updates: dict = {}
    title, grow, right = _fit_title(layout, width_px, base)
    if right > width_px - TOOLBAR_WIDTH or _under_toolbar(layout, width_px, margin, base):
        grow += TOOLBAR_PX
        if title:
            title["pad"]["t"] += TOOLBAR_PX
    if title and grow:
        updates["title"] = title
    if grow:
        margin["t"] += round(grow)
        updates["margin"] = {"t": margin["t"]}
        if layout.get("height"):
            updates["height"] = layout["height"] + round(grow)
    plot_w = width_px - max(margin["l"], Y_LABELS_PX) - margin["r"]
    plot_h = (layout.get("height") or 450) - margin["t"] - margin["b"]
    for name, axis in layout.items():
        length = plot_w if name.startswith("x") else plot_h
        if name.startswith(("xaxis", "yaxis")) and (fitted := _fit_axis_title(axis, length, base)):
            updates[name] = fitted
    if updates:  # plotly validates what it is given: ~2 ms
        fig.update_layout(updates)
    return fig


def _fit_title(layout: dict, width_px: int, base: float) -> tuple[dict | None, float, float]:
    """The title (and subtitle) wrapped to the width and anchored at the top: (its layout, the px
    the top margin must grow by for the lines added, where its widest line ends)."""
    title = layout.get("title")
    if isinstance(title, str):
        title = {"text": title}
    if not title or not title.get("text"):
        return None, 0.0, 0.0
    size = (title.get("font") or {}).get("size", base * 1.2)
    # Streamlit's theme puts a title at the left (x = 0) unless the figure says otherwise
    x, pad = title.get("x", 0), title.get("pad") or {}
    centred = title.get("xanchor") == "center" or (title.get("xanchor", "auto") == "auto" and x == 0.5)
    left = pad.get("l", 0) + width_px * x
    room = width_px - 2 * EDGE_PX if centred else width_px - left - EDGE_PX
    text = wrap(title["text"], room, size)
    new = {"text": text, "y": 1, "yref": "container", "yanchor": "top"}
    grow = (_lines(text) - _lines(title["text"])) * size * LINE
    widest = text_px(text, size)
    if sub := (title.get("subtitle") or {}).get("text"):
        sub_size = ((title.get("subtitle") or {}).get("font") or {}).get("size", base)
        new["subtitle"] = {"text": wrap(sub, room, sub_size)}
        grow += (_lines(new["subtitle"]["text"]) - _lines(sub)) * sub_size * LINE
        widest = max(widest, text_px(new["subtitle"]["text"], sub_size))
    top = pad.get("t", 6) if title.get("yanchor") == "top" else 6
    if _lines(text) > 1 and _lines(title["text"]) == 1:
        top += LIFT_PX  # plotly draws a title of several lines anchored at its top that much higher
    new["pad"] = pad | {"t": top}
    return new, grow, width_px / 2 + widest / 2 if centred else left + widest


def _under_toolbar(layout: dict, width_px: int, margin: dict, base: float) -> bool:
    """Whether a legend across the top, an axis's title on top or a panel's title at the top (an
    annotation at the top of the plot area, or above it) reaches the top right, where the toolbar
    stands."""
    legend = layout.get("legend") or {}
    if (
        layout.get("showlegend") is not False
        and legend.get("orientation") == "h"
        and legend.get("y", 0) >= 1
        and legend.get("x", 0) >= 0.5
    ):
        return True
    plot_w = width_px - margin["l"] - margin["r"]
    for name, axis in layout.items():  # a keys axis on top: its title, centred over the plot
        if name.startswith("xaxis") and isinstance(axis, dict) and axis.get("side") == "top":
            title = axis.get("title")
            text = title.get("text") if isinstance(title, dict) else title
            start, end = axis.get("domain") or [0, 1]
            middle = margin["l"] + plot_w * (start + end) / 2
            if text and middle + text_px(text, base) / 2 > width_px - TOOLBAR_WIDTH:
                return True
    for note in layout.get("annotations") or []:
        if (
            note.get("yref", "paper") != "paper"
            or note.get("y", 0) < 0.98
            or note.get("xref", "paper") != "paper"
        ):
            continue
        size = (note.get("font") or {}).get("size", 14)
        text_w = text_px(str(note.get("text", "")), size)
        start = margin["l"] + plot_w * note.get("x", 0.5)
        start -= {"left": 0, "right": text_w}.get(note.get("xanchor", "center"), text_w / 2)
        if start + text_w > width_px - TOOLBAR_WIDTH:
            return True
    return False


def _fit_axis_title(axis: dict, length_px: float, base: float) -> dict | None:
    """An axis title wrapped to its axis's length; plotly's automargin makes room for its lines."""
    title = axis.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    if not text or length_px <= 0:
        return None
    size = ((title.get("font") if isinstance(title, dict) else None) or {}).get("size", base)
    start, end = axis.get("domain") or [0, 1]
    wrapped = wrap(text, length_px * (end - start), size)
    if wrapped == text:
        return None
    return {"title": {"text": wrapped}, "automargin": True}
