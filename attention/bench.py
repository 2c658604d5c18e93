"""What keeping every intermediate costs: MultiHeadAttention.trace against torch's own attention.

    python -m attention.bench [--tokens 256] [--d 768] [--heads 12] [--repeats 30]

Times, in one run and one process, the median of
  * MultiHeadAttention.forward (the book's module, no intermediates kept),
  * MultiHeadAttention.trace (every intermediate kept),
  * torch.nn.MultiheadAttention(need_weights=True, average_attn_weights=False), which also
    returns the per-head weights,
all with the same weights, causal, B = 1, float32, eval mode, under torch.no_grad(); and the
trace's memory: bytes it holds and the peak RSS growth of one trace in a fresh process.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import torch

from attention.modules import MultiHeadAttention, reset_parameters


def setup(tokens: int, d: int, heads: int):
    """Our module, torch's module with the same weights, an input and the causal mask."""
    ours = reset_parameters(MultiHeadAttention(d, d, tokens, 0.0, heads), torch.Generator().manual_seed(0))
    ours.eval()
    theirs = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True).eval()
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.W_query.weight, ours.W_key.weight, ours.W_value.weight]))
        theirs.in_proj_bias.zero_()  # the book's qkv_bias=False
        theirs.out_proj.weight.copy_(ours.out_proj.weight)
        theirs.out_proj.bias.copy_(ours.out_proj.bias)
    x = torch.randn(1, tokens, d, generator=torch.Generator().manual_seed(1))  # (1, T, d)
    mask = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1)  # (T, T)
    return ours, theirs, x, mask


def _median_seconds(fn, repeats: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@torch.no_grad()
def measure(tokens: int = 256, d: int = 768, heads: int = 12, repeats: int = 30) -> dict[str, float]:
    ours, theirs, x, mask = setup(tokens, d, heads)
    trace = ours.trace(x)
    reference, _ = theirs(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
    max_diff = (trace.output - reference).abs().max().item()
    # Interleave the three so that machine noise hits them alike; take medians.
    rounds = {"forward": [], "trace": [], "torch_mha": []}
    calls = {
        "forward": lambda: ours(x),
        "trace": lambda: ours.trace(x),
        "torch_mha": lambda: theirs(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False),
    }
    for _ in range(max(1, repeats // 5)):
        for name, fn in calls.items():
            rounds[name].append(_median_seconds(fn, 5, warmup=1))
    result = {name: statistics.median(times) for name, times in rounds.items()}
    result["trace_bytes"] = trace.nbytes()
    result["max_abs_diff"] = max_diff
    return result


def peak_rss_growth(tokens: int, d: int, heads: int) -> int:
    """Peak RSS growth (bytes) during one trace, in a fresh process: reset the high-water mark
    (Linux: write 5 to /proc/self/clear_refs), trace, read VmHWM - VmRSS-before."""
    code = (
        "import torch; from attention.bench import setup, _status_kib\n"
        f"ours, _, x, _ = setup({tokens}, {d}, {heads})\n"
        "open('/proc/self/clear_refs', 'w').write('5'); before = _status_kib('VmRSS')\n"
        "with torch.no_grad(): t = ours.trace(x)\n"
        "print(_status_kib('VmHWM') - before)\n"
    )
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    except (subprocess.CalledProcessError, OSError):
        return -1  # not Linux, or /proc not writable
    return int(out.stdout.strip()) * 1024


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        lines = status.readlines()
    for line in lines:
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--d", type=int, default=768, help="d_in = d_out")
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args(argv)
    r = measure(args.tokens, args.d, args.heads, args.repeats)
    growth = peak_rss_growth(args.tokens, args.d, args.heads)
    ms = {k: r[k] * 1e3 for k in ("forward", "trace", "torch_mha")}
    print(
        f"MultiHeadAttention, B=1, T={args.tokens}, d_in=d_out={args.d}, heads={args.heads}, causal, "
        f"float32, CPU ({torch.get_num_threads()} threads), torch {torch.__version__}"
    )
    print(f"{'':32}{'median ms':>10}{'x torch MHA':>13}")
    for label, key in [
        ("forward (book)", "forward"),
        ("trace (all intermediates)", "trace"),
        ("nn.MultiheadAttention(weights)", "torch_mha"),
    ]:
        print(f"{label:32}{ms[key]:10.2f}{ms[key] / ms['torch_mha']:13.2f}")
    print(f"trace / nn.MultiheadAttention: {r['trace'] / r['torch_mha']:.2f}x (target <= 1.5x)")
    print(f"trace / forward: {r['trace'] / r['forward']:.2f}x")
    peak = f"{growth / 2**20:.1f} MiB" if growth >= 0 else "n/a (needs Linux /proc)"
    print(f"trace holds {r['trace_bytes'] / 2**20:.1f} MiB; peak RSS growth of one trace: {peak}")
    print(f"max |trace.output - nn.MultiheadAttention| = {r['max_abs_diff']:.2e}")


if __name__ == "__main__":
    main()
