"""Shared traces stay whole: every figure builder and every comparison, over every variant, leaves
the trace it drew bit-identical, and an array read off a shared trace refuses writes.

The builders get numpy views of the trace's tensors (`.numpy()`, which shares memory, as the pages
pass them), so a builder that wrote into its input would change the trace and fail here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attention.chapter3.trace import PER_HEAD, STEPS, TENSORS, AttentionTrace
from attention.explorer import ExplorerConfig, run
from attention.explorer.variants import VARIANTS
from attention.figures import compare, explorer, export, lab, model, replay, scaling, train
from attention.figures.layout import f32
from attention.model.interventions import HeadMap, Metric
from attention.readonly import freeze, readonly

# Every knob a variant has, at a value that makes the trace hold −inf, dropout and a window.
KNOBS = {"causal": True, "dropout": 0.5, "train": True, "heads": 2, "kv_groups": 1, "window": 3, "rope": True}


def config(variant: str) -> ExplorerConfig:
    knobs = {k: v for k, v in KNOBS.items() if k in VARIANTS[variant].knobs}
    if "train" in knobs:
        knobs["dropout"] = 0.5
    return ExplorerConfig(
        text="the cat sat on the mat", embedding="random", variant=variant, d_in=4, d_out=4, d_v=2, **knobs
    )


@pytest.fixture(scope="module")
def traces() -> dict[str, AttentionTrace]:
    return {key: run(config(key)) for key in VARIANTS}


def fingerprint(trace: AttentionTrace) -> dict[str, tuple]:
    """Every tensor's exact bytes (NaN and −inf positions included), dtype and shape."""
    return {
        n: None if (t := getattr(trace, n)) is None else (t.dtype, tuple(t.shape), t.numpy().tobytes())
        for n in TENSORS
    }


def trace_builders(trace: AttentionTrace) -> None:
    """Every builder that takes a trace (explorer.py, export.py), on every head and step."""
    tokens = trace.tokens.texts
    for head in range(trace.num_heads):
        for panel in explorer.step_panels(trace, head):
            explorer.step_figure(tokens, panel, numbers=True, fitted=True)
            model.head_figure(tokens, panel, 400)
        for step in trace.step_names():
            explorer.steps_figure(trace, head, step)
            export.matrix_frame(trace, step, head=head)
        for query in range(trace.num_tokens):
            export.weighted_sum_frame(trace, head, query)
            masked = None if trace.mask is None else trace.mask[query].numpy()
            explorer.query_bar(tokens, trace.dropped_weights[0, head, query].numpy(), masked, query, True)
    for name in TENSORS:
        if getattr(trace, name) is not None:
            explorer.shape_text(trace, name)
            export.matrix_frame(trace, name, head=0 if name in PER_HEAD else None)
    explorer.heads_grid(trace.weights[0].numpy())
    for name in ("x", "queries", "keys", "values", "context", "output"):
        t = getattr(trace, name)
        explorer.vectors_heatmap(t[0] if t.dim() == 3 else t[0, 0], list(tokens), name, numbers=True)
    export.trace_json(trace)
    export.trace_json(trace, head=0)
    export.trace_numbers(trace)


def array_builders(trace: AttentionTrace) -> None:
    """The builders of models and trainings (model.py, lab.py, train.py, replay.py, scaling.py),
    fed views of the trace's tensors in the shapes they take."""
    tokens = list(trace.tokens.texts)
    grid = trace.weights[0].unsqueeze(0).numpy()  # (L=1, H, T, T), a view
    by_head = trace.scores[0, :, :, 0].numpy()  # (H, T) read as (L, H) scores, a view
    model.model_grid(grid, chosen=(0, 0), tokens=tokens, clickable=True)
    model.role_heatmap(by_head, "induction", "caption")
    model.token_view(tokens, grid[0], trace.num_tokens - 1, list(range(trace.num_heads)))
    model.weights_json("source", tokens, list(range(len(tokens))), grid)
    model.head_csv(grid, tokens, 0, 0)
    row = trace.weights[0, 0, -1].numpy()  # (T,), a view
    lab.loss_figure(tokens, {"before": row, "after": row}, [1, 2], 600)
    heads = HeadMap(by_head, 0.0, Metric())
    lab.importance_figure(heads, "ablation", 600)
    lab.map_csv(heads, "ablation")
    lab.map_json(heads, "ablation", "source", list(range(len(tokens))), tokens)
    steps = list(range(trace.num_heads))
    history = trace.scores[0, :, :, :1].numpy()  # (S=H, L=T, H=1), a view
    train.pattern_figure(trace.weights[0].numpy(), trace.weights[0, 0].numpy(), tokens, 10)
    train.role_curves(steps, history, history)
    replay.best_per_layer(steps, {"previous": history, "induction": history})
    sweep = {"tokens": [4, 8], "ms": [1.0, 2.0], "device": "cpu", "module": "mha", "mode": "forward"}
    scaling.scaling_figure(pd.DataFrame(sweep).assign(heads=2, peak_bytes=[64, 256]))
    scaling.scaling_figure(pd.DataFrame(sweep).assign(heads=2, peak_bytes=[64, 256]), "peak_bytes")


