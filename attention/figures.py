"""AttentionTrace -> plotly Figures and pandas DataFrames. Never runs a model; no Streamlit.

Payload rules (design.md): exact numbers travel as float32 typed arrays; thumbnails, which only
show colour, travel as uint8; axes are integer positions with tickvals/ticktext, so repeated
tokens keep their own rows, and plotly's hover then shows the tick text (the token). Every
token is HTML-escaped before it reaches a figure, since plotly renders some HTML in labels.
"""

from __future__ import annotations

import html
import json
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attention.trace import AttentionTrace

# Colour-blind-safe scales: diverging for signed scores, sequential for weights in [0, 1].
DIVERGING = "RdBu_r"
SEQUENTIAL = "Viridis"
MASK_GREY = "#8c8c8c"
TEMPLATE = go.layout.Template(layout={"font": {"size": 14}})  # plotly's default template is ~10 kB

STEPS = {  # trace field -> (title, what a cell is, colour scale)
    "scores": ("scores = queries @ keysᵀ", "score", DIVERGING),
    "scaled_scores": ("scaled_scores = scores / √d_k", "scaled score", DIVERGING),
    "masked_scores": ("masked_scores (−inf above the diagonal)", "masked score", DIVERGING),
    "weights": ("weights = softmax(masked_scores)", "weight", SEQUENTIAL),
    "dropped_weights": ("dropped_weights = weights · keep / (1 − p)", "weight after dropout", SEQUENTIAL),
}


def token_label(token: str, limit: int = 16) -> str:
    """A token as a safe, readable label: whitespace made visible, long ones cut, HTML escaped."""
    text = token.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=True)


def token_labels(trace: AttentionTrace) -> list[str]:
    return [token_label(t) for t in trace.tokens.texts]


def _position_axis(labels: list[str], title: str) -> dict:
    n = len(labels)
    return dict(
        title=dict(text=title),
        tickmode="array",
        tickvals=list(range(n)),
        ticktext=labels,
        tickfont=dict(size=14 if n <= 16 else 11 if n <= 48 else 8),
        showgrid=False,
        zeroline=False,
        constrain="domain",
    )


def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def _mask_polygon(num_tokens: int) -> tuple[list[float], list[float]]:
    """Outline of the cells above the diagonal (keys after the query): one staircase polygon."""
    xs, ys = [], []
    for k in range(num_tokens - 1):
        xs += [k + 0.5, k + 0.5]
        ys += [k - 0.5, k + 0.5]
    xs += [num_tokens - 0.5, num_tokens - 0.5, 0.5]
    ys += [num_tokens - 1.5, -0.5, -0.5]
    return xs, ys


