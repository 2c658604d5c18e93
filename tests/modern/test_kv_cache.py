"""The KV cache (attention/modern/kv_cache.py): fed one token at a time it gives, at every
position up to the context length, chapter 3's full causal MultiHeadAttention's row for that token
(the same weights after the same seed), and the same weights row by row."""

import pytest
import torch

from attention.chapter3.modules import MultiHeadAttention as ChapterMHA
from attention.modern import MultiHeadAttention
from attention.modern.kv_cache import generation_trace

CONTEXT = 64


def pair(seed=123, d_in=12, d_out=16, heads=4, qkv_bias=False):
    torch.manual_seed(seed)
    book = ChapterMHA(d_in, d_out, CONTEXT, 0.0, heads, qkv_bias).eval()
    torch.manual_seed(seed)
    cached = MultiHeadAttention(d_in, d_out, CONTEXT, 0.0, heads, qkv_bias).eval()
    return book, cached


@pytest.mark.parametrize("qkv_bias", [False, True])
def test_same_seed_same_weights(qkv_bias):
    book, cached = pair(qkv_bias=qkv_bias)
    assert book.state_dict().keys() - {"mask"} == cached.state_dict().keys()  # the cache is not saved
    assert all(torch.equal(v, book.state_dict()[k]) for k, v in cached.state_dict().items())


def test_one_token_at_a_time_equals_full_causal_attention_at_every_position():
    book, cached = pair()
    x = torch.randn(2, CONTEXT, 12)
    full = book(x)  # (B, T, d_out)
    full_weights = book.trace(x).weights  # (B, H, T, T)
    for t in range(CONTEXT):
        step = cached.trace(x[:, t : t + 1], use_cache=True)
        assert cached.cached == t + 1 and step.keys.shape[-2] == t + 1
        torch.testing.assert_close(step.output[:, 0], full[:, t], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(
            step.weights[..., 0, :], full_weights[..., t, : t + 1], rtol=1e-5, atol=1e-6
        )


def test_forward_with_the_cache_equals_its_trace_and_a_prompt_then_chunks():
    book, cached = pair(seed=7)
    x = torch.randn(1, 40, 12)
    full = book(x)
    pieces = [cached(x[:, :10], use_cache=True)]  # the prompt
    pieces += [cached(x[:, t : t + 1], use_cache=True) for t in range(10, 25)]  # one at a time
    pieces += [cached(x[:, 25:32], use_cache=True), cached(x[:, 32:], use_cache=True)]  # chunks after a cache
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, rtol=1e-5, atol=1e-6)


def test_reset_starts_again_and_no_cache_is_plain_causal_attention():
    book, cached = pair(seed=9)
    x = torch.randn(1, 8, 12)
    cached(x, use_cache=True)
    cached.reset_cache()
    assert cached.cached == 0
    torch.testing.assert_close(cached(x, use_cache=True), book(x), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(cached(x), book(x), rtol=1e-5, atol=1e-6)
    assert cached.cached == 8  # a forward without the cache leaves it as it was


def test_the_generations_trace_with_or_without_its_steps():
    """Without its steps the whole trace is the same: each step is copied into its row and let go
    (every step's trace holds the cache of its time: O(T²) keys together)."""
    chapter, ours = pair()
    x = torch.randn(1, 9, 12, generator=torch.Generator().manual_seed(3))
    whole, steps = generation_trace(ours, x)
    lean, none = generation_trace(ours, x, keep_steps=False)
    assert len(steps) == 9 and none == []
    for name in ("scores", "weights", "queries", "keys", "values", "context", "output"):
        assert torch.equal(getattr(whole, name), getattr(lean, name)), name
    torch.testing.assert_close(whole.weights, chapter.trace(x).weights, atol=1e-6, rtol=0)
    assert [s.weights.shape[-1] for s in steps] == list(range(1, 10))  # step t: t + 1 keys
