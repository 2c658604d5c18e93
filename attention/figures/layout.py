"""What every figure shares: colour scales, token labels, axes, the panel grid, projector text.

Payload rules: exact numbers travel as float32 typed arrays; thumbnails, which only
show colour, travel as uint8; axes are integer positions with tickvals/ticktext, so repeated
tokens keep their own rows, and plotly's hover then shows the tick text (the token). Every
token is HTML-escaped before it reaches a figure, since plotly renders some HTML in labels.

Figures are built as plain dicts and wrapped without validation: plotly's property validation
cost ~20 ms a figure, most of a rerun. Tests check the specs instead.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attention.readonly import readonly

# Colour-blind-safe scales (plotly.js names): diverging for signed scores, sequential for weights.
# ColorBrewer RdBu, blue for negative, white at 0, red for positive (plotly.js's own "RdBu" differs)
DIVERGING = [
    [0.0, "#2166ac"],
    [0.25, "#67a9cf"],
    [0.4, "#d1e5f0"],
    [0.5, "#f7f7f7"],
    [0.6, "#fddbc7"],
    [0.75, "#ef8a62"],
    [1.0, "#b2182b"],
]
SEQUENTIAL = "Viridis"
MASK_GREY = "#8c8c8c"
# One colour per head in line charts (colour-blind-safe first: Okabe-Ito, then plotly's).
HEAD_COLOURS = [
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#8c564b",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#e377c2",
]
TEMPLATE = {"layout": {"font": {"size": 14}}}  # plotly's default template is ~10 kB a figure


def token_label(token: str, limit: int = 16) -> str:
    """A token as a safe, readable label: whitespace made visible, long ones cut, HTML escaped."""
    text = token.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=True)


def token_labels(tokens) -> list[str]:
    return [token_label(t) for t in tokens]


def figure(data: list[dict], layout: dict) -> go.Figure:
    return go.Figure({"data": data, "layout": {"template": TEMPLATE, **layout}}, _validate=False)


def title(text: str, size: int = 15) -> dict:
    return {"text": text, "font": {"size": size}}


def f32(a) -> np.ndarray:
    """`a` as contiguous float32, read-only: of a float32 CPU tensor this is a view (no copy) of a
    trace every session may share, so a write must raise; a builder that writes takes .copy()."""
    return readonly(np.ascontiguousarray(np.asarray(a, dtype=np.float32)))


MAX_TICK_LABELS = 48  # per axis; a longer text labels every k-th position (hover names the rest by position)


def position_axis(labels: list[str], axis_title: str) -> dict:
    """An axis of token positions 0..n-1 labelled with the tokens (every k-th when there are more
    than MAX_TICK_LABELS: 250 labels on 700 px are unreadable and slow to draw)."""
    n = len(labels)
    step = max(1, math.ceil(n / MAX_TICK_LABELS))
    return {
        "title": {"text": axis_title},
        "tickmode": "array",
        "tickvals": list(range(0, n, step)),
        "ticktext": labels[::step],
        "tickfont": {"size": 14 if n <= 16 else 12 if n <= 32 else 10},
        "showgrid": False,
        "zeroline": False,
        "constrain": "domain",
    }


def chart_title(text: str, subtitle: str | None = None, size: int = 15) -> dict:
    """A chart's title at its top left; the caller leaves margin["t"] >= TITLE_PX for it (where the
    title would reach under plotly's toolbar, on a phone say, figures/fit.py moves it down).
    User text must be escaped by the caller."""
    out = {
        "text": f"<b>{text}</b>",
        "font": {"size": size},
        "x": 0,
        "xanchor": "left",
        "xref": "container",
        "y": 1,
        "yanchor": "top",
        "yref": "container",
        "pad": {"t": 6, "l": 8},
    }
    if subtitle:
        out["subtitle"] = {"text": subtitle, "font": {"size": 12}}
    return out


TITLE_PX = 54  # a title and its subtitle, with a gap before the axis title
SHARE_PX = 60  # a right margin with room for a share ("100.0%") beside a bar that reaches the axis's end


def colour(colorscale, values: np.ndarray, fitted: bool = False, bound: float | None = None) -> dict:
    """Colour scale and range: diverging ones symmetric around 0 (±`bound`, or the largest |value|);
    sequential ones from 0 to at least 1 (weights), or `fitted` from the smallest value to the
    99th percentile: with a causal mask the first query's weight is always 1, and the other 31,000
    weights of a 250-token matrix, mostly below 0.05, would otherwise all look the same dark."""
    finite = values[np.isfinite(values)]
    if colorscale == DIVERGING:
        if bound is None:
            bound = float(np.abs(finite).max()) if finite.size else 1.0
        return {"colorscale": DIVERGING, "zmid": 0.0, "zmin": -bound, "zmax": bound or 1.0}
    if fitted and finite.size and (top := float(np.quantile(finite, FITTED_QUANTILE))) > finite.min():
        return {"colorscale": SEQUENTIAL, "zmin": float(finite.min()), "zmax": top}
    top = float(max(1.0, finite.max() if finite.size else 1.0)) if bound is None else bound
    return {"colorscale": SEQUENTIAL, "zmin": 0.0, "zmax": top}


FITTED_QUANTILE = 0.99  # a fitted scale's top: the largest 1% of the values saturate


def cell_numbers(n_columns: int, width_px: float) -> dict:
    """Numbers printed in the cells of a heatmap, as many decimals as fit, smaller in a small cell
    (a phone's), none where even two decimals would spill over the cell (hover has all 4); plotly
    picks a text colour that contrasts with each cell."""
    cell = width_px / max(n_columns, 1)
    if cell < 24:
        return {}
    decimals = 4 if cell >= 58 else 3 if cell >= 46 else 2
    return {
        "texttemplate": f"%{{z:.{decimals}f}}",
        "textfont": {"size": 13 if cell >= 46 else 11 if cell >= 36 else 9},
    }


# --- the panel grid: several heatmaps in one figure (one chart to draw, not several) -------------


@dataclass(frozen=True)
class Cell:
    """One panel's place in paper coordinates and the names of its axes."""

    index: int
    x0: float
    x1: float
    y0: float  # bottom of the plot area
    y1: float  # top of the plot area
    top: float  # top of the panel's row: its title sits between top and y1

    @property
    def suffix(self) -> str:  # plotly names axes x, x2, x3, ...
        return "" if self.index == 0 else str(self.index + 1)

    @property
    def axes(self) -> dict:
        return {"xaxis": f"x{self.suffix}", "yaxis": f"y{self.suffix}"}


def grid(
    count: int, cols: int, *, gap_x: float = 0.05, head: float = 0.0, foot: float = 0.0, right: float = 0.0
) -> list[Cell]:
    """`count` panels in rows of `cols`. Each row is an equal share of the height: the top `head`
    of it holds the panel's title, the bottom `foot` is a gap; `right` (paper units) at the right
    of each column is left free for a colour bar."""
    rows = math.ceil(count / cols)
    width = (1 - gap_x * (cols - 1)) / cols
    cells = []
    for i in range(count):
        r, c = divmod(i, cols)
        x0 = c * (width + gap_x)
        top = 1 - r / rows
        y1 = top - head / rows
        # min/max: float error must not leave [0, 1]
        cells.append(Cell(i, x0, min(1.0, x0 + width - right), max(0.0, top - (1 - foot) / rows), y1, top))
    return cells


def panel_title(text: str, cell: Cell, size: int = 14, subtitle: str | None = None) -> dict:
    """A bold title at the top-left of the panel: in its row's head if the grid left one, else
    just above the plot area (user text must be escaped by the caller)."""
    body = f"<b>{text}</b>" + (
        "" if subtitle is None else f"<br><span style='font-size:12px'>{subtitle}</span>"
    )
    inside = cell.top > cell.y1
    return {
        "text": body,
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": cell.x0,
        "xanchor": "left",
        "y": cell.top,
        "yanchor": "top" if inside else "bottom",
        "align": "left",
        "font": {"size": size},
    }


# --- projector mode ---------------------------------------------------------------------------


def scale_text(fig: go.Figure, factor: float, color: str | None = None) -> go.Figure:
    """Every font in `fig` (layout, titles, axes, annotations) `factor` times larger, and in
    `color` if given, in place: for a projector. Unset sizes start from the template's 14 px."""

    def bigger(font: dict | None) -> dict:
        font = dict(font or {})
        font["size"] = round(font.get("size", 14) * factor)
        if color:
            font["color"] = color
        return font

    layout = fig.layout.to_plotly_json()
    updates = {"font": bigger(layout.get("font"))}
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")):
            updates[name] = {"tickfont": bigger(axis.get("tickfont"))}
            if isinstance(axis.get("title"), dict):
                updates[name]["title"] = {"font": bigger(axis["title"].get("font"))}
    if isinstance(title := layout.get("title"), dict):
        updates["title"] = {"font": bigger(title.get("font"))}
        if isinstance(title.get("subtitle"), dict):
            updates["title"]["subtitle"] = {"font": bigger(title["subtitle"].get("font", {"size": 12}))}
        if "pad" in title:  # keep the toolbar's strip, and make room for the larger title
            margin = layout.get("margin", {})
            updates["margin"] = {"t": round(margin.get("t", 80) * factor)}
    if layout.get("annotations"):
        updates["annotations"] = [a | {"font": bigger(a.get("font"))} for a in layout["annotations"]]
    if isinstance(legend := layout.get("legend"), dict):
        updates["legend"] = {"font": bigger(legend.get("font"))}
        if legend.get("orientation") == "h" and legend.get("y", 1) < 0:  # below the x-axis title,
            updates["legend"]["y"] = legend["y"] * factor  # which grew: further down, with room
            updates["margin"] = updates.get("margin", {}) | {
                "b": round(layout.get("margin", {}).get("b", 80) * factor)
            }
    for name, axis in layout.items():  # a shared colour bar's numbers
        if name.startswith("coloraxis") and isinstance(axis.get("colorbar"), dict):
            updates[name] = {"colorbar": {"tickfont": bigger(axis["colorbar"].get("tickfont"))}}
    fig.update_layout(updates)
    for trace in fig.data:
        if getattr(trace, "texttemplate", None):  # numbers in cells: in the colour plotly picks per cell
            size = (trace.textfont.size if trace.textfont and trace.textfont.size else 14) * factor
            trace.textfont = {"size": round(size)}
        elif "text" in (getattr(trace, "mode", None) or "") and trace.textfont.size:  # labels drawn as
            trace.textfont.size = round(trace.textfont.size * factor)  # text (Token view): their colours kept
        if getattr(trace, "showscale", None) is not False and getattr(trace, "colorbar", None) is not None:
            trace.colorbar.tickfont = bigger(trace.colorbar.tickfont.to_plotly_json())  # its own bar
    return fig


def thumbnails(cells: list[Cell], matrices, titles: list[str], title_size: int) -> tuple[list, dict]:
    """Attention weights as small multiples, one per grid cell: colour only (uint8 of 0..1, no
    hover, hidden axes) so that many heads stay a small payload, each with its title centred.
    Returns the traces and the layout (axes, annotations) to build a figure from."""
    data, layout = [], {"annotations": []}
    hidden = {"showticklabels": False, "showgrid": False, "zeroline": False}
    for cell, matrix, text in zip(cells, matrices, titles, strict=True):
        z = np.clip(np.nan_to_num(np.asarray(matrix, dtype=np.float32), neginf=0.0), 0.0, 1.0)
        data.append(
            {
                "type": "heatmap",
                "z": np.round(z * 255).astype(np.uint8),
                "zmin": 0,
                "zmax": 255,
                "colorscale": SEQUENTIAL,
                "showscale": False,
                "hoverinfo": "skip",
                **cell.axes,
            }
        )
        layout[f"xaxis{cell.suffix}"] = {**hidden, "domain": [cell.x0, cell.x1], "anchor": f"y{cell.suffix}"}
        layout[f"yaxis{cell.suffix}"] = {
            **hidden,
            "domain": [cell.y0, cell.y1],
            "anchor": f"x{cell.suffix}",
            "autorange": "reversed",
        }
        centred = {"x": (cell.x0 + cell.x1) / 2, "xanchor": "center"}
        layout["annotations"].append(panel_title(text, cell, size=title_size) | centred)
    return data, layout
