"""Watch attention learn: a tiny model built around the book's MultiHeadAttention, trained on tasks
whose correct attention pattern is known, with snapshots of its attention on a fixed probe. Its
Trainer is a Run (run.py).

    python -m attention.training [--task previous] [--steps 400] [--seed 0] [--save DIR]

Model: token embedding + positional embedding -> MultiHeadAttention (causal) -> linear readout.
No residual path and no MLP: whatever the readout needs from other positions must come through
attention, so the pattern that solves the task has to appear in the weights.

Everything is seeded from one local generator (parameters, batches, probe), so a config trains
to the same numbers every time, whatever other threads do with torch's global RNG.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from attention.chapter3.modules import MultiHeadAttention, reset_parameters
from attention.devices import resolve_device
from attention.errors import ConfigError, check_whole_numbers
from attention.i18n import tr
from attention.training.run import Run
from attention.training.tasks import IGNORE, TASKS

MAX_STEPS = 3000
MAX_LENGTH = 16
MAX_D_MODEL = 64
MAX_HEADS = 4
MAX_SECONDS = 60.0  # training time per run, whatever the settings
MAX_SNAPSHOTS = 300  # probe weights kept per run: at most 300 x 4 x 33² floats ≈ 5 MB


# --- model and config --------------------------------------------------------------------------


class TinyAttentionModel(nn.Module):
    """Token + position embeddings -> the book's MultiHeadAttention (causal) -> linear readout."""

    def __init__(self, vocab_size: int, context_length: int, d_model: int, num_heads: int):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(context_length, d_model)
        self.attn = MultiHeadAttention(d_model, d_model, context_length, 0.0, num_heads)
        self.out = nn.Linear(d_model, vocab_size)

    def embed(self, ids):  # (B, T) -> (B, T, d_model)
        return self.tok_emb(ids) + self.pos_emb(torch.arange(ids.shape[1], device=ids.device))

    def forward(self, ids):  # (B, T) -> (B, T, vocab) logits
        return self.out(self.attn(self.embed(ids)))


@dataclass(frozen=True)
class TrainConfig:
    task: str = "previous"
    steps: int = 300
    heads: int = 1
    d_model: int = 24
    length: int = 8  # items per sequence (tasks with a separator use 2 x length positions)
    batch: int = 64
    lr: float = 0.003
    seed: int = 0
    snapshot_every: int = 5
    device: str = "cpu"

    @classmethod
    def for_task(cls, task: str, **values) -> TrainConfig:
        """The config with `task`'s own defaults, then `values`."""
        return cls(task=task, **(TASKS[task].defaults if task in TASKS else {}) | values)

    def __post_init__(self):
        if self.task not in TASKS:
            raise ConfigError(f"task={self.task!r} is unknown; choose one of {', '.join(TASKS)}", "task")
        limits = {
            "steps": (1, MAX_STEPS),
            "heads": (1, MAX_HEADS),
            "d_model": (1, MAX_D_MODEL),
            "length": (2, MAX_LENGTH),
            "batch": (1, 512),
            "snapshot_every": (1, MAX_STEPS),
        }
        check_whole_numbers(self, limits)
        if self.d_model % self.heads:
            raise ConfigError(f"d_model={self.d_model} is not divisible by heads={self.heads}", "heads")
        if not (isinstance(self.lr, float) and 0 < self.lr <= 1):
            raise ConfigError(f"lr={self.lr!r} must be in (0, 1]", "lr")
        if self.task == "sort" and self.length > len(TASKS["sort"].vocab) - 1:
            raise ConfigError("sort draws distinct numbers 0-9: use at most 10 items", "length")

    @property
    def context_length(self) -> int:
        return 2 * self.length if self.task in ("reverse", "sort") else self.length


@dataclass
class Snapshot:
    step: int
    weights: np.ndarray  # (H, T, T) the probe's attention weights
    loss: float


