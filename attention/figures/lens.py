"""Inside a model's "Where it decided" figure: the logit lens with its commitment strip, across
the page on a screen and down it on a phone. Figures take computed results (attention.model.lens)
and token texts; they never run a model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from attention.figures.layout import (
    SEQUENTIAL,
    chart_title,
    f32,
    figure,
    position_axis,
    token_label,
    token_labels,
)
from attention.i18n import tr

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


def lens_cell_px(stages: int, positions: int, width_px: int, tall: bool) -> float:
    """How wide a lens cell is drawn: positions across the width, or (`tall`, a phone) stages."""
    if tall:
        return (width_px - 90 - 44 - 20) / max(stages, 1)
    return (width_px - 140) / max(positions, 1)


def cells_named(stages: int, positions: int, width_px: int, tall: bool) -> bool:
    """Whether the lens writes each cell's top token in it (the caption says so only then)."""
    return lens_cell_px(stages, positions, width_px, tall) >= LENS_CELL_PX


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
    if cell_px >= LENS_CELL_PX:  # a heatmap's texttemplate knows x, y, z and text (customdata: "-")
        limit = 4 if cell_px < 40 else 6 if cell_px < 56 else 9
        top1 = [[token_label(cell[0], limit) for cell in row] for row in top_words]
        trace |= {
            "customdata": trace["text"],  # the hover's top k
            "hovertemplate": trace["hovertemplate"].replace("%{text}", "%{customdata}"),
            "text": top1,
            "texttemplate": "%{text}",
            "textfont": {"size": 10},
        }
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
    tall: bool = False,
) -> go.Figure:
    """The logit lens, stages (rows, embeddings at the top) × positions: colour = the probability
    of the model's final prediction read at that stage, each cell's top-1 written where it fits
    (hover: top k). Under it the commitment strip: each position coloured by the first stage from
    which its final top-1 stays top-1 (`commit`), on the same x axis; the legend names the colours.
    `scale`: rows that much taller, for text that much larger (a projector). `tall`: a phone's,
    turned down the page (_tall)."""
    if tall:
        return _tall(tokens, final_probs, top_words, top_probs, commit, width_px, scale)
    stages, t = final_probs.shape
    cell_px = lens_cell_px(stages, t, width_px, tall=False)
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
            "yaxis2": _strip_axis([0, strip_px / plot_px]),
            "legend": _legend(),
            "height": 60 + plot_px + 130 + legend_px,
            "width": width_px,
            "margin": {"l": 10, "r": 10, "t": 60, "b": 10 + legend_px},
        },
    )


def _strip_axis(domain: list[float]) -> dict:
    """The commitment strip's own axis: one row (or column) named "decided at"."""
    return {
        "domain": domain,
        "tickvals": [0],
        "ticktext": [tr("decided at")],
        "showgrid": False,
        "zeroline": False,
        "fixedrange": True,
        "range": [-0.5, 0.5],
    }


def _legend() -> dict:
    """The strip's colours named under the chart."""
    return {
        "orientation": "h",
        "yref": "container",
        "y": 0,
        "yanchor": "bottom",
        "x": 0,
        "title": {"text": tr("decided at:")},
    }


def _swap(template: str) -> str:
    return template.replace("%{x}", "\0").replace("%{y}", "%{x}").replace("\0", "%{y}")


def _transposed(trace: dict) -> dict:
    """A heatmap trace of (rows, columns) drawn with rows and columns swapped (hover text too)."""
    turned = dict(trace)
    for name in ("z", "text", "customdata"):
        if name in trace and trace[name] is not None:
            turned[name] = [list(column) for column in zip(*trace[name], strict=True)]
    turned["xgap"], turned["ygap"] = trace.get("ygap", 0), trace.get("xgap", 0)
    if "hovertemplate" in trace:
        turned["hovertemplate"] = _swap(trace["hovertemplate"])
    return turned


def _tall(tokens, final_probs, top_words, top_probs, commit, width_px: int, scale: float) -> go.Figure:
    """lens_figure for a phone: positions down the page (a row each, as long as the sentence),
    stages across, and the commitment strip a column at the right; 45 positions across 360 px
    were unreadable (a walk in Chromium)."""
    stages, t = final_probs.shape
    row_px, label_px, strip_px = round(24 * scale), 90, 44
    cell_px = lens_cell_px(stages, t, width_px, tall=True)
    lens = _transposed(_lens_trace(final_probs, top_words, top_probs, cell_px)) | {"showscale": False}
    strip, *keys = _strip_traces(commit, stages, 40)
    strip = _transposed(strip) | {"xaxis": "x2", "yaxis": "y"}
    keys = [k | {"xaxis": "x2", "yaxis": "y"} for k in keys]
    plot_w = width_px - label_px - 20
    lens_share = (plot_w - strip_px) / plot_w
    axis = position_axis(token_labels(tokens), "") | {"autorange": "reversed", "side": "left"}
    legend_px = round(24 * scale) * -(-stages // 3) + 10
    return figure(
        [lens, strip, *keys],
        {
            "title": chart_title(tr("What the model would predict if it stopped at each stage")),
            "xaxis": {
                "domain": [0, lens_share - 0.02],
                "tickvals": list(range(stages)),
                "ticktext": [stage_short(i) for i in range(stages)],
                "side": "top",
                "showgrid": False,
            },
            "xaxis2": _strip_axis([lens_share, 1]) | {"side": "top"},
            "yaxis": axis,
            "legend": _legend(),
            "height": 110 + row_px * t + legend_px,
            "width": width_px,
            "margin": {"l": 10, "r": 10, "t": 90, "b": 10 + legend_px},
        },
    )
