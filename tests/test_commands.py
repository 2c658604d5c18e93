"""Every command README names still starts: each `python -m MODULE` answers --help."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(
    set(re.findall(r"python -m ([a-z_]+(?:\.[a-z_]+)*)\b", (ROOT / "README.md").read_text())) - {"pytest"}
)
OLD = [["attention.bundled"], ["attention.training", "bundled"]]  # old invocations, still working


@pytest.mark.slow
@pytest.mark.parametrize("command", [[m] for m in MODULES] + [["attention.training", "copying"], *OLD])
def test_a_readme_command_starts(command):
    result = subprocess.run(
        [sys.executable, "-m", *command, "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0 and "usage:" in result.stdout, result.stderr[-2000:]


def test_readme_names_the_commands():
    assert {"attention.bench", "attention.training", "benchmarks.classroom"} <= set(MODULES)


def test_the_load_script_finds_its_reference_page():
    """Read, not imported: tests never import benchmarks (the benchmark imports tests' client)."""
    script = (ROOT / "benchmarks" / "classroom.py").read_text()
    assert 'Path(__file__).resolve().parent / "reference_app.py"' in script
    assert (ROOT / "benchmarks" / "reference_app.py").is_file()
