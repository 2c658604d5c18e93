"""Inside a model's "Where it decided" and "Which explanation?" figures (the logit lens itself:
attention.figures.lens): the final logit split into what wrote it (and each head's part,
clickable), every attribution method's scores on one sentence, and the table of them with each
method's Spearman ρ. Figures take computed results (attention.model.lens, attention.model.explain)
and token texts; they never run a model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention.figures.layout import (
    DIVERGING,
    chart_title,
    f32,
    figure,
)
from attention.figures.lens import token_axis
from attention.i18n import tr
from attention.model.explain import NAMES  # each method's name as a reader sees it


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
