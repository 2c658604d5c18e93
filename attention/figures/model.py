"""Inside a model's figures: every head as a thumbnail, the role scores, one token's lines to the
tokens it attends to (token_lines.py, imported here), the next-token bars; and its exports,
every head's weights as JSON and one head's as CSV."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention.chapter3.trace import STEPS
from attention.figures.explorer import StepPanel, step_figure
from attention.figures.layout import (
    SEQUENTIAL,
    SHARE_PX,
    Cell,
    cell_numbers,
    chart_title,
    f32,
    figure,
    grid,
    thumbnails,
    title,
    token_label,
    token_labels,
)
from attention.figures.token_lines import token_view  # noqa: F401  (the pages import it here)
from attention.i18n import N_, tr

# A head's role (attention.model.roles.ROLES) in a word or two, as a chart or a table names it
ROLE_NAMES = {
    # TRANSLATORS: a head's role: it looks at the previous token
    "previous": N_("previous"),
    # TRANSLATORS: a head's role: it looks at the first token (an attention sink)
    "first": N_("first"),
    # TRANSLATORS: a head's role: it looks at earlier copies of the same token
    "duplicate": N_("duplicate"),
    # TRANSLATORS: a head's role: it looks at the token after the earlier copy (an induction head)
    "induction": N_("induction"),
}
THUMB_CELLS = 32  # a thumbnail shows at most 32 x 32 cells (block maxima): its payload stays small


def _shrink(w: np.ndarray, cells: int = THUMB_CELLS) -> np.ndarray:
    """(T, T) -> at most (cells, cells): the largest weight in each block, so a sharp pattern (one
    key per query) stays visible when a thumbnail is smaller than the matrix."""
    t = w.shape[-1]
    if t <= cells:
        return w
    edges = np.linspace(0, t, cells + 1).astype(int)[:-1]  # each block's first row (and column)
    # the blocks' maxima in two reductions (numpy, not 1,024 Python max calls a thumbnail)
    return np.maximum.reduceat(np.maximum.reduceat(w, edges, axis=0), edges, axis=1)


def _ticks(labels: list[str], t: int, px: float, cells: int = THUMB_CELLS) -> dict:
    """A thumbnail axis labelled with every k-th token, at most one per 14 px: in block
    coordinates when the matrix was shrunk (a block is named by its first token)."""
    starts = np.linspace(0, t, cells + 1).astype(int)[:-1] if t > cells else np.arange(t)
    step = max(1, math.ceil(len(starts) / max(1, px // 14)))
    return {
        "showticklabels": True,
        "tickmode": "array",
        "tickvals": list(range(0, len(starts), step)),
        "ticktext": [labels[i] for i in starts[::step]],
        "tickfont": {"size": 10},
        "ticklabelstandoff": 4,  # clear of the chosen head's frame
    }


def _click_targets(cells: list[Cell], heads: int, size: int) -> tuple[dict, dict]:
    """One nearly transparent square over each thumbnail, on axes of their own spanning the
    figure: Streamlit returns no click on a heatmap but does on a marker (customdata: layer,
    head). Returns the trace and its axes."""
    names = [f"{i // heads}.{i % heads}" for i in range(len(cells))]
    trace = {
        "type": "scatter",
        "mode": "markers",
        "x": f32([(c.x0 + c.x1) / 2 for c in cells]),
        "y": f32([(c.y0 + c.y1) / 2 for c in cells]),
        "customdata": [[i // heads, i % heads] for i in range(len(cells))],
        "text": names,
        "marker": {"symbol": "square", "size": size, "color": "#000000", "opacity": 0.01},
        "selected": {"marker": {"opacity": 0.01}},
        "unselected": {"marker": {"opacity": 0.01}},
        "hovertemplate": tr("head %{text}: click to open it in One head<extra></extra>"),
        "showlegend": False,
        "xaxis": f"x{len(cells) + 1}",
        "yaxis": f"y{len(cells) + 1}",
    }
    hidden = {"visible": False, "range": [0, 1], "fixedrange": True, "domain": [0, 1]}
    return trace, {f"xaxis{len(cells) + 1}": hidden, f"yaxis{len(cells) + 1}": hidden}


def grid_scale() -> dict:
    """One colour bar for every thumbnail: the uint8 0..255 of weights 0..1."""
    return {
        "showscale": True,
        "colorbar": GRID_COLORBAR | {"title": {**GRID_COLORBAR["title"], "text": tr("weight")}},
    }


GRID_COLORBAR = {
    "thickness": 8,
    "len": 120,
    "lenmode": "pixels",
    "y": 1,
    "yanchor": "top",
    "x": 1,
    "xanchor": "left",
    "xpad": 6,
    "tickvals": [0, 128, 255],
    "ticktext": ["0", "0.5", "1"],
    "tickfont": {"size": 10},
    "title": {"text": "weight", "font": {"size": 10}, "side": "top"},
}


def model_grid(
    weights: np.ndarray,
    chosen: tuple[int, int] | None = None,
    tokens: Sequence[str] = (),
    clickable: bool = False,
    width_px: int = 900,
    kv_heads: Sequence[int] = (),
) -> go.Figure:
    """Every head's weights (L, H, T, T) as L rows of H thumbnails, colour only (uint8) with one
    colour bar; the chosen head framed. Titles are "layer.head", zero-based, as the literature
    names heads. With `tokens`, the first column's rows (queries) and the last row's columns (keys)
    are labelled; `clickable` puts a click target over each thumbnail (_click_targets). `kv_heads`
    (H,), the key/value head each query head reads: a grey line between groups that share one."""
    layers, heads, t = weights.shape[:3]
    plot_w = (width_px - 115) / heads  # a thumbnail's width in px: the labels and colour bar take 115
    size = int(max(60, min(160, plot_w / 0.82)))  # a row's height in px: its title takes 18%, the rest square
    cells = grid(layers * heads, heads, gap_x=0.012, head=0.18)
    shrunk = [_shrink(weights[layer, head]) for layer in range(layers) for head in range(heads)]
    titles = [f"{layer}.{head}" for layer in range(layers) for head in range(heads)]
    data, layout = thumbnails(cells, shrunk, titles, title_size=11)
    data[0] |= grid_scale()
    for name in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
        layout[name]["ticks"] = ""  # plotly draws tick marks on hidden axes: stray dashes at the edges
    margin = {"l": 5, "r": 50, "t": 5, "b": 5}
    if tokens:  # labels: short, so that the thumbnails keep their room
        labels = [token_label(token, limit=7) for token in tokens]
        for cell in cells:
            if cell.index % heads == 0:
                layout[f"yaxis{cell.suffix}"] |= _ticks(labels, t, size * 0.8)
            if cell.index >= (layers - 1) * heads:
                layout[f"xaxis{cell.suffix}"] |= _ticks(labels, t, plot_w) | {"tickangle": -90}
        margin |= {"l": 55, "b": 60}
    if chosen is not None:  # frame the chosen head
        cell = cells[chosen[0] * heads + chosen[1]]
        pad = 0.004
        frame = {"x0": cell.x0 - pad, "x1": cell.x1 + pad, "y0": cell.y0 - pad, "y1": cell.y1 + pad}
        layout["shapes"] = [
            {
                "type": "rect",
                "xref": "paper",
                "yref": "paper",
                **frame,
                "line": {"color": "#d62728", "width": 3},
            }
        ]
    layout["shapes"] = layout.get("shapes", []) + _group_lines(cells, kv_heads)
    if clickable:
        target, axes = _click_targets(cells, heads, int(size * 0.8))
        data.append(target)
        # transparent plot areas: the targets' subplot lies over the thumbnails
        layout |= axes | {"hovermode": "closest", "hoverdistance": 200, "dragmode": False}
        layout["plot_bgcolor"] = "rgba(0,0,0,0)"
    height = layers * (size + 18) + margin["t"] + margin["b"] + 20
    return figure(data, layout | {"height": height, "margin": margin})


def _group_lines(cells, kv_heads: Sequence[int]) -> list[dict]:
    """A vertical line, full height, between query heads that read different key/value heads."""
    lines = []
    for h in range(1, len(kv_heads)):
        if kv_heads[h] != kv_heads[h - 1]:
            x = (cells[h - 1].x1 + cells[h].x0) / 2
            line = {"color": "#888888", "width": 2, "dash": "dot"}
            lines.append(
                {
                    "type": "line",
                    "xref": "paper",
                    "yref": "paper",
                    "x0": x,
                    "x1": x,
                    "y0": 0,
                    "y1": 1,
                    "line": line,
                }
            )
    return lines


def role_heatmap(scores: np.ndarray, role: str, caption: str) -> go.Figure:
    """A role's (L, H) scores, 0..1, with the numbers in the cells."""
    layers, heads = scores.shape
    z = f32(scores)
    data = [
        {
            "type": "heatmap",
            "z": z,
            "zmin": 0.0,
            "zmax": 1.0,
            "colorscale": SEQUENTIAL,
            "name": role,
            "colorbar": {"thickness": 10},
            "xgap": 1,
            "ygap": 1,
            # TRANSLATORS: {role} is a head's role (previous-token, induction, duplicate); %{y}.%{x} is a
            # head's layer.head
            "hovertemplate": tr(
                "head %{{y}}.%{{x}}<br>{role} score %{{z:.3f}}<extra></extra>",
                role=tr(ROLE_NAMES.get(role, role)),
            ),
            **cell_numbers(heads, 420) | {"texttemplate": "%{z:.2f}"},
        }
    ]
    return figure(
        data,
        {  # the title at the top left, clear of the axis title "head" below it
            "title": chart_title(caption, size=13),
            "xaxis": {"title": {"text": tr("head")}, "tickmode": "linear", "dtick": 1, "side": "top"},
            "yaxis": {
                "title": {"text": tr("layer")},
                "tickmode": "linear",
                "dtick": 1,
                "autorange": "reversed",
            },
            "height": 134 + 28 * layers,
            "margin": {"l": 10, "r": 10, "t": 84, "b": 10},
        },
    )


