"""The attention modules the source documents teach, with the book's names and signatures.

`__init__` and `forward` follow the book (chapter 3 of "Build a Large Language Model (From
Scratch)") and document 001 line for line, so that after `torch.manual_seed(s)` each class
reproduces the printed numbers. Two changes, both value-preserving:
  * forward masks with `masked_fill` (a copy) where the book uses the in-place `masked_fill_`;
  * CausalAttention, MultiHeadAttentionWrapper and MultiHeadAttention take a keyword-only
    `causal=True`, so the explorer can switch the mask off; the default is the book's.

Every class also has `.trace(x, generator=None) -> AttentionTrace`, the same computation with
every intermediate kept, shaped (B, H, T, ...). `reset_parameters(module, generator)` redraws
the parameters from a local generator exactly as construction after torch.manual_seed would.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn

from attention.trace import AttentionTrace, attend


def _trace(module: nn.Module, x: torch.Tensor, parts: dict, output: torch.Tensor) -> AttentionTrace:
    """Assemble a trace. Unbatched modules compute on (T, d) or (h, T, d) tensors, exactly as
    their forward does (so the floats agree bit for bit); here they gain leading axes to the
    trace's (B, H, T, ...) and (B, T, ...) shapes."""
    lifted: dict[tuple, torch.Tensor] = {}  # aliases (dropped_weights is weights) stay aliases

    def lift(t, dims=4):
        key = (id(t), dims)
        if key not in lifted:
            lifted[key] = t if t.dim() == dims else t.reshape((1,) * (dims - t.dim()) + tuple(t.shape))
        return lifted[key]

    parts = {k: lift(v) if isinstance(v, torch.Tensor) and k != "mask" else v for k, v in parts.items()}
    return AttentionTrace(
        x=lift(x, 3), output=lift(output, 3), module=type(module).__name__, device=str(x.device), **parts
    )


# --- 3.3 Simplified self-attention: no trainable weights -------------------------------------


class SimplifiedSelfAttention(nn.Module):
    """Section 3.3: scores = x x^T, weights = softmax(scores), context = weights x."""

    def forward(self, x):  # x: (T, d_in)
        attn_scores = x @ x.T  # (T, T)
        attn_weights = torch.softmax(attn_scores, dim=-1)  # (T, T)
        all_context_vecs = attn_weights @ x  # (T, d_in)
        return all_context_vecs

    def trace(self, x, generator=None) -> AttentionTrace:
        # queries = keys = values = x: (T, d_in)
        parts = attend(x, x, x, scale=1.0)  # no weights, no scaling, no mask
        return _trace(self, x, parts, parts["context"])


# --- 3.4 Self-attention with trainable weights -----------------------------------------------


class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):  # x: (T, d_in)
        keys = x @ self.W_key  # (T, d_out)
        queries = x @ self.W_query  # (T, d_out)
        values = x @ self.W_value  # (T, d_out)
        attn_scores = queries @ keys.T  # (T, T), omega
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (T, T)
        context_vec = attn_weights @ values  # (T, d_out)
        return context_vec

    def trace(self, x, generator=None) -> AttentionTrace:
        keys = x @ self.W_key  # (T, d_out)
        queries = x @ self.W_query  # (T, d_out)
        values = x @ self.W_value  # (T, d_out)
        parts = attend(queries, keys, values, scale=keys.shape[-1] ** 0.5)  # no mask, no dropout
        return _trace(self, x, parts, parts["context"])


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):  # x: (T, d_in)
        keys = self.W_key(x)  # (T, d_out)
        queries = self.W_query(x)  # (T, d_out)
        values = self.W_value(x)  # (T, d_out)
        attn_scores = queries @ keys.T  # (T, T)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (T, T)
        context_vec = attn_weights @ values  # (T, d_out)
        return context_vec

    def trace(self, x, generator=None) -> AttentionTrace:
        keys = self.W_key(x)  # (T, d_out)
        queries = self.W_query(x)  # (T, d_out)
        values = self.W_value(x)  # (T, d_out)
        parts = attend(queries, keys, values, scale=keys.shape[-1] ** 0.5)  # no mask, no dropout
        return _trace(self, x, parts, parts["context"])


