"""Every implementation loaded with one draw of weights, against a float64 reference.

Shared weights: one draw of W_query, W_key, W_value (d_out, d_in), out_proj (d_out, d_out) and
its bias, made by MultiHeadAttention's constructor from a seed. Every implementation gets the slice
it needs (head h of the wrapper gets rows h*head_dim:(h+1)*head_dim), so each computes
`reference()` with those weights: softmax(Q_h K_hᵀ / sqrt(head_dim), masked) V_h per head, heads
concatenated, out_proj where it has one. The reference runs in float64.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

from attention.bench.measure import time_call
from attention.chapter3 import blog_modules, modules
from attention.chapter3.variants import VARIANTS
from attention.devices import available_devices

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


def reference(x, wq, wk, wv, heads: int, causal: bool, wo=None, bo=None, scale=None) -> torch.Tensor:
    """The attention math in float64 with plain tensor ops. x: (B, T, d_in) -> (B, T, d_out)."""
    x, wq, wk, wv = (t.double() for t in (x, wq, wk, wv))
    B, T, _ = x.shape
    head_dim = wq.shape[0] // heads

    def split(w):  # (d_out, d_in) -> (B, H, T, head_dim)
        return (x @ w.T).view(B, T, heads, head_dim).transpose(1, 2)

    queries, keys, values = split(wq), split(wk), split(wv)
    scores = queries @ keys.transpose(2, 3) / (math.sqrt(head_dim) if scale is None else scale)  # (B,H,T,T)
    if causal:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T)
        scores = scores.masked_fill(future, -math.inf)
    context = (torch.softmax(scores, dim=-1) @ values).transpose(1, 2).reshape(B, T, -1)  # (B, T, d_out)
    return context if wo is None else context @ wo.double().T + bo.double()


# --- the implementations: the book's variants and torch's two -----------------------------------


@dataclass(frozen=True)
class Implementation:
    key: str
    label: str
    computes: str  # in words: heads, mask, out_proj
    batched: bool  # forward takes (B, T, d_in); otherwise (T, d_in)
    causal_knob: bool  # follows the causal setting (otherwise never masks)
    needs_square: bool = False  # needs d_in == d_out (nn.MultiheadAttention's query width)
    short: str = ""  # the class or function name, for a chip


def _variant(key: str, computes: str, needs_square: bool = False) -> Implementation:
    v = VARIANTS[key]
    return Implementation(key, v.label, computes, v.batched, v.has("causal"), needs_square, v.cls.__name__)


IMPLEMENTATIONS = {
    i.key: i
    for i in (
        _variant("simplified", "1 head, no weights, no scaling, no mask", needs_square=True),
        _variant("v1", "1 head, no mask"),
        _variant("v2", "1 head, no mask"),
        _variant("separate_dv", "1 head, no mask"),
        _variant("stacked_heads", "H heads concatenated, no mask"),
        _variant("causal", "1 head, mask"),
        _variant("wrapper", "H heads concatenated, mask"),
        _variant("mha", "H heads, mask, out_proj"),
        Implementation(
            "torch_mha",
            "torch.nn.MultiheadAttention",
            "H heads, mask, out_proj",
            True,
            True,
            True,
            "nn.MultiheadAttention",
        ),
        Implementation(
            "sdpa",
            "F.scaled_dot_product_attention",
            "H heads, mask, out_proj",
            True,
            True,
            False,
            "F.scaled_dot_product_attention",
        ),
    )
}


@dataclass
class Loaded:
    """A variant ready to run: forward(x) and, for the book's classes, trace(x); x is (B, T, d_in)."""

    variant: Implementation
    forward: Callable[[torch.Tensor], torch.Tensor]
    trace: Callable[[torch.Tensor], object] | None
    parameters: int
    expected: Callable[[torch.Tensor], torch.Tensor]  # the reference with the same weights
    module: nn.Module  # the loaded module (for sdpa: the MultiHeadAttention whose weights it uses)


def _linear(layer: nn.Linear, weight: torch.Tensor, bias: torch.Tensor | None = None) -> None:
    layer.weight.copy_(weight)
    if bias is not None:
        layer.bias.copy_(bias)