def attention_heatmap(
    matrix,
    labels: list[str],
    title: str,
    value_name: str,
    colorscale: str,
    *,
    subtitle: str = "",
    mask=None,
    dropout_mask=None,
    dropout: float = 0.0,
    height: int | None = None,
) -> go.Figure:
    """A (T, T) matrix: rows are queries, columns are keys. Masked cells are hatched grey
    (hover: "masked (−inf)"); dropped cells are crossed out; −inf itself is sent as NaN."""
    z = _f32(matrix)
    z[np.isneginf(z)] = np.nan
    n = z.shape[0]
    finite = z[np.isfinite(z)]
    hover = f"query %{{y}}<br>key %{{x}}<br>{value_name} %{{z:.4f}}<extra></extra>"
    heat = dict(
        z=z,
        colorscale=colorscale,
        hovertemplate=hover,
        hoverongaps=False,
        colorbar=dict(thickness=12, len=0.9),
    )
    if colorscale == DIVERGING:
        bound = float(np.abs(finite).max()) if finite.size else 1.0
        heat.update(zmid=0.0, zmin=-bound, zmax=bound)
    else:
        heat.update(zmin=0.0, zmax=float(max(1.0, finite.max() if finite.size else 1.0)))
    fig = go.Figure(go.Heatmap(**heat))
    if mask is not None and n > 1:
        xs, ys = _mask_polygon(n)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                fill="toself",
                mode="lines",
                line=dict(width=0),
                fillcolor=MASK_GREY,
                fillpattern=dict(shape="/", bgcolor=MASK_GREY, fgcolor="white", size=8, solidity=0.3),
                hoveron="fills",
                hoverinfo="text",
                text="masked (−inf): a query may not look at later keys",
                name="masked",
                showlegend=False,
            )
        )
    if dropout_mask is not None:
        dropped = np.argwhere(~np.asarray(dropout_mask, dtype=bool))  # (k, 2): row, col
        if mask is not None:
            dropped = dropped[dropped[:, 1] <= dropped[:, 0]]  # masked cells are already 0
        fig.add_trace(
            go.Scatter(
                x=dropped[:, 1].astype(np.int16),
                y=dropped[:, 0].astype(np.int16),
                mode="markers",
                marker=dict(
                    symbol="x-thin", size=max(4, min(14, 360 // n)), line=dict(width=2, color="#d62728")
                ),
                hovertemplate=f"query %{{y}}<br>key %{{x}}<br>dropped (p = {dropout:g})<extra></extra>",
                name="dropped",
                showlegend=False,
            )
        )
        subtitle += f" · kept weights × 1/(1 − {dropout:g}) = ×{1 / (1 - dropout):.4g} · ✕ = dropped"
    fig.update_layout(
        template=TEMPLATE,
        title=dict(text=f"{title}<br><sub>{subtitle}</sub>" if subtitle else title, font=dict(size=15)),
        xaxis=_position_axis(labels, "keys (looked at) →") | dict(range=[-0.5, n - 0.5]),
        yaxis=_position_axis(labels, "← queries (looking)") | dict(autorange="reversed", scaleanchor="x"),
        height=height or int(min(720, max(360, 140 + 28 * n))),
        margin=dict(l=10, r=10, t=70, b=10),
    )
    return fig


def step_figures(trace: AttentionTrace, head: int, batch: int = 0) -> dict[str, go.Figure]:
    """One head's five steps, scores -> dropped_weights. Steps that change nothing are left out
    (masked_scores without a mask, dropped_weights without dropout)."""
    labels = token_labels(trace)
    mask = None if trace.mask is None else trace.mask.numpy()
    out = {}
    for name, (title, value_name, scale) in STEPS.items():
        if name == "masked_scores" and trace.mask is None:
            continue
        if name == "dropped_weights" and trace.dropout_mask is None:
            continue
        if name == "scaled_scores" and trace.module == "SimplifiedSelfAttention":
            continue  # no scaling step in section 3.3
        step_title = title.replace("√d_k", f"√{trace.queries.shape[-1]} = {trace.scale:.4g}")
        shown_mask = mask if name in ("masked_scores", "weights", "dropped_weights") else None
        keep = trace.dropout_mask[batch, head].numpy() if name == "dropped_weights" else None
        out[name] = attention_heatmap(
            getattr(trace, name)[batch, head].numpy(),
            labels,
            step_title,
            value_name,
            scale,
            subtitle=f"{name} {shape_text(trace, name)}, head {head}",
            mask=shown_mask,
            dropout_mask=keep,
            dropout=trace.dropout,
        )
    return out


def heads_grid(trace: AttentionTrace, name: str = "weights", batch: int = 0, columns: int = 4) -> go.Figure:
    """Small multiples of every head's matrix, colour only (uint8, no hover): pick a head to
    see its exact numbers."""
    heads = trace.num_heads
    cols = min(columns, heads)
    rows = math.ceil(heads / cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[f"head {h}" for h in range(heads)],
        horizontal_spacing=0.03,
        vertical_spacing=0.08 / rows,
    )
    values = getattr(trace, name)[batch].numpy()  # (H, T, T)
    for h in range(heads):
        z = np.clip(np.nan_to_num(values[h], neginf=0.0), 0.0, 1.0)
        fig.add_trace(
            go.Heatmap(
                z=np.round(z * 255).astype(np.uint8),
                zmin=0,
                zmax=255,
                colorscale=SEQUENTIAL,
                showscale=False,
                hoverinfo="skip",
            ),
            row=h // cols + 1,
            col=h % cols + 1,
        )
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False)
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, autorange="reversed")
    fig.update_layout(template=TEMPLATE, height=40 + 190 * rows, margin=dict(l=5, r=5, t=30, b=5))
    return fig


