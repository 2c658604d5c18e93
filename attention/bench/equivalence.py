"""Every implementation loaded with one draw of weights, against a float64 reference.

Shared weights: one draw of W_query, W_key, W_value (d_out, d_in), out_proj (d_out, d_out) and
its bias, made by MultiHeadAttention's constructor from a seed. Every implementation gets the slice
it needs (head h of the wrapper gets rows h*head_dim:(h+1)*head_dim), so each computes
`reference()` with those weights: softmax(Q_h K_hᵀ / sqrt(head_dim), masked) V_h per head, heads
concatenated, out_proj where it has one. The reference runs in float64.

An implementation's words (what it computes, today's labels) are messages: the table and the command
line keep them in English (`english`), the Compare and Scaling pages show them translated (`shown`).
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
from attention.bench.modern import SCALING_TILE, SCALING_WINDOW, grouped, online, windowed
from attention.bench.reference import Built, Loader, Weights, assign, full_expected, reference
from attention.chapter3 import blog_modules, modules
from attention.chapter3.embeddings import embed
from attention.chapter3.text import tokenize
from attention.devices import available_devices
from attention.errors import ConfigError
from attention.explorer.config import MAX_TOKENS
from attention.explorer.variants import VARIANTS
from attention.i18n import N_, tr, tr_n

# --- the implementations: the book's variants, today's and torch's two ---------------------------


# what a message about today's attention fills in: its window and its tile, in tokens (at most)
FILLED = {"window": SCALING_WINDOW, "tile": SCALING_TILE}
# TRANSLATORS: {why} says which variant needs it, a short phrase
NEEDS_SQUARE = N_("needs d_in = d_out ({why})")


@dataclass(frozen=True)
class Implementation:
    key: str
    label: str  # a name, or a message (a book variant's label; today's in words, FILLED)
    computes: str  # in words, a message: heads, mask, out_proj (FILLED)
    batched: bool  # forward takes (B, T, d_in); otherwise (T, d_in)
    causal_knob: bool  # follows the causal setting (otherwise never masks)
    multi_head: bool  # computes `heads` heads; otherwise one (H = 1)
    short: str  # the class or function name, for a chip (a message where it is in words, FILLED)
    loader: Loader
    traces: bool = True  # has the explorer's .trace (the book's classes do, torch's do not)
    square_only: str = ""  # why it needs d_in == d_out, where it does
    function: bool = False  # a function, no module of its own: its parameters are counted elsewhere
    note: str = ""  # said in its row of the table
    words: tuple[str, ...] = ("computes",)  # the fields that are messages, not names

    def english(self, field: str) -> str:
        """A field (label, computes, short) as the table and the command line keep it."""
        return getattr(self, field).format(**FILLED)

    def shown(self, field: str) -> str:
        """A field in the reader's language (a name comes back as it is)."""
        return tr(getattr(self, field), **FILLED) if field in self.words else self.english(field)


def _variant(key: str, computes: str, loader: Loader, square_only: str = "") -> Implementation:
    v = VARIANTS[key]
    return Implementation(
        key=key,
        label=v.label,
        computes=computes,
        batched=v.batched,
        causal_knob=v.has("causal"),
        multi_head=v.has("heads"),
        short=v.cls.__name__,
        loader=loader,
        square_only=square_only,
        words=("label", "computes"),
    )


def _torch(key: str, label: str, loader: Loader, **extra) -> Implementation:
    """torch's own attention with MultiHeadAttention's weights: H heads, mask, out_proj; no trace."""
    short = label.removeprefix("torch.")
    return Implementation(
        key, label, N_("H heads, mask, out_proj"), True, True, True, short, loader, traces=False, **extra
    )


