import json
import math

import pandas as pd
import pytest
import torch

from attention import bench
from tests.conftest import BOOK_INPUTS, BOOK_MHA_OUTPUT


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("d_in, d_out, heads", [(16, 16, 4), (8, 8, 1), (6, 12, 3)])
def test_every_variant_matches_the_reference_in_float32(causal, d_in, d_out, heads):
    x = bench.embedding_input(11, d_in)
    table = bench.equivalence_table(x, d_out, heads, causal, devices=["cpu"], min_seconds=1e-4)
    assert list(table["variant"]) == list(bench.VARIANTS)
    ran = table[table["note"].str.startswith("needs") == False]  # noqa: E712
    assert (ran["max |diff|"] < 1e-5).all(), table[["variant", "max |diff|"]]
    assert set(ran["output shape"]) <= {f"(1, 11, {d_out})", f"(1, 11, {d_in})"}
    if d_in != d_out:  # only the two that need d_in = d_out sit out, and say why
        assert set(table.loc[ran.index.symmetric_difference(table.index), "variant"]) == {
            "simplified",
            "torch_mha",
        }


def test_the_reference_is_the_books_multi_head_attention():
    torch.manual_seed(123)  # the book's draw order: MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    mha = bench.modules.MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    w = bench.Weights.draw(3, 2, 2, seed=123)
    assert torch.equal(w.wq, mha.W_query.weight) and torch.equal(w.bo, mha.out_proj.bias)
    out = bench.reference(torch.tensor([BOOK_INPUTS]), w.wq, w.wk, w.wv, 2, True, w.wo, w.bo)
    assert torch.allclose(out[0].float(), torch.tensor(BOOK_MHA_OUTPUT), atol=5e-5)


def test_a_wrong_weight_shows_as_a_difference():
    """The table can fail: a variant that computed something else would stand out."""
    w = bench.Weights.draw(8, 8, 2, seed=1)
    x = bench.embedding_input(5, 8)
    loaded = bench.load("mha", w, 2, True, 5)
    not_causal = bench.reference(x, w.wq, w.wk, w.wv, 2, False, w.wo, w.bo)
    assert (loaded.forward(x).double() - not_causal).abs().max() > 1e-3


def test_parameter_counts():
    table = bench.equivalence_table(bench.embedding_input(4, 8), 8, 2, devices=["cpu"], min_seconds=1e-4)
    count = dict(zip(table["variant"], table["parameters"], strict=True))
    assert count["simplified"] == 0 and count["sdpa"] == 0
    assert count["v1"] == count["v2"] == count["causal"] == count["wrapper"] == 3 * 8 * 8
    assert count["mha"] == 3 * 64 + 64 + 8  # out_proj with its bias
    assert count["torch_mha"] == count["mha"] + 3 * 8  # nn.MultiheadAttention always has in_proj_bias


def test_equivalence_schema():
    table = bench.equivalence_table(bench.embedding_input(4, 8), 8, 2, devices=["cpu"], min_seconds=1e-4)
    assert list(table.columns) == [
        "variant", "module", "computes", "output shape", "max |diff|", "parameters", "note", "ms (cpu)",
    ]  # fmt: skip
    assert (table["ms (cpu)"] > 0).all()


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


def test_cpu_peak_memory_sees_a_large_tensor():
    if not bench.prepare_cpu_memory_measurement():
        pytest.skip("needs Linux /proc and glibc")
    peak = bench.peak_bytes(lambda: torch.ones(16 * 2**20 // 4), "cpu")  # 16 MiB
    assert 15 * 2**20 <= peak < 40 * 2**20


def test_timing_synchronises_the_gpu(monkeypatch):
    calls = []
    monkeypatch.setattr(bench, "synchronize", lambda device: calls.append(device))
    seconds = bench.time_call(lambda: None, "cuda", min_seconds=1e-4, rounds=3)
    assert seconds >= 0
    assert calls.count("cuda") == 2 + 2 * 3  # after the warm-up calls, and around every round


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
    assert lines[1].startswith("variant,module,computes") and len(lines) == 2 + len(bench.VARIANTS)


def test_growth_exponent_of_a_quadratic():
    frame = pd.DataFrame(
        [{"variant": "mha", "module": "", "mode": "forward", "device": "cpu", "tokens": t, "heads": 1, "d": 1,
          "ms": t * t / 100, "peak_bytes": None, "attention_bytes": 4 * t * t} for t in (8, 16, 32)]
    )  # fmt: skip
    exponents = bench.scaling_summary(frame)["time exponent"].tolist()
    assert math.isnan(exponents[0]) and exponents[1:] == pytest.approx([2.0, 2.0])
