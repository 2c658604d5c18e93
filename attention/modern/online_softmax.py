"""FlashAttention's online softmax (Dao et al. 2022; Milakov & Gimelshein 2018): attention
computed over the keys one tile at a time, so the (T, T) matrix of scores is never held whole.

For each tile of keys, every query row keeps three things: the largest score seen so far (m), the
sum of exp(score - m) so far (l), and the weighted sum of values so far (acc). A new tile with a
larger maximum rescales the old l and acc by exp(m_old - m_new); at the end acc / l is exactly
softmax(scores) @ values. The largest thing held is one (T, tile) block of scores (keep=False; a
page that shows every tile keeps them all, which adds up to the T x T scores again).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from attention.chapter3.modules import MultiHeadAttention, assemble_trace, attend
from attention.chapter3.trace import AttentionTrace


@dataclass(frozen=True)
class Tile:
    """Where the running state stood after one tile of keys: keys start..stop-1."""

    start: int
    stop: int
    scores: torch.Tensor  # (B, H, T_q, tile) this tile's scaled (and masked) scores
    running_max: torch.Tensor  # (B, H, T_q, 1) m: the largest score of the keys so far
    running_sum: torch.Tensor  # (B, H, T_q, 1) l: sum of exp(score - m) over the keys so far
    partial: torch.Tensor | None  # (B, H, T_q, d_v) acc / l: the output if the keys stopped here (NaN in a
    # row whose keys so far are all masked, as plain softmax over them would be)


def online_attention(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    tile_size: int,
    mask: torch.Tensor | None = None,
    keep: bool = True,
    partials: bool = True,
) -> tuple[torch.Tensor, list[Tile]]:
    """softmax(queries @ keysᵀ / sqrt(d_k), masked) @ values over (B, H, T, d) tensors, `tile_size`
    keys at a time (the last tile may be shorter); `mask` (T_q, T_k) bool, True where a query may
    not look. Returns the context (B, H, T_q, d_v) and, when `keep`, every tile's state (its partial
    output too when `partials`: T_q x d_v numbers a tile, 256 MiB over 256 tiles of 1 at the caps).
    What is kept is written into tensors made once, one slice a tile: thousands of small tensors
    kept between the loop's large temporary ones fragmented the heap (+300 MiB resident at 256 tiles)."""
    if tile_size < 1:
        raise ValueError(f"a tile holds at least one key, got {tile_size}")
    shape = (*queries.shape[:-1], 1)  # (B, H, T_q, 1)
    m = torch.full(shape, -torch.inf, dtype=queries.dtype, device=queries.device)
    l = torch.zeros(shape, dtype=queries.dtype, device=queries.device)  # noqa: E741 (the paper's name)
    acc = torch.zeros((*queries.shape[:-1], values.shape[-1]), dtype=values.dtype, device=values.device)
    scale = keys.shape[-1] ** 0.5
    tiles, count = [], -(-keys.shape[-2] // tile_size)
    if keep:  # (B, H, T_q, T_k) scores; (tiles, B, H, T_q, 1) m and l; (tiles, B, H, T_q, d_v) partials
        kept_scores = queries.new_empty((*queries.shape[:-1], keys.shape[-2]))
        kept_m, kept_l = queries.new_empty((count, *shape)), queries.new_empty((count, *shape))
        kept_partials = acc.new_empty((count, *acc.shape)) if partials else None
    for i, start in enumerate(range(0, keys.shape[-2], tile_size)):
        stop = min(start + tile_size, keys.shape[-2])
        scores = queries @ keys[..., start:stop, :].transpose(-2, -1) / scale  # (B, H, T_q, tile)
        if mask is not None:
            scores = scores.masked_fill(mask[:, start:stop], -torch.inf)
        m_new = torch.maximum(m, scores.amax(dim=-1, keepdim=True))  # (B, H, T_q, 1)
        # A row with every key so far masked has m_new = -inf: nothing to rescale, nothing to add.
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(scores - safe)  # (B, H, T_q, tile): 0 where masked
        rescale = torch.exp(m - safe)  # (B, H, T_q, 1): 0 on the first tile (m = -inf)
        l = rescale * l + p.sum(dim=-1, keepdim=True)  # noqa: E741
        acc = rescale * acc + p @ values[..., start:stop, :]  # (B, H, T_q, d_v)
        m = m_new
        if keep:
            kept_scores[..., start:stop], kept_m[i], kept_l[i] = scores, m, l
            if partials:
                torch.div(acc, l, out=kept_partials[i])
            partial = kept_partials[i] if partials else None
            tiles.append(Tile(start, stop, kept_scores[..., start:stop], kept_m[i], kept_l[i], partial))
    return acc / l, tiles


class OnlineSoftmaxAttention(MultiHeadAttention):
    """Chapter 3's MultiHeadAttention (its constructor: the same seed, the same weights) with its
    softmax computed FlashAttention's way, `tile_size` keys at a time. No dropout (the Explorer's
    knob is off for it)."""

    def __init__(
        self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, *, causal=True, tile_size=4
    ):
        super().__init__(d_in, d_out, context_length, dropout, num_heads, qkv_bias, causal=causal)
        if dropout:
            raise ValueError(f"the online softmax here has no dropout, got {dropout}")
        if tile_size < 1:
            raise ValueError(f"a tile holds at least one key, got {tile_size}")
        self.tile_size = tile_size

    def _heads(self, x):  # x (B, T, d_in) -> queries, keys, values (B, H, T, head_dim), and the mask
        b, num_tokens, _ = x.shape
        qkv = [
            self._split_heads(layer(x), b, num_tokens) for layer in (self.W_query, self.W_key, self.W_value)
        ]
        mask = self.mask.bool()[:num_tokens, :num_tokens] if self.causal else None  # (T, T)
        return *qkv, mask

    def forward(self, x):  # x: (B, T, d_in)
        b, num_tokens, _ = x.shape
        queries, keys, values, mask = self._heads(x)
        context, _ = online_attention(queries, keys, values, self.tile_size, mask, keep=False)
        return self.out_proj(context.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out))

    def trace(self, x, generator=None) -> AttentionTrace:
        """forward's computation with every tile kept: the masked scores are the tiles' scores side
        by side, the weights exp(score - m) / l with the running max m and sum l the last tile
        ended with (what the output's rows were divided by), the context the online one."""
        b, num_tokens, _ = x.shape
        queries, keys, values, mask = self._heads(x)
        context, tiles = online_attention(queries, keys, values, self.tile_size, mask, partials=False)
        masked = torch.cat([tile.scores for tile in tiles], dim=-1)  # (B, H, T, T): the tiles side by side
        weights = torch.exp(masked - tiles[-1].running_max) / tiles[-1].running_sum
        plain = attend(queries, keys, values, divisor=self.head_dim**0.5, mask=mask)  # its scores, to show
        steps = replace(
            plain, masked_scores=masked, weights=weights, dropped_weights=weights, context=context
        )
        output = self.out_proj(context.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out))
        return replace(assemble_trace(self, x, steps, output), tile_size=self.tile_size)
