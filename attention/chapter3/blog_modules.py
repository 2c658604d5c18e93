"""Two variants from Raschka's blog post "Understanding and coding self-attention": values of
their own width d_v, and heads stacked into one weight tensor applied with torch.bmm. Weights are
drawn with torch.rand and applied as W @ x, as the post does, so after torch.manual_seed(123) they
print the post's numbers.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from attention.chapter3.modules import assemble_trace, attend
from attention.chapter3.trace import AttentionTrace


class SelfAttentionQKV(nn.Module):
    """One head with separate d_k and d_v: W_query, W_key (d_k, d_in), W_value (d_v, d_in), torch.rand."""

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
        steps = attend(queries, keys, values, divisor=self.d_k**0.5)  # no mask, no dropout
        return assemble_trace(self, x, steps, steps.context)


class MultiHeadSelfAttentionQKV(nn.Module):
    """H heads, their weights stacked to (h, d, d_in), applied with torch.bmm."""

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
        steps = attend(queries, keys, values, divisor=self.d_k**0.5)  # no mask, no dropout
        return assemble_trace(self, x, steps, torch.cat(list(steps.context), dim=-1))