def probability_bars(candidates: list[tuple[int, str, float]], colour: str) -> dict:
    """A horizontal bar per next token (id, text, probability), row i at y = i, its share written."""
    probabilities = f32([p for _, _, p in candidates])
    return {
        "type": "bar",
        "orientation": "h",
        "x": probabilities,
        "y": np.arange(len(candidates), dtype=np.int16),
        "text": [f"{p:.1%}" for p in probabilities],
        "textposition": "outside",
        "cliponaxis": False,  # a share beside a bar that fills the axis is drawn in the margin, not cut
        "marker": {"color": colour},
        "hovertemplate": "%{x:.4f}<extra></extra>",
    }


def next_token_bars(candidates: list[tuple[int, str, float]], temperature: float) -> go.Figure:
    """The top next tokens, most likely on top, with their probabilities."""
    texts = token_labels([text for _, text, _ in candidates])
    probabilities = f32([p for _, _, p in candidates])
    data = [probability_bars(candidates, "#1f5fbf")]
    return figure(
        data,
        {
            "title": title(
                tr("Next token: softmax(logits / {temperature:g})", temperature=temperature), size=14
            ),
            "xaxis": {
                "title": {"text": tr("probability")},
                "range": [0, min(1.0, float(probabilities.max()) * 1.25 + 0.05)],
            },
            "yaxis": {
                "tickmode": "array",
                "tickvals": list(range(len(texts))),
                "ticktext": texts,
                "autorange": "reversed",
            },
            "height": 90 + 30 * len(texts),
            "margin": {"l": 10, "r": SHARE_PX, "t": 50, "b": 10},
        },
    )


