"""Timing and peak memory of one call.

Timing: torch.utils.benchmark.Timer on the CPU and CUDA (its clock synchronises the GPU, so a
time covers the computation, not just the launch); on Apple's MPS our own loop synchronises
around every round. Peak memory: the CUDA caching allocator's peak, or on the CPU the RSS
high-water mark of this process (Linux), so measure in a process of its own.
"""

from __future__ import annotations

import ctypes
import statistics
import time
from collections.abc import Callable

import torch
import torch.utils.benchmark as benchmark

from attention.devices import synchronize

# The smallest rise peak_bytes can see, by device: the RSS moves in 4 KiB pages; the CUDA caching
# allocator rounds every block up to 512 bytes. A peak of 0 is "less than this", not "nothing": the
# call fit in memory the process already held.
PEAK_RESOLUTION = {"cpu": 4096, "cuda": 512}


def time_call(fn: Callable[[], object], device: str, min_seconds: float = 0.01, rounds: int = 5) -> float:
    """Median seconds per call over about `rounds` × `min_seconds` of calls, after a warm-up
    (allocator, kernels), with the server's thread count."""
    if device == "mps":
        return _time_synchronised(fn, device, min_seconds, rounds)
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    timer.timeit(1)  # warm-up
    return timer.blocked_autorange(min_run_time=min_seconds * rounds).median


def _time_synchronised(fn: Callable[[], object], device: str, min_seconds: float, rounds: int) -> float:
    """Timer's clock synchronises CUDA only: here the queue is synchronised around every round."""
    fn()
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    n = max(1, min(1000, int(min_seconds / max(time.perf_counter() - start, 1e-7))))
    times = []
    for _ in range(rounds):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(n):
            fn()
        synchronize(device)
        times.append((time.perf_counter() - start) / n)
    return statistics.median(times)


def proc_status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


_libc = None  # set by prepare_cpu_memory_measurement


def prepare_cpu_memory_measurement() -> bool:
    """Whether this process can measure its peak CPU memory (Linux, glibc); loads what it needs.
    Only for a process of its own: the CLI, or the Scaling page's child process."""
    global _libc
    try:
        open("/proc/self/clear_refs", "w").close()
        _libc = ctypes.CDLL("libc.so.6")
        _libc.malloc_trim  # noqa: B018 (glibc only)
        return True
    except (OSError, AttributeError):
        return False


def peak_bytes(fn: Callable[[], object], device: str) -> int | None:
    """Peak memory while fn() runs and its result is alive, above what was in use before.
    CUDA: the caching allocator's peak. CPU: the RSS high-water mark, reset first (Linux only;
    None elsewhere, or before prepare_cpu_memory_measurement()). On the CPU it counts every thread
    of the process: use a process of its own. RSS moves in 4 KiB pages."""
    if device == "cuda":
        synchronize(device)
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        result = fn()
        synchronize(device)
        del result
        return torch.cuda.max_memory_allocated() - before
    if device != "cpu":
        return None
    if _libc is None:
        return None
    # Give freed heap pages back first: reused without a page fault, they would hide the peak.
    _libc.malloc_trim(0)
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current RSS
        before = proc_status_kib("VmRSS")
        result = fn()
        peak = proc_status_kib("VmHWM")
        del result
    except (OSError, KeyError):
        return None
    return max(0, peak - before) * 1024
