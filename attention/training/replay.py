"""A recorded training played back as a Run (run.py): the Shakespeare model's training took 46 minutes
(shakespeare.py), too long to run in class, so Watch it learn replays what its recipe wrote
(training.json beside the model): each step's loss, and every EVERY steps the held-out loss and
every head's role scores on natural-text and random-token probes. Nothing trains; a step is a
read, so a replay needs no training slot.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from attention.errors import ConfigError
from attention.i18n import N_, tr
from attention.model.catalog import SHAKESPEARE_PATH
from attention.training.run import Run

LABEL = N_("Shakespeare's plays: the shipped model's training, recorded")
GOAL = N_("previous-token and induction heads forming on real text")
FORMED = 0.5  # a role score above this: the head does the job (as Watch it learn's induction run)


@functools.lru_cache(maxsize=2)
def record(folder: str) -> dict:
    """training.json of a model folder (the recipe writes it), read once."""
    path = Path(folder) / "training.json"
    if not path.exists():
        raise ConfigError(
            tr(
                "No recorded training in {folder}: run the Shakespeare recipe (docs/models.md) to make one.",
                folder=Path(folder).name,
            ),
            "folder",
        )
    return json.loads(path.read_text())


@dataclass(frozen=True)
class ReplayConfig:
    folder: str = str(SHAKESPEARE_PATH)
    steps: int = 0  # the record's (ReplayConfig.of)
    snapshot_every: int = 100
    seed: int = 0

    @classmethod
    def of(cls, folder: str | Path = SHAKESPEARE_PATH) -> ReplayConfig:
        snaps = record(str(folder))["snapshots"]
        every = snaps[0]["step"] if snaps else 1
        return cls(str(folder), snaps[-1]["step"] if snaps else 0, every)


@dataclass(frozen=True)
class ReplaySnapshot:
    step: int
    train_loss: float
    held_out_loss: float
    natural: dict[str, np.ndarray] = field(repr=False)  # role -> (L, H) on natural-text probes
    random: dict[str, np.ndarray] = field(repr=False)  # role -> (L, H) on random-token probes


class Replay(Run):
    Config = ReplayConfig
    limit = math.inf
    needs_slot = False  # a step is a read: nothing to wait for

    def __init__(self, config: ReplayConfig | None = None):
        super().__init__(config or ReplayConfig.of())
        self.model = self.record = record(self.config.folder)  # not None: the run is not stopped
        self._by_step = {s["step"]: s for s in self.record["snapshots"]}

    @classmethod
    def seconds_per_step(cls, config, warmup: int = 2, timed: int = 5) -> float:
        return 0.0

    def _step(self) -> float:
        losses = self.record.get("losses") or []
        if self.step < len(losses):
            return float(losses[self.step])
        return float(self._by_step.get(self.step + 1, {}).get("train_loss", math.nan))

    def _snapshot(self) -> None:
        s = self._by_step[self.step]
        grids = {kind: {r: np.asarray(v) for r, v in s[kind].items()} for kind in ("natural", "random")}
        self.snapshots.append(ReplaySnapshot(s["step"], s["train_loss"], s["held_out_loss"], **grids))

    def appears(self, role: str = "induction") -> int | None:
        """The first recorded step where a head's natural-text `role` score reaches FORMED."""
        return next(
            (s["step"] for s in self.record["snapshots"] if np.max(s["natural"][role]) >= FORMED), None
        )

    def best(self, index: int = -1) -> dict[str, tuple[int, int, float]]:
        """Each role's best head at a snapshot, on natural text: (layer, head, score)."""
        out = {}
        for role, grid in self.snapshots[index].natural.items():
            layer, head = np.unravel_index(np.nanargmax(grid), grid.shape)
            out[role] = (int(layer), int(head), float(grid[layer, head]))
        return out

    @property
    def name(self) -> str:
        return "the Shakespeare model's recorded training"

    @classmethod
    def title(cls, config: ReplayConfig) -> str:
        return tr("the Shakespeare model's recorded training")

    def report(self) -> list[str]:
        last = self.snapshots[-1]
        return [f"{self.name}: step {last.step}, held-out loss {last.held_out_loss:.3f}"]
