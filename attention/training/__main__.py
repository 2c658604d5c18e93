"""The command line for every training: a tiny task, the induction run, or a recipe that makes a
shipped model.

    python -m attention.training [--task previous|first|reverse|sort|text|induction] [...]
    python -m attention.training copying --out assets/model   # the bundled copy model's recipe
"""

from __future__ import annotations

import argparse
import math
import sys

import torch

from attention.training.induction import InductionConfig, InductionTrainer
from attention.training.tasks import TASKS
from attention.training.tiny import TrainConfig, copying, train

RECIPES = {"copying": copying.main, "bundled": copying.main}  # "bundled": the recipe's old name


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in RECIPES:
        return RECIPES[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--task", default="previous", choices=[*TASKS, "induction"])
    parser.add_argument("--steps", type=int, help="default: the task's own")
    parser.add_argument("--heads", type=int, help="default: the task's own")
    parser.add_argument("--seed", type=int, help="default: 0 (induction: 3)")
    parser.add_argument(
        "--layers", type=int, default=2, help="induction: 1 is the control, no induction head"
    )
    parser.add_argument(
        "--save", help="induction: write the model here in GPT-2's layout (config.json, safetensors)"
    )
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's own choice)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    values = {
        k: v for k, v in (("steps", args.steps), ("heads", args.heads), ("seed", args.seed)) if v is not None
    }
    if args.task == "induction":
        return induction_main(args.layers, values, args.save)
    trainer = train(TrainConfig.for_task(args.task, **values))
    task = TASKS[args.task]
    print(f"task {task.key} ({task.label}), {trainer.parameters:,} parameters, {trainer.step} steps, "
          f"{trainer.seconds:.2f} s on {trainer.device} ({torch.get_num_threads()} threads)")  # fmt: skip
    first = next((s for s, a in trainer.accuracies if a >= 0.95), None)
    print(
        f"accuracy {trainer.accuracies[-1][1]:.3f}; reached 95% at step {first} "
        f"after {trainer.seconds_to_95 if trainer.seconds_to_95 is not None else math.nan:.2f} s"
    )
    score = trainer.pattern_score()
    if score is not None:
        print(f"weight on the expected keys (best head): {score:.3f}")


def induction_main(layers: int, values: dict, save: str | None) -> None:
    """The induction run from the shell: time to the phase change, the best heads, accuracy."""
    config = InductionConfig(layers=layers, **values)
    trainer = InductionTrainer(config)
    while not trainer.done:
        trainer.train(config.snapshot_every)
    snap, best = trainer.snapshots[-1], trainer.best_heads()
    phase = "no phase change"
    if trainer.phase_step is not None:
        phase = f"phase change at step {trainer.phase_step}, {trainer.phase_seconds:.1f} s of training"
    print(f"induction, {layers} layer{'s' * (layers > 1)}, seed {config.seed}: {trainer.step} steps, "
          f"{trainer.seconds:.1f} s ({torch.get_num_threads()} threads); {phase}")  # fmt: skip
    (_, h_prev, prev), (l_ind, h_ind, ind) = best["previous"], best["induction"]
    print(f"best layer-0 previous-token head 0.{h_prev}: {prev:.3f}; best layer-{l_ind} induction head "
          f"{l_ind}.{h_ind}: {ind:.3f}")  # fmt: skip
    print(
        f"accuracy on unseen sequences: second copy {snap.second_copy:.1%}, first copy {snap.first_copy:.1%}"
    )
    if save:
        print(f"saved to {trainer.save(save)}")


if __name__ == "__main__":
    main()
