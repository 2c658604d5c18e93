"""Read-only arrays for what every session shares.

A Streamlit server runs every session in one process, so whatever enters a process-wide cache (a
trace, a model's sentence view, a finished run's snapshots) is read by every student at once. A
numpy array of a float32 CPU tensor is a view of it (`np.asarray` does not copy): one builder that
writes into "its" array would change the trace for everybody. So what is shared is made
read-only at the cache's door (a write then raises ValueError), and a builder that must write
takes a copy.

    readonly(a)   a read-only view of `a` (a itself is left as it was)
    freeze(obj)   every numpy array inside obj (dataclass fields, dicts, lists, tuples) made
                  read-only in place; returns obj

torch tensors have no read-only flag: a trace's tensors are kept whole by every reader going
through numpy views that are read-only (attention.figures.layout.f32) and by never writing in place.
"""

from __future__ import annotations

import dataclasses

import numpy as np


def readonly(a) -> np.ndarray:
    """`a` as an array that refuses writes: a view, so `a`'s own flags (a caller's array) stay."""
    view = np.asarray(a).view()
    view.flags.writeable = False
    return view


def freeze(obj, _depth: int = 0):
    """Makes every numpy array reachable from `obj` read-only, in place, and returns `obj`."""
    if _depth > 8:  # shared results are shallow; a cycle or a model is no one's to walk
        return obj
    if isinstance(obj, np.ndarray):
        obj.flags.writeable = False
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            freeze(getattr(obj, f.name), _depth + 1)
    elif isinstance(obj, dict):
        for value in obj.values():
            freeze(value, _depth + 1)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            freeze(value, _depth + 1)
    return obj
