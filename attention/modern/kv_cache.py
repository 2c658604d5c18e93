"""A KV cache (the book repository's ch04/03_kv-cache): generating one token at a time, each step
projects only the new token and appends its key and value to the ones kept from the steps before,
so its one new row of scores costs O(T) instead of recomputing the whole T x T matrix.

MultiHeadAttention here is chapter 3's constructor and weights with the book's `forward(x,
use_cache=False)` and `reset_cache()`, the cache in non-persistent buffers. One fix: the book
slices its causal mask as mask[:T_new, :T_new], right for a first prompt and for one new token at a
time, wrong for several new tokens after a cache (their mask must be offset by the cache's
length); here the mask is built by position (masks.sliding_window_mask), right in every case.
"""

from __future__ import annotations

from dataclasses import replace

import torch
import torch.nn as nn

from attention.chapter3.modules import assemble_trace, attend
from attention.chapter3.trace import AttentionTrace
from attention.modern.masks import sliding_window_mask


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        if d_out % num_heads:
            raise ValueError("d_out must be divisible by num_heads")
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=1), persistent=False
        )
        self.register_buffer("cache_k", None, persistent=False)  # (B, T_cached, H, head_dim)
        self.register_buffer("cache_v", None, persistent=False)

    @property
    def cached(self) -> int:
        """Tokens in the cache: the position of the next new token."""
        return 0 if self.cache_k is None else self.cache_k.shape[1]

    def _step(self, x, use_cache):
        """Queries of the new tokens and the keys, values they attend to (B, H, T, head_dim), and
        the mask (T_new, T_keys) by position; the cache grows by the new tokens."""
        b, num_tokens, _ = x.shape
        start = self.cached if use_cache else 0
        keys_new = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)  # (B, T_cached + T_new, H, d)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=1)
            keys, values = self.cache_k, self.cache_v
        else:
            keys, values = keys_new, values_new
        mask = sliding_window_mask(num_tokens, keys.shape[1], q_start=start, device=x.device)
        return queries.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2), mask

    def forward(self, x, use_cache=False):  # x: (B, T_new, d_in)
        b, num_tokens, _ = x.shape
        queries, keys, values, mask = self._step(x, use_cache)
        attn_scores = queries @ keys.transpose(2, 3)  # (B, H, T_new, T_keys)
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)  # (B, T_new, H, head_dim)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)  # (B, T_new, d_out)

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None

    def trace(self, x, use_cache=False, generator=None) -> AttentionTrace:
        """One step with every intermediate: the new queries' rows of scores and weights
        (B, H, T_new, T_keys) against every key so far, the keys and values the cache holds."""
        b, num_tokens, _ = x.shape
        queries, keys, values, mask = self._step(x, use_cache)
        steps = attend(
            queries,
            keys,
            values,
            divisor=self.head_dim**0.5,
            mask=mask,
            dropout=self.dropout.p,
            training=self.training,
            generator=generator,
        )
        context_vec = steps.context.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return assemble_trace(self, x, steps, self.out_proj(context_vec))


def generate(module: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
    """x (B, T, d_in) fed one token at a time through an emptied cache: the outputs (B, T, d_out)."""
    module.reset_cache()
    out = torch.cat([module(x[:, t : t + 1], use_cache=True) for t in range(x.shape[1])], dim=1)
    module.reset_cache()
    return out


def generation_trace(
    module: MultiHeadAttention, x: torch.Tensor
) -> tuple[AttentionTrace, list[AttentionTrace]]:
    """x (B, T, d_in) fed one token at a time through an emptied cache: one trace of the whole
    generation and each step's own. Row t of the whole one's (T, T) steps is step t's one row;
    the cells after it were never computed (no step had those keys yet): -inf in the scores, 0
    in the weights, as the causal mask puts them."""
    module.reset_cache()
    steps = [module.trace(x[:, t : t + 1], use_cache=True) for t in range(x.shape[1])]
    module.reset_cache()
    num_tokens = x.shape[1]

    def rows(name: str, fill: float) -> torch.Tensor:  # (B, H, 1, t + 1) each -> (B, H, T, T)
        pad = [
            torch.nn.functional.pad(getattr(s, name), (0, num_tokens - s.num_tokens), value=fill)
            for s in steps
        ]
        return torch.cat(pad, dim=2)

    def stack(name: str) -> torch.Tensor:  # (B, H, 1, d) or (B, 1, d) each -> along T
        return torch.cat([getattr(s, name) for s in steps], dim=-2)

    last = steps[-1]
    scores, scaled = rows("scores", -torch.inf), rows("scaled_scores", -torch.inf)
    whole = replace(
        last,
        x=x,
        queries=stack("queries"),
        scores=scores,
        scaled_scores=scaled,
        mask=sliding_window_mask(num_tokens, device=x.device),
        masked_scores=rows("masked_scores", -torch.inf),
        weights=(weights := rows("weights", 0.0)),
        dropped_weights=weights,
        context=stack("context"),
        output=stack("output"),
    )
    return whole, steps