def vectors_heatmap(matrix, row_labels: list[str], title: str, row_title: str = "tokens") -> go.Figure:
    """A (T, d) matrix of vectors: one row per token, one column per dimension."""
    z = _f32(matrix)
    n, d = z.shape
    bound = float(np.abs(z).max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=z,
            colorscale=DIVERGING,
            zmid=0.0,
            zmin=-bound,
            zmax=bound,
            hovertemplate="token %{y}<br>dimension %{x}<br>value %{z:.4f}<extra></extra>",
            colorbar=dict(thickness=10),
        )
    )
    fig.update_layout(
        template=TEMPLATE,
        title=dict(text=title, font=dict(size=14)),
        xaxis=dict(title=dict(text="dimension"), showgrid=False, zeroline=False),
        yaxis=_position_axis(row_labels, row_title) | dict(autorange="reversed"),
        height=int(min(640, max(220, 110 + 22 * n))),
        margin=dict(l=10, r=10, t=50, b=10),
    )
    return fig


def query_bar(trace: AttentionTrace, head: int, query: int, batch: int = 0) -> go.Figure:
    """How one query spreads its weight over the keys."""
    labels = token_labels(trace)
    weights = _f32(trace.dropped_weights[batch, head, query])
    masked = trace.mask[query].numpy() if trace.mask is not None else np.zeros(len(labels), bool)
    fig = go.Figure(
        go.Bar(
            x=np.arange(len(labels), dtype=np.int16),
            y=weights,
            marker_color=np.where(masked, "#bbbbbb", "#1f77b4").tolist(),
            hovertemplate="key %{x}<br>weight %{y:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        template=TEMPLATE,
        title=dict(
            text=f"weights of query “{labels[query]}” (position {query}) over the keys", font=dict(size=14)
        ),
        xaxis=_position_axis(labels, "keys"),
        yaxis=dict(title=dict(text="weight"), rangemode="tozero"),
        height=320,
        margin=dict(l=10, r=10, t=50, b=10),
    )
    return fig


def weighted_sum_frame(trace: AttentionTrace, head: int, query: int, batch: int = 0) -> pd.DataFrame:
    """The query's context vector as the weighted sum of value vectors: one row per key
    (weight · value), then the sum, which equals the context row."""
    weights = trace.dropped_weights[batch, head, query].numpy()  # (T,)
    values = trace.values[batch, head].numpy()  # (T, d_v)
    terms = weights[:, None] * values  # (T, d_v)
    labels = [f"{i}: {t}" for i, t in enumerate(trace.tokens.texts)]
    frame = pd.DataFrame(terms, index=[f"{w:.4f} × v[{lab}]" for w, lab in zip(weights, labels, strict=True)])
    frame.loc["= context"] = trace.context[batch, head, query].numpy()
    frame.columns = [f"dim {j}" for j in range(values.shape[1])]
    return frame


def matrix_frame(trace: AttentionTrace, name: str, batch: int = 0, head: int | None = None) -> pd.DataFrame:
    """A matrix of the trace as a DataFrame labelled with tokens (for tables and CSV)."""
    tensor = getattr(trace, name)
    rows = [f"{i}:{t}" for i, t in enumerate(trace.tokens.texts)]
    if name == "mask":
        return pd.DataFrame(tensor.numpy(), index=rows, columns=rows)
    data = tensor[batch] if head is None else tensor[batch, head]
    data = data.numpy()
    columns = rows if data.shape[-1] == len(rows) and name not in ("x", "output") else None
    frame = pd.DataFrame(data, index=rows, columns=columns)
    if columns is None:
        frame.columns = [f"dim {j}" for j in range(data.shape[1])]
    frame.index.name = "query \\ key" if columns else "token"
    return frame


def shape_text(trace: AttentionTrace, name: str) -> str:
    shape = trace.shapes()[name]
    return "—" if shape is None else "(" + ", ".join(map(str, shape)) + ")"


def trace_json(trace: AttentionTrace) -> str:
    """The whole trace as JSON: tokens, settings, shapes and every tensor as nested lists."""

    def encode(t):  # −inf (masked scores) is not JSON: written as null
        if t is None:
            return None
        a = t.numpy()
        if a.dtype == bool:
            return a.tolist()
        return np.where(np.isneginf(a), None, a).tolist() if np.isneginf(a).any() else a.tolist()

    payload = {
        "tokens": list(trace.tokens.texts) if trace.tokens else None,
        "token_ids": list(trace.tokens.ids) if trace.tokens else None,
        "config": trace.config.to_query_params() if trace.config is not None else None,
        "module": trace.module,
        "device": trace.device,
        "seconds": trace.seconds,
        "scale": trace.scale,
        "dropout": trace.dropout,
        "shapes": trace.shapes(),
        "note": "masked_scores: null marks -inf (masked) cells",
        "tensors": {name: encode(getattr(trace, name)) for name in trace.TENSORS},
    }
    return json.dumps(payload)
