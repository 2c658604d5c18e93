"""The command line for every training: a tiny task, the induction run, or a recipe that makes a
shipped model.

    python -m attention.training [--task previous|first|reverse|sort|text|induction] [...]
    python -m attention.training copying --out assets/model   # the bundled copy model's recipe
    python -m attention.training shakespeare --out assets/shakespeare   # the Shakespeare model's
    python -m attention.training shakespeare-check DIR   # a retrained one against the shipped one
    python -m attention.training shakespeare-qwen3 --out assets/shakespeare-qwen3   # the same, Qwen3's layout
"""

from __future__ import annotations

import argparse
import sys

import torch

from attention.training import copying, held_out_text, shakespeare, shakespeare_qwen3
from attention.training.induction import InductionTrainer
from attention.training.run import Run
from attention.training.tasks import TASKS
from attention.training.tiny import Trainer

RUNS: dict[str, type[Run]] = {key: Trainer for key in TASKS} | {"induction": InductionTrainer}
RECIPES = {
    "copying": copying.main,
    "bundled": copying.main,
    "shakespeare": shakespeare.main,
    "shakespeare-check": lambda argv: sys.exit(held_out_text.check(argv)),
    "shakespeare-qwen3": shakespeare_qwen3.main,
}  # "bundled": old name


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in RECIPES:
        return RECIPES[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--task", default="previous", choices=list(RUNS))
    parser.add_argument("--steps", type=int, help="default: the task's own")
    parser.add_argument("--heads", type=int, help="default: the task's own")
    parser.add_argument("--seed", type=int, help="default: 0 (induction: 3)")
    parser.add_argument(
        "--layers", type=int, help="induction: 2 (default), or 1: the control, no induction head"
    )
    parser.add_argument(
        "--save",
        help="write the trained model here (induction: in GPT-2's layout, config.json + model.safetensors)",
    )
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's own choice)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    values = {"steps": args.steps, "heads": args.heads, "seed": args.seed, "layers": args.layers}
    kind = RUNS[args.task]
    run = kind(kind.configure(args.task, **{k: v for k, v in values.items() if v is not None}))
    while not run.done:
        run.train(run.chunk)
    print("\n".join(run.report()))
    if args.save:
        print(f"saved to {run.save(args.save)}")


if __name__ == "__main__":
    main()
