"""Inside a model's "Where it decided" and "Which explanation?" figures: the logit lens with its
commitment strip, the final logit split into what wrote it (and each head's part, clickable), every
attribution method's scores on one sentence, and the table of them with each method's Spearman ρ.
Figures take computed results (attention.model.lens, attention.model.explain) and token texts; they
never run a model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from attention.figures.layout import (
    DIVERGING,
    SEQUENTIAL,
    chart_title,
    f32,
    figure,
    position_axis,
    token_label,
    token_labels,
)
from attention.i18n import tr
from attention.model.explain import NAMES  # each method's name as a reader sees it

LENS_CELL_PX = 34  # a lens cell at least this wide gets its top token written in it
COMMIT_SCALE = "Plasma"  # the strip's stages: bright = decided early, dark = late (the map: bright = sure)


def token_axis(tokens: Sequence[str], axis_title: str, plot_px: float) -> dict:
    """A position axis labelled with every k-th token, at most one label per 13 px (a phone's 32
    tokens would overlap); hover still names every position."""
    axis = position_axis(token_labels(tokens), axis_title)
    step = max(1, -(-len(axis["tickvals"]) // max(1, int(plot_px // 13))))
    if step > 1:
        axis |= {"tickvals": axis["tickvals"][::step], "ticktext": axis["ticktext"][::step]}
    return axis | {"tickangle": -60 if len(tokens) > 8 else 0}


def stage_names(stages: int) -> list[str]:
    """Stage 0 is the residual after the embeddings, stage l after layer l − 1 (attention.model.lens;
    zero-based, as heads are named "layer.head")."""
    return [tr("embeddings")] + [tr("layer {layer}", layer=n) for n in range(stages - 1)]


def stage_short(stage: int) -> str:
    # TRANSLATORS: one letter for "the embeddings" in a narrow cell (the stages after them are numbers)
    return tr("E") if stage == 0 else str(stage - 1)


def _hover(words: Sequence[Sequence[Sequence[str]]], probs: np.ndarray) -> list[list[str]]:
    """(S, T) hover texts: each cell's top-k tokens with their probabilities, one per line."""
    return [
        [
            "<br>".join(f"{token_label(w, 12)}  {p:.1%}" for w, p in zip(ws, ps, strict=True))
            for ws, ps in zip(row_w, row_p, strict=True)
        ]
        for row_w, row_p in zip(words, probs, strict=True)
    ]


def _lens_trace(final_probs: np.ndarray, top_words, top_probs: np.ndarray, cell_px: float) -> dict:
    """The lens heatmap: colour p(final prediction), the top token written where a cell has room."""
    trace = {
        "type": "heatmap",
        "z": f32(final_probs),
        "zmin": 0.0,
        "zmax": 1.0,
        "colorscale": SEQUENTIAL,
        "text": _hover(top_words, top_probs),
        "xgap": 1,
        "ygap": 1,
        "colorbar": {"thickness": 10, "len": 1, "y": 1, "yanchor": "top", "yref": "paper", "x": 1},
        "hovertemplate": tr("%{y}, position %{x}<br>p(final prediction) %{z:.3f}<br>top:<br>%{text}")
        + "<extra></extra>",
    }
    if cell_px >= LENS_CELL_PX:
        limit = 4 if cell_px < 40 else 6 if cell_px < 56 else 9
        top1 = [[token_label(cell[0], limit) for cell in row] for row in top_words]
        trace |= {"customdata": top1, "texttemplate": "%{customdata}", "textfont": {"size": 10}}
    trace["colorbar"]["title"] = {"text": tr("p(final)"), "side": "top"}
    return trace


def _strip_traces(commit: np.ndarray, stages: int, cell_px: float) -> list[dict]:
    """The commitment strip on the second y axis, one colour per stage, and one legend entry per
    stage (a square of its colour) saying what the colours mean."""
    names = stage_names(stages)
    colours = sample_colorscale(COMMIT_SCALE, [0.85 - i / max(stages - 1, 1) * 0.85 for i in range(stages)])
    steps = [[edge, colours[i]] for i in range(stages) for edge in (i / stages, (i + 1) / stages)]
    strip = {
        "type": "heatmap",
        "z": f32(np.asarray(commit, dtype=np.float32)[None, :] + 0.5),
        "zmin": 0.0,
        "zmax": float(stages),
        "colorscale": steps,
        "showscale": False,
        "xgap": 1,
        "yaxis": "y2",
        "customdata": [[names[int(c)] for c in commit]],
        "hovertemplate": tr("position %{x}: decided at %{customdata}") + "<extra></extra>",
    }
    if cell_px >= 16:
        strip |= {"text": [[stage_short(int(c)) for c in commit]], "texttemplate": "%{text}"}
        strip["textfont"] = {"size": 11 if cell_px >= 22 else 9}
    keys = [
        {
            "type": "scatter",
            "mode": "markers",
            "x": [None],
            "y": [None],
            "yaxis": "y2",
            "name": name,
            "marker": {"symbol": "square", "size": 12, "color": colour},
            "hoverinfo": "skip",
        }
        for name, colour in zip(names, colours, strict=True)
    ]
    return [strip, *keys]


