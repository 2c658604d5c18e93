"""Compare and measure: every variant against the math, and how cost grows with the token count.

    python -m attention.bench                      # both tables at the default sizes
    python -m attention.bench equivalence [--tokens 64 --d 64 --heads 4]
    python -m attention.bench scaling [--tokens 8,16,...,2048 --variants mha,torch_mha,sdpa]
    python -m attention.bench overhead             # what MultiHeadAttention.trace costs over forward
    add --csv (a table) or --jsonl (one row per line, as it is measured) to any of them

The pages call the same functions (equivalence_table, scaling_rows); the Scaling page runs
`scaling --jsonl` in a child process, so that peak memory is measured in a process of its own
and a stopped sweep is a killed process.

Shared weights: one draw of W_query, W_key, W_value (d_out, d_in), out_proj (d_out, d_out) and
its bias, made by MultiHeadAttention's constructor from a seed. Every variant gets the slice it
needs (head h of the wrapper gets rows h*head_dim:(h+1)*head_dim), so every variant computes
`reference()` with those weights: softmax(Q_h K_hᵀ / sqrt(head_dim), masked) V_h per head,
heads concatenated, out_proj where the variant has one. The reference runs in float64.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

from attention import modules
from attention.devices import available_devices, device_name, synchronize

# --- the reference and the shared weights ------------------------------------------------------


@dataclass(frozen=True)
class Weights:
    """One draw of every weight a variant can need; nn.Linear layout (out_features, in_features)."""

    wq: torch.Tensor  # (d_out, d_in)
    wk: torch.Tensor  # (d_out, d_in)
    wv: torch.Tensor  # (d_out, d_in)
    wo: torch.Tensor  # (d_out, d_out)
    bo: torch.Tensor  # (d_out,)

    @classmethod
    def draw(cls, d_in: int, d_out: int, heads: int, seed: int) -> Weights:
        mha = modules.MultiHeadAttention(d_in, d_out, 1, 0.0, heads)
        modules.reset_parameters(mha, torch.Generator().manual_seed(seed))
        return cls(
            *(m.weight.detach() for m in (mha.W_query, mha.W_key, mha.W_value, mha.out_proj)),
            mha.out_proj.bias.detach(),
        )


def reference(x, wq, wk, wv, heads: int, causal: bool, wo=None, bo=None, scale=None) -> torch.Tensor:
    """The attention math in float64 with plain tensor ops. x: (B, T, d_in) -> (B, T, d_out)."""
    x, wq, wk, wv = (t.double() for t in (x, wq, wk, wv))
    B, T, _ = x.shape
    head_dim = wq.shape[0] // heads

    def split(w):  # (d_out, d_in) -> (B, H, T, head_dim)
        return (x @ w.T).view(B, T, heads, head_dim).transpose(1, 2)

    queries, keys, values = split(wq), split(wk), split(wv)
    scores = queries @ keys.transpose(2, 3) / (math.sqrt(head_dim) if scale is None else scale)  # (B,H,T,T)
    if causal:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T)
        scores = scores.masked_fill(future, -math.inf)
    context = (torch.softmax(scores, dim=-1) @ values).transpose(1, 2).reshape(B, T, -1)  # (B, T, d_out)
    return context if wo is None else context @ wo.double().T + bo.double()


# --- the variants, each loaded with the shared weights -------------------------------------------


@dataclass(frozen=True)
class Variant:
    key: str
    label: str
    computes: str  # in words: heads, mask, out_proj
    batched: bool  # forward takes (B, T, d_in); otherwise (T, d_in)
    causal_knob: bool  # follows the causal setting (otherwise never masks)
    needs_square: bool = False  # needs d_in == d_out (nn.MultiheadAttention's query width)


VARIANTS = {
    v.key: v
    for v in (
        Variant("simplified", "SimplifiedSelfAttention (3.3)", "1 head, no weights, no scaling, no mask",
                batched=False, causal_knob=False, needs_square=True),
        Variant("v1", "SelfAttention_v1 (3.4)", "1 head, no mask", batched=False, causal_knob=False),
        Variant("v2", "SelfAttention_v2 (3.4)", "1 head, no mask", batched=False, causal_knob=False),
        Variant("blog", "SelfAttentionQKV (doc 001)", "1 head, no mask", batched=False, causal_knob=False),
        Variant("blog_heads", "MultiHeadSelfAttentionQKV (doc 001)", "H heads concatenated, no mask",
                batched=False, causal_knob=False),
        Variant("causal", "CausalAttention (3.5)", "1 head, mask", batched=True, causal_knob=True),
        Variant("wrapper", "MultiHeadAttentionWrapper (3.6.1)", "H heads concatenated, mask",
                batched=True, causal_knob=True),
        Variant("mha", "MultiHeadAttention (3.6.2)", "H heads, mask, out_proj",
                batched=True, causal_knob=True),
        Variant("torch_mha", "torch.nn.MultiheadAttention", "H heads, mask, out_proj",
                batched=True, causal_knob=True, needs_square=True),
        Variant("sdpa", "F.scaled_dot_product_attention", "H heads, mask, out_proj",
                batched=True, causal_knob=True),
    )
}  # fmt: skip
DEFAULT_SCALING_VARIANTS = ("mha", "torch_mha", "sdpa")


@dataclass
class Loaded:
    """A variant ready to run: forward(x) and, for the book's classes, trace(x); x is (B, T, d_in)."""

    variant: Variant
    forward: Callable[[torch.Tensor], torch.Tensor]
    trace: Callable[[torch.Tensor], object] | None
    parameters: int
    expected: Callable[[torch.Tensor], torch.Tensor]  # the reference with the same weights
    module: nn.Module  # the loaded module (for sdpa: the MultiHeadAttention whose weights it uses)


