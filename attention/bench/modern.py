"""Today's attention (attention.modern) in the bench: GroupedQueryAttention, a sliding window and
the online softmax, each loaded with the shared weights beside its float64 reference."""

from __future__ import annotations

import torch

from attention.bench.reference import Built, Weights, assign, full_expected, reference
from attention.modern import GroupedQueryAttention, OnlineSoftmaxAttention, sliding_window_mask

SCALING_WINDOW, SCALING_TILE = 64, 64  # at most: a sliding window and a tile of keys, in tokens


def _groups(heads: int) -> int:
    """Key/value heads for `heads` query heads: the most that still share (two query heads per
    key/value head where heads is even; Llama 3 70B has eight), 1 (multi-query) for an odd prime."""
    return max([g for g in range(1, heads // 2 + 1) if heads % g == 0], default=1)


def window_for(t: int) -> int:
    """The window over t tokens: half of them up to SCALING_WINDOW, so that it hides some keys of
    a 6-token sentence as of a 2,048-token sweep."""
    return min(SCALING_WINDOW, max(1, t // 2))


def tile_for(t: int) -> int:
    """Keys per tile over t tokens: a third up to SCALING_TILE (several tiles at any length)."""
    return min(SCALING_TILE, max(1, t // 3))


def grouped(w: Weights, heads: int, causal: bool, t: int, device: str, window: int | None = None) -> Built:
    """GroupedQueryAttention: W_key, W_value the first rows of the shared ones (one head_dim per
    group), out_proj without a bias; the reference reads each group's keys for its heads."""
    d_out, d_in = w.wq.shape
    groups, head_dim = _groups(heads), d_out // heads
    module = GroupedQueryAttention(d_in, d_out, heads, groups)
    rows = slice(0, groups * head_dim)
    (
        assign(module.W_query, w.wq),
        assign(module.W_key, w.wk[rows]),
        assign(module.W_value, w.wv[rows]),
    )
    assign(module.out_proj, w.wo)
    module = module.to(device)
    mask = sliding_window_mask(t, window=window, device=device) if causal else None  # (T, T)
    everything = torch.zeros(t, t, dtype=torch.bool, device=device)  # forward takes a mask: none hidden

    def shared(m):  # (groups * head_dim, d_in) -> (d_out, d_in): each group's rows for its heads
        return m[rows].view(groups, head_dim, d_in).repeat_interleave(heads // groups, 0).reshape(d_out, d_in)

    wk, wv = shared(w.wk), shared(w.wv)
    return Built(
        module,
        lambda x: reference(x, w.wq, wk, wv, heads, causal, w.wo, 0 * w.bo, window=window),
        lambda x: module(x, everything if mask is None else mask, None, None),
        lambda x: module.trace(x, mask, window=window),
    )


def windowed(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    return grouped(w, heads, causal, t, device, window=window_for(t))


def online(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    d_out, d_in = w.wq.shape
    module = OnlineSoftmaxAttention(d_in, d_out, t, 0.0, heads, causal=causal, tile_size=tile_for(t))
    assign(module.W_query, w.wq), assign(module.W_key, w.wk), assign(module.W_value, w.wv)
    assign(module.out_proj, w.wo, w.bo)
    return Built(module.to(device), full_expected(w, heads, causal))
