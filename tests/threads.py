"""Concurrency checks shared by the tests: how many threads were inside a section at once."""

import threading
import time
from collections.abc import Callable


class Overlap:
    """Counts the threads inside busy() at the same moment; `peak` is the most there ever were."""

    def __init__(self):
        self.active = self.peak = 0
        self._lock = threading.Lock()

    def busy(self, seconds: float) -> None:
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(seconds)
        with self._lock:
            self.active -= 1


def in_threads(count: int, target: Callable[[int], object], timeout: float = 60) -> None:
    """target(0) ... target(count - 1), each in a thread of its own, all started, then all joined;
    AssertionError if one is still running after `timeout` seconds (a hang, not a pass)."""
    threads = [threading.Thread(target=target, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), f"threads still running after {timeout} s"