def _linear(layer: nn.Linear, weight: torch.Tensor, bias: torch.Tensor | None = None) -> None:
    layer.weight.copy_(weight)
    if bias is not None:
        layer.bias.copy_(bias)


@torch.no_grad()
def load(key: str, w: Weights, heads: int, causal: bool, context_length: int, device: str = "cpu") -> Loaded:
    """Variant `key` with the shared weights `w`, in eval mode, on `device`."""
    variant = VARIANTS[key]
    d_out, d_in = w.wq.shape
    head_dim = d_out // heads
    causal = causal and variant.causal_knob
    rows = [slice(h * head_dim, (h + 1) * head_dim) for h in range(heads)]
    module: nn.Module | None = None
    if key == "simplified":
        module = modules.SimplifiedSelfAttention()
        eye = torch.eye(d_in)
        expected = lambda x: reference(x, eye, eye, eye, 1, False, scale=1.0)  # noqa: E731
    elif key in ("v1", "v2", "blog", "causal"):
        if key == "v1":
            module = modules.SelfAttention_v1(d_in, d_out)
            module.W_query.copy_(w.wq.T), module.W_key.copy_(w.wk.T), module.W_value.copy_(w.wv.T)
        elif key == "blog":
            module = modules.SelfAttentionQKV(d_in, d_out, d_out)
            module.W_query.copy_(w.wq), module.W_key.copy_(w.wk), module.W_value.copy_(w.wv)
        else:
            module = (
                modules.SelfAttention_v2(d_in, d_out)
                if key == "v2"
                else modules.CausalAttention(d_in, d_out, context_length, 0.0, causal=causal)
            )
            _linear(module.W_query, w.wq), _linear(module.W_key, w.wk), _linear(module.W_value, w.wv)
        expected = lambda x: reference(x, w.wq, w.wk, w.wv, 1, causal)  # noqa: E731
    elif key == "blog_heads":
        module = modules.MultiHeadSelfAttentionQKV(d_in, head_dim, head_dim, heads)
        for h, r in enumerate(rows):
            module.multihead_W_query[h].copy_(w.wq[r])
            module.multihead_W_key[h].copy_(w.wk[r])
            module.multihead_W_value[h].copy_(w.wv[r])
        expected = lambda x: reference(x, w.wq, w.wk, w.wv, heads, False)  # noqa: E731
    elif key == "wrapper":
        module = modules.MultiHeadAttentionWrapper(d_in, head_dim, context_length, 0.0, heads, causal=causal)
        for head, r in zip(module.heads, rows, strict=True):
            _linear(head.W_query, w.wq[r]), _linear(head.W_key, w.wk[r]), _linear(head.W_value, w.wv[r])
        expected = lambda x: reference(x, w.wq, w.wk, w.wv, heads, causal)  # noqa: E731
    else:  # mha, torch_mha and sdpa all compute the book's MultiHeadAttention
        expected = lambda x: reference(x, w.wq, w.wk, w.wv, heads, causal, w.wo, w.bo)  # noqa: E731
        if key == "torch_mha":
            module = nn.MultiheadAttention(d_out, heads, batch_first=True)
            module.in_proj_weight.copy_(torch.cat([w.wq, w.wk, w.wv]))
            module.in_proj_bias.zero_()  # the book's qkv_bias=False
            _linear(module.out_proj, w.wo, w.bo)
        else:
            module = modules.MultiHeadAttention(d_in, d_out, context_length, 0.0, heads, causal=causal)
            for name, weight in (("W_query", w.wq), ("W_key", w.wk), ("W_value", w.wv)):
                _linear(getattr(module, name), weight)
            _linear(module.out_proj, w.wo, w.bo)
    module = module.to(device).eval()
    parameters = sum(p.numel() for p in module.parameters())
    if key == "sdpa":
        parameters = 0  # a function: it uses the MultiHeadAttention weights above, counted there
        forward = _sdpa_forward(module, heads, causal)
        trace = None
    elif key == "torch_mha":
        mask = torch.triu(torch.ones(context_length, context_length, dtype=torch.bool, device=device), 1)
        forward = lambda x: module(x, x, x, need_weights=False, attn_mask=mask if causal else None)[0]  # noqa: E731
        trace = None
    elif variant.batched:
        forward, trace = module, module.trace
    else:  # the (T, d_in) variants run on each batch row
        forward = lambda x: module(x[0]).unsqueeze(0)  # noqa: E731
        trace = lambda x: module.trace(x[0])  # noqa: E731
    return Loaded(
        variant, torch.no_grad()(forward), trace and torch.no_grad()(trace), parameters, expected, module
    )