def weights_json(source: str, tokens: Sequence[str], ids: Sequence[int], weights: np.ndarray) -> str:
    """Every head's weights (L, H, T, T), rounded to 5 decimals, with the model, tokens and ids."""
    grid = {
        "model": source,
        "tokens": list(tokens),
        "ids": list(ids),
        "layout": "weights[layer][head][query][key]",
        "shape": list(weights.shape),
    }
    return json.dumps(grid | {"weights": weights.round(5).tolist()})


def head_csv(weights: np.ndarray, tokens: Sequence[str], layer: int, head: int) -> str:
    """One head's (T, T) weights as CSV: a row per query, a column per key, each named "i:token"."""
    names = [f"{i}:{t}" for i, t in enumerate(tokens)]
    return pd.DataFrame(weights[layer, head], index=names, columns=names).to_csv()


HEAD_HEIGHT = 600  # px, the One head chart at most: whole on a 1366 x 768 screen
LABEL_CHARS = 10  # a token label's characters at most: longer ones end in "…", not cut by the edge
LABEL_PX = 13  # px of height per query label at least: every k-th token is labelled beyond


def head_figure(tokens: Sequence[str], panel: StepPanel, width_px: int) -> go.Figure:
    """One head's step for Inside a model: the Explorer's step_figure, at most HEAD_HEIGHT px tall
    (labels thinned to stay readable), labels shortened with an ellipsis, and a weights scale
    fitted to the values above 24 tokens said so on the chart where it is not about 0..1: yellow
    is then not 1. Labels are thinned to one per LABEL_PX, down and across (a phone's 360 px)."""
    short = [t if len(t) <= LABEL_CHARS else t[: LABEL_CHARS - 1] + "…" for t in tokens]
    fig = step_figure(short, panel, width_px=width_px, fitted=len(tokens) > 24)
    layout = fig.layout
    overhead = layout.margin.t + layout.margin.b
    plot_px = min(layout.height, HEAD_HEIGHT) - overhead
    labels = token_labels(short)
    down = max(1, math.ceil(len(labels) / (plot_px / LABEL_PX)))
    across = max(1, math.ceil(len(labels) / ((width_px - 130) / LABEL_PX)))  # step_figure's plot width
    fig.update_layout(
        height=plot_px + overhead,
        yaxis={"tickvals": list(range(0, len(labels), down)), "ticktext": labels[::down]},
        xaxis={"tickvals": list(range(0, len(labels), across)), "ticktext": labels[::across]},
    )
    heatmap = fig.data[0]
    if STEPS[panel.name].kind == "weights" and (heatmap.zmin > 0.05 or heatmap.zmax < 0.95):
        note = tr("colours fitted to this head: yellow = {top:.2f} or more, not 1", top=heatmap.zmax)
        # TRANSLATORS: a colour bar's title: its colours are fitted to one head's values, not 0..1
        heatmap.colorbar = {"thickness": 12, "title": {"text": tr("fitted"), "side": "top"}}
        fig.update_layout(title={"subtitle": {"text": f"{layout.title.subtitle.text} · {note}"}})
    return fig