def lens_figure(
    tokens: Sequence[str],
    final_probs: np.ndarray,
    top_words: Sequence[Sequence[Sequence[str]]],
    top_probs: np.ndarray,
    commit: np.ndarray,
    width_px: int,
    scale: float = 1.0,
) -> go.Figure:
    """The logit lens, stages (rows, embeddings at the top) × positions: colour = the probability
    of the model's final prediction read at that stage, each cell's top-1 written where it fits
    (hover: top k). Under it the commitment strip: each position coloured by the first stage from
    which its final top-1 stays top-1 (`commit`), on the same x axis; the legend names the colours.
    `scale`: rows that much taller, for text that much larger (a projector)."""
    stages, t = final_probs.shape
    cell_px = (width_px - 140) / max(t, 1)
    lens_px, strip_px, gap_px = round(26 * scale) * stages, round(26 * scale), 14
    per_row = max(1, (width_px - 100) // 100)  # legend entries in a row
    legend_px = round(26 * scale) * -(-stages // per_row) + 10
    axis = token_axis(tokens, tr("token (each column: the prediction of the next token)"), width_px - 140)
    plot_px = lens_px + strip_px + gap_px
    lens = _lens_trace(final_probs, top_words, top_probs, cell_px)
    lens["colorbar"] |= {"len": max(90, lens_px), "lenmode": "pixels"}  # beside the lens, not the strip
    return figure(
        [lens, *_strip_traces(commit, stages, cell_px)],
        {
            "title": chart_title(tr("What the model would predict if it stopped at each stage")),
            "xaxis": axis | {"anchor": "y2"},
            "yaxis": {
                "domain": [(strip_px + gap_px) / plot_px, 1],
                "tickvals": list(range(stages)),
                "ticktext": stage_names(stages),
                "autorange": "reversed",
                "showgrid": False,
            },
            "yaxis2": {
                "domain": [0, strip_px / plot_px],
                "tickvals": [0],
                "ticktext": [tr("decided at")],
                "showgrid": False,
                "zeroline": False,
                "fixedrange": True,
                "range": [-0.5, 0.5],
            },
            "legend": {
                "orientation": "h",
                "yref": "container",
                "y": 0,
                "yanchor": "bottom",
                "x": 0,
                "title": {"text": tr("decided at:")},
            },
            "height": 60 + plot_px + 130 + legend_px,
            "width": width_px,
            "margin": {"l": 10, "r": 10, "t": 60, "b": 10 + legend_px},
        },
    )


def parts_figure(
    names: Sequence[str], values: np.ndarray, logit: float, width_px: int, scale: float = 1.0
) -> go.Figure:
    """The final logit as a waterfall: each part's direct contribution (`names`, `values`) added in
    the residual stream's order, the last bar the sum (which the model's `logit` equals); `scale`
    as lens_figure's."""
    n = len(names)
    running = np.concatenate([[0.0], np.cumsum(values)])
    low, high = min(0.0, float(running.min())), max(0.0, float(running.max()))
    pad = 0.18 * max(high - low, 1e-6)  # room for the numbers written beside the bars
    data = [
        {
            "type": "waterfall",
            "orientation": "h",
            "y": [*names, tr("sum = logit")],
            "x": f32([*values, 0.0]),
            "measure": ["relative"] * n + ["total"],
            "text": [f"{v:+.2f}" for v in values] + [f"{float(np.sum(values)):.2f}"],
            "textposition": "outside",
            "textfont": {"size": round(12 * scale)},
            "cliponaxis": False,
            "increasing": {"marker": {"color": DIVERGING[-1][1]}},
            "decreasing": {"marker": {"color": DIVERGING[0][1]}},
            "totals": {"marker": {"color": "#444444"}},
            "connector": {"line": {"color": "#999999", "width": 1}},
            "hovertemplate": "%{y}: %{x:+.4f}<extra></extra>",
        }
    ]
    return figure(
        data,
        {
            "title": chart_title(
                tr("The logit, part by part"),
                tr("each part's direct contribution; the model's logit is {logit:.4f}", logit=logit),
            ),
            "xaxis": {
                "title": {"text": tr("contribution to the logit")},
                "zeroline": True,
                "range": [low - (pad if low < 0 else 0), high + pad],
            },
            "yaxis": {"autorange": "reversed", "automargin": True, "type": "category"},
            "height": 120 + round(22 * scale) * (n + 1),
            "width": width_px,
            "margin": {"l": 10, "r": 60, "t": 70, "b": 10},
            "showlegend": False,
        },
    )


def heads_figure(heads: np.ndarray, width_px: int, scale: float = 1.0) -> go.Figure:
    """Each head's direct contribution (L, H), diverging around 0, the numbers in the cells; a
    nearly transparent marker over each cell carries (layer, head): Streamlit returns no click on a
    heatmap but does on a marker."""
    layers, count = heads.shape
    bound = max(float(np.abs(heads).max()), 1e-6)
    cell = (width_px - 120) / max(count, 1)
    size = int(max(10, min(36, cell * 0.9)))
    layer_of, head_of = np.divmod(np.arange(layers * count), count)
    data = [
        {
            "type": "heatmap",
            "z": f32(heads),
            "zmin": -bound,
            "zmax": bound,
            "colorscale": DIVERGING,
            "xgap": 1,
            "ygap": 1,
            "colorbar": {"thickness": 10},
            "hoverinfo": "skip",
            **({"texttemplate": "%{z:+.2f}", "textfont": {"size": 11}} if cell >= 44 else {}),
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": head_of.astype(np.int16),
            "y": layer_of.astype(np.int16),
            "customdata": [[int(a), int(b)] for a, b in zip(layer_of, head_of, strict=True)],
            "text": [f"{heads[a, b]:+.4f}" for a, b in zip(layer_of, head_of, strict=True)],
            "marker": {"symbol": "square", "size": size, "color": "#000000", "opacity": 0.01},
            "selected": {"marker": {"opacity": 0.01}},
            "unselected": {"marker": {"opacity": 0.01}},
            "hovertemplate": tr(
                "head %{customdata[0]}.%{customdata[1]}: %{text}<br>click to knock it out in the lab"
            )
            + "<extra></extra>",
            "showlegend": False,
        },
    ]
    return figure(
        data,
        {
            "title": chart_title(
                tr("Each head's direct contribution"), tr("click a head to open it in the lab")
            ),
            "xaxis": {
                "title": {"text": tr("head")},
                "tickmode": "linear",
                "dtick": 1,
                "range": [-0.5, count - 0.5],  # the markers' size must not widen the axes
                "fixedrange": True,
            },
            "yaxis": {
                "title": {"text": tr("layer")},
                "tickmode": "linear",
                "dtick": 1,
                "range": [layers - 0.5, -0.5],
                "fixedrange": True,
            },
            "height": 160 + round(max(24, min(40, int(cell))) * scale) * layers,
            "width": width_px,
            "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
            "hovermode": "closest",
            "dragmode": False,
        },
    )


def normalised(scores: np.ndarray) -> np.ndarray:
    """Scores divided by their largest |score| (a method's own scale: they compare by shape)."""
    top = float(np.nanmax(np.abs(scores))) if scores.size else 0.0
    return scores / top if top > 0 else np.zeros_like(scores)


def methods_figure(
    tokens: Sequence[str], scores: dict[str, np.ndarray | None], width_px: int, scale: float = 1.0
) -> go.Figure:
    """Every method's scores (rows) on the tokens up to the prediction's position (columns), each
    row divided by its largest |score| so that the methods compare: −1..1, red = mattered; `scale`
    as lens_figure's."""
    shown = [m for m, s in scores.items() if s is not None]
    z = np.stack([normalised(np.asarray(scores[m], dtype=np.float64)) for m in shown])
    raw = [[f"{v:+.4f}" for v in np.asarray(scores[m], dtype=np.float64)] for m in shown]
    t = z.shape[1]
    names = [tr(NAMES[m]) for m in shown]
    trace = {
        "type": "heatmap",
        "z": f32(z),
        "zmin": -1.0,
        "zmax": 1.0,
        "colorscale": DIVERGING,
        "customdata": raw,
        "xgap": 1,
        "ygap": 2,
        "colorbar": {"thickness": 10, "tickvals": [-1, 0, 1]},
        "hovertemplate": tr("%{y}, token %{x}<br>score %{customdata} (scaled %{z:.2f})") + "<extra></extra>",
    }
    if width_px / max(t, 1) >= 40:
        trace |= {"texttemplate": "%{z:.2f}", "textfont": {"size": 11}}
    axis = token_axis(tokens, tr("token"), width_px - 160)
    return figure(
        [trace],
        {
            "title": chart_title(
                tr("Which tokens mattered, by each method"),
                tr("each row divided by its largest |score|: 1 = the token that method names most"),
            ),
            "xaxis": axis,
            "yaxis": {"tickvals": list(range(len(names))), "ticktext": names, "autorange": "reversed"},
            "height": round((150 + 34 * len(names) + (60 if t > 8 else 0)) * scale),
            "width": width_px,
            "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        },
    )


def methods_table(
    tokens: Sequence[str], scores: dict[str, np.ndarray | None], correlations: dict[str, float]
) -> pd.DataFrame:
    """One row per token (up to the position), one column per method (its raw scores; a skipped
    method left out), the ablation (the ground truth) first: on a phone the first columns are the
    ones in sight. A last row: each method's Spearman ρ with the ablation (1 for itself)."""
    shown = sorted((m for m, s in scores.items() if s is not None), key=lambda m: m != "ablation")
    index = [f"{i}: {token}" for i, token in enumerate(tokens)]
    frame = pd.DataFrame({tr(NAMES[m]): np.asarray(scores[m], dtype=np.float64) for m in shown}, index=index)
    rho = {tr(NAMES[m]): (1.0 if m == "ablation" else correlations.get(m, np.nan)) for m in shown}
    # TRANSLATORS: a table's last row: each method's Spearman rank correlation with the ablation
    frame.loc[tr("Spearman ρ")] = pd.Series(rho)
    return frame
