"""Timing and peak memory of one call."""

import pytest
import torch

from attention.bench import measure


def test_cpu_peak_memory_sees_a_large_tensor():
    if not measure.prepare_cpu_memory_measurement():
        pytest.skip("needs Linux /proc and glibc")
    peak = measure.peak_bytes(lambda: torch.ones(16 * 2**20 // 4), "cpu")  # 16 MiB
    assert 15 * 2**20 <= peak < 40 * 2**20


def test_cuda_timing_synchronises_the_gpu(monkeypatch):
    """torch.utils.benchmark's clock synchronises the accelerator before every reading, so a GPU
    time covers the computation, not the launch."""
    calls = []
    monkeypatch.setattr(torch.accelerator, "is_available", lambda: True)
    monkeypatch.setattr(torch.accelerator, "synchronize", lambda *a: calls.append("sync"))
    seconds = measure.time_call(lambda: None, "cuda", min_seconds=1e-4, rounds=3)
    assert seconds >= 0 and len(calls) >= 2


def test_mps_timing_synchronises_around_every_round(monkeypatch):
    calls = []
    monkeypatch.setattr(measure, "synchronize", lambda device: calls.append(device))
    seconds = measure.time_call(lambda: None, "mps", min_seconds=1e-4, rounds=3)
    assert seconds >= 0
    assert calls.count("mps") == 2 + 2 * 3  # after the warm-up calls, and around every round


def test_cpu_timing_measures_the_call():
    import time

    assert 0.002 <= measure.time_call(lambda: time.sleep(0.003), "cpu", min_seconds=0.01, rounds=2) < 0.05
