"""The Run contract: one live training, advanced a chunk at a time, that any thread may pause, stop
or take over at any moment. The tiny tasks' Trainer (tiny.py) and the induction run's
InductionTrainer (induction.py) are both Runs; the page and the command line drive them alike.

    step, seconds, losses, snapshots   how far the run got (the snapshots stay after stop())
    done, stopped, resumable           where it stands
    train(steps, lease)                up to `steps` optimiser steps; returns how many it took
    lease()                            a play loop's right to train: a newer lease, pause() or stop()
                                       ends the loop holding the older one at its next step
    pause()                            the chunk in flight ends at its next step; returns once it has
    stop(then)                         pause, run `then(run)` (a finished run saves itself), free the
                                       model and the optimiser; a stopped run never trains again
    seconds_per_step(config)           the pace: what one step costs on this machine now
    save(folder)                       the trained model, in a folder
    audience                           the sessions playing it: one trains, the others watch
    name, report()                     the run in a few words, and in a few lines for the command line

Why a lock: a Streamlit server runs each rerun of a session's page in a thread of its own, and a
click (Stop, Pause, a new setting) starts the next rerun at once, while the previous one may still
be inside train(). Every step and every snapshot happens under the run's lock, so stop() waits for
the step in flight and frees the model only when no thread is using it; a step never starts on a
paused, stopped or taken-over loop's behalf.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from attention.readonly import freeze

_leases = itertools.count(1)  # process-wide: no two leases, of any run, are ever equal

STALE = 30.0  # seconds without a heartbeat: that session's tab is gone (a crash, a lost network)


class Audience:
    """The sessions that hold one run on their page (`holders`, playing or paused) and those that
    play it now: each heartbeats while it plays; one of them, the trainer, trains, and the others
    watch. A trainer that pauses, stops or leaves releases the run, and the next watcher to look
    claims it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._seen: dict[str, float] = {}  # a session playing it -> its last heartbeat
        self.holders: set[str] = set()
        self.trainer: str | None = None

    def hold(self, who: str) -> None:
        """`who` has the run on its page (it pressed Play on its settings)."""
        with self._lock:
            self.holders.add(who)

    def beat(self, who: str) -> None:
        """`who`, playing it, is still here (a session that stopped playing is not brought back)."""
        with self._lock:
            if who in self._seen:
                self._seen[who] = time.monotonic()

    def claim(self, who: str) -> bool:
        """`who` plays the run; True when it trains it now: it already did, nobody did, or the
        trainer went quiet."""
        with self._lock:
            now = time.monotonic()
            self._seen[who] = now
            self.holders.add(who)
            trainer = self.trainer
            if trainer is None or trainer == who or now - self._seen.get(trainer, 0.0) > STALE:
                self.trainer = who
            return self.trainer == who

    def leave(self, who: str) -> None:
        """`who` plays it no more (paused; it still holds it)."""
        with self._lock:
            self._seen.pop(who, None)
            if self.trainer == who:
                self.trainer = None

    def drop(self, who: str) -> None:
        """`who` lets go of it altogether (Stop, other settings)."""
        self.leave(who)
        with self._lock:
            self.holders.discard(who)

    def watching(self, but: str | None = None) -> int:
        """Sessions playing the run now (heard from in the last STALE seconds), `but` one left out."""
        now = time.monotonic()
        with self._lock:
            return sum(1 for who, seen in self._seen.items() if who != but and now - seen <= STALE)

    def holding(self, but: str | None = None) -> int:
        """Sessions that have it on their page, playing or paused, `but` one left out."""
        with self._lock:
            return len(self.holders - {but})


