"""Every implementation with the shared weights against the float64 reference."""

import pytest
import torch

from attention import bench
from attention.chapter3.modules import MultiHeadAttention
from tests import book


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("d_in, d_out, heads", [(16, 16, 4), (8, 8, 1), (6, 12, 3)])
def test_every_variant_matches_the_reference_in_float32(causal, d_in, d_out, heads):
    x = bench.embedding_input(11, d_in)
    table = bench.equivalence_table(x, d_out, heads, causal, devices=["cpu"], min_seconds=1e-4)
    assert list(table["variant"]) == list(bench.IMPLEMENTATIONS)
    ran = table[[bench.applicable(key, d_in, d_out) is None for key in table["variant"]]]
    assert (ran["max |diff|"] < 1e-5).all(), table[["variant", "max |diff|"]]
    assert set(ran["output shape"]) <= {f"(1, 11, {d_out})", f"(1, 11, {d_in})"}
    if d_in != d_out:  # only the two that need d_in = d_out sit out, and say why
        assert set(table.loc[ran.index.symmetric_difference(table.index), "variant"]) == {
            "simplified",
            "torch_mha",
        }


def test_the_reference_is_the_books_multi_head_attention():
    torch.manual_seed(123)  # the book's draw order: MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    mha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    w = bench.Weights.draw(3, 2, 2, seed=123)
    assert torch.equal(w.wq, mha.W_query.weight) and torch.equal(w.bo, mha.out_proj.bias)
    out = bench.reference(torch.tensor([book.INPUTS]), w.wq, w.wk, w.wv, 2, True, w.wo, w.bo)
    assert torch.allclose(out[0].float(), torch.tensor(book.MHA_OUTPUT), atol=5e-5)


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
        "variant",
        "module",
        "computes",
        "output shape",
        "max |diff|",
        "parameters",
        "note",
        "ms (cpu)",
    ]
    assert (table["ms (cpu)"] > 0).all()


def test_the_implementations_fields_say_what_each_computes():
    """multi_head, traces, function: read by field, never from the words in `computes`."""
    w = bench.Weights.draw(8, 8, 2, seed=1)
    x = bench.embedding_input(5, 8)
    for key, implementation in bench.IMPLEMENTATIONS.items():
        loaded = bench.load(key, w, 2, True, 5)
        assert (loaded.trace is not None) == implementation.traces
        if implementation.traces:
            assert loaded.trace(x).num_heads == (2 if implementation.multi_head else 1)
        assert (loaded.parameters == 0) == (implementation.function or key == "simplified")
        assert bool(implementation.square_only) == (bench.applicable(key, 8, 4) is not None)


@pytest.mark.parametrize("heads", [1, 2, 5, 10])
def test_todays_rows_for_every_head_count_and_a_window_that_hides_keys(heads):
    """GQA takes the most key/value heads that still share (an odd count: a divisor, or 1); on a
    short sentence the window and the tiles still cut (half the tokens, a third)."""
    x = bench.embedding_input(6, 10)
    table = bench.equivalence_table(x, 10, heads, devices=["cpu"], min_seconds=1e-4)
    rows = table.set_index("variant")
    assert (rows.loc[["gqa", "swa", "online"], "max |diff|"] < 1e-5).all()
    w = bench.Weights.draw(10, 10, heads, seed=123)
    gqa, swa = bench.load("gqa", w, heads, True, 6), bench.load("swa", w, heads, True, 6)
    assert not torch.allclose(gqa.forward(x), swa.forward(x))  # a window of 3 over 6 tokens
