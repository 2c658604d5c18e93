"""Tables and downloads: a trace's matrices as DataFrames (CSV), one query's weighted sum, the
whole trace as JSON. Never runs a model."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from attention.chapter3.trace import STEPS, AttentionTrace
from attention.explorer.query_params import to_query_params
from attention.i18n import tr


def weighted_sum_frame(trace: AttentionTrace, head: int, query: int, batch: int = 0) -> pd.DataFrame:
    """The query's context vector as the weighted sum of value vectors: one row per key
    (weight · value), then the sum, which equals the context row."""
    weights = trace.dropped_weights[batch, head, query].numpy()  # (T,)
    values = trace.values[batch, head].numpy()  # (T, d_v)
    terms = weights[:, None] * values  # (T, d_v)
    labels = [f"{i}: {t}" for i, t in enumerate(trace.tokens.texts)]
    frame = pd.DataFrame(terms, index=[f"{w:.4f} × v[{lab}]" for w, lab in zip(weights, labels, strict=True)])
    frame.loc["= context"] = trace.context[batch, head, query].numpy()
    frame.columns = dimension_names(values.shape[1])
    return frame


def dimension_names(count: int) -> list[str]:
    """A table's columns, one per dimension of a vector: dim 0, dim 1, ..."""
    # TRANSLATORS: a table's column: dimension j of a vector, abbreviated
    return [tr("dim {j}", j=j) for j in range(count)]


# The (T, T) tensors: rows are queries, columns keys. Every other tensor has a row per token and
# a column per dimension.
QUERIES_BY_KEYS = (*STEPS, "mask", "dropout_mask")


def matrix_frame(trace: AttentionTrace, name: str, batch: int = 0, head: int | None = None) -> pd.DataFrame:
    """A matrix of the trace as a DataFrame labelled with tokens (for tables and CSV)."""
    tensor = getattr(trace, name)
    rows = [f"{i}:{t}" for i, t in enumerate(trace.tokens.texts)]
    if name == "mask":  # (T, T): one for every head
        return pd.DataFrame(tensor.numpy(), index=rows, columns=rows)
    data = (tensor[batch] if head is None else tensor[batch, head]).numpy()
    if name in QUERIES_BY_KEYS:
        frame = pd.DataFrame(data, index=rows, columns=rows)
        # TRANSLATORS: a table's corner: its rows are queries, its columns keys
        frame.index.name = tr("query \\ key")
    else:
        frame = pd.DataFrame(data, index=rows, columns=dimension_names(data.shape[1]))
        frame.index.name = tr("token")
    return frame


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
        "config": to_query_params(trace.config) if trace.config is not None else None,
        "module": trace.module,
        "device": trace.device,
        "seconds": trace.seconds,
        "divisor": trace.divisor,
        "dropout": trace.dropout,
        "heads": "all" if head is None else [head],
        "shapes": trace.shapes(),
        "note": "masked_scores: null marks -inf (masked) cells",
        "tensors": {name: encode(name) for name in trace.TENSORS},
    }
    return json.dumps(payload)


def trace_numbers(trace: AttentionTrace) -> int:
    return sum(t.nelement() for n in trace.TENSORS if (t := getattr(trace, n)) is not None)
