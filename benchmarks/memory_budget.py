"""Worst-case server memory: one Explorer rerun at the caps, 30 of them at once, and a full cache.

    .venv/bin/python -m benchmarks.memory_budget [--sessions 30]

A rerun at the caps (256 tokens, 16 heads, d_in = d_out = 1024, dropout in train mode) is what
the server does for it: run(config) (the cached trace), then the largest view's figures turned
into the JSON Streamlit sends (Steps with all five panels, and the Vectors view). The concurrent
case runs `--sessions` such reruns in threads, each with its own seed (so no cache sharing),
which is worse than a classroom, where most students share one link. Peak memory is the RSS
high-water mark above the baseline (Linux /proc; freed heap pages trimmed first).
"""

from __future__ import annotations

import argparse
import threading

import plotly.io as pio
import streamlit  # noqa: F401  (its memory belongs to the baseline of a server process)

from attention.bench import measure
from attention.devices import configure_torch_threads
from attention.explorer import ExplorerConfig, run
from attention.explorer.config import MAX_D_IN, MAX_D_OUT, MAX_HEADS, MAX_TOKENS
from attention.figures import explorer as figures
from attention.figures.layout import token_labels
from tests.threads import in_threads

CEILING = 2.7 * 2**30  # Streamlit Community Cloud's memory limit, roughly
CACHE_ENTRIES = 16  # ui/cache.py: ENTRIES


def worst_config(seed: int) -> ExplorerConfig:
    return ExplorerConfig(
        text=" ".join(f"w{i}" for i in range(MAX_TOKENS)),
        embedding="random",
        d_in=MAX_D_IN,
        d_out=MAX_D_OUT,
        heads=MAX_HEADS,
        dropout=0.5,
        train=True,
        seed=seed,
    )


def rerun(seed: int) -> int:
    """What one rerun at the caps builds; returns the bytes of JSON it would send."""
    trace = run(worst_config(seed))
    figs = [figures.steps_figure(trace, 0)]
    labels = token_labels(trace.tokens.texts)
    figs += [
        figures.vectors_heatmap(getattr(trace, n)[0, 0], labels, n) for n in ("queries", "keys", "values")
    ]
    figs += [
        figures.vectors_heatmap(trace.x[0], labels, "x"),
        figures.vectors_heatmap(trace.output[0], labels, "o"),
    ]
    return sum(len(pio.to_json(f, validate=False)) for f in figs)


def concurrent(sessions: int) -> None:
    barrier = threading.Barrier(sessions)

    def one(seed):
        barrier.wait()  # all at once
        rerun(seed)

    in_threads(sessions, lambda i: one(1000 + i), timeout=600)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=30)
    args = parser.parse_args(argv)
    configure_torch_threads()
    if not measure.prepare_cpu_memory_measurement():
        raise SystemExit("needs Linux /proc and glibc")
    rerun(0)  # warm up: first-use allocations of torch and plotly are not per-rerun costs
    baseline = measure.proc_status_kib("VmRSS") * 1024
    sent = rerun(1)
    one = measure.peak_bytes(lambda: rerun(2), "cpu")
    many = measure.peak_bytes(lambda: concurrent(args.sessions), "cpu")
    trace_bytes = run(worst_config(3)).nbytes()
    cache = CACHE_ENTRIES * trace_bytes
    mib = 2**20
    print(
        f"process after imports and one warm-up rerun: {baseline / mib:7.0f} MiB (torch, Streamlit, plotly)"
    )
    json_mib = sent / mib
    print(f"one trace at the caps:  {trace_bytes / mib:28.1f} MiB; JSON sent {json_mib:.1f} MiB")
    print(f"one rerun at the caps, peak:                 {one / mib:7.1f} MiB")
    print(f"{args.sessions} concurrent reruns at the caps, peak:     {many / mib:7.1f} MiB")
    print(f"trace cache full of such traces ({CACHE_ENTRIES}):       {cache / mib:7.1f} MiB")
    total = baseline + cache + many
    print(
        f"worst case, all together:                    {total / mib:7.0f} MiB of {CEILING / mib:.0f} MiB "
        f"({'inside' if total < CEILING else 'OVER'} the ceiling)"
    )


if __name__ == "__main__":
    main()
