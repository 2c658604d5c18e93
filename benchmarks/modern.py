"""What the modern variants save (attention/modern), measured on this machine:

1. KV cache: generating 256 tokens one at a time with the cache against recomputing full causal
   attention over the whole prefix at every step (chapter 3's MultiHeadAttention), one GPT-2-small
   attention layer (d 768, 12 heads): time per token by position, and the cache's bytes.
2. Grouped-query attention: the KV cache's bytes per token and at 1,024 / 4,096 tokens, MHA against
   GQA and MQA (Llama 3 8B's shape: 32 layers, 32 query heads of 128, bf16).
3. FlashAttention's online softmax: peak memory of one attention (4 heads of 64) at T = 1,024 and
   4,096 on the CPU, plain softmax against tiles of 256 keys, each in a fresh process (its peak
   resident memory above the inputs').

    .venv/bin/python -m benchmarks.modern
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

import torch

from attention.chapter3.modules import MultiHeadAttention as ChapterMHA
from attention.chapter3.modules import attend
from attention.modern import MultiHeadAttention, kv_cache_bytes, online_attention

MIB = 2**20


def kv_cache(tokens: int = 256, repeats: int = 3) -> None:
    torch.manual_seed(0)
    full = ChapterMHA(768, 768, tokens, 0.0, 12).eval()
    torch.manual_seed(0)
    cached = MultiHeadAttention(768, 768, tokens, 0.0, 12).eval()
    x = torch.randn(1, tokens, 768)
    best_full, best_cached = [float("inf")] * tokens, [float("inf")] * tokens
    with torch.no_grad():
        for _ in range(repeats):
            cached.reset_cache()
            for t in range(tokens):
                start = time.perf_counter()
                full(x[:, : t + 1])[:, -1]  # recompute everything for the newest token's row
                best_full[t] = min(best_full[t], time.perf_counter() - start)
                start = time.perf_counter()
                cached(x[:, t : t + 1], use_cache=True)
                best_cached[t] = min(best_cached[t], time.perf_counter() - start)
    print(
        f"== KV cache: one attention layer (d 768, 12 heads), {tokens} tokens one at a time, "
        f"best of {repeats}"
    )
    print("   position   recompute (ms)   with the cache (ms)   ratio")
    for t in (0, 15, 63, 127, 191, tokens - 1):
        print(
            f"   {t + 1:8d}   {best_full[t] * 1e3:14.3f}   {best_cached[t] * 1e3:19.3f}   "
            f"{best_full[t] / best_cached[t]:5.1f}x"
        )
    total_full, total_cached = sum(best_full), sum(best_cached)
    print(
        f"   all {tokens}: recompute {total_full * 1e3:.1f} ms, cache {total_cached * 1e3:.1f} ms "
        f"({total_full / total_cached:.1f}x); the cache holds {kv_cache_bytes(tokens, 12, 64) / 1024:.0f} KiB"
    )


def gqa() -> None:
    print("== KV cache bytes, Llama 3 8B's shape (32 layers, 32 query heads of 128, bf16)")
    print("   key/value heads           per token      1,024 tokens   4,096 tokens")
    for groups, name in ((32, "32 (MHA)"), (8, "8 (GQA, Llama 3)"), (1, "1 (MQA)")):
        per = kv_cache_bytes(1, groups, 128, 32, 2)
        print(
            f"   {name:22s} {per / 1024:9.0f} KiB   {kv_cache_bytes(1024, groups, 128, 32, 2) / MIB:9.0f} MiB"
            f"   {kv_cache_bytes(4096, groups, 128, 32, 2) / MIB:9.0f} MiB"
        )


def _peak(kind: str, tokens: int) -> None:
    """In a fresh process: the peak resident memory one attention adds to its inputs'."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 4, tokens, 64) for _ in range(3))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with torch.no_grad():
        if kind == "plain":
            attend(q, k, v, divisor=8.0, causal=True)
        else:
            mask = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), 1)
            online_attention(q, k, v, 256, mask, keep=False)
    print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)  # KiB -> MiB


def online() -> None:
    print("== peak memory of one causal attention (4 heads of 64) above its inputs, CPU, float32")
    print("   tokens   plain softmax (T x T kept)   online softmax (tiles of 256)   the T x T scores")
    for tokens in (1024, 4096):
        peaks = {}
        for kind in ("plain", "online"):
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.modern", "--peak", kind, str(tokens)],
                capture_output=True,
                text=True,
                check=True,
            )
            peaks[kind] = float(out.stdout.strip().splitlines()[-1])
        scores = 4 * tokens * tokens * 4 / MIB
        print(
            f"   {tokens:6d}   {peaks['plain']:22.0f} MiB   {peaks['online']:25.0f} MiB   {scores:12.0f} MiB"
        )
    print("   (the online softmax still builds its (T, T) causal mask here, 1 byte a cell: a kernel")
    print("   computes it per tile from the positions)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.modern",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--peak", nargs=2, metavar=("KIND", "TOKENS"), help=argparse.SUPPRESS)  # the child
    args = parser.parse_args(argv)
    if args.peak:
        _peak(args.peak[0], int(args.peak[1]))
        return
    torch.set_num_threads(1)
    kv_cache()
    gqa()
    online()


if __name__ == "__main__":
    main()
