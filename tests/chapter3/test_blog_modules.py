"""The blog's two variants: its printed numbers, and the stacked-heads shapes."""

import torch

from attention.chapter3.blog_modules import MultiHeadSelfAttentionQKV, SelfAttentionQKV
from tests import book


def test_blog_numbers_seed_123():
    """The post's recipe: embedding and weights drawn after torch.manual_seed(123), d_k 24, d_v 28."""
    torch.manual_seed(123)
    x = torch.nn.Embedding(6, 16)(torch.tensor(book.BLOG_IDS)).detach()  # (6, 16)
    torch.manual_seed(123)
    module = SelfAttentionQKV(16, 24, 28)
    trace = module.trace(x)
    torch.testing.assert_close(trace.scores[0, 0, 1], torch.tensor(book.BLOG_OMEGA_2), atol=1e-4, rtol=0)
    torch.testing.assert_close(trace.weights[0, 0, 1], torch.tensor(book.BLOG_WEIGHTS_2), atol=1e-4, rtol=0)
    assert trace.output.shape == (1, 6, 28) and torch.equal(trace.output[0], module(x))


def test_blog_variants_shapes():
    torch.manual_seed(123)
    x = torch.randn(6, 16)
    single = SelfAttentionQKV(16, 24, 28)
    assert single(x).shape == (6, 28)
    multi = MultiHeadSelfAttentionQKV(16, 24, 28, num_heads=3)
    assert multi.multihead_W_query.shape == (3, 24, 16)
    trace = multi.trace(x)
    assert trace.queries.shape == (1, 3, 6, 24) and trace.values.shape == (1, 3, 6, 28)
    assert multi(x).shape == (6, 84)
    torch.testing.assert_close(trace.output[0], multi(x))
