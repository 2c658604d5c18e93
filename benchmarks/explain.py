"""Which tokens mattered, timed: every method of attention/model/explain.py and the ablation ground
truth for one sentence on the Shakespeare model, each alone and all together (explain()), against one
plain forward in the same run; the logit lens and logit parts beside them.

    .venv/bin/python -m benchmarks.explain [--tokens 32] [--rounds 5] [--threads N] [--gpt2-size]

The sentence: the Shakespeare model's example (Antony's lines), cut to --tokens. Calls run in
interleaved rounds (noise hits all alike); medians. Target (issue 36): explain() ≤ 1 s at 32
tokens on the 2-core CPU. Flow is the one that grows fast (~T³ here: a max-flow per token through
(L + 1)·T nodes), so the script also times it at FLOW_MAX_TOKENS, the cap above which explain() leaves
it out. --gpt2-size adds a GPT-2-small-sized model (12 x 12 heads, random weights, no download).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from attention.model import catalog, sentence, tokenizer
from attention.model import explain as methods
from attention.model.gpt import GPTModel
from attention.model.lens import logit_lens, logit_parts
from benchmarks.importance import GPT2_SMALL


def calls(model: GPTModel, ids: torch.Tensor) -> dict:
    position = ids.shape[1] - 1
    weights = model.trace(ids).weights.float()  # (L, H, T, T)
    target = methods.explain(model, ids).target
    return {
        "one forward, model(ids)": lambda: model(ids),
        "attention (one trace)": lambda: model.trace(ids).weights[-1].mean(0)[position],
        "rollout": lambda: methods.rollout(weights),
        "flow": lambda: methods.flow(weights, position),
        "gradient x input": lambda: methods._gradient(model, ids),
        "ablation (one batched pass)": lambda: methods._ablation(model, ids, target, "mean"),
        "explain(): all of them": lambda: methods.explain(model, ids),
        "logit_lens": lambda: logit_lens(model, ids),
        "logit_parts": lambda: logit_parts(model, ids),
    }


def timed(table: dict, rounds: int) -> dict[str, float]:
    times = {name: [] for name in table}
    with torch.no_grad():
        for fn in table.values():
            fn()  # warm-up
        for _ in range(rounds):
            for name, fn in table.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def report(title: str, medians: dict[str, float]) -> None:
    forward = medians["one forward, model(ids)"]
    print(title)
    print(f"{'what':<30}{'seconds':>9}{'x forward':>11}")
    for name, seconds in medians.items():
        print(f"{name:<30}{seconds:9.3f}{seconds / forward:11.1f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's own choice)")
    parser.add_argument(
        "--gpt2-size", action="store_true", help="also a 12-layer model of GPT-2 small's size"
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    model, _ = catalog.load(catalog.SHAKESPEARE)
    text = tokenizer.encode(sentence.SHAKESPEARE_SENTENCE)
    ids = torch.tensor([text[: args.tokens]])
    setup = f"CPU ({torch.get_num_threads()} threads), torch {torch.__version__}, median of {args.rounds}"
    report(
        f"# Shakespeare model (4 x 4 heads, d 128), T={ids.shape[1]}, {setup}",
        timed(calls(model, ids), args.rounds),
    )
    cap = torch.tensor([(text * 2)[: methods.FLOW_MAX_TOKENS]])
    seconds = timed({"flow": lambda: methods.flow(model.trace(cap).weights, cap.shape[1] - 1)}, args.rounds)[
        "flow"
    ]
    print(f"flow at FLOW_MAX_TOKENS = {methods.FLOW_MAX_TOKENS} tokens: {seconds:.3f} s")
    if args.gpt2_size:
        torch.manual_seed(0)
        big = GPTModel(GPT2_SMALL).eval()
        ids = torch.randint(0, 50257, (1, args.tokens), generator=torch.Generator().manual_seed(1))
        report(
            f"# GPT-2-small-sized GPTModel, random weights, T={args.tokens}, {setup}",
            timed(calls(big, ids), 3),
        )


if __name__ == "__main__":
    main()
