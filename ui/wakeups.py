"""One wake-up of the server's event loop per batch of messages, not one per message.

Every element a page draws reaches the browser through the server's asyncio loop: the script's
thread hands it over with loop.call_soon_threadsafe, and asyncio (3.11) writes a byte to the
loop's self-pipe on every call. An Explorer rerun sends ~60 messages, so ~60 system calls and
as many thread wake-ups; under a classroom's load they were ~20% of the server's busy time
(py-spy, benchmarks/classroom.py). A wake-up that is already pending serves every message queued
before the loop runs: a second byte only wakes it again to find nothing new.

Why it is safe: the flag drops when the loop reads its self-pipe, which it does as one of its
ready callbacks, before it next computes how long to sleep. A callback queued while the flag is
up is already in the loop's ready queue at that point, so the loop does not sleep past it (it
sleeps 0 while anything is ready); one queued after the flag dropped writes its own byte.

Only asyncio's selector loops (Linux, macOS) are patched; elsewhere (Windows' proactor loop)
nothing changes. The private names patched are reached through ui/internals.py (self_pipe).
"""

from __future__ import annotations

import threading

from ui import internals

_WRITE, _PROCESS = internals.self_pipe()  # asyncio's originals, whatever patching happens later
_lock = threading.Lock()
_done = False


def _write_to_self(self):
    if getattr(self, "_wakeup_pending", False):
        return
    self._wakeup_pending = True
    _WRITE(self)


def _processor(cls: type):
    process = _PROCESS[cls]

    def _process_self_data(self, data):
        self._wakeup_pending = False  # a write from here on wakes the loop again
        process(self, data)

    return _process_self_data


def coalesce() -> bool:
    """Patches asyncio's selector loops once per process (True when this call did). The flag
    drops in _process_self_data, which _read_from_self looks up at each call: a loop made before
    the patch (the server's) registered _read_from_self itself as the self-pipe's reader. The
    reader is patched first (internals.patch_self_pipe), so no wake-up written in between leaves
    the flag up."""
    global _done
    with _lock:
        if _done:
            return False
        internals.patch_self_pipe(_write_to_self, _processor)
        _done = True
        return True
