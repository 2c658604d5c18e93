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
"""

from __future__ import annotations

import asyncio.selector_events as selector_events
import asyncio.unix_events as unix_events

_Loop = selector_events.BaseSelectorEventLoop


def coalesce() -> bool:
    """Patches asyncio's selector loops (Linux, macOS) once; True when it did. The flag drops in
    _process_self_data, which _read_from_self looks up at each call: a loop made before the patch
    (the server's) registered _read_from_self itself as the self-pipe's reader, and keeps it."""
    if getattr(_Loop, "_coalesced", False):
        return False
    write = _Loop._write_to_self

    def _write_to_self(self):
        if getattr(self, "_wakeup_pending", False):
            return
        self._wakeup_pending = True
        write(self)

    _Loop._write_to_self = _write_to_self
    for cls in (_Loop, unix_events._UnixSelectorEventLoop):
        process = cls.__dict__["_process_self_data"]

        def _process_self_data(self, data, process=process):
            self._wakeup_pending = False  # a write from here on wakes the loop again
            process(self, data)

        cls._process_self_data = _process_self_data
    _Loop._coalesced = True
    return True
