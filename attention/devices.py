"""Which devices exist, and which one a request resolves to (with the reason for a fallback). The
names and reasons are for the UI: in this rerun's language (tr)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attention.i18n import tr, tr_n
from attention.settings import current


@dataclass(frozen=True)
class DeviceChoice:
    requested: str  # what the config asked for: auto, cpu, cuda or mps
    device: str  # what the computation runs on
    name: str  # human name, e.g. "NVIDIA H100 80GB HBM3" or "CPU (2 threads)"
    reason: str | None = None  # why `device` differs from `requested`, for the UI


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps and mps.is_available())


def available_devices() -> list[str]:
    """cpu always; cuda and mps when torch sees them, best first after cpu."""
    found = ["cpu"]
    if torch.cuda.is_available():
        found.append("cuda")
    if _mps_available():
        found.append("mps")
    return found


def device_name(device: str) -> str:
    if device == "cuda":
        return torch.cuda.get_device_name(0)
    if device == "mps":
        return "Apple GPU (MPS)"
    threads = torch.get_num_threads()
    return tr_n("CPU ({n} thread)", "CPU ({n} threads)", threads, n=threads)


def resolve_device(requested: str = "auto") -> DeviceChoice:
    """`auto` picks cuda, then mps, then cpu; an absent device falls back to cpu with a reason."""
    present = available_devices()
    if requested == "auto":
        device = next(d for d in ("cuda", "mps", "cpu") if d in present)
        return DeviceChoice(requested, device, device_name(device))
    if requested in present:
        return DeviceChoice(requested, requested, device_name(requested))
    label = {"cuda": "CUDA GPU", "mps": "Apple GPU (MPS)"}.get(requested, repr(requested))
    reason = tr("No {device} is available here, so this runs on the CPU.", device=label)
    return DeviceChoice(requested, "cpu", device_name("cpu"), reason)


def synchronize(device: str) -> None:
    """Wait for queued GPU work, so that wall-clock timings measure the computation."""
    if device == "cuda":
        torch.cuda.synchronize()
    elif device == "mps":
        torch.mps.synchronize()


def configure_torch_threads(default: int = 1) -> int:
    """Set torch's intra-op thread count for a shared server: ATTENTION_TORCH_THREADS, else
    `default`. The pool is process-wide, so 30 sessions' reruns would each fan out over every
    core and fight; one thread per computation lets the reruns themselves run side by side (and
    the attention matrices here are small). Returns the count set."""
    threads = current().torch_threads or default
    torch.set_num_threads(threads)
    return threads
