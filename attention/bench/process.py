"""A scaling sweep in a process of its own, as the Scaling page runs it: its peak memory is then
its own, and stopping it is killing the process, which frees everything it held.

    params = {"tokens": [8, 16, 32], "variants": ["mha", "sdpa"], "devices": ["cpu"],
              "modes": ["forward", "trace"], "d": 64, "heads": 4, "causal": True}
    with SweepProcess(params) as sweep:   # runs `python -m attention.bench scaling --jsonl ...`
        for row in sweep:                 # one dict (SCALING_COLUMNS) per measurement, as it lands
            ...
    sweep.error                           # the last line it wrote to stderr if it failed, else None

Leaving the `with` block early (a Stop, an exception) kills the child.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import torch

from attention.bench.sweep import scaling_points

ROOT = Path(__file__).resolve().parents[2]  # where `python -m attention.bench` finds the package
TOKENS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)  # lengths a sweep may run
# The largest attention matrix (B·H·T²·4 bytes) a sweep may build per device. A forward holds ~4
# of them at its peak and a trace ~5, in a child process beside the server: on the CPU this keeps
# the child under ~400 MB (a shared server's RAM); a GPU has its own memory.
MAX_ATTENTION_BYTES = {"cpu": 64 * 2**20, "cuda": 2 * 2**30, "mps": 256 * 2**20}


def attention_limit(devices: list[str]) -> int:
    """The largest attention matrix, in bytes, allowed on the most limited of `devices`."""
    return min(MAX_ATTENTION_BYTES.get(device, MAX_ATTENTION_BYTES["cpu"]) for device in devices or ["cpu"])


def allowed_tokens(devices: list[str], heads: int) -> list[int]:
    """The lengths of TOKENS whose attention matrices (H·T²·4 bytes) fit on every device."""
    limit = attention_limit(devices)
    return [t for t in TOKENS if heads * t * t * 4 <= limit]


def command(params: dict) -> list[str]:
    """The child process that runs the sweep `params` (tokens, variants, modes, devices, d, heads,
    causal). It runs with this process's torch thread count (one, on a server): a sweep shares
    the machine with a class."""
    options = {
        "tokens": ",".join(map(str, params["tokens"])),
        "variants": ",".join(params["variants"]),
        "modes": ",".join(params["modes"]),
        "devices": ",".join(params["devices"]),
        "d": str(params["d"]),
        "heads": str(params["heads"]),
        "threads": str(torch.get_num_threads()),
    }
    arguments = [sys.executable, "-m", "attention.bench", "scaling", "--jsonl"]
    for name, value in options.items():
        arguments += [f"--{name}", value]
    return arguments + ([] if params["causal"] else ["--no-causal"])


class SweepProcess:
    """One sweep in a child process: iterate for its rows; `total` is how many will come."""

    def __init__(self, params: dict):
        self.params = params
        self.total = len(
            scaling_points(params["tokens"], params["variants"], params["devices"], params["modes"])
        )
        self.error: str | None = None
        self._child: subprocess.Popen | None = None

    def __enter__(self) -> SweepProcess:
        self._child = subprocess.Popen(
            command(self.params), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        return self

    def __iter__(self) -> Iterator[dict]:
        for line in self._child.stdout:
            yield json.loads(line)
        if self._child.wait() != 0:
            self.error = (self._child.stderr.read().strip().splitlines() or ["?"])[-1]

    def __exit__(self, *exc) -> None:
        if self._child.poll() is None:
            self._child.kill()
            self._child.wait()
