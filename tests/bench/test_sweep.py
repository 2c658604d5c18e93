"""The scaling sweep, its summary, and the command line the Scaling page runs."""

import json
import math
import subprocess
import sys

import pandas as pd
import pytest

from attention import bench


def test_scaling_rows_schema_and_order():
    rows = list(bench.scaling_rows((8, 16), ("v2", "mha", "sdpa"), ["cpu"], d=8, heads=2, min_seconds=1e-4))
    frame = pd.DataFrame(rows)
    assert list(frame.columns) == bench.SCALING_COLUMNS
    # every variant at 8 tokens before any at 16; torch's functions have no trace
    assert list(frame["tokens"]) == [8] * 5 + [16] * 5
    assert set(frame[frame["variant"] == "sdpa"]["mode"]) == {"forward"}
    assert (frame["ms"] > 0).all()
    assert (
        list(frame["attention_bytes"])
        == [8 * 8 * 4] * 2 + [2 * 8 * 8 * 4] * 3 + [16 * 16 * 4] * 2 + [2 * 16 * 16 * 4] * 3
    )  # B·H·T²·4, H = 1 for SelfAttention_v2
    summary = bench.scaling_summary(frame)
    assert {"time exponent", "peak / attention"} <= set(summary.columns)


def test_command_line_prints_both_tables(capsys):
    bench.main(["--d", "8", "--heads", "2", "--tokens", "8,16", "--min-seconds", "0.0001"])
    out = capsys.readouterr().out
    assert "# Equivalence" in out and "# Scaling" in out
    assert "F.scaled_dot_product_attention" in out and "time exponent" in out


def test_command_line_jsonl_and_csv(capsys):
    bench.main(["scaling", "--jsonl", "--d", "8", "--heads", "2", "--tokens", "8", "--variants", "mha"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["mode"] for r in rows] == ["forward", "trace"] and set(rows[0]) == set(bench.SCALING_COLUMNS)
    bench.main(
        ["equivalence", "--csv", "--d", "8", "--heads", "2", "--tokens", "4", "--min-seconds", "0.0001"]
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("variant,module,computes") and len(lines) == 2 + len(bench.IMPLEMENTATIONS)


def test_growth_exponent_of_a_quadratic():
    frame = pd.DataFrame(
        [
            {
                "variant": "mha",
                "module": "",
                "mode": "forward",
                "device": "cpu",
                "tokens": t,
                "heads": 1,
                "d": 1,
                "ms": t * t / 100,
                "peak_bytes": None,
                "attention_bytes": 4 * t * t,
            }
            for t in (8, 16, 32)
        ]
    )
    exponents = bench.scaling_summary(frame)["time exponent"].tolist()
    assert math.isnan(exponents[0]) and exponents[1:] == pytest.approx([2.0, 2.0])


def test_the_pages_sweep_runs_in_a_child_with_the_servers_threads_and_dies_when_left():
    params = {
        "tokens": [8, 16],
        "variants": ["mha"],
        "modes": ["forward"],
        "devices": ["cpu"],
        "d": 8,
        "heads": 2,
        "causal": False,
    }
    command = bench.command(params)
    assert "--no-causal" in command and command[command.index("--threads") + 1].isdigit()
    with bench.SweepProcess(params) as sweep:
        assert sweep.total == 2
        row = next(iter(sweep))  # the first measurement; the second is still to come
        child = sweep._child
    assert (row["tokens"], row["variant"], row["mode"]) == (8, "mha", "forward")
    assert child.poll() is not None and sweep.error is None  # leaving early killed it


@pytest.mark.slow  # ~2 s: a child process that fails
def test_a_failing_sweep_says_why():
    params = {
        "tokens": [8],
        "variants": ["no_such_variant"],
        "modes": ["forward"],
        "devices": ["cpu"],
        "d": 8,
        "heads": 2,
        "causal": True,
    }
    with bench.SweepProcess(params) as sweep:
        rows = list(sweep)
    assert rows == [] and "no_such_variant" in sweep.error


def test_the_longest_sweep_fits_the_most_limited_device():
    assert bench.allowed_tokens(["cpu"], 16)[-1] == 1024  # 16 heads x 1024² x 4 B = 64 MiB
    assert bench.allowed_tokens(["cpu", "cuda"], 1) == bench.allowed_tokens(["cpu"], 1)
    assert bench.allowed_tokens(["cuda"], 1)[-1] == 16384 and bench.attention_limit([]) == 64 * 2**20


def test_todays_variants_in_the_sweep_online_softmax_holds_less():
    """GQA, the sliding window and the online softmax are sweep variants; in a process of its own
    (as the Scaling page runs it), the online softmax's forward peaks far below
    MultiHeadAttention's: it holds T x 64 scores at a time, not T x T."""
    command = [sys.executable, "-m", "attention.bench", "scaling", "--jsonl", "--d", "16", "--heads", "4"]
    command += ["--tokens", "2048", "--variants", "mha,gqa,swa,online", "--modes", "forward"]
    command += ["--min-seconds", "0.0001"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    peak = {r["variant"]: r["peak_bytes"] for r in rows}
    assert set(peak) == {"mha", "gqa", "swa", "online"} and all(r["ms"] > 0 for r in rows)
    attention_matrix = 4 * 2048 * 2048 * 4  # H·T²·4 bytes: 64 MiB (measured: mha 196, online 16-26)
    assert peak["mha"] > attention_matrix and peak["online"] < peak["mha"] / 4, peak
