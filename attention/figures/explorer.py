"""The Explorer's figures: one head's steps as heatmaps, every head as thumbnails, vectors, one
query's weights. The builders take plain data (token texts and arrays), as bertviz and
CircuitsVis do; `step_panels` and `steps_figure` read them off an AttentionTrace. Every step's
title and colour come from the one step table, chapter3.trace.STEPS."""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attention.chapter3.trace import STEPS, AttentionTrace
from attention.figures.layout import (
    DIVERGING,
    MASK_GREY,
    MAX_TICK_LABELS,
    SEQUENTIAL,
    TITLE_PX,
    cell_numbers,
    chart_title,
    colour,
    f32,
    figure,
    grid,
    position_axis,
    thumbnails,
    title,
    token_labels,
)
from attention.i18n import tr, tr_n
from attention.readonly import readonly

# The colour scale of each kind of step (STEPS[name].kind): scores diverge around 0, weights run 0..1.
SCALES = {"scores": DIVERGING, "weights": SEQUENTIAL}


def shape_text(trace: AttentionTrace, name: str) -> str:
    shape = trace.shapes()[name]
    return "—" if shape is None else "(" + ", ".join(map(str, shape)) + ")"


# --- one head's steps ------------------------------------------------------------------------


@dataclass(frozen=True)
class StepPanel:
    """One (T, T) matrix to draw: its step name (a key of STEPS), values, and what marks it."""

    name: str
    z: np.ndarray  # (T, T)
    title: str
    subtitle: str
    mask: np.ndarray | None = None  # (T, T) bool, True = masked: drawn hatched
    dropout_mask: np.ndarray | None = None  # (T, T) bool, True = kept: the others get a ✕
    dropout: float = 0.0
    scale: object = None  # a colour scale other than the step's (a 0/1 mask: SEQUENTIAL)


