"""Every limit on how much runs at once in a server process, in one place. Heavy work (trainings,
scaling sweeps, model loads) waits in a line and learns how many runs are ahead of it; the
Explorer's millisecond traces wait for a semaphore (TRACES). No Streamlit.

A lecture hall presses Play at the same moment; two cores cannot train 30 models and keep 30
Explorers interactive. A run asks for a slot with its ticket, again and again (each ask is also
its heartbeat); the first `capacity` tickets in line run. A ticket that stops asking (a closed
tab, a page left) is dropped after `lease` seconds, and a Ticket that is garbage-collected
(Streamlit dropped the session's state) gives its place back at once. A session holds one place
in each line at most: asking with a new ticket drops its old one (the new one queues at the back).
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref

from attention.settings import current

_ids = itertools.count(1)


class Slots:
    def __init__(self, name: str, capacity: int, lease: float = 60.0):
        if capacity < 1:
            raise ValueError(f"{name}: capacity {capacity} must be at least 1")
        self.name, self.capacity, self.lease = name, capacity, lease
        self._lock = threading.RLock()  # a ticket collected while it is held releases through it
        self._line: dict[int, float] = {}  # ticket id -> last heard from, in arrival order
        self._owners: dict[str, int] = {}  # a session's ticket in this line

    def ask(self, ticket: Ticket) -> int:
        """0: run now (the ticket holds a slot); n > 0: n runs are ahead of it. Joins the line
        on the first ask; every ask renews the lease."""
        now = time.monotonic()
        with self._lock:
            for key, seen in list(self._line.items()):
                if now - seen > self.lease:
                    self._line.pop(key, None)  # stopped asking: a closed tab (or collected meanwhile)
            self._line[ticket.id] = now  # keeps its place (dict order) when already in line
            place = list(self._line).index(ticket.id)
        return max(0, place - self.capacity + 1)

    def release(self, ticket: Ticket) -> None:
        self._release_id(ticket.id)

    def _release_id(self, key: int) -> None:
        with self._lock:
            self._line.pop(key, None)
            for owner in [o for o, k in self._owners.items() if k == key]:
                del self._owners[owner]

    @property
    def running(self) -> int:
        with self._lock:
            return min(self.capacity, len(self._line))

    @property
    def waiting(self) -> int:
        with self._lock:
            return max(0, len(self._line) - self.capacity)

    def ticket(self, owner: str | None = None) -> Ticket:
        """A new ticket; an `owner` (a session) that held one in this line loses that one now."""
        ticket = Ticket(self)
        if owner is not None:
            with self._lock:
                old = self._owners.get(owner)
                self._owners[owner] = ticket.id
                self._line.pop(old, None)
        return ticket


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
_settings = current()
TRAININGS = Slots("trainings", _settings.training_slots)
SWEEPS = Slots("sweeps", _settings.sweep_slots)
MODEL_LOADS = Slots("model loads", _settings.model_load_slots)
# The Explorer's traces take milliseconds, so they wait for a plain semaphore, not in a line: at
# most this many are built at once in a process. A trace at the caps needs ~50 MB while it is
# built (benchmarks/memory_budget.py), so 30 students at the caps at once stay ~600 MB lower.
MAX_CONCURRENT_RUNS = _settings.max_concurrent_runs
TRACES = threading.BoundedSemaphore(MAX_CONCURRENT_RUNS)