def test_every_builder_and_comparison_leaves_every_variants_trace_bit_identical(traces):
    before = {key: fingerprint(t) for key, t in traces.items()}
    for trace in traces.values():
        trace_builders(trace)
        array_builders(trace)
    for a in traces.values():
        for b in traces.values():
            masks = tuple(None if t.mask is None else t.mask.numpy() for t in (a, b))
            for name in compare.COMPARABLE:
                if name not in ("context", "output") and not (name in STEPS and STEPS[name].taken(a)):
                    continue
                if name in STEPS and not STEPS[name].taken(b):
                    continue
                za, zb, why = compare.comparison_matrices(a, b, name, a.num_heads - 1, 0)
                if why is None:  # as Compare: no difference of two shapes
                    compare.difference_summary(za, zb)
                compare.comparison_figures(a.tokens.texts, za, zb, ("A", "B"), name, masks, False)
    for key, trace in traces.items():
        assert fingerprint(trace) == before[key], key


def test_comparison_takes_copies_so_the_kv_cache_trace_keeps_its_minus_inf(traces):
    """The bug: Compare with the KV cache turned the shared trace's −inf scores into NaN."""
    trace = traces["kv_cache"]
    hidden = int(np.isneginf(trace.masked_scores[0, 0].numpy()).sum())  # causal: −inf above the diagonal
    za, _, _ = compare.comparison_matrices(trace, traces["mha"], "masked_scores")
    assert hidden > 0 and int(np.isnan(za).sum()) == hidden  # A shows them as NaN...
    assert int(np.isneginf(trace.masked_scores[0, 0].numpy()).sum()) == hidden  # ...the trace keeps −inf


def test_an_array_read_off_a_trace_refuses_writes(traces):
    trace = traces["mha"]
    view = f32(trace.scores)
    assert np.shares_memory(view, trace.scores.numpy())  # no copy: that is why it must refuse
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0, 0, 0] = 0.0
    panel = explorer.step_panels(trace, 0)[0]
    with pytest.raises(ValueError, match="read-only"):
        panel.z[0, 0] = 0.0


def test_readonly_leaves_the_callers_array_writable_and_freeze_reaches_inside():
    mine = np.zeros(3, np.float32)
    assert not readonly(mine).flags.writeable and not f32(mine).flags.writeable
    mine[0] = 1.0  # the caller's own array is still its own
    shared = freeze({"loss": [np.zeros(2)], "weights": (np.ones((2, 2)),)})
    with pytest.raises(ValueError):
        shared["loss"][0][0] = 1.0
    with pytest.raises(ValueError):
        shared["weights"][0][0, 0] = 1.0


def test_an_array_of_a_cached_trace_refuses_writes_and_the_cache_hands_out_the_same_trace():
    from ui.cache import cached_trace  # the process-wide cache every session reads

    shared = cached_trace(config("kv_cache"))
    assert cached_trace(config("kv_cache")) is shared
    with pytest.raises(ValueError, match="read-only"):
        f32(shared.scaled_scores)[0, 0, 0, 1] = np.nan
    with pytest.raises(ValueError, match="read-only"):
        explorer.step_panels(shared, 0)[1].z[0, 1] = np.nan
