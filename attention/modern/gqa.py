"""Grouped-query attention (Ainslie et al. 2023; Llama 3, Qwen3, Gemma, Mistral), as the book's
llama3.py writes it: `num_heads` query heads share `num_kv_groups` key/value heads, each serving
num_heads / num_kv_groups query heads side by side (repeat_interleave: heads 0, 1 read group 0,
heads 2, 3 group 1, ...). num_kv_groups = num_heads is the book's multi-head attention; 1 is
multi-query attention (Shazeer 2019). The KV cache shrinks by num_heads / num_kv_groups.
"""

from __future__ import annotations

from dataclasses import replace

import torch
import torch.nn as nn

from attention.chapter3.modules import assemble_trace, attend
from attention.chapter3.trace import AttentionTrace
from attention.modern.rope import apply_rope


class GroupedQueryAttention(nn.Module):
    """The book's GroupedQueryAttention: no biases, no dropout, RoPE on queries and keys, the mask
    given to forward ((context, context) bool, True where a query may not look). Its layers are
    made in the book's order (W_key, W_value, W_query, out_proj), so the same seed gives the
    same weights."""

    def __init__(self, d_in, d_out, num_heads, num_kv_groups, dtype=None):
        super().__init__()
        if d_out % num_heads:
            raise ValueError(f"d_out ({d_out}) must be divisible by num_heads ({num_heads})")
        if num_heads % num_kv_groups:
            raise ValueError(f"num_heads ({num_heads}) must be divisible by num_kv_groups ({num_kv_groups})")
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=False, dtype=dtype)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=False, dtype=dtype)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups
        self.W_query = nn.Linear(d_in, d_out, bias=False, dtype=dtype)
        self.out_proj = nn.Linear(d_out, d_out, bias=False, dtype=dtype)

    def _project(self, x, cos, sin):
        """Queries (B, H, T, head_dim) and keys, values (B, G, T, head_dim), rotated when cos is given."""
        b, num_tokens, _ = x.shape
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys = self.W_key(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        if cos is not None:
            keys, queries = apply_rope(keys, cos, sin), apply_rope(queries, cos, sin)
        return queries, keys, values

    def _expand(self, t):  # (B, G, T, d) -> (B, H, T, d): each group beside the heads that read it
        return t.repeat_interleave(self.group_size, dim=1)

    def forward(self, x, mask, cos, sin):  # x: (B, T, d_in)
        b, num_tokens, _ = x.shape
        queries, keys, values = self._project(x, cos, sin)
        keys, values = self._expand(keys), self._expand(values)  # (B, H, T, head_dim)
        attn_scores = queries @ keys.transpose(2, 3)  # (B, H, T, T)
        attn_scores = attn_scores.masked_fill(mask[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (B, H, T, T)
        context_vec = (attn_weights @ values).transpose(1, 2)  # (B, T, H, head_dim)
        return self.out_proj(context_vec.reshape(b, num_tokens, self.d_out))  # (B, T, d_out)

    def trace(self, x, mask=None, cos=None, sin=None, generator=None, window=None) -> AttentionTrace:
        """forward's computation with every step kept: the keys and values each query head read
        (its group's, so heads of one group show the same ones), the scores of the rotated queries
        and keys (no rotation when cos is None), `mask` sliced as forward slices it (None: no mask).
        `window` is only recorded (the mask already holds it)."""
        b, num_tokens, _ = x.shape
        queries, keys, values = self._project(x, cos, sin)
        mask = None if mask is None else mask[:num_tokens, :num_tokens]
        steps = attend(
            queries, self._expand(keys), self._expand(values), divisor=self.head_dim**0.5, mask=mask
        )
        output = self.out_proj(steps.context.transpose(1, 2).reshape(b, num_tokens, self.d_out))
        trace = assemble_trace(self, x, steps, output)
        return replace(trace, kv_groups=self.num_kv_groups, window=window, rope=cos is not None)


def kv_cache_bytes(
    num_tokens: int, num_kv_groups: int, head_dim: int, n_layers: int = 1, bytes_per_value: int = 4
) -> int:
    """What a KV cache holds after `num_tokens` tokens: a key and a value of head_dim numbers per
    key/value head, per layer. Multi-head attention is num_kv_groups = num_heads."""
    return 2 * n_layers * num_tokens * num_kv_groups * head_dim * bytes_per_value
