"""benchmarks/class_mode.py, small and fast: the teacher asks through its page, 10 students answer
at once (2 of them reload their page and pick again) and 5 follow a sent view on one server with
the SQLite store. Run as a command (tests never import benchmarks)."""

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
    # students 4 and 9 reload and pick the next option: 0 1 2 0 [1->2] 2 0 1 2 [0->1]
    assert (
        "store: 10 answered of 10 joined (option 0: 3, option 1: 3, option 2: 4); last picks 10: exact" in out
    )
    assert "reloads 2 " in out and "re-joins that made a new student 0; counted once: yes" in out
    assert "teacher's page showed 10 answers" in out and "(last shown: 10 of 10)" in out
    assert "follow: 5 of 5 followers switched to learn?sentence=1" in out
    assert re.search(r"errors 0; \d+ timer reruns", out), out