def _one_head(w: Weights, causal: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: reference(x, w.wq, w.wk, w.wv, 1, causal)


def _heads(w: Weights, heads: int, causal: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: reference(x, w.wq, w.wk, w.wv, heads, causal)


def _head_rows(w: Weights, heads: int) -> list[slice]:
    """The rows of W_query, W_key, W_value that make head h: h * head_dim to (h + 1) * head_dim."""
    head_dim = w.wq.shape[0] // heads
    return [slice(h * head_dim, (h + 1) * head_dim) for h in range(heads)]


def _simplified(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    eye = torch.eye(w.wq.shape[1])  # no weights: queries = keys = values = x, not scaled
    expected = lambda x: reference(x, eye, eye, eye, 1, False, scale=1.0)  # noqa: E731
    return Built(modules.SimplifiedSelfAttention().to(device), expected)


def _v1(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    module = modules.SelfAttention_v1(w.wq.shape[1], w.wq.shape[0])  # nn.Parameter (d_in, d_out)
    module.W_query.copy_(w.wq.T), module.W_key.copy_(w.wk.T), module.W_value.copy_(w.wv.T)
    return Built(module.to(device), _one_head(w, causal))


def _v2(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    module = modules.SelfAttention_v2(w.wq.shape[1], w.wq.shape[0])
    assign(module.W_query, w.wq), assign(module.W_key, w.wk), assign(module.W_value, w.wv)
    return Built(module.to(device), _one_head(w, causal))


def _separate_dv(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    d_out, d_in = w.wq.shape
    module = blog_modules.SelfAttentionQKV(d_in, d_out, d_out)  # weights (d, d_in), applied as W·x
    module.W_query.copy_(w.wq), module.W_key.copy_(w.wk), module.W_value.copy_(w.wv)
    return Built(module.to(device), _one_head(w, causal))


def _causal(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    module = modules.CausalAttention(w.wq.shape[1], w.wq.shape[0], t, 0.0, causal=causal)
    assign(module.W_query, w.wq), assign(module.W_key, w.wk), assign(module.W_value, w.wv)
    return Built(module.to(device), _one_head(w, causal))


def _stacked_heads(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    d_out, d_in = w.wq.shape
    module = blog_modules.MultiHeadSelfAttentionQKV(d_in, d_out // heads, d_out // heads, heads)
    for h, rows in enumerate(_head_rows(w, heads)):
        module.multihead_W_query[h].copy_(w.wq[rows])
        module.multihead_W_key[h].copy_(w.wk[rows])
        module.multihead_W_value[h].copy_(w.wv[rows])
    return Built(module.to(device), _heads(w, heads, False))


def _wrapper(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    d_out, d_in = w.wq.shape
    module = modules.MultiHeadAttentionWrapper(d_in, d_out // heads, t, 0.0, heads, causal=causal)
    for head, rows in zip(module.heads, _head_rows(w, heads), strict=True):
        (
            assign(head.W_query, w.wq[rows]),
            assign(head.W_key, w.wk[rows]),
            assign(head.W_value, w.wv[rows]),
        )
    return Built(module.to(device), _heads(w, heads, causal))


def _mha(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    d_out, d_in = w.wq.shape
    module = modules.MultiHeadAttention(d_in, d_out, t, 0.0, heads, causal=causal)
    assign(module.W_query, w.wq), assign(module.W_key, w.wk), assign(module.W_value, w.wv)
    assign(module.out_proj, w.wo, w.bo)
    return Built(module.to(device), full_expected(w, heads, causal))


def _torch_mha(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    module = nn.MultiheadAttention(w.wq.shape[0], heads, batch_first=True)
    module.in_proj_weight.copy_(torch.cat([w.wq, w.wk, w.wv]))
    module.in_proj_bias.zero_()  # the book's qkv_bias=False
    assign(module.out_proj, w.wo, w.bo)
    module = module.to(device)
    mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=device), 1) if causal else None  # (T, T)
    forward = lambda x: module(x, x, x, need_weights=False, attn_mask=mask)[0]  # noqa: E731
    return Built(module, full_expected(w, heads, causal), forward)


def _sdpa(w: Weights, heads: int, causal: bool, t: int, device: str) -> Built:
    mha = _mha(w, heads, causal, t, device).module

    def forward(x):  # (B, T, d_in) -> (B, T, d_out), the same projections as MultiHeadAttention
        B, T, _ = x.shape
        q, k, v = (
            layer(x).view(B, T, heads, -1).transpose(1, 2) for layer in (mha.W_query, mha.W_key, mha.W_value)
        )  # (B, H, T, head_dim) each
        context = F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # (B, H, T, head_dim)
        return mha.out_proj(context.transpose(1, 2).reshape(B, T, -1))  # (B, T, d_out)

    return Built(mha, full_expected(w, heads, causal), forward)


IMPLEMENTATIONS = {
    i.key: i
    for i in (
        _variant(
            "simplified", N_("1 head, no weights, no scaling, no mask"), _simplified, N_("it has no weights")
        ),
        _variant("v1", N_("1 head, no mask"), _v1),
        _variant("v2", N_("1 head, no mask"), _v2),
        _variant("separate_dv", N_("1 head, no mask"), _separate_dv),
        _variant("stacked_heads", N_("H heads concatenated, no mask"), _stacked_heads),
        _variant("causal", N_("1 head, mask"), _causal),
        _variant("wrapper", N_("H heads concatenated, mask"), _wrapper),
        _variant("mha", N_("H heads, mask, out_proj"), _mha),
        _variant(
            "gqa", N_("H query heads sharing key/value heads (2 each for even H), mask, out_proj"), grouped
        ),
        Implementation(
            "swa",
            N_("GroupedQueryAttention, window ≤ {window}"),
            N_("as gqa, each query sees T / 2 keys, {window} at most"),
            True,
            True,
            True,
            N_("GQA, sliding window ≤ {window}"),
            windowed,
            words=("label", "computes", "short"),
        ),
        _variant("online", N_("H heads, mask, out_proj, T / 3 keys at a time ({tile} at most)"), online),
        _torch(
            "torch_mha",
            "torch.nn.MultiheadAttention",
            _torch_mha,
            square_only=N_("its query width is embed_dim"),
        ),
        _torch(
            "sdpa",
            "F.scaled_dot_product_attention",
            _sdpa,
            function=True,
            note="uses MultiHeadAttention's weights",
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


@torch.no_grad()
def load(key: str, w: Weights, heads: int, causal: bool, context_length: int, device: str = "cpu") -> Loaded:
    """Variant `key` with the shared weights `w`, in eval mode, on `device`."""
    variant = IMPLEMENTATIONS[key]
    built = variant.loader(w, heads, causal and variant.causal_knob, context_length, device)
    module = built.module.eval()
    parameters = 0 if variant.function else sum(p.numel() for p in module.parameters())
    if variant.batched:
        forward = built.forward or module
        trace = (built.trace or module.trace) if variant.traces else None
    else:  # the (T, d_in) variants run on each batch row
        forward = lambda x: module(x[0]).unsqueeze(0)  # noqa: E731
        trace = lambda x: module.trace(x[0])  # noqa: E731
    return Loaded(
        variant,
        torch.no_grad()(forward),
        trace and torch.no_grad()(trace),
        parameters,
        built.expected,
        module,
    )


def applicable(key: str, d_in: int, d_out: int) -> str | None:
    """Why variant `key` cannot run at these widths (in the reader's language), or None."""
    why = IMPLEMENTATIONS[key].square_only
    return tr(NEEDS_SQUARE, why=tr(why)) if why and d_in != d_out else None


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
        row = {"variant": key, "module": variant.english("label"), "computes": variant.english("computes")}
        if applicable(key, d_in, d_out):  # the table's words stay English: the page translates them
            why = NEEDS_SQUARE.format(why=variant.square_only)
            rows.append(row | {"output shape": "—", "max |diff|": math.nan, "parameters": 0, "note": why})
            continue
        loaded = load(key, w, heads, causal, x.shape[1])
        output = loaded.forward(x)
        row |= {
            "output shape": str(tuple(output.shape)),
            "max |diff|": (output.double() - loaded.expected(x)).abs().max().item(),
            "parameters": loaded.parameters,
            "note": variant.note,
        }
        for device in devices:
            call = bound_call(load(key, w, heads, causal, x.shape[1], device), "forward", x.to(device))
            row[f"ms ({device})"] = time_call(call, device, min_seconds) * 1e3
        rows.append(row)
    return pd.DataFrame(rows)


def sentence_table(
    text: str, tokenizer: str, d: int, heads: int, causal: bool, seed: int, devices: list[str] | None = None
) -> pd.DataFrame:
    """equivalence_table on a sentence: its tokens through a seeded nn.Embedding of width
    d = d_in = d_out (the Explorer's random embedding), weights drawn with the same seed."""
    tokens = tokenize(text, tokenizer)
    if len(tokens) > MAX_TOKENS:
        n = len(tokens)
        said = tr_n(
            "The text has {n} token; the table takes at most {limit}.",
            "The text has {n} tokens; the table takes at most {limit}.",
            n,
            n=n,
            limit=MAX_TOKENS,
        )
        raise ConfigError(said, "text")
    x = embed(tokens, "random", d, seed, None).unsqueeze(0)  # (1, T, d)
    return equivalence_table(x, d, heads, causal, seed, devices=devices)


def bound_call(loaded: Loaded, mode: str, x: torch.Tensor) -> Callable[[], object]:
    run = loaded.forward if mode == "forward" else loaded.trace
    return lambda: run(x)