def _sdpa_forward(mha: modules.MultiHeadAttention, heads: int, causal: bool):
    def forward(x):  # (B, T, d_in) -> (B, T, d_out), the same projections as MultiHeadAttention
        B, T, _ = x.shape
        q, k, v = (
            layer(x).view(B, T, heads, -1).transpose(1, 2) for layer in (mha.W_query, mha.W_key, mha.W_value)
        )  # (B, H, T, head_dim) each
        context = F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # (B, H, T, head_dim)
        return mha.out_proj(context.transpose(1, 2).reshape(B, T, -1))  # (B, T, d_out)

    return forward


def applicable(key: str, d_in: int, d_out: int) -> str | None:
    """Why variant `key` cannot run at these widths, or None."""
    if VARIANTS[key].needs_square and d_in != d_out:
        what = "it has no weights" if key == "simplified" else "its query width is embed_dim"
        return f"needs d_in = d_out ({what})"
    return None


# --- timing and memory ---------------------------------------------------------------------------


def time_call(fn: Callable[[], object], device: str, min_seconds: float = 0.01, rounds: int = 5) -> float:
    """Median seconds per call. Warms up first (allocator, kernels), then times `rounds` rounds of
    n calls, n chosen so that a round lasts about min_seconds; GPU queues are synchronised around
    every round, so the time covers the computation, not just the launch."""
    fn()
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    n = max(1, min(1000, int(min_seconds / max(time.perf_counter() - start, 1e-7))))
    times = []
    for _ in range(rounds):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(n):
            fn()
        synchronize(device)
        times.append((time.perf_counter() - start) / n)
    return statistics.median(times)


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


