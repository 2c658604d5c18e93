"""Process-wide caches, shared by every session and keyed by plain values (never by tensors)."""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable

from plotly.basedatatypes import BaseFigure

from attention import i18n
from attention.chapter3 import AttentionTrace
from attention.explorer import ExplorerConfig, run
from attention.explorer.query_params import to_query_params
from ui.internals import FrozenFigure

# Bounded: a trace at the caps holds ~25 MB (16 heads x 256^2 x 6 matrices x 4 B), so 16 entries
# stay under ~400 MB even if every one is that large. Sharing is safe because nothing writes into a
# trace: its dataclass is frozen, the math never masks in place, every figure reads its tensors
# through read-only numpy views (attention.figures.layout.f32, attention.readonly) and takes a
# copy where it must write (tests/figures/test_frozen.py runs every builder on every variant).
ENTRIES, TTL = 16, 3600.0  # an hour unused and a trace is made again (its memory goes back)

# A plain dict, not st.cache_resource: Streamlit's cache call was ~7% of an Explorer rerun's CPU
# under a classroom's load (it hashes the key its own way and records the call's elements).
_lock = threading.Lock()
_traces: OrderedDict[tuple, tuple[float, AttentionTrace]] = OrderedDict()  # key -> (made, trace)
_making: dict[tuple, threading.Lock] = {}  # a key being traced: the sessions asking for it wait


def _fresh(key: tuple) -> AttentionTrace | None:
    hit = _traces.get(key)
    if hit is None or time.monotonic() - hit[0] > TTL:
        return None
    _traces.move_to_end(key)
    return hit[1]


def cached_trace(config: ExplorerConfig) -> AttentionTrace:
    """The trace of `config`, made once for every session that asks (a class opens the same
    presets at once: one of them traces, the others wait for it)."""
    config = config.normalised()
    key = tuple(sorted(to_query_params(config).items()))  # its URL parameters stand for it
    with _lock:
        if (trace := _fresh(key)) is not None:
            return trace
        making = _making.setdefault(key, threading.Lock())
    with making:
        try:
            with _lock:
                if (trace := _fresh(key)) is not None:
                    return trace
            trace = run(config)
            with _lock:
                _traces[key] = (time.monotonic(), trace)
                _traces.move_to_end(key)
                while len(_traces) > ENTRIES:
                    _traces.popitem(last=False)
        finally:
            with _lock:
                _making.pop(key, None)
    return trace


# A trace's figures, built once for every session that shows them (a class opens the same presets:
# the second student gets the first one's figure). Keyed by the trace itself: they go with it.
# Bounded: a step's figure at the caps (256 x 256 float32, no numbers in the cells) is ~0.4 MB,
# so 8 per trace x 16 traces stay under ~50 MB.
FIGURES_PER_TRACE = 8
LEARN_PER_TRACE = 48  # Learn's: at most 12 tokens (a matrix with its numbers is ~10 KB), ~20 a page
# one store per limit: the Explorer's 8 (large figures) never clear Learn's many small ones
# (figures, and Learn's tables: cached)
_made: dict[int, weakref.WeakKeyDictionary[AttentionTrace, dict[tuple, object]]] = {}


def cached_figure(
    trace: AttentionTrace, key: tuple, build: Callable[[], BaseFigure], most: int = FIGURES_PER_TRACE
) -> FrozenFigure:
    """The figure `build()` makes of `trace`, by `key`: every setting it depends on beyond the
    trace. Shared by sessions, frozen (ui/widgets.chart(ready=True) draws it as it is); one per
    language, as its titles and hover text are in the session's language. `most` figures are kept
    per trace (Learn's: many, each a few KB)."""
    return cached(trace, ("figure", *key), lambda: FrozenFigure(build()), most)  # shared, never changed


def cached(trace: AttentionTrace, key: tuple, build: Callable[[], object], most: int = FIGURES_PER_TRACE):
    """What `build()` makes of `trace` (a figure, a table's markdown), by `key`, in this session's
    language, made once for every session that shows it; never changed once made."""
    key = (i18n.language(), *key)
    with _lock:
        made = _made.setdefault(most, weakref.WeakKeyDictionary()).setdefault(trace, {})
        if (value := made.get(key)) is not None:
            return value
    value = build()
    with _lock:
        if len(made) >= most:
            made.clear()
        made[key] = value
    return value
