"""Watch an induction head form: the book's GPTModel, 2 layers, trained live on repeated spans.

A sequence: [start] [P random tokens] [L random tokens] [the same L tokens] [random filler]. Each
sequence draws its own L (2..23) and P (0..8): with one fixed L a single layer-0 head learns to
look exactly L − 1 back from position alone, a shortcut that mimics induction. The loss counts
only the positions where the repeat makes the next token predictable (the second copy).

An induction head needs two layers: a layer-0 head copies "the token before me" into each
position (a previous-token head); a layer-1 head's query "my token" then matches the key of the
position whose previous token was it, and reads out what came next. A 1-layer model, the same
budget, has no such head: it learns to repeat tokens it has already seen (right on the second copy
more often than chance, never sure which), not to find the one after the earlier copy. Recipe
measured on this 2-core machine (docs/pages.md): vocabulary 128, T 64, d 64, 4 heads, AdamW lr 3e-3, batch
32; the phase change comes at ~500-650 steps, ~21-27 s at 1 thread. Its InductionTrainer is a Run
(run.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from attention.chapter3.modules import reset_parameters
from attention.errors import ConfigError, check_whole_numbers
from attention.i18n import N_, tr_n
from attention.model import roles
from attention.model.checkpoint import save_gpt2
from attention.model.gpt import GPTModel
from attention.training.run import Run

START = 0  # the start token; the others are 1..vocab-1
EMA = 0.05  # smoothing of the training accuracy that decides the phase change
PHASE = 0.5  # the phase change: smoothed accuracy on predictable tokens crosses this
MAX_STEPS = 4000
MAX_SECONDS = 150.0  # training time per run; the default run takes ~45 s at 1 thread
LABEL = N_("find what followed this token last time: an induction head forms (GPTModel, 2 layers)")
GOAL = N_("a layer-1 head looks at the token right after the earlier copy of the current token")


def sample(
    batch: int,
    length: int,
    spans: tuple[int, int],
    prefixes: tuple[int, int],
    vocab: int,
    generator: torch.Generator,
    start: int = START,
    low: int = 1,
    segments: int = 1,
) -> tuple[torch.Tensor, ...]:
    """(inputs (B, T), targets (B, T), predictable (B, T) bool, first_copy (B, T) bool): random
    tokens from low..vocab-1 with one span repeated per segment (each sequence and segment draws
    its own span length and prefix); targets are the next tokens."""
    seq = torch.randint(low, vocab, (batch, length + 1), generator=generator)  # (B, T + 1)
    seq[:, 0] = start
    pos = torch.arange(length + 1).expand(batch, length + 1)  # (B, T + 1)
    source = pos  # where each position's token comes from
    predictable = torch.zeros(batch, length + 1, dtype=torch.bool)
    first_copy = torch.zeros_like(predictable)
    free = torch.ones(batch, dtype=torch.long)  # the first position after the last segment
    for segment in range(segments):
        room = 1 + (segment + 1) * (length // segments) - free  # (B,) positions this segment may use
        longest = torch.clamp(room // 2, max=spans[1])
        span = spans[0] + (torch.rand(batch, generator=generator) * (longest - spans[0] + 1).float()).long()
        prefix_cap = torch.clamp(room - 2 * span, min=0).clamp(max=prefixes[1])
        prefix = (torch.rand(batch, generator=generator) * (prefix_cap + 1).float()).long()
        first = free + prefix  # (B,) where the span starts
        second = first + span  # (B,) where its copy starts
        in_copy = (pos >= second[:, None]) & (pos < (second + span)[:, None])
        source = torch.where(in_copy, pos - span[:, None], source)  # the copy repeats the span
        predictable |= (pos >= second[:, None]) & (pos <= (second + span - 2)[:, None])  # next token known
        first_copy |= (pos >= first[:, None]) & (pos <= (first + span - 2)[:, None])  # the same, first time
        free = second + span
    seq = seq.gather(1, source)
    return seq[:, :length], seq[:, 1:], predictable[:, :length], first_copy[:, :length]


@dataclass(frozen=True)
class InductionConfig:
    layers: int = 2
    heads: int = 4
    emb_dim: int = 64
    vocab: int = 128
    length: int = 64
    spans: tuple[int, int] = (2, 23)
    prefixes: tuple[int, int] = (0, 8)
    batch: int = 32
    lr: float = 3e-3
    steps: int = 1000  # the phase change comes at 480-640 steps (seeds 0-4); 1000 lets it settle
    seed: int = 3  # seeds 0-3 form a clean layer-0 previous-token head; seed 4 splits it over two
    snapshot_every: int = 50

    def __post_init__(self):
        limits = {
            "layers": (1, 4),
            "heads": (1, 8),
            "steps": (1, MAX_STEPS),
            "snapshot_every": (1, MAX_STEPS),
            "seed": (0, 2**31 - 1),
            "batch": (1, 256),
        }
        check_whole_numbers(self, limits)
        if self.emb_dim % self.heads:
            raise ConfigError(f"emb_dim={self.emb_dim} is not divisible by heads={self.heads}", "heads")

    @property
    def model_config(self) -> dict:
        return {
            "vocab_size": self.vocab,
            "context_length": self.length,
            "emb_dim": self.emb_dim,
            "n_heads": self.heads,
            "n_layers": self.layers,
            "drop_rate": 0.0,
            "qkv_bias": False,
        }


@dataclass
class Snapshot:
    step: int
    seconds: float
    previous: np.ndarray  # (L, H) previous-token score of every head
    induction: np.ndarray  # (L, H) induction score
    second_copy: float  # accuracy on the predictable tokens of unseen sequences
    first_copy: float  # accuracy at the same places of the first copy (nothing to copy yet: chance)
    probe: np.ndarray  # (L, H, T, T) attention on the probe sequence
    from_context: float  # share of the second copy's guesses that are tokens already in the sequence


class InductionTrainer(Run):
    """One induction run (the Run contract: run.py), advanced a chunk at a time."""

    Config = InductionConfig
    limit = MAX_SECONDS
    max_snapshots = 100  # each holds the probe's attention, (L, H, T, T): at most 4 x 8 x 64² floats

    def __init__(self, config: InductionConfig | None = None):
        super().__init__(config or InductionConfig())
        c = self.config
        self.accuracy = 0.0  # smoothed training accuracy on predictable tokens
        self.phase_step: int | None = None
        self.phase_seconds: float | None = None
        self.saved: str | None = None  # the catalog source it was saved under, once finished
        self.model = reset_parameters(GPTModel(c.model_config), torch.Generator().manual_seed(c.seed))
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=c.lr, weight_decay=0.0)
        self.generator = torch.Generator().manual_seed(10_000 + c.seed)
        # The sequence the page shows every head on: start, 4 tokens, a 10-token span, the span again
        # (no token repeats outside the span's copy, so each query has one induction key).
        (probe,) = roles.probes(
            range(1, c.vocab), START, seed=20_000 + c.seed, draws=1, lengths=(10,), prefixes=(4,)
        )
        self.probe, self.probe_copy = probe.ids, probe.second_copy
        self.test = sample(256, c.length, c.spans, c.prefixes, c.vocab, torch.Generator().manual_seed(777))
        self._snapshot()

    @classmethod
    def timing_config(cls, config: InductionConfig) -> InductionConfig:
        """The seed and the run's length do not change a step's cost."""
        return replace(config, steps=MAX_STEPS, snapshot_every=MAX_STEPS, seed=0)

    def _step(self) -> float:
        c = self.config
        self.model.train()
        inputs, targets, predictable, _ = sample(
            c.batch, c.length, c.spans, c.prefixes, c.vocab, self.generator
        )
        hidden = self.model.hidden_states(inputs)[predictable]  # (N, emb_dim): only the predictable places
        logits = self.model.out_head(hidden)  # (N, vocab)
        loss = F.cross_entropy(logits, targets[predictable])
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        right = (logits.argmax(-1) == targets[predictable]).float().mean().item()
        self.accuracy = (1 - EMA) * self.accuracy + EMA * right
        return loss.item()

    def _after_step(self) -> None:
        if self.phase_step is None and self.accuracy >= PHASE:
            self.phase_step, self.phase_seconds = self.step, self.seconds

    @torch.no_grad()
    def _snapshot(self) -> None:
        self.model.eval()
        # Inside a model's probes for a saved run (probe_tokens 1..vocab, start 0): one definition,
        # so both pages name the same best head
        scores = roles.head_roles(self.model, range(1, self.config.vocab), START)
        inputs, targets, predictable, first_copy = self.test
        guesses = self.model(inputs).argmax(-1)  # (B, T)
        right = guesses == targets  # (B, T)
        causal = torch.ones(inputs.shape[1], inputs.shape[1], dtype=torch.bool).tril()  # (T, T) keys <= query
        seen = ((guesses[:, :, None] == inputs[:, None, :]) & causal).any(-1)  # (B, T) guess appeared already
        probe = self.model.trace(torch.tensor([self.probe])).weights.numpy()  # (L, H, T, T)
        snapshot = Snapshot(
            self.step,
            self.seconds,
            scores["previous"],
            scores["induction"],
            float(right[predictable].float().mean()),
            float(right[first_copy].float().mean()),
            probe.astype(np.float32),
            float(seen[predictable].float().mean()),
        )
        self.snapshots.append(snapshot)

    def ideal(self, role: str = "induction") -> np.ndarray:
        """(T, T) the probe's perfect pattern for a role, "induction" or "previous" (NaN rows:
        nothing asked there; for induction, nothing to copy yet)."""
        pattern, rows = roles.patterns(self.probe, self.probe_copy)[role]
        ideal = pattern.copy()
        ideal[~rows] = np.nan
        return ideal

    def best_heads(self, index: int = -1) -> dict[str, tuple[int, int, float]]:
        """At a snapshot: the best previous-token head of layer 0 and induction head of the last layer."""
        snap = self.snapshots[index]
        last = len(snap.induction) - 1
        h_prev, h_ind = int(snap.previous[0].argmax()), int(snap.induction[last].argmax())
        return {
            "previous": (0, h_prev, float(snap.previous[0, h_prev])),
            "induction": (last, h_ind, float(snap.induction[last, h_ind])),
        }

    @property
    def name(self) -> str:
        return f"induction, {self.config.layers} layer{'s' * (self.config.layers > 1)}"

    @classmethod
    def title(cls, config: InductionConfig) -> str:
        return tr_n("induction, {n} layer", "induction, {n} layers", config.layers, n=config.layers)

    @property
    def chance(self) -> float:
        """A guess's chance of being right with nothing to go on: one of the vocab − 1 tokens."""
        return 1 / (self.config.vocab - 1)

    def probe_tokens(self) -> list[str]:
        return [symbol(i) for i in self.probe]

    def save(self, folder: str | Path) -> Path:
        """The trained model in GPT-2's layout: load_gpt2, Inside a model and transformers open it."""
        names = [symbol(i) for i in range(self.config.vocab)]
        extra = {
            "name": f"Induction run: {self.config.layers} layer{'s' * (self.config.layers > 1)}, "
            f"seed {self.config.seed}, step {self.step}",
            "trained_on": "repeated spans of random tokens (Watch it learn's induction task)",
            "vocab": list(names),
            "start_token": START,
            "probe_tokens": [1, self.config.vocab],
        }
        return save_gpt2(self.model, folder, attention_explorer=extra)

    def report(self) -> list[str]:
        """Time to the phase change, the best heads, accuracy."""
        c, snap, best = self.config, self.snapshots[-1], self.best_heads()
        phase = "no phase change"
        if self.phase_step is not None:
            phase = f"phase change at step {self.phase_step}, {self.phase_seconds:.1f} s of training"
        (_, h_prev, prev), (l_ind, h_ind, ind) = best["previous"], best["induction"]
        return [
            f"{self.name}, seed {c.seed}: {self.step} steps, "
            f"{self.seconds:.1f} s ({torch.get_num_threads()} threads); {phase}",
            f"best layer-0 previous-token head 0.{h_prev}: {prev:.3f}; best layer-{l_ind} induction head "
            f"{l_ind}.{h_ind}: {ind:.3f}",
            f"accuracy on unseen sequences: second copy {snap.second_copy:.1%}, "
            f"first copy {snap.first_copy:.1%}",
        ]


def symbol(token: int) -> str:
    """A token's text: the start token, then t1, t2, ... (the tokens are random: they mean nothing)."""
    return "<s>" if token == START else f"t{token}"