# --- 3.5 Causal attention --------------------------------------------------------------------


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False, *, causal=True):
        super().__init__()
        self.d_out = d_out
        self.causal = causal
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):  # x: (B, T, d_in)
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)  # (B, T, d_out)
        queries = self.W_query(x)  # (B, T, d_out)
        values = self.W_value(x)  # (B, T, d_out)
        attn_scores = queries @ keys.transpose(1, 2)  # (B, T, T)
        if self.causal:
            attn_scores = attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (B, T, T)
        attn_weights = self.dropout(attn_weights)  # (B, T, T)
        context_vec = attn_weights @ values  # (B, T, d_out)
        return context_vec

    def trace(self, x, generator=None) -> AttentionTrace:
        keys = self.W_key(x).unsqueeze(1)  # (B, 1, T, d_out)
        queries = self.W_query(x).unsqueeze(1)  # (B, 1, T, d_out)
        values = self.W_value(x).unsqueeze(1)  # (B, 1, T, d_out)
        parts = attend(
            queries,
            keys,
            values,
            scale=keys.shape[-1] ** 0.5,
            causal=self.causal,
            dropout=self.dropout.p,
            training=self.training,
            generator=generator,
        )
        return _trace(self, x, parts, parts["context"][:, 0])


# --- 3.6 Multi-head attention ----------------------------------------------------------------


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, *, causal=True):
        super().__init__()
        self.heads = nn.ModuleList(
            [
                CausalAttention(d_in, d_out, context_length, dropout, qkv_bias, causal=causal)
                for _ in range(num_heads)
            ]
        )

    def forward(self, x):  # x: (B, T, d_in) -> (B, T, num_heads * d_out)
        return torch.cat([head(x) for head in self.heads], dim=-1)

    def trace(self, x, generator=None) -> AttentionTrace:
        # Heads run one after another, as in forward, so dropout masks are drawn in the same order.
        per_head = [head.trace(x, generator) for head in self.heads]
        stacked = {
            name: torch.cat([getattr(t, name) for t in per_head], dim=1)  # (B, H, ...)
            for name in (
                "queries",
                "keys",
                "values",
                "scores",
                "scaled_scores",
                "masked_scores",
                "weights",
                "dropped_weights",
                "context",
            )
        }
        masks = [t.dropout_mask for t in per_head]
        first = per_head[0]
        parts = dict(
            stacked,
            mask=first.mask,
            scale=first.scale,
            dropout=first.dropout,
            dropout_mask=None if masks[0] is None else torch.cat(masks, dim=1),
        )
        output = torch.cat([t.output for t in per_head], dim=-1)  # (B, T, H * d_out)
        return _trace(self, x, parts, output)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, *, causal=True):
        super().__init__()
        if d_out % num_heads != 0:  # the book asserts; an exception survives python -O
            raise ValueError("d_out must be divisible by num_heads")
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.causal = causal
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # combines the heads' outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def _split_heads(self, t, b, num_tokens):  # (B, T, d_out) -> (B, H, T, head_dim)
        return t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x):  # x: (B, T, d_in)
        b, num_tokens, d_in = x.shape
        keys = self._split_heads(self.W_key(x), b, num_tokens)  # (B, H, T, head_dim)
        queries = self._split_heads(self.W_query(x), b, num_tokens)  # (B, H, T, head_dim)
        values = self._split_heads(self.W_value(x), b, num_tokens)  # (B, H, T, head_dim)
        attn_scores = queries @ keys.transpose(2, 3)  # (B, H, T, T)
        if self.causal:
            mask_bool = self.mask.bool()[:num_tokens, :num_tokens]  # (T, T)
            attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (B, H, T, T)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)  # (B, T, H, head_dim)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)  # (B, T, d_out)
        context_vec = self.out_proj(context_vec)  # (B, T, d_out)
        return context_vec

    def trace(self, x, generator=None) -> AttentionTrace:
        b, num_tokens, d_in = x.shape
        keys = self._split_heads(self.W_key(x), b, num_tokens)  # (B, H, T, head_dim)
        queries = self._split_heads(self.W_query(x), b, num_tokens)  # (B, H, T, head_dim)
        values = self._split_heads(self.W_value(x), b, num_tokens)  # (B, H, T, head_dim)
        parts = attend(
            queries,
            keys,
            values,
            scale=keys.shape[-1] ** 0.5,
            causal=self.causal,
            dropout=self.dropout.p,
            training=self.training,
            generator=generator,
        )
        context_vec = parts["context"].transpose(1, 2)  # (B, T, H, head_dim)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)  # (B, T, d_out)
        return _trace(self, x, parts, self.out_proj(context_vec))


# --- Document 001 (Raschka's blog): separate d_k and d_v, weights applied as W @ x -----------


