"""Time and peak memory as the token count doubles, the trace's overhead, and the command line.

    python -m attention.bench                      # both tables at the default sizes
    python -m attention.bench equivalence [--tokens 64 --d 64 --heads 4]
    python -m attention.bench scaling [--tokens 8,16,...,2048 --variants mha,torch_mha,sdpa]
    python -m attention.bench overhead             # what MultiHeadAttention.trace costs over forward
    add --csv (a table) or --jsonl (one row per line, as it is measured) to any of them

The Scaling page runs `scaling --jsonl` in a child process (process.py), so that peak memory is
measured in a process of its own and a stopped sweep is a killed process.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Iterator

import pandas as pd
import torch

from attention.bench.equivalence import (
    IMPLEMENTATIONS,
    Weights,
    bound_call,
    embedding_input,
    equivalence_table,
    load,
)
from attention.bench.measure import peak_bytes, prepare_cpu_memory_measurement, time_call
from attention.devices import available_devices, device_name
from attention.i18n import N_

DEFAULT_SCALING_VARIANTS = ("mha", "torch_mha", "sdpa")
SCALING_COLUMNS = [
    "variant",
    "module",
    "mode",
    "device",
    "tokens",
    "heads",
    "d",
    "ms",
    "peak_bytes",
    "attention_bytes",
]


def scaling_points(tokens, variants, devices, modes=("forward", "trace")) -> list[tuple]:
    """The sweep's points in the order it measures them: every variant at a length before the
    next length, so a sweep stopped early still has complete small sizes."""
    return [
        (t, device, key, mode)
        for t in tokens
        for device in devices
        for key in variants
        for mode in modes
        if mode == "forward" or IMPLEMENTATIONS[key].traces  # only the book's classes trace
    ]


def scaling_rows(
    tokens=(8, 16, 32, 64, 128, 256, 512, 1024, 2048),
    variants=DEFAULT_SCALING_VARIANTS,
    devices: list[str] | None = None,
    d: int = 64,
    heads: int = 4,
    causal: bool = True,
    modes=("forward", "trace"),
    min_seconds: float = 0.01,
    memory: bool = True,
) -> Iterator[dict]:
    """One row per (tokens, device, variant, mode): median ms per call, peak memory (bytes, or
    None), and the size of one attention matrix B·H·T²·4 bytes (B = 1; H = 1 for single-head
    variants). d_in = d_out = d."""
    devices = devices or available_devices()
    w = Weights.draw(d, d, heads, seed=123)
    for t, device, key, mode in scaling_points(tokens, variants, devices, modes):
        fn = bound_call(load(key, w, heads, causal, t, device), mode, embedding_input(t, d).to(device))
        variant = IMPLEMENTATIONS[key]
        h = heads if variant.multi_head else 1
        yield {
            "variant": key,
            "module": variant.english("label"),
            "mode": mode,
            "device": device,
            "tokens": t,
            "heads": h,
            "d": d,
            "ms": time_call(fn, device, min_seconds) * 1e3,
            "peak_bytes": peak_bytes(fn, device) if memory else None,
            "attention_bytes": h * t * t * 4,
        }
        del fn  # the module and its input, before the next, larger point
        if device == "cuda":
            torch.cuda.empty_cache()


# --- the trace's overhead -----------------------------------------------------------------------


@torch.no_grad()
def overhead(tokens: int = 256, d: int = 768, heads: int = 12, min_seconds: float = 0.05) -> dict[str, float]:
    """MultiHeadAttention.forward vs .trace vs nn.MultiheadAttention returning per-head weights,
    same weights, causal, B = 1, CPU; interleaved rounds so that machine noise hits them alike."""
    w = Weights.draw(d, d, heads, seed=0)
    x = embedding_input(tokens, d)
    mha = load("mha", w, heads, True, tokens)
    mask = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), 1)
    torch_mha = load("torch_mha", w, heads, True, tokens).module
    calls = {
        "forward": lambda: mha.forward(x),
        "trace": lambda: mha.trace(x),
        "torch_mha": lambda: torch_mha(
            x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False
        ),
    }
    rounds = {name: [] for name in calls}
    for _ in range(5):
        for name, fn in calls.items():
            rounds[name].append(time_call(fn, "cpu", min_seconds / 5, rounds=3))
    result = {name: statistics.median(times) for name, times in rounds.items()}
    trace = mha.trace(x)
    result["trace_bytes"] = trace.nbytes()
    result["max_abs_diff"] = (trace.output - calls["torch_mha"]()[0]).abs().max().item()
    del trace
    prepare_cpu_memory_measurement()
    result["trace_peak_bytes"] = peak_bytes(lambda: mha.trace(x), "cpu")
    return result


# --- command line ----------------------------------------------------------------------------------


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v.strip()]


def _emit(frame: pd.DataFrame, args) -> None:
    if args.csv:
        frame.to_csv(sys.stdout, index=False)
    else:
        with pd.option_context(
            "display.width", 200, "display.max_columns", 20, "display.float_format", "{:.3g}".format
        ):
            print(frame.to_string(index=False))


def _header(devices: list[str]) -> str:
    names = ", ".join(f"{d}: {device_name(d)}" for d in devices)
    return f"torch {torch.__version__}, float32, B = 1; devices: {names}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "what", nargs="?", choices=["all", "equivalence", "scaling", "overhead"], default="all"
    )
    parser.add_argument("--tokens", type=_ints, help="comma-separated token counts")
    parser.add_argument("--d", type=int, default=64, help="d_in = d_out")
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--no-causal", dest="causal", action="store_false")
    parser.add_argument("--variants", default=",".join(DEFAULT_SCALING_VARIANTS), help="for scaling")
    parser.add_argument("--modes", default="forward,trace", help="for scaling")
    parser.add_argument("--devices", default=None, help="comma-separated; default: every available one")
    parser.add_argument("--min-seconds", type=float, default=0.02, help="length of one timing round")
    parser.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    parser.add_argument("--jsonl", action="store_true", help="scaling: one JSON row per line, as measured")
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's own choice)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    devices = [
        d for d in (args.devices or ",".join(available_devices())).split(",") if d in available_devices()
    ]

    if args.what == "overhead":
        r = overhead(*(args.tokens or [256])[:1], d=768, heads=12)
        print(
            f"MultiHeadAttention, T={(args.tokens or [256])[0]}, d=768, 12 heads, causal; {_header(['cpu'])}"
        )
        for label, key in [
            ("forward (book)", "forward"),
            ("trace (all intermediates)", "trace"),
            ("nn.MultiheadAttention(weights)", "torch_mha"),
        ]:
            print(f"{label:32}{r[key] * 1e3:9.2f} ms{r[key] / r['torch_mha']:8.2f}x torch")
        peak = (r["trace_peak_bytes"] or 0) / 2**20
        print(
            f"trace holds {r['trace_bytes'] / 2**20:.1f} MiB; peak memory of one trace {peak:.1f} MiB; "
            f"max |diff| {r['max_abs_diff']:.2e}"
        )
        return
    if args.what in ("all", "equivalence"):
        t = (args.tokens or [64])[0] if args.what == "equivalence" else 64
        print(
            f"# Equivalence: every variant vs the float64 reference, T={t}, d_in=d_out={args.d}, "
            f"heads={args.heads}, causal={args.causal}; {_header(devices)}"
        )
        x = embedding_input(t, args.d)
        frame = equivalence_table(
            x, args.d, args.heads, args.causal, devices=devices, min_seconds=args.min_seconds
        )
        _emit(frame, args)
    if args.what in ("all", "scaling"):
        tokens = args.tokens or [8, 16, 32, 64, 128, 256, 512, 1024, 2048]
        measure_memory = prepare_cpu_memory_measurement() or "cpu" not in devices
        rows = scaling_rows(
            tokens,
            _split(args.variants),
            devices,
            args.d,
            args.heads,
            args.causal,
            tuple(_split(args.modes)),
            args.min_seconds,
            memory=measure_memory,
        )
        if args.jsonl:
            for row in rows:
                print(json.dumps(row), flush=True)
            return
        print(f"\n# Scaling: d={args.d}, heads={args.heads}, causal={args.causal}; {_header(devices)}")
        _emit(scaling_summary(pd.DataFrame(list(rows), columns=SCALING_COLUMNS)), args)


def _split(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


def scaling_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """The sweep in readable units, with the measured growth exponent between lengths. Its column
    names are messages (N_): the Scaling page shows them translated."""
    out = frame.copy()
    out[N_("peak MiB")] = out["peak_bytes"].astype(float) / 2**20
    out[N_("attention MiB")] = out["attention_bytes"] / 2**20
    out[N_("peak / attention")] = out["peak_bytes"].astype(float) / out["attention_bytes"]
    out = out.sort_values(["device", "variant", "mode", "tokens"], kind="stable")
    # slope of log(ms) against log(T) from the previous length: 2 means O(T²)
    previous = out.groupby(["device", "variant", "mode"])[["ms", "tokens"]].shift()
    out[N_("time exponent")] = (out["ms"] / previous["ms"]).map(math.log) / (
        out["tokens"] / previous["tokens"]
    ).map(math.log)
    return out[
        [
            N_("device"),
            N_("variant"),
            N_("mode"),
            N_("tokens"),
            "ms",
            "time exponent",
            "peak MiB",
            "attention MiB",
            "peak / attention",
        ]
    ]
