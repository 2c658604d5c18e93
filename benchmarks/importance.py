"""Head-importance maps on the CPU: the whole L x H map batched (interventions.ablation_map,
patching_map) against the same map head by head (run_with per head), against the first-order
estimate (attribution.py: one forward and one backward) and against one plain forward.

    .venv/bin/python -m benchmarks.importance [--tokens 64] [--rounds 5] [--rows 37] [--threads N]
        [--no-sequential]

A GPT-2-small-sized GPTModel (12 layers x 12 heads, d 768, vocabulary 50,257) with random weights
(no download), one sequence of T random tokens, the loss on every position 1..T-1. The forward
passes and the batched maps run in interleaved rounds (noise hits all alike; medians); the
sequential map (144 traces) runs once. Target: the whole ablation map <= 20 x one forward. The
exact map cannot meet it: a head at layer l re-runs layers l..L-1 and out_head for its row, about
(L + 1) / 2 x H + H forwards of arithmetic (≈ 90 for GPT-2 small), however it is batched; the
attribution estimate does (≈ 3).
--rows: the most rows in one batched pass (interventions.ROWS); memory grows with it.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

from attention.model.attribution import attribution_map, attribution_patching_map
from attention.model.gpt import GPTModel
from attention.model.interventions import (
    ROWS,
    Ablation,
    Metric,
    ablation_map,
    patching_map,
    run_with,
    token_losses,
)

GPT2_SMALL = {
    "vocab_size": 50257,
    "context_length": 1024,
    "emb_dim": 768,
    "n_heads": 12,
    "n_layers": 12,
    "drop_rate": 0.0,
    "qkv_bias": True,
}


def sequential_map(model: GPTModel, ids: torch.Tensor) -> np.ndarray:
    """The ablation map one head at a time: L x H traces of one sequence."""
    base = np.nanmean(token_losses(model.trace(ids)))
    grid = np.zeros((model.layers, model.heads))
    for layer, head in np.ndindex(grid.shape):
        grid[layer, head] = np.nanmean(token_losses(run_with(model, ids, Ablation(((layer, head),))))) - base
    return grid


def peak_rss_mb() -> float:
    """The process's resident-set high-water mark (VmHWM), MB."""
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM"))
    return int(line.split()[1]) / 1024


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rows", type=int, default=ROWS, help="most rows in one pass of a map")
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's own choice)")
    parser.add_argument("--no-sequential", action="store_true", help="skip the head-by-head map")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = GPTModel(GPT2_SMALL).eval()
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 50257, (1, args.tokens), generator=generator)
    corrupted = ids.clone()
    corrupted[0, : args.tokens // 2] = torch.randint(0, 50257, (args.tokens // 2,), generator=generator)
    metric = Metric()
    calls = {
        "one forward, model(ids)": lambda: model(ids),
        "one trace, model.trace(ids)": lambda: model.trace(ids),
        "ablation map, batched": lambda: ablation_map(model, ids, metric, rows=args.rows),
        "patching map, batched": lambda: patching_map(model, ids, corrupted, metric, rows=args.rows),
        "ablation map, attribution": lambda: attribution_map(model, ids, metric),
        "patching map, attribution": lambda: attribution_patching_map(model, ids, corrupted, metric),
    }
    rss_before = peak_rss_mb()
    times = {name: [] for name in calls}
    with torch.no_grad():
        for fn in calls.values():
            fn()  # warm-up
        rss_after = peak_rss_mb()
        for _ in range(args.rounds):
            for name, fn in calls.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) for name, t in times.items()}
    forward = medians["one forward, model(ids)"]
    setup = f"T={args.tokens}, CPU ({torch.get_num_threads()} threads), torch {torch.__version__}"
    passes = -(-12 // max(1, (args.rows - 1) // 12))
    print(
        f"# GPT-2-small-sized GPTModel, random weights, 12 x 12 heads, {setup}; loss on positions "
        f"1..{args.tokens - 1}; maps in {passes} passes of <= {args.rows} rows; median of {args.rounds}"
    )
    print(f"{'what':<34}{'seconds':>9}{'x forward':>11}")
    for name, seconds in medians.items():
        print(f"{name:<34}{seconds:9.3f}{seconds / forward:11.1f}")
    if not args.no_sequential:
        start = time.perf_counter()
        grid = sequential_map(model, ids)
        seconds = time.perf_counter() - start
        print(f"{'ablation map, head by head (once)':<34}{seconds:9.3f}{seconds / forward:11.1f}")
        batched = ablation_map(model, ids, metric, rows=args.rows).values
        print(
            f"batched vs head by head: {seconds / medians['ablation map, batched']:.1f} x faster; "
            f"largest difference {np.abs(batched - grid).max():.2e} nats"
        )
    print(
        f"peak resident memory: {rss_before:.0f} MB after the model, {rss_after:.0f} MB after every call once"
    )


if __name__ == "__main__":
    main()
