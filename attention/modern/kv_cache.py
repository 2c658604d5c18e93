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
    module: MultiHeadAttention, x: torch.Tensor, keep_steps: bool = True
) -> tuple[AttentionTrace, list[AttentionTrace]]:
    """x (B, T, d_in) fed one token at a time through an emptied cache: one trace of the whole
    generation and (when `keep_steps`) each step's own. Row t of the whole one's (T, T) steps is
    step t's one row; the cells after it were never computed (no step had those keys yet): -inf in
    the scores, 0 in the weights, as the causal mask puts them. Each step's trace holds the whole
    cache of its time: all of them together are O(T²) keys (256 MiB at the Explorer's caps), so
    without `keep_steps` each is copied into the whole trace's rows and let go."""
    b, num_tokens, _ = x.shape
    heads, head_dim = module.num_heads, module.head_dim
    grid = {
        name: x.new_full((b, heads, num_tokens, num_tokens), fill)  # (B, H, T, T)
        for name, fill in (
            ("scores", -torch.inf),
            ("scaled_scores", -torch.inf),
            ("masked_scores", -torch.inf),
        )
    } | {"weights": x.new_zeros((b, heads, num_tokens, num_tokens))}
    queries, context = (
        x.new_empty((b, heads, num_tokens, head_dim)),
        x.new_empty((b, heads, num_tokens, head_dim)),
    )
    output, steps = x.new_empty((b, num_tokens, module.d_out)), []
    module.reset_cache()
    for t in range(num_tokens):
        step = module.trace(x[:, t : t + 1], use_cache=True)
        for name, rows in grid.items():
            rows[:, :, t, : t + 1] = getattr(step, name)[:, :, 0]
        queries[:, :, t], context[:, :, t], output[:, t] = (
            step.queries[:, :, 0],
            step.context[:, :, 0],
            step.output[:, 0],
        )
        if keep_steps or t == num_tokens - 1:  # the last holds the whole cache: the trace's keys
            steps.append(step)
    module.reset_cache()
    whole = replace(
        steps[-1],
        x=x,
        queries=queries,
        mask=sliding_window_mask(num_tokens, device=x.device),
        **grid,
        dropped_weights=grid["weights"],
        context=context,
        output=output,
    )
    return whole, steps if keep_steps else []