_libc = None  # set by prepare_cpu_memory_measurement


def prepare_cpu_memory_measurement() -> bool:
    """Whether this process can measure its peak CPU memory (Linux, glibc); loads what it needs.
    Only for a process of its own: the CLI, or the Scaling page's child process."""
    global _libc
    try:
        open("/proc/self/clear_refs", "w").close()
        _libc = ctypes.CDLL("libc.so.6")
        _libc.malloc_trim  # noqa: B018 (glibc only)
        return True
    except (OSError, AttributeError):
        return False


def peak_bytes(fn: Callable[[], object], device: str) -> int | None:
    """Peak memory while fn() runs and its result is alive, above what was in use before.
    CUDA: the caching allocator's peak. CPU: the RSS high-water mark, reset first (Linux only;
    None elsewhere, or before prepare_cpu_memory_measurement()). On the CPU it counts every thread
    of the process: use a process of its own. RSS moves in 4 KiB pages."""
    if device == "cuda":
        synchronize(device)
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        result = fn()
        synchronize(device)
        del result
        return torch.cuda.max_memory_allocated() - before
    if device != "cpu":
        return None
    if _libc is None:
        return None
    # Give freed heap pages back first: reused without a page fault, they would hide the peak.
    _libc.malloc_trim(0)
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current RSS
        before = _status_kib("VmRSS")
        result = fn()
        peak = _status_kib("VmHWM")
        del result
    except (OSError, KeyError):
        return None
    return max(0, peak - before) * 1024


# --- the two tables --------------------------------------------------------------------------------


def embedding_input(tokens: int, d_in: int, seed: int = 1) -> torch.Tensor:
    return torch.randn(1, tokens, d_in, generator=torch.Generator().manual_seed(seed))  # (1, T, d_in)


def equivalence_table(
    x: torch.Tensor,
    d_out: int,
    heads: int,
    causal: bool = True,
    seed: int = 123,
    devices: list[str] | None = None,
    min_seconds: float = 0.01,
) -> pd.DataFrame:
    """Every variant on input x (1, T, d_in) with shared weights: output shape, max |difference|
    from the reference (float64), parameter count, and ms per forward on each device."""
    d_in = x.shape[-1]
    devices = devices or available_devices()
    w = Weights.draw(d_in, d_out, heads, seed)
    rows = []
    for key, variant in VARIANTS.items():
        row = {"variant": key, "module": variant.label, "computes": variant.computes}
        why = applicable(key, d_in, d_out)
        if why:
            rows.append(row | {"output shape": "—", "max |diff|": math.nan, "parameters": 0, "note": why})
            continue
        loaded = load(key, w, heads, causal, x.shape[1])
        output = loaded.forward(x)
        row |= {
            "output shape": str(tuple(output.shape)),
            "max |diff|": (output.double() - loaded.expected(x)).abs().max().item(),
            "parameters": loaded.parameters,
            "note": "" if key != "sdpa" else "uses MultiHeadAttention's weights",
        }
        for device in devices:
            call = _call(load(key, w, heads, causal, x.shape[1], device), "forward", x.to(device))
            row[f"ms ({device})"] = time_call(call, device, min_seconds) * 1e3
        rows.append(row)
    return pd.DataFrame(rows)


def _call(loaded: Loaded, mode: str, x: torch.Tensor) -> Callable[[], object]:
    run = loaded.forward if mode == "forward" else loaded.trace
    return lambda: run(x)


