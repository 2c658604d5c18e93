"""Runs shared by their settings: a class that presses Play on the same settings trains one run.

A lecture hall presses Play together, mostly on the default settings; trainings go one at a time
(attention.slots.TRAININGS), so 30 identical runs would keep the last student waiting half an
hour for a result the first one already has. Instead every session that plays a config joins its
one run: one session's page trains it, the others watch it grow from its current step (its
history included), and when the trainer pauses, stops or leaves, a watcher takes over. A run that
finished stays here (its snapshots, not its model) and replays at once for the next session.

    SHARED.join(kind, config, who)   the run of these settings, made when there is none
    run.audience                     who holds and plays it (run.Audience): claim(), beat(), leave(), drop()

No Streamlit: `who` is any string naming a session.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

from attention.training.run import Run


class Shared:
    """The runs of this process by their settings: live ones while any session holds them (weak
    references: a run nobody holds is freed, as before), finished ones, the last `finished`, for
    good (their snapshots; the model was freed when the run was kept)."""

    def __init__(self, finished: int = 16):
        self._lock = threading.Lock()
        self._live: weakref.WeakValueDictionary[tuple, Run] = weakref.WeakValueDictionary()
        self._done: OrderedDict[tuple, Run] = OrderedDict()
        self.finished = finished

    @staticmethod
    def key(kind: type[Run], config) -> tuple:
        return kind.__name__, config  # configs are frozen dataclasses: hashable, equal by value

    def join(self, kind: type[Run], config, who: str) -> Run:
        """The run of `config`: the finished one, the live one (playing, or paused by the sessions
        that hold it), or a new one (a run stopped or cut short never trains again, so it is
        replaced). A run that needs no training slot is not shared."""
        if not kind.needs_slot:  # a replay: its steps are reads, each session plays its own
            run = kind(config)
            run.audience.hold(who)
            return run
        key = self.key(kind, config)
        with self._lock:
            run = self._done.get(key)
            if run is not None:
                self._done.move_to_end(key)
                return run
            run = self._live.get(key)
            if run is None or (run.stopped and not run.complete):  # stopped or cut short: again
                run = self._live[key] = kind(config)
        run.audience.hold(who)
        return run

    def finished_run(self, kind: type[Run], config) -> Run | None:
        return self._done.get(self.key(kind, config))

    def live(self, kind: type[Run], config, but: str | None = None) -> Run | None:
        """The run of `config` that some session (`but` one) still trains or watches, if any."""
        run = self._live.get(self.key(kind, config))
        return run if run is not None and run.resumable and run.audience.watching(but) else None

    def finish(self, run: Run) -> None:
        """A finished run is kept for the next session that plays its settings; not one the time
        limit cut short (a busy server's partial run is not the answer for those settings)."""
        if not run.needs_slot or not run.complete:
            return
        key = self.key(type(run), run.config)
        with self._lock:
            self._done[key] = run
            self._done.move_to_end(key)
            while len(self._done) > self.finished:
                self._done.popitem(last=False)


SHARED = Shared()
