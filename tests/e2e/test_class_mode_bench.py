"""benchmarks/class_mode.py, small and fast: 10 students answer at once and 5 follow a sent view on
one server with the SQLite store. Run as a command (tests never import benchmarks)."""

import re
import subprocess
import sys

import pytest

from deploy.local import ROOT


@pytest.mark.slow
def test_the_class_mode_benchmark_counts_every_answer_once():
    command = ["-m", "benchmarks.class_mode", "--students", "10", "--followers", "5", "--store", "sqlite"]
    run = subprocess.run([sys.executable, *command], capture_output=True, text=True, timeout=300, cwd=ROOT)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr[-3000:]
    assert "store: 10 answered of 10 joined (option 0: 4, option 1: 3, option 2: 3); sent 10: exact" in out
    assert "teacher's page showed 10 answers" in out and "(last shown: 10 of 10)" in out
    assert "follow: 5 of 5 followers switched to learn?sentence=1" in out
    assert re.search(r"errors 0; \d+ timer reruns", out), out