SCALING_COLUMNS = ["variant", "module", "mode", "device", "tokens", "heads", "d", "ms", "peak_bytes",
                   "attention_bytes"]  # fmt: skip


def scaling_points(tokens, variants, devices, modes=("forward", "trace")) -> list[tuple]:
    """The sweep's points in the order it measures them: every variant at a length before the
    next length, so a sweep stopped early still has complete small sizes."""
    return [
        (t, device, key, mode)
        for t in tokens
        for device in devices
        for key in variants
        for mode in modes
        if mode == "forward" or key not in ("torch_mha", "sdpa")  # only the book's classes trace
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
        fn = _call(load(key, w, heads, causal, t, device), mode, embedding_input(t, d).to(device))
        variant = VARIANTS[key]
        h = 1 if variant.computes.startswith("1 head") else heads
        yield {
            "variant": key,
            "module": variant.label,
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


# --- the trace's overhead (issue 2's target) -------------------------------------------------------


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
        for label, key in [("forward (book)", "forward"), ("trace (all intermediates)", "trace"),
                           ("nn.MultiheadAttention(weights)", "torch_mha")]:  # fmt: skip
            print(f"{label:32}{r[key] * 1e3:9.2f} ms{r[key] / r['torch_mha']:8.2f}x torch")
        peak = (r["trace_peak_bytes"] or 0) / 2**20
        print(f"trace holds {r['trace_bytes'] / 2**20:.1f} MiB; peak memory of one trace {peak:.1f} MiB; "
              f"max |diff| {r['max_abs_diff']:.2e}")  # fmt: skip
        return
    if args.what in ("all", "equivalence"):
        t = (args.tokens or [64])[0] if args.what == "equivalence" else 64
        print(f"# Equivalence: every variant vs the float64 reference, T={t}, d_in=d_out={args.d}, "
              f"heads={args.heads}, causal={args.causal}; {_header(devices)}")  # fmt: skip
        x = embedding_input(t, args.d)
        frame = equivalence_table(
            x, args.d, args.heads, args.causal, devices=devices, min_seconds=args.min_seconds
        )
        _emit(frame, args)
    if args.what in ("all", "scaling"):
        tokens = args.tokens or [8, 16, 32, 64, 128, 256, 512, 1024, 2048]
        measure_memory = prepare_cpu_memory_measurement() or "cpu" not in devices
        rows = scaling_rows(tokens, _split(args.variants), devices, args.d, args.heads, args.causal,
                            tuple(_split(args.modes)), args.min_seconds, memory=measure_memory)  # fmt: skip
        if args.jsonl:
            for row in rows:
                print(json.dumps(row), flush=True)
            return
        print(f"\n# Scaling: d={args.d}, heads={args.heads}, causal={args.causal}; {_header(devices)}")
        _emit(scaling_summary(pd.DataFrame(list(rows), columns=SCALING_COLUMNS)), args)


def _split(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


def scaling_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """The sweep in readable units, with the measured growth exponent between lengths."""
    out = frame.copy()
    out["peak MiB"] = out["peak_bytes"].astype(float) / 2**20
    out["attention MiB"] = out["attention_bytes"] / 2**20
    out["peak / attention"] = out["peak_bytes"].astype(float) / out["attention_bytes"]
    out = out.sort_values(["device", "variant", "mode", "tokens"], kind="stable")
    # slope of log(ms) against log(T) from the previous length: 2 means O(T²)
    previous = out.groupby(["device", "variant", "mode"])[["ms", "tokens"]].shift()
    out["time exponent"] = (out["ms"] / previous["ms"]).map(math.log) / (
        out["tokens"] / previous["tokens"]
    ).map(math.log)
    return out[["device", "variant", "mode", "tokens", "ms", "time exponent", "peak MiB", "attention MiB",
                "peak / attention"]]  # fmt: skip


if __name__ == "__main__":
    main()
