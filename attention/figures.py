"""AttentionTrace -> plotly Figures and pandas DataFrames. Never runs a model; no Streamlit.

Payload rules (design.md): exact numbers travel as float32 typed arrays; thumbnails, which only
show colour, travel as uint8; axes are integer positions with tickvals/ticktext, so repeated
tokens keep their own rows, and plotly's hover then shows the tick text (the token). Every
token is HTML-escaped before it reaches a figure, since plotly renders some HTML in labels.

Figures are built as plain dicts and wrapped without validation: plotly's property validation
cost ~20 ms a figure, most of a rerun. Tests check the specs instead.
"""

from __future__ import annotations

import html
import json
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention.trace import AttentionTrace

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
TEMPLATE = {"layout": {"font": {"size": 14}}}  # plotly's default template is ~10 kB a figure

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
    if isinstance(layout.get("title"), dict):
        updates["title"] = {"font": bigger(layout["title"].get("font"))}
    if layout.get("annotations"):
        updates["annotations"] = [a | {"font": bigger(a.get("font"))} for a in layout["annotations"]]
    fig.update_layout(updates)
    return fig


def _figure(data: list[dict], layout: dict) -> go.Figure:
    return go.Figure({"data": data, "layout": {"template": TEMPLATE, **layout}}, _validate=False)


def _title(text: str, size: int = 15) -> dict:
    return {"text": text, "font": {"size": size}}


def _position_axis(labels: list[str], title: str) -> dict:
    n = len(labels)
    return {
        "title": {"text": title},
        "tickmode": "array",
        "tickvals": list(range(n)),
        "ticktext": labels,
        "tickfont": {"size": 14 if n <= 16 else 11 if n <= 48 else 8},
        "showgrid": False,
        "zeroline": False,
        "constrain": "domain",
    }


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


def _colour(colorscale, values: np.ndarray) -> dict:
    """Colour scale and range: diverging ones centred on 0, sequential ones from 0."""
    finite = values[np.isfinite(values)]
    if colorscale == DIVERGING:
        bound = float(np.abs(finite).max()) if finite.size else 1.0
        return {"colorscale": DIVERGING, "zmid": 0.0, "zmin": -bound, "zmax": bound}
    return {
        "colorscale": SEQUENTIAL,
        "zmin": 0.0,
        "zmax": float(max(1.0, finite.max() if finite.size else 1.0)),
    }