@torch.no_grad()
def load(key: str, w: Weights, heads: int, causal: bool, context_length: int, device: str = "cpu") -> Loaded:
    """Variant `key` with the shared weights `w`, in eval mode, on `device`."""
    variant = IMPLEMENTATIONS[key]
    d_out, d_in = w.wq.shape
    head_dim = d_out // heads
    causal = causal and variant.causal_knob
    rows = [slice(h * head_dim, (h + 1) * head_dim) for h in range(heads)]
    module: nn.Module | None = None
    if key == "simplified":
        module = modules.SimplifiedSelfAttention()
        eye = torch.eye(d_in)
        expected = lambda x: reference(x, eye, eye, eye, 1, False, scale=1.0)  # noqa: E731
    elif key in ("v1", "v2", "separate_dv", "causal"):
        if key == "v1":
            module = modules.SelfAttention_v1(d_in, d_out)
            module.W_query.copy_(w.wq.T), module.W_key.copy_(w.wk.T), module.W_value.copy_(w.wv.T)
        elif key == "separate_dv":
            module = blog_modules.SelfAttentionQKV(d_in, d_out, d_out)
            module.W_query.copy_(w.wq), module.W_key.copy_(w.wk), module.W_value.copy_(w.wv)
        else:
            module = (
                modules.SelfAttention_v2(d_in, d_out)
                if key == "v2"
                else modules.CausalAttention(d_in, d_out, context_length, 0.0, causal=causal)
            )
            _linear(module.W_query, w.wq), _linear(module.W_key, w.wk), _linear(module.W_value, w.wv)
        expected = lambda x: reference(x, w.wq, w.wk, w.wv, 1, causal)  # noqa: E731
    elif key == "stacked_heads":
        module = blog_modules.MultiHeadSelfAttentionQKV(d_in, head_dim, head_dim, heads)
        for h, r in enumerate(rows):
            module.multihead_W_query[h].copy_(w.wq[r])
            module.multihead_W_key[h].copy_(w.wk[r])
            module.multihead_W_value[h].copy_(w.wv[r])
        expected = lambda x: reference(x, w.wq, w.wk, w.wv, heads, False)  # noqa: E731
    elif key == "wrapper":
        module = modules.MultiHeadAttentionWrapper(d_in, head_dim, context_length, 0.0, heads, causal=causal)
        for head, r in zip(module.heads, rows, strict=True):
            _linear(head.W_query, w.wq[r]), _linear(head.W_key, w.wk[r]), _linear(head.W_value, w.wv[r])
        expected = lambda x: reference(x, w.wq, w.wk, w.wv, heads, causal)  # noqa: E731
    else:  # mha, torch_mha and sdpa all compute the book's MultiHeadAttention
        expected = lambda x: reference(x, w.wq, w.wk, w.wv, heads, causal, w.wo, w.bo)  # noqa: E731
        if key == "torch_mha":
            module = nn.MultiheadAttention(d_out, heads, batch_first=True)
            module.in_proj_weight.copy_(torch.cat([w.wq, w.wk, w.wv]))
            module.in_proj_bias.zero_()  # the book's qkv_bias=False
            _linear(module.out_proj, w.wo, w.bo)
        else:
            module = modules.MultiHeadAttention(d_in, d_out, context_length, 0.0, heads, causal=causal)
            for name, weight in (("W_query", w.wq), ("W_key", w.wk), ("W_value", w.wv)):
                _linear(getattr(module, name), weight)
            _linear(module.out_proj, w.wo, w.bo)
    module = module.to(device).eval()
    parameters = sum(p.numel() for p in module.parameters())
    if key == "sdpa":
        parameters = 0  # a function: it uses the MultiHeadAttention weights above, counted there
        forward = _sdpa_forward(module, heads, causal)
        trace = None
    elif key == "torch_mha":
        mask = torch.triu(torch.ones(context_length, context_length, dtype=torch.bool, device=device), 1)
        forward = lambda x: module(x, x, x, need_weights=False, attn_mask=mask if causal else None)[0]  # noqa: E731
        trace = None
    elif variant.batched:
        forward, trace = module, module.trace
    else:  # the (T, d_in) variants run on each batch row
        forward = lambda x: module(x[0]).unsqueeze(0)  # noqa: E731
        trace = lambda x: module.trace(x[0])  # noqa: E731
    return Loaded(
        variant, torch.no_grad()(forward), trace and torch.no_grad()(trace), parameters, expected, module
    )


def _sdpa_forward(mha: modules.MultiHeadAttention, heads: int, causal: bool):
    def forward(x):  # (B, T, d_in) -> (B, T, d_out), the same projections as MultiHeadAttention
        B, T, _ = x.shape
        q, k, v = (
            layer(x).view(B, T, heads, -1).transpose(1, 2) for layer in (mha.W_query, mha.W_key, mha.W_value)
        )  # (B, H, T, head_dim) each
        context = F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # (B, H, T, head_dim)
        return mha.out_proj(context.transpose(1, 2).reshape(B, T, -1))  # (B, T, d_out)

    return forward


def applicable(key: str, d_in: int, d_out: int) -> str | None:
    """Why variant `key` cannot run at these widths, or None."""
    if IMPLEMENTATIONS[key].needs_square and d_in != d_out:
        what = "it has no weights" if key == "simplified" else "its query width is embed_dim"
        return f"needs d_in = d_out ({what})"
    return None


def embedding_input(tokens: int, d_in: int, seed: int = 1) -> torch.Tensor:
    return torch.randn(1, tokens, d_in, generator=torch.Generator().manual_seed(seed))  # (1, T, d_in)


def equivalence_table(
    x: torch.Tensor,
    d_out: int,
    heads: int,
    causal: bool = True,
    seed: int = 123,
    devices: list[str] | None = None,
    min_seconds: float = 0.01,
) -> pd.DataFrame:
    """Every variant on input x (1, T, d_in) with shared weights: output shape, max |difference|
    from the reference (float64), parameter count, and ms per forward on each device."""
    d_in = x.shape[-1]
    devices = devices or available_devices()
    w = Weights.draw(d_in, d_out, heads, seed)
    rows = []
    for key, variant in IMPLEMENTATIONS.items():
        row = {"variant": key, "module": variant.label, "computes": variant.computes}
        why = applicable(key, d_in, d_out)
        if why:
            rows.append(row | {"output shape": "—", "max |diff|": math.nan, "parameters": 0, "note": why})
            continue
        loaded = load(key, w, heads, causal, x.shape[1])
        output = loaded.forward(x)
        row |= {
            "output shape": str(tuple(output.shape)),
            "max |diff|": (output.double() - loaded.expected(x)).abs().max().item(),
            "parameters": loaded.parameters,
            "note": "" if key != "sdpa" else "uses MultiHeadAttention's weights",
        }
        for device in devices:
            call = bound_call(load(key, w, heads, causal, x.shape[1], device), "forward", x.to(device))
            row[f"ms ({device})"] = time_call(call, device, min_seconds) * 1e3
        rows.append(row)
    return pd.DataFrame(rows)


def bound_call(loaded: Loaded, mode: str, x: torch.Tensor) -> Callable[[], object]:
    run = loaded.forward if mode == "forward" else loaded.trace
    return lambda: run(x)
