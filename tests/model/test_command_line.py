"""The command line is not a server: it opens any folder its user names, with no setting at all."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from attention.model import catalog

ROOT = Path(__file__).resolve().parents[2]


def test_ablate_opens_a_folder_in_gpt2s_layout_with_no_environment_variable(tmp_path):
    folder = tmp_path / "my-gpt2"
    shutil.copytree(catalog.BUNDLED_PATH, folder)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTENTION_")}  # none of ours set
    argv = [
        "ablate",
        "--model",
        str(folder),
        "--text",
        "<|endoftext|>A b c. A b c.",
        "--heads",
        "1.1",
        "--json",
    ]
    run = subprocess.run(
        [sys.executable, "-m", "attention.model", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert out["schema"] == "attention-explorer/ablate/1" and out["ablation"]["heads"] == ["1.1"]
    assert "only the models in its Model list" not in run.stderr