class Trainer(Run):
    """One tiny-task run (the Run contract: run.py), advanced a chunk at a time."""

    Config = TrainConfig
    limit = MAX_SECONDS
    max_snapshots = MAX_SNAPSHOTS

    def __init__(self, config: TrainConfig):
        super().__init__(config)
        c = config
        self.accuracies: list[tuple[int, float]] = []  # (step, accuracy) at each snapshot
        self.seconds_to_95: float | None = None
        self.task = TASKS[c.task]
        self.device = resolve_device(c.device).device
        self.generator = torch.Generator().manual_seed(c.seed)
        model = TinyAttentionModel(len(self.task.vocab), c.context_length, c.d_model, c.heads)
        self.model = reset_parameters(model, self.generator)  # seeded, not from the global RNG
        self.model.to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=c.lr)
        self.loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE)
        probe, _ = self.task.sample(1, c.length, torch.Generator().manual_seed(c.seed + 1))
        self.probe = probe[0]  # (T,)
        self.eval_inputs, self.eval_targets = self.task.sample(
            512, c.length, torch.Generator().manual_seed(c.seed + 2)
        )
        self._snapshot()

    @classmethod
    def configure(cls, task: str, **values) -> TrainConfig:
        """The task's own defaults, then those of `values` that are TrainConfig's settings."""
        names = {f.name for f in fields(TrainConfig)} - {"task"}
        return TrainConfig.for_task(task, **{k: v for k, v in values.items() if k in names})

    @classmethod
    def timing_config(cls, config: TrainConfig) -> TrainConfig:
        """The seed, learning rate and run length do not change a step's cost (a tiny task's
        snapshots, every few steps, cost as much as its steps: they are timed with them)."""
        return replace(config, steps=MAX_STEPS, seed=0, lr=0.003)

    @property
    def name(self) -> str:
        return self.task.label

    @classmethod
    def title(cls, config: TrainConfig) -> str:
        return tr(TASKS[config.task].label)

    @property
    def parameters(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    def _step(self) -> float:
        c = self.config
        self.model.train()
        inputs, targets = self.task.sample(c.batch, c.length, self.generator)
        logits = self.model(inputs.to(self.device))  # (B, T, V)
        loss = self.loss_fn(logits.flatten(0, 1), targets.to(self.device).flatten())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _snapshot(self) -> None:
        accuracy = self.accuracy()
        self.accuracies.append((self.step, accuracy))
        if accuracy >= 0.95 and self.seconds_to_95 is None:
            self.seconds_to_95 = self.seconds
        loss = self.losses[-1] if self.losses else float("nan")
        self.snapshots.append(Snapshot(self.step, self.probe_weights(), loss))

    @torch.no_grad()
    def accuracy(self) -> float:
        """Share of asked tokens predicted right on a fixed held-out batch of 512 sequences."""
        self.model.eval()
        predicted = self.model(self.eval_inputs.to(self.device)).argmax(-1).cpu()  # (512, T)
        asked = self.eval_targets != IGNORE
        return float((predicted[asked] == self.eval_targets[asked]).float().mean())

    @torch.no_grad()
    def probe_weights(self) -> np.ndarray:
        """(H, T, T) attention weights of the probe sequence."""
        return self.weights_of(self.probe)

    @torch.no_grad()
    def weights_of(self, ids: torch.Tensor) -> np.ndarray:
        """(H, T, T) attention weights for one sequence (T,), through the module's own trace."""
        self.model.eval()
        x = self.model.embed(ids[None].to(self.device))  # (1, T, d_model)
        return self.model.attn.trace(x).weights[0].cpu().numpy()

    def expected(self) -> np.ndarray | None:
        return self.task.expected(self.probe)

    def pattern_score(self, weights: np.ndarray | None = None) -> float | None:
        """Average weight the best head puts on the expected keys, over the probe's asked rows."""
        expected = self.expected()
        if expected is None:
            return None
        return weight_on_expected(self.probe_weights() if weights is None else weights, expected)

    def mean_weight_on_expected(self, sequences: int = 64) -> float | None:
        """Like pattern_score, averaged over held-out sequences instead of the one probe."""
        if self.task.expected(self.eval_inputs[0]) is None:
            return None
        scores = [
            weight_on_expected(self.weights_of(ids), self.task.expected(ids))
            for ids in self.eval_inputs[:sequences]
        ]
        return float(np.mean(scores))

    def probe_tokens(self) -> list[str]:
        return [self.task.vocab[i] for i in self.probe.tolist()]

    def save(self, folder: str | Path) -> Path:
        """The model's weights (model.safetensors) and what made it (config.json: the settings, the
        task's vocabulary, the step)."""
        from safetensors.torch import save_file

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        state = {k: v.detach().cpu().contiguous() for k, v in self.model.state_dict().items()}
        save_file(state, str(folder / "model.safetensors"), metadata={"format": "pt"})
        about = {"train_config": asdict(self.config), "vocab": self.task.vocab, "step": self.step}
        (folder / "config.json").write_text(json.dumps(about, indent=2) + "\n")
        return folder

    def report(self) -> list[str]:
        threads = torch.get_num_threads()
        first = next((s for s, a in self.accuracies if a >= 0.95), None)
        to_95 = math.nan if self.seconds_to_95 is None else self.seconds_to_95
        lines = [
            f"task {self.task.key} ({self.task.label}), {self.parameters:,} parameters, {self.step} steps, "
            f"{self.seconds:.2f} s on {self.device} ({threads} threads)",
            f"accuracy {self.accuracies[-1][1]:.3f}; reached 95% at step {first} after {to_95:.2f} s",
        ]
        score = self.pattern_score()
        if score is not None:
            lines.append(f"weight on the expected keys (best head): {score:.3f}")
        return lines


def weight_on_expected(weights: np.ndarray, expected: np.ndarray) -> float:
    """weights (H, T, T), expected (T, T) with NaN rows where nothing is asked -> the weight the
    best head puts on the expected keys, averaged over the asked rows."""
    asked = ~np.isnan(expected).any(axis=1)
    return float(max((w[asked] * expected[asked]).sum(axis=1).mean() for w in weights))


def train(config: TrainConfig, chunk: int = 50) -> Trainer:
    trainer = Trainer(config)
    while not trainer.done:
        trainer.train(chunk)
    return trainer