class Run:
    """One training. Subclasses set `Config` and `limit`, build `model` and `optimizer` in
    __init__, and write `_step` (one optimiser step, returning its loss) and `_snapshot` (append
    what the page shows at this step to `snapshots`)."""

    Config: ClassVar[type]  # the run's frozen config dataclass: steps, snapshot_every, seed, ...
    limit: ClassVar[float] = 60.0  # seconds of training per run, whatever the settings
    max_snapshots: ClassVar[int] = 300  # beyond it, every other snapshot after the first goes
    needs_slot: ClassVar[bool] = True  # trains: waits for a training slot (attention.slots.TRAININGS)

    def __init__(self, config):
        self.config = config
        self.step = 0
        self.seconds = 0.0  # time spent in optimiser steps (snapshots not counted)
        self.losses: list[float] = []  # one per step
        self.snapshots: list = []  # each with a .step
        self.model = self.optimizer = None
        self._lock = threading.Lock()  # held for every step and snapshot, by one thread at a time
        self._lease = 0  # the play loop allowed to train; 0: none yet
        self._stopping = False
        self.audience = Audience()  # the sessions playing it (attention.training.shared)

    @classmethod
    def configure(cls, task: str, **values) -> object:
        """The config of `task` with `values`; values that are not this run's settings are left out
        (a command line's --layers means nothing to a tiny task)."""
        names = {f.name for f in dataclasses.fields(cls.Config)}
        return cls.Config(**{k: v for k, v in values.items() if k in names})

    # --- where it stands ----------------------------------------------------------------------

    @property
    def chunk(self) -> int:
        """Steps between snapshots: a page draws after each chunk."""
        return self.config.snapshot_every

    @property
    def out_of_time(self) -> bool:
        return self.seconds >= self.limit

    @property
    def done(self) -> bool:
        return self.step >= self.config.steps or self.out_of_time

    @property
    def stopped(self) -> bool:
        """The model and optimiser are freed: the curves and snapshots are all that is left."""
        return self.model is None

    @property
    def complete(self) -> bool:
        """Every step taken (not cut short by the time limit)."""
        return self.step >= self.config.steps

    @property
    def resumable(self) -> bool:
        return not self.stopped and not self.done

    # --- training -----------------------------------------------------------------------------

    def lease(self) -> int:
        """A new play loop's right to train: the loop that held the run before stops at its next step."""
        self._lease = lease = next(_leases)
        return lease

    def train(self, steps: int, lease: int | None = None) -> int:
        """Up to `steps` optimiser steps (never past config.steps or the time limit), with a snapshot
        every config.snapshot_every steps and at the end; returns the steps taken. With a `lease`,
        only while it is the run's newest one. One thread trains at a time (another waits)."""
        taken = 0
        with self._lock:
            while taken < steps and not self.done and self._may_train(lease):
                started = time.perf_counter()
                loss = self._step()
                self.seconds += time.perf_counter() - started
                self.step += 1
                taken += 1
                self.losses.append(loss)
                self._after_step()
                if self.step % self.config.snapshot_every == 0 or self.done:
                    self._keep_snapshot()  # not counted as training time
        return taken

    def _may_train(self, lease: int | None) -> bool:
        return not self._stopping and self.model is not None and (lease is None or lease == self._lease)

    def pause(self) -> None:
        """Ends every play loop's lease; returns once the step in flight (if any) is over."""
        self._lease = next(_leases)
        with self._lock:
            pass

    def stop(self, then: Callable[[Run], object] | None = None) -> bool:
        """Pauses, runs `then(self)` while the model is still there, then frees the model and the
        optimiser. True the first time; False when the run was already stopped (then never runs)."""
        self._stopping = True
        self._lease = next(_leases)
        with self._lock:
            if self.model is None:
                return False
            try:
                if then is not None:
                    then(self)
            finally:
                self.model = self.optimizer = None
            return True

    def _keep_snapshot(self) -> None:
        if len(self.snapshots) >= self.max_snapshots:  # keep the first and thin out the rest
            del self.snapshots[1::2]
        self._snapshot()
        freeze(self.snapshots[-1])  # every session watching the run reads it: its arrays read-only

    @classmethod
    def seconds_per_step(cls, config, warmup: int = 2, timed: int = 5) -> float:
        """The pace: one step of `config`'s model on this machine now, by the wall clock (a fresh
        run, `warmup` steps, then `timed` steps timed, with the snapshots timing_config keeps).
        The fresh run is stopped."""
        run = cls(cls.timing_config(config))
        try:
            run.train(warmup)
            started = time.perf_counter()
            run.train(timed)
            return (time.perf_counter() - started) / max(1, run.step - warmup)
        finally:
            run.stop()

    @classmethod
    def timing_config(cls, config):
        """`config` with every setting that does not change a step's cost set to one value (and room
        for the steps timed), so a cache of seconds_per_step is keyed by the model's shape alone."""
        return config

    # --- what subclasses write ----------------------------------------------------------------

    def _step(self) -> float:
        """One optimiser step; returns its loss."""
        raise NotImplementedError

    def _after_step(self) -> None:
        """After step, seconds and losses count the step just taken (the induction run's phase)."""

    def _snapshot(self) -> None:
        """Appends this step's snapshot to `snapshots`."""
        raise NotImplementedError

    @property
    def name(self) -> str:
        """The run in a few words, for the command line ("reverse a sequence", "induction, 2 layers")."""
        raise NotImplementedError

    @classmethod
    def title(cls, config) -> str:
        """The run of `config` in a few words, for a learner, in the language of the page drawing
        it (call it while drawing: a page keeps the config, never the words)."""
        raise NotImplementedError

    def save(self, folder: str | Path) -> Path:
        raise NotImplementedError

    def report(self) -> list[str]:
        raise NotImplementedError
