"""GPTModel.trace against transformers' GPT2LMHeadModel, the same weights, on the CPU.

    .venv/bin/python -m benchmarks.gpt_trace [--tokens 64] [--rounds 7] [--threads N]

A GPT-2-small-sized model (12 layers, 12 heads, d 768, vocabulary 50,257) with random weights (no
download): one `trace` of every layer (all intermediates kept) against one forward with
output_attentions=True (eager attention), interleaved rounds so noise hits both alike; median
seconds and the ratio. Target: trace <= 1.3 x transformers.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch

from attention.model.checkpoint import config_from_hf, load_state
from attention.model.gpt import GPTModel


def main(argv: list[str] | None = None) -> None:
    import transformers

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's own choice)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    config = transformers.GPT2Config(attn_implementation="eager", bos_token_id=None, eos_token_id=None)
    theirs = transformers.GPT2LMHeadModel(config).eval()
    ours = load_state(GPTModel(config_from_hf(config.to_dict())), theirs.state_dict()).eval()  # GPT-2 small
    ids = torch.randint(0, 50257, (1, args.tokens), generator=torch.Generator().manual_seed(1))
    calls = {
        "GPTModel.trace (every intermediate)": lambda: ours.trace(ids),
        "GPTModel.forward": lambda: ours(ids),
        "GPT2LMHeadModel(output_attentions)": lambda: theirs(ids, output_attentions=True),
    }
    times = interleaved(calls, args.rounds)
    with torch.no_grad():
        diff = (ours.trace(ids).logits - theirs(ids).logits).abs().max().item()
    setup = f"T={args.tokens}, B=1, CPU ({torch.get_num_threads()} threads), torch {torch.__version__}"
    print(
        f"# GPT-2-small-sized, random weights, {setup}, transformers {transformers.__version__}; "
        f"median of {args.rounds}"
    )
    print_medians(times, "GPT2LMHeadModel(output_attentions)")
    print(f"max |logits difference| {diff:.2e}")


def interleaved(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Seconds of each call, `rounds` times, under torch.no_grad: one warm-up call each, then
    round after round of every call in turn, so noise (another job, the CPU's clock) hits all alike."""
    times = {name: [] for name in calls}
    with torch.no_grad():
        for fn in calls.values():
            fn()  # warm-up
        for _ in range(rounds):
            for name, fn in calls.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    return times


def print_medians(times: dict[str, list[float]], reference: str, width: int = 38) -> None:
    """Each call's median in ms and its ratio to the reference call's median (transformers')."""
    base = statistics.median(times[reference])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:{width}} {median * 1e3:8.1f} ms   {median / base:5.2f} x transformers")


if __name__ == "__main__":
    main()
