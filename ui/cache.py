"""Process-wide caches, shared by every session and keyed by plain values (never by tensors)."""

from __future__ import annotations

import streamlit as st

from attention.chapter3 import AttentionTrace, ExplorerConfig, run
from attention.chapter3.query_params import to_query_params


# Bounded: a trace at the caps holds ~25 MB (16 heads x 256^2 x 6 matrices x 4 B), so 16 entries
# stay under ~400 MB even if every one is that large. Traces are immutable, so sharing is safe.
@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def _trace_for(key: tuple[tuple[str, str], ...], _config: ExplorerConfig) -> AttentionTrace:
    return run(_config)  # `_config` is not hashed: `key` (its URL parameters) stands for it


def cached_trace(config: ExplorerConfig) -> AttentionTrace:
    config = config.normalised()
    return _trace_for(tuple(sorted(to_query_params(config).items())), config)