def _step_traces(
    z,
    n: int,
    value_name: str,
    colorscale: str,
    axes: tuple[str, str],
    colorbar: dict,
    mask=None,
    dropout_mask=None,
    dropout: float = 0.0,
) -> list[dict]:
    """One (T, T) panel: the heatmap (−inf sent as NaN), the masked cells as one hatched grey
    polygon (hover: "masked (−inf)"), and a ✕ on every cell dropout removed."""
    ref = {"xaxis": axes[0], "yaxis": axes[1]}
    data = [
        {
            "type": "heatmap",
            "z": z,
            "hoverongaps": False,
            "colorbar": colorbar,
            "name": value_name,
            **ref,
            "hovertemplate": f"query %{{y}}<br>key %{{x}}<br>{value_name} %{{z:.4f}}<extra></extra>",
            **_colour(colorscale, z),
        }
    ]
    if mask is not None and n > 1:
        xs, ys = _mask_polygon(n)
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
                "text": "masked (−inf): a query may not look at later keys",
                "name": "masked",
                "showlegend": False,
                **ref,
            }
        )
    if dropout_mask is not None:
        dropped = np.argwhere(~np.asarray(dropout_mask, dtype=bool))  # (k, 2): row, col
        if mask is not None:
            dropped = dropped[dropped[:, 1] <= dropped[:, 0]]  # masked cells are 0 already
        data.append(
            {
                "type": "scatter",
                "x": dropped[:, 1].astype(np.int16),
                "y": dropped[:, 0].astype(np.int16),
                "mode": "markers",
                "name": "dropped",
                "showlegend": False,
                **ref,
                "marker": {
                    "symbol": "x-thin",
                    "size": max(4, min(14, 360 // n)),
                    "line": {"width": 2, "color": "#d62728"},
                },
                "hovertemplate": f"query %{{y}}<br>key %{{x}}<br>dropped (p = {dropout:g})<extra></extra>",
            }
        )
    return data


def available_steps(trace: AttentionTrace) -> list[str]:
    """The steps this trace went through: no scaling in 3.3's simplified attention, no
    masked_scores without a mask, no dropped_weights without dropout."""
    skip = {
        "masked_scores": trace.mask is None,
        "dropped_weights": trace.dropout_mask is None,
        "scaled_scores": trace.module == "SimplifiedSelfAttention",
    }
    return [name for name in STEPS if not skip.get(name, False)]


def steps_figure(
    trace: AttentionTrace, head: int, steps: list[str] | None = None, batch: int = 0
) -> go.Figure:
    """One head's steps (default: all it went through) as panels of one figure: one chart to
    draw, not five. Rows are queries, columns are keys. Each heatmap trace is named after its
    trace field."""
    labels = token_labels(trace)
    n = len(labels)
    mask = None if trace.mask is None else trace.mask.numpy()
    steps = steps or available_steps(trace)
    cols = 2 if n <= 24 and len(steps) > 1 else 1
    rows = math.ceil(len(steps) / cols)
    panel = int(min(700, max(260, 100 + 26 * n)))  # px per panel
    head_px = 115  # px above each panel: its title (45) and the key axis on top (70)
    block = head_px + panel + 25
    plot = rows * block  # the plot area's height in px; margins are extra
    gap_x = 0.16
    width = (1 - gap_x * (cols - 1)) / cols
    data, layout = [], {"annotations": []}
    for i, name in enumerate(steps):
        title, value_name, scale = STEPS[name]
        r, c = divmod(i, cols)
        axis = "" if i == 0 else str(i + 1)
        x0 = c * (width + gap_x)
        x1 = min(1.0, x0 + width - 0.06)  # room for the colour bar
        y_title = 1 - r * block / plot
        y1 = 1 - (r * block + head_px) / plot
        y0 = max(0.0, y1 - panel / plot)
        z = _f32(getattr(trace, name)[batch, head])
        z[np.isneginf(z)] = np.nan
        colorbar = {
            "thickness": 12,
            "len": (y1 - y0),
            "y": (y0 + y1) / 2,
            "x": min(1.0, x1 + 0.01),
            "xanchor": "left",
            "yanchor": "middle",
        }
        data += _step_traces(
            z,
            n,
            name,
            scale,
            (f"x{axis}", f"y{axis}"),
            colorbar,
            mask=mask if name in ("masked_scores", "weights", "dropped_weights") else None,
            dropout_mask=trace.dropout_mask[batch, head].numpy() if name == "dropped_weights" else None,
            dropout=trace.dropout,
        )
        layout[f"xaxis{axis}"] = _position_axis(labels, "keys (looked at) →") | {
            "domain": [x0, x1],
            "anchor": f"y{axis}",
            "range": [-0.5, n - 0.5],
            "side": "top",
            "title": {"text": "keys (looked at) →", "standoff": 4},
        }
        layout[f"yaxis{axis}"] = _position_axis(labels, "← queries (looking)") | {
            "domain": [y0, y1],
            "anchor": f"x{axis}",
            "range": [n - 0.5, -0.5],  # query 0 on top; fixed, so the ✕ markers cannot shrink it
        }
        step_title = title.replace("√d_k", f"√{trace.queries.shape[-1]} = {trace.scale:.4g}")
        subtitle = f"{name} {shape_text(trace, name)}, head {head}"
        if name == "dropped_weights":
            subtitle += f" · kept × 1/(1 − {trace.dropout:g}) = ×{1 / (1 - trace.dropout):.4g} · ✕ dropped"
        layout["annotations"].append(
            {
                "text": f"<b>{step_title}</b><br><span style='font-size:12px'>{subtitle}</span>",
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": x0,
                "xanchor": "left",
                "y": y_title,
                "yanchor": "top",
                "align": "left",
                "font": {"size": 15},
            }
        )
    return _figure(data, layout | {"height": plot + 20, "margin": {"l": 10, "r": 10, "t": 10, "b": 10}})


def heads_grid(trace: AttentionTrace, name: str = "weights", batch: int = 0, columns: int = 4) -> go.Figure:
    """Small multiples of every head's matrix, colour only (uint8, no hover): pick a head to
    see its exact numbers."""
    heads = trace.num_heads
    cols = min(columns, heads)
    rows = math.ceil(heads / cols)
    values = getattr(trace, name)[batch].numpy()  # (H, T, T)
    gap_x, gap_y = 0.03, 0.12 / rows
    width, height = (1 - gap_x * (cols - 1)) / cols, (1 - gap_y * (rows - 1)) / rows
    data, layout = [], {}
    for h in range(heads):
        r, c = divmod(h, cols)
        axis = "" if h == 0 else str(h + 1)
        z = np.clip(np.nan_to_num(values[h], neginf=0.0), 0.0, 1.0)
        data.append(
            {
                "type": "heatmap",
                "z": np.round(z * 255).astype(np.uint8),
                "zmin": 0,
                "zmax": 255,
                "colorscale": SEQUENTIAL,
                "showscale": False,
                "hoverinfo": "skip",
                "xaxis": f"x{axis}",
                "yaxis": f"y{axis}",
            }
        )
        x0, y1 = c * (width + gap_x), 1 - r * (height + gap_y)
        x1, y0 = min(1.0, x0 + width), max(0.0, y1 - height)  # float error must not leave [0, 1]
        hidden = {"showticklabels": False, "showgrid": False, "zeroline": False}
        layout[f"xaxis{axis}"] = {**hidden, "domain": [x0, x1], "anchor": f"y{axis}"}
        layout[f"yaxis{axis}"] = {
            **hidden,
            "domain": [y0, y1],
            "anchor": f"x{axis}",
            "autorange": "reversed",
        }
        layout.setdefault("annotations", []).append(
            {
                "text": f"head {h}",
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": x0 + width / 2,
                "y": y1,
                "yanchor": "bottom",
                "font": {"size": 13},
            }
        )
    return _figure(data, layout | {"height": 40 + 200 * rows, "margin": {"l": 5, "r": 5, "t": 30, "b": 5}})


MAX_VECTOR_COLUMNS = 256  # per vectors heatmap: keeps the Vectors view under ~2 MB at the caps


def vectors_heatmap(matrix, row_labels: list[str], title: str, row_title: str = "tokens") -> go.Figure:
    """A (T, d) matrix of vectors: one row per token, one column per dimension (the first
    MAX_VECTOR_COLUMNS of them; the CSV download has all)."""
    z = _f32(matrix)
    if z.shape[1] > MAX_VECTOR_COLUMNS:
        title += f" · first {MAX_VECTOR_COLUMNS} of {z.shape[1]} dimensions (CSV has all)"
        z = np.ascontiguousarray(z[:, :MAX_VECTOR_COLUMNS])
    n = z.shape[0]
    data = [
        {
            "type": "heatmap",
            "z": z,
            "colorbar": {"thickness": 10},
            **_colour(DIVERGING, z),
            "hovertemplate": "token %{y}<br>dimension %{x}<br>value %{z:.4f}<extra></extra>",
        }
    ]
    return _figure(
        data,
        {
            "title": _title(title, size=14),
            "xaxis": {"title": {"text": "dimension"}, "showgrid": False, "zeroline": False},
            "yaxis": _position_axis(row_labels, row_title) | {"autorange": "reversed"},
            "height": int(min(640, max(220, 110 + 22 * n))),
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )


def query_bar(trace: AttentionTrace, head: int, query: int, batch: int = 0) -> go.Figure:
    """How one query spreads its weight over the keys (after dropout, as the context uses it)."""
    labels = token_labels(trace)
    weights = _f32(trace.dropped_weights[batch, head, query])
    masked = trace.mask[query].numpy() if trace.mask is not None else np.zeros(len(labels), bool)
    data = [
        {
            "type": "bar",
            "x": np.arange(len(labels), dtype=np.int16),
            "y": weights,
            "marker": {"color": np.where(masked, "#bbbbbb", "#1f5fbf").tolist()},
            "hovertemplate": "key %{x}<br>weight %{y:.4f}<extra></extra>",
        }
    ]
    return _figure(
        data,
        {
            "title": _title(f"weights of query “{labels[query]}” (position {query}) over the keys", size=14),
            "xaxis": _position_axis(labels, "keys"),
            "yaxis": {"title": {"text": "weight"}, "rangemode": "tozero"},
            "height": 320,
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )


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


JSON_MAX_NUMBERS = 2_000_000  # ~25 MB of JSON; beyond it, export one head


def trace_json(trace: AttentionTrace, head: int | None = None) -> str:
    """The trace as JSON: tokens, settings, shapes and every tensor as nested lists, with all
    heads, or only `head` of the per-head tensors (for traces too large to export whole)."""

    def encode(name):  # −inf (masked scores) is not JSON: written as null
        t = getattr(trace, name)
        if t is None:
            return None
        a = t.numpy()
        if head is not None and a.ndim == 4:
            a = a[:, head : head + 1]  # (B, 1, ...)
        if a.dtype == bool or not np.isneginf(a).any():
            return a.tolist()
        return np.where(np.isneginf(a), None, a).tolist()

    payload = {
        "tokens": list(trace.tokens.texts) if trace.tokens else None,
        "token_ids": list(trace.tokens.ids) if trace.tokens else None,
        "config": trace.config.to_query_params() if trace.config is not None else None,
        "module": trace.module,
        "device": trace.device,
        "seconds": trace.seconds,
        "scale": trace.scale,
        "dropout": trace.dropout,
        "heads": "all" if head is None else [head],
        "shapes": trace.shapes(),
        "note": "masked_scores: null marks -inf (masked) cells",
        "tensors": {name: encode(name) for name in trace.TENSORS},
    }
    return json.dumps(payload)


def trace_numbers(trace: AttentionTrace) -> int:
    return sum(t.nelement() for n in trace.TENSORS if (t := getattr(trace, n)) is not None)


# --- Compare and Scaling pages ---------------------------------------------------------------

COMPARABLE = {  # trace field -> what one cell is; per head, except output
    "weights": "weight",
    "scaled_scores": "scaled score",
    "scores": "score",
    "dropped_weights": "weight after dropout",
    "context": "context value",
    "output": "output value",
}


def comparison_matrices(a: AttentionTrace, b: AttentionTrace, name: str, head_a: int = 0, head_b: int = 0):
    """The two matrices to compare (float32, −inf as NaN), or a reason they cannot be compared."""
    za = _f32(a.output[0] if name == "output" else getattr(a, name)[0, head_a])
    zb = _f32(b.output[0] if name == "output" else getattr(b, name)[0, head_b])
    if za.shape != zb.shape:
        return za, zb, f"{name} has shape {za.shape} in A and {zb.shape} in B: no difference to take"
    return za, zb, None


def comparison_figure(
    a: AttentionTrace, b: AttentionTrace, name: str, head_a: int = 0, head_b: int = 0
) -> go.Figure:
    """A, B and A − B side by side, one figure. Rows are queries (tokens for context and output);
    the difference uses the diverging scale centred on 0, so 'no change' is white."""
    za, zb, why = comparison_matrices(a, b, name, head_a, head_b)
    labels = token_labels(a)
    n = len(labels)
    square = za.shape[-1] == n and name not in ("context", "output")
    value = COMPARABLE[name]
    head_text = "" if name == "output" else ", head {}"
    panels = [
        (za, f"A: {a.module}{head_text.format(head_a)}", value),
        (zb, f"B: {b.module}{head_text.format(head_b)}", value),
    ]
    if why is None:
        with np.errstate(invalid="ignore"):
            diff = za - zb
        diff[np.isnan(diff)] = 0.0 if np.array_equal(np.isnan(za), np.isnan(zb)) else np.nan
        panels.append((diff, "A − B", f"difference in {value}"))
    cols = len(panels)
    gap = 0.07
    width = (1 - gap * (cols - 1)) / cols
    data, layout = [], {"annotations": []}
    sequential = name in ("weights", "dropped_weights")
    for i, (z, title, cell) in enumerate(panels):
        z = z.copy()
        z[np.isneginf(z)] = np.nan
        axis = "" if i == 0 else str(i + 1)
        x0 = i * (width + gap)
        x1 = x0 + width - 0.02
        scale = SEQUENTIAL if sequential and i < 2 else DIVERGING
        data.append(
            {
                "type": "heatmap",
                "z": z,
                "name": ["A", "B", "A − B"][i],
                "hoverongaps": False,
                "xaxis": f"x{axis}",
                "yaxis": f"y{axis}",
                "colorbar": {"thickness": 10, "x": x1 + 0.005, "xanchor": "left", "len": 0.9},
                **_colour(scale, z),
                "hovertemplate": ("query %{y}<br>key %{x}" if square else "token %{y}<br>dimension %{x}")
                + f"<br>{cell} %{{z:.4f}}<extra></extra>",
            }
        )
        x_axis = _position_axis(labels, "keys →") if square else {"title": {"text": "dimension"}}
        layout[f"xaxis{axis}"] = x_axis | {"domain": [x0, x1], "anchor": f"y{axis}"}
        layout[f"yaxis{axis}"] = _position_axis(labels, "queries" if square else "tokens") | {
            "anchor": f"x{axis}",
            "autorange": "reversed",
            "showticklabels": i == 0,
            "title": {"text": ("← queries" if square else "tokens") if i == 0 else ""},
        }
        layout["annotations"].append(
            {"text": f"<b>{html.escape(title)}</b>", "showarrow": False, "xref": "paper", "yref": "paper",
             "x": x0, "xanchor": "left", "y": 1.0, "yanchor": "bottom", "font": {"size": 14}}
        )  # fmt: skip
    height = int(min(700, max(300, 150 + 26 * n)))
    return _figure(data, layout | {"height": height, "margin": {"l": 10, "r": 10, "t": 40, "b": 10}})


def scaling_figure(frame: pd.DataFrame, measure: str = "ms") -> go.Figure:
    """Log-log lines of `measure` (ms or peak_bytes) against tokens, one per (device, variant,
    mode), with the O(T²) slope drawn through the last point of the steepest line; for memory,
    also the size of one attention matrix, B·H·T²·4 bytes."""
    memory = measure == "peak_bytes"
    unit = "MiB" if memory else "ms"
    frame = frame[frame[measure].notna() & (frame[measure] > 0)] if len(frame) else frame
    data = []
    for (device, module, mode), part in frame.groupby(["device", "module", "mode"], sort=False):
        part = part.sort_values("tokens")
        y = part[measure] / (2**20 if memory else 1)
        data.append(
            {"type": "scatter", "mode": "lines+markers", "name": f"{module} · {mode} · {device}",
             "x": part["tokens"].to_numpy(np.int32), "y": _f32(y),
             "hovertemplate": f"T = %{{x}}<br>%{{y:.4g}} {unit}<extra>{mode}, {device}</extra>"}
        )  # fmt: skip
    if len(frame):
        tokens = np.array(sorted(frame["tokens"].unique()), dtype=float)
        top = frame.loc[frame["tokens"] == tokens.max()]
        anchor = float(top[measure].max()) / (2**20 if memory else 1)
        reference = anchor * (tokens / tokens.max()) ** 2
        data.append(
            {"type": "scatter", "mode": "lines", "name": "O(T²) reference slope", "x": tokens, "y": reference,
             "line": {"dash": "dash", "color": "#555555"}, "hoverinfo": "skip"}
        )  # fmt: skip
        if memory:
            one = frame.drop_duplicates("tokens").sort_values("tokens")
            heads = frame["heads"].max()
            data.append(
                {"type": "scatter", "mode": "lines", "name": f"attention matrix B·H·T²·4 (H = {heads})",
                 "x": one["tokens"].to_numpy(np.int32), "y": _f32(heads * one["tokens"] ** 2 * 4 / 2**20),
                 "line": {"dash": "dot", "color": "#000000"}, "hoverinfo": "skip"}
            )  # fmt: skip
    title = "Peak memory of one call" if memory else "Time per call (median)"
    return _figure(
        data,
        {
            "title": _title(title),
            "xaxis": {"type": "log", "title": {"text": "tokens T"}, "dtick": math.log10(2)},
            "yaxis": {"type": "log", "title": {"text": "MiB" if memory else "ms"}, "dtick": 1},  # decades
            "height": 460,
            "legend": {"orientation": "h", "y": -0.2},
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )


# --- Train page --------------------------------------------------------------------------------


def training_curves(losses: list[float], accuracies: list[tuple[int, float]]) -> go.Figure:
    """Training loss per step (left axis) and held-out accuracy at each snapshot (right axis)."""
    steps = np.arange(1, len(losses) + 1, dtype=np.int32)
    acc_steps = np.array([s for s, _ in accuracies], dtype=np.int32)
    acc = _f32([a for _, a in accuracies])
    data = [
        {"type": "scatter", "mode": "lines", "name": "loss (cross-entropy)", "x": steps, "y": _f32(losses),
         "line": {"color": "#0072b2"}, "hovertemplate": "step %{x}<br>loss %{y:.4f}<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "accuracy (held out)", "x": acc_steps, "y": acc,
         "yaxis": "y2", "line": {"color": "#d55e00", "dash": "dot"},
         "hovertemplate": "step %{x}<br>accuracy %{y:.1%}<extra></extra>"},
    ]  # fmt: skip
    return _figure(
        data,
        {
            "title": _title("Loss and accuracy"),
            "xaxis": {"title": {"text": "step"}, "rangemode": "tozero"},
            "yaxis": {"title": {"text": "loss"}, "rangemode": "tozero"},
            "yaxis2": {"title": {"text": "accuracy"}, "overlaying": "y", "side": "right", "range": [0, 1.02],
                       "tickformat": ".0%", "dtick": 0.25, "showgrid": False},
            "legend": {"orientation": "h", "y": -0.25},
            "height": 380,
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )  # fmt: skip


def pattern_figure(
    weights: np.ndarray, expected: np.ndarray | None, tokens: list[str], step: int
) -> go.Figure:
    """The probe's attention weights per head at one step, and the pattern that solves the task
    (blank rows: nothing is asked there). Rows are queries, columns keys, as everywhere."""
    labels = [token_label(t) for t in tokens]
    n = len(labels)
    panels = [(w, f"head {h}, step {step}") for h, w in enumerate(weights)]
    if expected is not None:
        panels.append((expected, "expected (solves the task)"))
    cols = len(panels)
    gap = 0.05
    width = (1 - gap * (cols - 1)) / cols
    data, layout = [], {"annotations": []}
    for i, (z, title) in enumerate(panels):
        axis = "" if i == 0 else str(i + 1)
        x0 = i * (width + gap)
        z = _f32(z).copy()
        z[np.triu(np.ones((n, n), dtype=bool), 1)] = np.nan  # causal: never looked at
        data.append(
            {"type": "heatmap", "z": z, "name": title, "xaxis": f"x{axis}", "yaxis": f"y{axis}",
             "colorscale": SEQUENTIAL, "zmin": 0.0, "zmax": 1.0, "showscale": i == cols - 1,
             "hoverongaps": False, "colorbar": {"thickness": 10},
             "hovertemplate": "query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>"}
        )  # fmt: skip
        # fixed ranges: a row with nothing asked (all NaN) must not shrink its panel
        layout[f"xaxis{axis}"] = _position_axis(labels, "keys →") | {
            "domain": [x0, x0 + width], "anchor": f"y{axis}", "range": [-0.5, n - 0.5]}  # fmt: skip
        layout[f"yaxis{axis}"] = _position_axis(labels, "← queries" if i == 0 else "") | {
            "anchor": f"x{axis}", "range": [n - 0.5, -0.5], "showticklabels": i == 0}  # fmt: skip
        layout["annotations"].append(
            {"text": f"<b>{title}</b>", "showarrow": False, "xref": "paper", "yref": "paper", "x": x0,
             "xanchor": "left", "y": 1.0, "yanchor": "bottom", "font": {"size": 14}}
        )  # fmt: skip
    height = int(min(520, max(300, 120 + 22 * n)))
    return _figure(data, layout | {"height": height, "margin": {"l": 10, "r": 10, "t": 40, "b": 10}})
