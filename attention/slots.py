"""Per-process slots for heavy work (trainings, scaling sweeps, model loads): at most `capacity` run at once,
the rest wait in line and learn how many runs are ahead of them. No Streamlit.

A lecture hall presses Play at the same moment; two cores cannot train 30 models and keep 30
Explorers interactive. A run asks for a slot with its ticket, again and again (each ask is also
its heartbeat); the first `capacity` tickets in line run. A ticket that stops asking (a closed
tab, a page left) is dropped after `lease` seconds, and a Ticket that is garbage-collected
(Streamlit dropped the session's state) gives its place back at once.
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref

from attention.settings import number

_ids = itertools.count(1)


class Slots:
    def __init__(self, name: str, capacity: int, lease: float = 60.0):
        if capacity < 1:
            raise ValueError(f"{name}: capacity {capacity} must be at least 1")
        self.name, self.capacity, self.lease = name, capacity, lease
        self._lock = threading.Lock()
        self._line: dict[int, float] = {}  # ticket id -> last heard from, in arrival order

    def ask(self, ticket: Ticket) -> int:
        """0: run now (the ticket holds a slot); n > 0: n runs are ahead of it. Joins the line
        on the first ask; every ask renews the lease."""
        now = time.monotonic()
        with self._lock:
            for key, seen in list(self._line.items()):
                if now - seen > self.lease:
                    del self._line[key]  # stopped asking: a closed tab
            self._line[ticket.id] = now  # keeps its place (dict order) when already in line
            place = list(self._line).index(ticket.id)
        return max(0, place - self.capacity + 1)

    def release(self, ticket: Ticket) -> None:
        self._release_id(ticket.id)

    def _release_id(self, key: int) -> None:
        with self._lock:
            self._line.pop(key, None)

    @property
    def running(self) -> int:
        with self._lock:
            return min(self.capacity, len(self._line))

    @property
    def waiting(self) -> int:
        with self._lock:
            return max(0, len(self._line) - self.capacity)

    def ticket(self) -> Ticket:
        return Ticket(self)


class Ticket:
    """A place in one Slots' line; garbage-collected, it leaves the line."""

    def __init__(self, slots: Slots):
        self.id = next(_ids)
        self.slots = slots
        weakref.finalize(self, slots._release_id, self.id)

    def ask(self) -> int:
        return self.slots.ask(self)

    def release(self) -> None:
        self.slots.release(self)


# Defaults for a 2-core server: one training and one sweep at a time leave a core for everyone's
# Explorer (a training gives the interpreter back between chunks; torch uses one thread per
# computation: attention.devices.configure_torch_threads). One model load at a time: a load's
# memory peaks while it reads the checkpoint (GPT-2 medium: ~1.4 GB), and a loaded model is then
# shared by every session.
TRAININGS = Slots("trainings", number("ATTENTION_TRAINING_SLOTS", 1))
SWEEPS = Slots("sweeps", number("ATTENTION_SWEEP_SLOTS", 1))
MODEL_LOADS = Slots("model loads", number("ATTENTION_MODEL_LOAD_SLOTS", 1))
