"""Grouped-query attention (attention/modern/gqa.py) against the book's llama3.GroupedQueryAttention,
and against chapter 3's MultiHeadAttention when every query head has its own key/value head."""

import pytest
import torch

from attention.chapter3.modules import MultiHeadAttention as ChapterMHA
from attention.chapter3.modules import causal_mask
from attention.modern import GroupedQueryAttention, compute_rope_params, kv_cache_bytes, sliding_window_mask

llama3 = pytest.importorskip("llms_from_scratch.llama3")


@pytest.mark.parametrize(("heads", "groups"), [(8, 8), (8, 4), (8, 2), (8, 1), (4, 2), (1, 1)])
def test_same_seed_same_weights_same_outputs_as_the_book(heads, groups):
    d_in, d_out, tokens = 16, 32, 23
    torch.manual_seed(123)
    book = llama3.GroupedQueryAttention(d_in, d_out, heads, groups)
    torch.manual_seed(123)
    ours = GroupedQueryAttention(d_in, d_out, heads, groups)
    assert all(
        torch.equal(a, b) for a, b in zip(ours.state_dict().values(), book.state_dict().values(), strict=True)
    )
    x = torch.randn(2, tokens, d_in)
    cos, sin = compute_rope_params(d_out // heads, context_length=64)
    mask = causal_mask(64)
    expected = book(x, mask, cos, sin)
    torch.testing.assert_close(ours(x, mask, cos, sin), expected, rtol=0, atol=0)
    trace = ours.trace(x, mask, cos, sin)
    torch.testing.assert_close(trace.output, expected, rtol=1e-6, atol=1e-6)
    assert (trace.kv_groups, trace.rope, trace.keys.shape) == (
        groups,
        True,
        (2, heads, tokens, d_out // heads),
    )


def test_the_heads_of_one_group_read_the_same_keys_and_values():
    torch.manual_seed(0)
    gqa = GroupedQueryAttention(8, 16, num_heads=4, num_kv_groups=2)
    trace = gqa.trace(torch.randn(1, 9, 8), causal_mask(9))
    for h in range(4):
        partner = h ^ 1  # heads 0, 1 share group 0; heads 2, 3 group 1
        assert torch.equal(trace.keys[:, h], trace.keys[:, partner])
        assert torch.equal(trace.values[:, h], trace.values[:, partner])
    assert not torch.equal(trace.keys[:, 0], trace.keys[:, 2])
    assert not torch.equal(trace.queries[:, 0], trace.queries[:, 1])  # queries stay per head


def test_one_group_per_head_is_chapter_3s_multi_head_attention():
    """groups = heads, no RoPE: the book's MHA with the same projections (its out_proj's bias zero)."""
    torch.manual_seed(5)
    gqa = GroupedQueryAttention(6, 12, num_heads=3, num_kv_groups=3)
    mha = ChapterMHA(6, 12, context_length=20, dropout=0.0, num_heads=3)
    with torch.no_grad():
        for name in ("W_query", "W_key", "W_value", "out_proj"):
            getattr(mha, name).weight.copy_(getattr(gqa, name).weight)
        mha.out_proj.bias.zero_()
    x = torch.randn(2, 20, 6)
    torch.testing.assert_close(
        gqa(x, causal_mask(20), None, None) if False else gqa.trace(x, causal_mask(20)).output, mha(x)
    )


def test_a_sliding_window_in_the_mask():
    torch.manual_seed(3)
    gqa = GroupedQueryAttention(8, 16, num_heads=4, num_kv_groups=1)
    trace = gqa.trace(torch.randn(1, 12, 8), sliding_window_mask(12, window=4), window=4)
    weights = trace.weights[0, 0]  # (T, T)
    back = torch.arange(12)[:, None] - torch.arange(12)[None, :]  # how far back each key is
    inside = (back >= 0) & (back < 4)
    assert torch.all(weights[~inside] == 0) and torch.all(weights[inside] > 0)
    assert trace.window == 4 and trace.step_names()[-1] == "weights"


def test_heads_that_do_not_split_into_groups_are_refused():
    with pytest.raises(ValueError, match="divisible by num_kv_groups"):
        GroupedQueryAttention(8, 24, num_heads=6, num_kv_groups=4)


def test_the_cache_shrinks_by_heads_over_groups():
    mha = kv_cache_bytes(1024, num_kv_groups=32, head_dim=128, n_layers=32, bytes_per_value=2)
    assert mha == 2 * 1024 * 32 * 128 * 32 * 2  # Llama 2 7B's 0.5 GiB at 1,024 tokens (fp16)
    assert kv_cache_bytes(1024, 8, 128, 32, 2) * 4 == mha  # Llama 3 8B: 8 groups
    assert kv_cache_bytes(1024, 1, 128, 32, 2) * 32 == mha  # multi-query
