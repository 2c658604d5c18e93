"""requirements.txt resolves to the CPU build of torch: no CUDA, no nvidia-* packages."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def needs_registry(test):
    """Resolving needs PyPI (skipped with the reason when offline) and takes ~15 s: slow."""
    return pytest.mark.slow(pytest.mark.network(test))


@pytest.fixture(scope="module")
def resolved(tmp_path_factory) -> dict[str, str]:
    """What `pip install -r requirements.txt` would install into an empty environment (a dry
    run that resolves everything, here, from nothing)."""
    report = tmp_path_factory.mktemp("pip") / "report.json"
    env = {**os.environ, "PIP_RETRIES": os.environ.get("PIP_RETRIES", "1")}  # see tests/run.sh
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--disable-pip-version-check",
            "--report",
            str(report),
            "-r",
            str(ROOT / "requirements.txt"),
        ],
        check=True,
        env=env,
        timeout=900,
        capture_output=True,
    )
    install = json.loads(report.read_text())["install"]
    return {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in install}


@needs_registry
def test_torch_is_the_pinned_cpu_build(resolved):
    expected = "2.13.0+cpu" if sys.platform == "linux" else "2.13.0"
    assert resolved["torch"] == expected


@needs_registry
def test_no_cuda_packages(resolved):
    cuda = [name for name in resolved if name.startswith("nvidia-") or name in ("triton", "cuda-python")]
    assert cuda == []


@needs_registry
def test_everything_else_is_pinned_as_written(resolved):
    assert (
        resolved["streamlit"] == "1.67.0" and resolved["plotly"] == "7.1.0" and resolved["pandas"] == "3.1.1"
    )


def test_linux_asks_for_the_cpu_build_by_name():
    """Not only here (where a local +cpu wheel would satisfy a bare ==2.13.0): anywhere, e.g. on
    Community Cloud, Linux must ask for +cpu, from PyTorch's wheel page."""
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    linux = [line for line in lines if line.startswith("torch") and 'sys_platform == "linux"' in line]
    assert linux == ['torch==2.13.0+cpu ; sys_platform == "linux"']
    assert "--find-links https://download.pytorch.org/whl/torch/" in lines
