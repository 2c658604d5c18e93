"""The float64 reference every implementation is checked against, the one draw of weights they
share, and what a loader builds from it (equivalence.py's table, modern.py's loaders)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn as nn

from attention.chapter3 import modules

# --- the reference and the shared weights ------------------------------------------------------


@dataclass(frozen=True)
class Weights:
    """One draw of every weight a variant can need; nn.Linear layout (out_features, in_features)."""

    wq: torch.Tensor  # (d_out, d_in)
    wk: torch.Tensor  # (d_out, d_in)
    wv: torch.Tensor  # (d_out, d_in)
    wo: torch.Tensor  # (d_out, d_out)
    bo: torch.Tensor  # (d_out,)

    @classmethod
    def draw(cls, d_in: int, d_out: int, heads: int, seed: int) -> Weights:
        mha = modules.MultiHeadAttention(d_in, d_out, 1, 0.0, heads)
        modules.reset_parameters(mha, torch.Generator().manual_seed(seed))
        return cls(
            *(m.weight.detach() for m in (mha.W_query, mha.W_key, mha.W_value, mha.out_proj)),
            mha.out_proj.bias.detach(),
        )


def reference(
    x, wq, wk, wv, heads: int, causal: bool, wo=None, bo=None, scale=None, window=None
) -> torch.Tensor:
    """The attention math in float64 with plain tensor ops. x: (B, T, d_in) -> (B, T, d_out);
    with a causal mask, a `window` also hides every key `window` or more positions back."""
    x, wq, wk, wv = (t.double() for t in (x, wq, wk, wv))
    B, T, _ = x.shape
    head_dim = wq.shape[0] // heads

    def split(w):  # (d_out, d_in) -> (B, H, T, head_dim)
        return (x @ w.T).view(B, T, heads, head_dim).transpose(1, 2)

    queries, keys, values = split(wq), split(wk), split(wv)
    scores = queries @ keys.transpose(2, 3) / (math.sqrt(head_dim) if scale is None else scale)  # (B,H,T,T)
    if causal:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T)
        if window is not None:
            future |= torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-window)
        scores = scores.masked_fill(future, -math.inf)
    context = (torch.softmax(scores, dim=-1) @ values).transpose(1, 2).reshape(B, T, -1)  # (B, T, d_out)
    return context if wo is None else context @ wo.double().T + bo.double()


@dataclass(frozen=True)
class Built:
    """What an implementation's loader makes from the shared weights."""

    module: nn.Module  # on the device, with the shared weights (for sdpa: the MultiHeadAttention it uses)
    expected: Callable[[torch.Tensor], torch.Tensor]  # the reference with the same weights
    forward: Callable[[torch.Tensor], torch.Tensor] | None = None  # (B, T, d_in) ->; None: the module's
    trace: Callable[[torch.Tensor], object] | None = None  # None: the module's own .trace(x)


# (weights, heads, causal, context_length, device) -> Built
Loader = Callable[[Weights, int, bool, int, str], Built]


def assign(layer: nn.Linear, weight: torch.Tensor, bias: torch.Tensor | None = None) -> None:
    layer.weight.copy_(weight)
    if bias is not None:
        layer.bias.copy_(bias)


def full_expected(w: Weights, heads: int, causal: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    """The book's MultiHeadAttention in float64: heads, mask, out_proj."""
    return lambda x: reference(x, w.wq, w.wk, w.wv, heads, causal, w.wo, w.bo)