class SelfAttentionQKV(nn.Module):
    """Document 001's computation: W_query, W_key (d_k, d_in), W_value (d_v, d_in), torch.rand."""

    def __init__(self, d_in, d_k, d_v):
        super().__init__()
        self.d_k = d_k
        self.W_query = nn.Parameter(torch.rand(d_k, d_in))
        self.W_key = nn.Parameter(torch.rand(d_k, d_in))
        self.W_value = nn.Parameter(torch.rand(d_v, d_in))

    def forward(self, x):  # x: (T, d_in)
        queries = self.W_query.matmul(x.T).T  # (T, d_k)
        keys = self.W_key.matmul(x.T).T  # (T, d_k)
        values = self.W_value.matmul(x.T).T  # (T, d_v)
        omega = queries.matmul(keys.T)  # (T, T)
        attention_weights = torch.softmax(omega / self.d_k**0.5, dim=-1)  # (T, T)
        context_vectors = attention_weights.matmul(values)  # (T, d_v)
        return context_vectors

    def trace(self, x, generator=None) -> AttentionTrace:
        queries = self.W_query.matmul(x.T).T  # (T, d_k)
        keys = self.W_key.matmul(x.T).T  # (T, d_k)
        values = self.W_value.matmul(x.T).T  # (T, d_v)
        parts = attend(queries, keys, values, scale=self.d_k**0.5)  # no mask, no dropout
        return _trace(self, x, parts, parts["context"])


class MultiHeadSelfAttentionQKV(nn.Module):
    """Document 001's multi-head form: weights stacked to (h, d, d_in), applied with torch.bmm."""

    def __init__(self, d_in, d_k, d_v, num_heads):
        super().__init__()
        self.d_k = d_k
        self.multihead_W_query = nn.Parameter(torch.rand(num_heads, d_k, d_in))
        self.multihead_W_key = nn.Parameter(torch.rand(num_heads, d_k, d_in))
        self.multihead_W_value = nn.Parameter(torch.rand(num_heads, d_v, d_in))

    def _project(self, weight, x):  # (h, d, d_in), (T, d_in) -> (h, T, d)
        stacked_inputs = x.T.repeat(weight.shape[0], 1, 1)  # (h, d_in, T)
        return torch.bmm(weight, stacked_inputs).permute(0, 2, 1)  # (h, T, d)

    def forward(self, x):  # x: (T, d_in) -> (T, h * d_v), heads concatenated
        queries = self._project(self.multihead_W_query, x)  # (h, T, d_k)
        keys = self._project(self.multihead_W_key, x)  # (h, T, d_k)
        values = self._project(self.multihead_W_value, x)  # (h, T, d_v)
        omega = torch.bmm(queries, keys.transpose(1, 2))  # (h, T, T)
        attention_weights = torch.softmax(omega / self.d_k**0.5, dim=-1)  # (h, T, T)
        context = torch.bmm(attention_weights, values)  # (h, T, d_v)
        return torch.cat(list(context), dim=-1)  # (T, h * d_v)

    def trace(self, x, generator=None) -> AttentionTrace:
        queries = self._project(self.multihead_W_query, x)  # (h, T, d_k)
        keys = self._project(self.multihead_W_key, x)  # (h, T, d_k)
        values = self._project(self.multihead_W_value, x)  # (h, T, d_v)
        parts = attend(queries, keys, values, scale=self.d_k**0.5)  # no mask, no dropout
        return _trace(self, x, parts, torch.cat(list(parts["context"]), dim=-1))


# --- Seeding without the global RNG ----------------------------------------------------------


@torch.no_grad()
def reset_parameters(module: nn.Module, generator: torch.Generator) -> nn.Module:
    """Redraw `module`'s parameters from `generator` exactly as its constructor drew them.

    Walks submodules in registration order (the order the constructor drew them in):
    nn.Linear gets its default init (kaiming_uniform_ weight, then uniform bias), a bare
    nn.Parameter made with torch.rand gets rand. With `generator` seeded s, the result equals
    construction right after torch.manual_seed(s), and no other thread's RNG use can interfere.
    """
    for sub in module.modules():
        if isinstance(sub, nn.Linear):
            nn.init.kaiming_uniform_(sub.weight, a=math.sqrt(5), generator=generator)
            if sub.bias is not None:
                fan_in = sub.weight.shape[1]
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                nn.init.uniform_(sub.bias, -bound, bound, generator=generator)
        else:
            for p in sub.parameters(recurse=False):
                p.uniform_(0, 1, generator=generator)  # torch.rand's draw
    return module
