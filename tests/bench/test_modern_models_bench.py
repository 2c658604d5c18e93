"""benchmarks/modern_models.py --quick: tiny Qwen3 and SmolLM2 shapes through every measurement
(trace against transformers, each shape's memory in a process of its own), each figure's line
printed. Run as a command (tests never import benchmarks)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_quick_run_prints_every_figure():
    pytest.importorskip("transformers")
    command = [sys.executable, "-m", "benchmarks.modern_models", "--quick"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr[-3000:]
    assert re.search(r"^# load average [\d.]+ \(1 min\)", out, re.M)
    for name in ("Qwen3Model.trace \\(every intermediate\\)", "Qwen3Model.forward"):
        assert re.search(rf"^{name} +[\d.]+ ms +[\d.]+ x transformers$", out, re.M), name
    assert re.search(r"^Qwen3ForCausalLM\(output_attentions\) +[\d.]+ ms +1\.00 x transformers$", out, re.M)
    diff = float(
        re.search(r"^max \|logits difference\| (\S+) \(the logits reach [\d.]+\)$", out, re.M).group(1)
    )
    assert diff < 1e-4  # the same weights: the same logits
    for shape, target in (("tiny Qwen3", "2.5"), ("tiny SmolLM2", "1.2")):
        section = out[out.index(f"== 2. memory: {shape}'s shape") :]
        for label in (
            "after imports",
            "after the model",
            "through the page cache of 8",
            "all 3 views held",
            "one trace in flight",
        ):
            assert re.search(rf"{label}.* [\d.]+ GB$", section, re.M), (shape, label)
        assert "weights (2, " in section and "float32" in section
        assert re.search(
            rf"^peak RSS as the app holds them [\d.]+ GB against the {target} GB target \((within|OVER)\)$",
            section,
            re.M,
        )