def _step_traces(panel: StepPanel, n: int, heatmap: dict, numbers: bool = False) -> list[dict]:
    """One panel: the heatmap (−inf sent as NaN), the masked cells as one hatched grey polygon
    (hover: "masked (−inf)"), and a ✕ on every cell dropout removed (while cells are big enough
    to see one: at hundreds of tokens, tens of thousands of ✕ cost seconds to draw)."""
    z = f32(panel.z).copy()
    z[np.isneginf(z)] = np.nan
    data = [
        {
            "type": "heatmap",
            "z": z,
            "hoverongaps": False,
            "name": panel.name,
            "colorbar": {"thickness": 12},
            "hovertemplate": tr(
                "query %{{y}}<br>key %{{x}}<br>{name} %{{z:.4f}}<extra></extra>", name=panel.name
            ),
            **heatmap,
        }
    ]
    if panel.mask is not None and n > 1:
        xs, ys = _mask_polygon(np.asarray(panel.mask, dtype=bool))
        pattern = {"shape": "/", "bgcolor": MASK_GREY, "fgcolor": "white", "size": 8, "solidity": 0.3}
        data.append(
            {
                "type": "scatter",
                "x": xs,
                "y": ys,
                "fill": "toself",
                "mode": "lines",
                "line": {"width": 0},
                "fillcolor": MASK_GREY,
                "fillpattern": pattern,
                "hoveron": "fills",
                "hoverinfo": "text",
                "text": tr("masked (−inf): a key this query may not look at"),
                "name": "masked",
                "showlegend": False,
            }
        )
    if panel.dropout_mask is not None and n <= MAX_DROP_MARKS:
        dropped = np.argwhere(~np.asarray(panel.dropout_mask, dtype=bool))  # (k, 2): row, col
        if panel.mask is not None:
            dropped = dropped[dropped[:, 1] <= dropped[:, 0]]  # masked cells are 0 already
        corner = (0.33, -0.3) if numbers else (0, 0)  # with numbers, the ✕ goes in the top corner
        data.append(
            {
                "type": "scatter",
                "x": (dropped[:, 1] + corner[0]).astype(np.float32),
                "y": (dropped[:, 0] + corner[1]).astype(np.float32),
                "mode": "markers",
                "name": "dropped",
                "showlegend": False,
                "marker": {
                    "symbol": "x-thin",
                    "size": max(4, min(8 if numbers else 14, 360 // n)),
                    "line": {"width": 2, "color": "#d62728"},
                },
                # TRANSLATORS: hover text of a weight that dropout removed (set to 0)
                "hovertemplate": tr("dropped (p = {p:g})<extra></extra>", p=panel.dropout),
            }
        )
    return data


MAX_DROP_MARKS = 64  # tokens up to which each dropped cell gets a ✕


def _mask_polygon(mask: np.ndarray) -> tuple[list[float | None], list[float | None]]:
    """Outline of the masked cells: the causal mask's as one staircase polygon; any other (a
    sliding window's band, a KV cache's rows not yet computed) as one rectangle per run of masked
    cells in a row, the rectangles split by None."""
    n = len(mask)
    if np.array_equal(mask, np.triu(np.ones((n, n), dtype=bool), 1)):
        xs, ys = [], []
        for k in range(n - 1):
            xs += [k + 0.5, k + 0.5]
            ys += [k - 0.5, k + 0.5]
        return xs + [n - 0.5, n - 0.5, 0.5], ys + [n - 1.5, -0.5, -0.5]
    xs, ys = [], []
    for row in range(n):
        columns = np.flatnonzero(mask[row])
        for run in np.split(columns, np.flatnonzero(np.diff(columns) > 1) + 1):
            if len(run):
                left, right = float(run[0]) - 0.5, float(run[-1]) + 0.5
                xs += [left, right, right, left, left, None]
                ys += [row - 0.5, row - 0.5, row + 0.5, row + 0.5, row - 0.5, None]
    return xs, ys


def step_figure(
    tokens: list[str],
    panel: StepPanel,
    *,
    numbers: bool = False,
    fitted: bool = False,
    width_px: int = 600,
    bound: float | None = None,
) -> go.Figure:
    """One (T, T) matrix as a heatmap: rows are queries, columns keys, the keys' axis on top.
    `numbers` prints the values in the cells; `fitted` fits a weights scale to the values; `bound`
    sets the range (±bound, or 0..bound for weights) to share one scale between charts;
    `width_px` is the width it will be drawn at (for the number format and the labels' angle)."""
    labels = token_labels(tokens)
    n = len(labels)
    scale = panel.scale or SCALES[STEPS[panel.name].kind]
    heatmap = colour(scale, f32(panel.z), fitted=fitted, bound=bound)
    shown = labels[:: max(1, -(-n // MAX_TICK_LABELS))]
    longest = max(len(html.unescape(label)) for label in shown)
    plot_px = width_px - 7 * longest - 100  # the query labels, their title and the colour bar take the rest
    if numbers:
        heatmap |= cell_numbers(n, plot_px)
    # key labels too long for their column stand upright; leave them the room they need
    upright = longest * 8 > plot_px / len(shown)
    ticks_px = 8 * longest + 10 if upright else 22
    # a narrow chart's centred "keys" title would sit on the subtitle's line: room for both
    ticks_px += 14 if width_px < 700 else 0
    height = int(min(760, max(260, (58 if numbers else 26) * n + 60, 100 + 26 * n)))
    keys_title = tr("keys (looked at) →")
    keys = position_axis(labels, keys_title) | {
        "side": "top",
        "range": [-0.5, n - 0.5],
        "title": {"text": keys_title, "standoff": 4},
    }
    if upright:
        keys["tickangle"] = -90
    layout = {
        "title": chart_title(panel.title, panel.subtitle),
        "xaxis": keys,
        # query 0 on top; a fixed range, so the ✕ markers cannot shrink it
        "yaxis": position_axis(labels, tr("← queries (looking)")) | {"range": [n - 0.5, -0.5]},
        "height": height + TITLE_PX + ticks_px + 20,
        "margin": {"l": 10, "r": 40, "t": TITLE_PX + ticks_px + 20, "b": 10},
    }
    return figure(_step_traces(panel, n, heatmap, numbers), layout)


def _step_words(trace: AttentionTrace, name: str, head_name: str | None) -> tuple[str, str]:
    """A step panel's title and subtitle, in this rerun's language."""
    done = trace.step_names()
    before_softmax = [n for n in done if STEPS[n].kind == "scores"][-1]
    step_title = STEPS[name].title_text().replace("softmax(masked_scores)", f"softmax({before_softmax})")
    if name == "masked_scores" and trace.window is not None:
        step_title = tr(
            "masked_scores (−inf above the diagonal and {window} or more back)", window=trace.window
        )
    shape = shape_text(trace, name)
    if trace.num_heads > 1:
        parts = [tr("{name} {shape}, head {head}", name=name, shape=shape, head=head_name)]
    else:
        parts = [f"{name} {shape}"]
    if name == "scaled_scores":
        parts.append(f"d_k = {trace.queries.shape[-1]}, √d_k ≈ {trace.divisor:.4g}")
    if name == "dropped_weights":
        factor = 1 / (1 - trace.dropout)
        # TRANSLATORS: the kept weights are scaled up by 1/(1 − p); ✕ marks the weights dropout removed
        parts.append(tr("kept × 1/(1 − {p:g}) = ×{factor:.4g} · ✕ dropped", p=trace.dropout, factor=factor))
    return step_title, " · ".join(parts)


def step_panels(
    trace: AttentionTrace,
    head: int,
    steps: list[str] | None = None,
    batch: int = 0,
    head_name: str | None = None,
) -> list[StepPanel]:
    """One head's steps (default: all it went through), each with its title and marks. The head
    is called `head_name` when given (a model's "layer.head")."""
    mask = None if trace.mask is None else readonly(trace.mask)  # views of a shared trace: read-only
    panels = []
    for name in steps or trace.step_names():
        step_title, subtitle = _step_words(trace, name, head_name or head)
        dropped = name == "dropped_weights"
        panels.append(
            StepPanel(
                name,
                readonly(getattr(trace, name)[batch, head]),
                step_title,
                subtitle,
                mask=mask if STEPS[name].masked else None,
                dropout_mask=readonly(trace.dropout_mask[batch, head]) if dropped else None,
                dropout=trace.dropout,
            )
        )
    return panels


def steps_figure(trace: AttentionTrace, head: int, step: str = "weights", **options) -> go.Figure:
    """One step of one head, read off a trace (options: see step_figure)."""
    return step_figure(list(trace.tokens.texts), step_panels(trace, head, [step])[0], **options)


# --- every head, the vectors, one query ------------------------------------------------------


def heads_grid(weights: np.ndarray, titles: list[str] | None = None, columns: int = 4) -> go.Figure:
    """Small multiples of (H, T, T) weights, colour only (uint8, no hover): pick a head to see its
    exact numbers."""
    heads, cols = len(weights), min(columns, len(weights))
    titles = titles or [tr("head {h}", h=h) for h in range(heads)]
    cells = grid(heads, cols, gap_x=0.03, head=0.12)
    data, layout = thumbnails(cells, weights, titles, title_size=13)
    rows = -(-heads // cols)
    return figure(data, layout | {"height": 40 + 200 * rows, "margin": {"l": 5, "r": 5, "t": 5, "b": 5}})


MAX_VECTOR_COLUMNS = 256  # per vectors heatmap: keeps the Vectors view under ~2 MB at the caps


def vectors_heatmap(
    matrix,
    row_labels: list[str],
    title_text: str,
    row_title: str | None = None,
    numbers: bool = False,
    width_px: int = 470,
    bound: float | None = None,
) -> go.Figure:
    """A (T, d) matrix of vectors: one row per token, one column per dimension (the first
    MAX_VECTOR_COLUMNS of them; the CSV download has all), optionally with its numbers in the
    cells. Row labels must be escaped; the rows' axis is titled `row_title` (default: tokens)."""
    z = f32(matrix)
    if z.shape[1] > MAX_VECTOR_COLUMNS:
        cut = tr_n(
            "first {shown} of {total} dimension (CSV has all)",
            "first {shown} of {total} dimensions (CSV has all)",
            z.shape[1],
            shown=MAX_VECTOR_COLUMNS,
            total=z.shape[1],
        )
        title_text += " · " + cut
        z = np.ascontiguousarray(z[:, :MAX_VECTOR_COLUMNS])
    data = [
        {
            "type": "heatmap",
            "z": z,
            "colorbar": {"thickness": 10},
            **colour(DIVERGING, z, bound=bound),
            "hovertemplate": tr("token %{y}<br>dimension %{x}<br>value %{z:.4f}<extra></extra>"),
            **(cell_numbers(z.shape[1], width_px - 150) if numbers else {}),
        }
    ]
    return figure(
        data,
        {
            "title": title(title_text, size=14),
            # whole dimensions only: a 1-wide vector has one tick, 0, not -0.5, 0, 0.5
            "xaxis": {
                "title": {"text": tr("dimension")},
                "showgrid": False,
                "zeroline": False,
                "tickmode": "linear",
                "tick0": 0,
                "dtick": max(1, -(-z.shape[1] // 12)),
            },
            "yaxis": position_axis(row_labels, row_title or tr("tokens")) | {"autorange": "reversed"},
            "height": int(min(640, max(220, 110 + 22 * z.shape[0]))),
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )


def query_bar(
    tokens: list[str], weights: np.ndarray, masked: np.ndarray | None, query: int, after_dropout: bool = False
) -> go.Figure:
    """How one query spreads its weight (T,) over the keys; masked keys in grey. With
    `after_dropout`, the weights are the dropped_weights (what the context sums)."""
    labels = token_labels(tokens)
    masked = np.zeros(len(labels), bool) if masked is None else np.asarray(masked, dtype=bool)
    data = [
        {
            "type": "bar",
            "x": np.arange(len(labels), dtype=np.int16),
            "y": f32(weights),
            "marker": {"color": np.where(masked, "#bbbbbb", "#1f5fbf").tolist()},
            "hovertemplate": tr("key %{x}<br>weight %{y:.4f}<extra></extra>"),
        }
    ]
    return figure(
        data,
        {
            "title": title(_query_bar_title(labels[query], query, after_dropout), size=14),
            "xaxis": position_axis(labels, tr("keys")),
            "yaxis": {"title": {"text": tr("weight")}, "rangemode": "tozero"},
            "height": 320,
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )


def _query_bar_title(label: str, query: int, after_dropout: bool) -> str:
    if after_dropout:
        return tr(
            "dropped_weights (after dropout) of query “{token}” (position {position}) over the keys",
            token=label,
            position=query,
        )
    return tr("weights of query “{token}” (position {position}) over the keys", token=label, position=query)
