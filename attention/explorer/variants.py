"""The one table of attention variants: what each computes, which knobs it has, how to build it.

Everything that depends on the variant reads this table, by field name: the config (which knobs
apply, which combinations it refuses), the engine (the constructor call and the input's shape),
the code snippet (the same constructor call, as text, and the classes it needs), the sidebar
(labels and knobs) and the bench (the book's classes beside torch's).

    variant      class                        from                               knobs
    simplified   SimplifiedSelfAttention      book 3.3, no weights               -
    v1           SelfAttention_v1             book 3.4, nn.Parameter weights     d_out
    v2           SelfAttention_v2             book 3.4, nn.Linear weights        d_out, bias
    causal       CausalAttention              book 3.5                           all but heads
    wrapper      MultiHeadAttentionWrapper    book 3.6.1                         all
    mha          MultiHeadAttention           book 3.6.2                         all
    separate_dv  SelfAttentionQKV             Raschka's blog, d_v != d_k         d_out (= d_k), d_v
    stacked_heads MultiHeadSelfAttentionQKV   Raschka's blog, torch.bmm          d_out, d_v, heads
    gqa          GroupedQueryAttention        llama3.py (ch04/04_gqa, 06_swa)    d_out, heads, kv_groups,
                                                                                 window, rope, causal
    kv_cache     MultiHeadAttention + cache   ch04/03_kv-cache                   d_out, heads, bias
    online       OnlineSoftmaxAttention       FlashAttention's softmax           d_out, heads, tile, causal,
                                                                                 bias

The last three are today's attention (attention.modern): a variant says how its module is called
(`call`: the forward, `trace`: the traced pass) and how the snippet calls it (`code`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn as nn

from attention.chapter3 import blog_modules, modules
from attention.i18n import N_
from attention.modern import gqa, kv_cache, masks, online_softmax, rope

KNOBS = ("d_out", "d_v", "heads", "kv_groups", "window", "rope", "tile", "dropout", "causal", "bias", "train")
# Before they were named for what they compute, two variants were named for their source.
FORMER_KEYS = {"blog": "separate_dv", "blog_heads": "stacked_heads"}


@dataclass(frozen=True)
class Variant:
    key: str
    cls: type[nn.Module]
    label: str  # what it is, short enough for the sidebar (a message: tr() where it is shown)
    help: str  # what it computes and where it is taught (a message too)
    knobs: frozenset[str]  # which of KNOBS change its computation
    batched: bool  # forward takes (B, T, d_in); otherwise (T, d_in)
    arguments: Callable[[Any, int], dict]  # (config, context_length) -> constructor keywords
    head_dim: Callable[[Any], int] = lambda c: c.d_out  # query/key width per head
    output_width: Callable[[Any], int] = lambda c: c.d_out  # last axis of the output
    d_out_label: str = "d_out"  # a message where it has words (N_): tr() where it is shown
    trainable: bool = True  # has trainable weights (W_query, W_key, W_value); 3.3's has none
    splits_d_out: bool = False  # d_out is split into `heads` heads of d_out / heads: heads divides d_out
    builds_on: tuple = ()  # classes and functions its source needs first (the wrapper's head)
    imports: tuple[str, ...] = ()  # import lines its source needs beyond torch and nn
    # (module, config, x) -> output, and (module, config, x, generator) -> AttentionTrace: x shaped
    # as forward takes it (batched or not)
    call: Callable[[nn.Module, Any, torch.Tensor], torch.Tensor] = lambda m, c, x: m(x)
    trace: Callable[..., Any] = lambda m, c, x, generator=None: m.trace(x, generator=generator)
    # (config, context_length) -> the snippet's lines that compute `out` from `x`
    code: Callable[[Any, int], list[str]] | None = None
    fixed: tuple[tuple[str, Any], ...] = ()  # knobs it lacks that are not at their neutral value

    def build(self, config, context_length: int) -> nn.Module:
        return self.cls(**self.arguments(config, context_length))

    def call_code(self, config, context_length: int) -> list[str]:
        if self.code is not None:
            return self.code(config, context_length)
        return [f"out = module({'x.unsqueeze(0)' if self.batched else 'x'})"]

    def constructor(self, config, context_length: int) -> str:
        """The same call as text, for a script a reader can run."""
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.arguments(config, context_length).items())
        return f"{self.cls.__name__}({arguments})"

    def has(self, knob: str) -> bool:
        return knob in self.knobs


def _causal(c) -> dict:
    return {} if c.causal else {"causal": False}  # the book's default is causal=True


def _batched(c, t: int, **heads) -> dict:
    """The keywords of the batched classes (3.5 on), in the book's order."""
    return {
        "d_in": c.d_in,
        "d_out": c.d_out,
        "context_length": t,
        "dropout": c.dropout,
        **heads,
        "qkv_bias": c.bias,
        **_causal(c),
    }


_MASKED = frozenset({"d_out", "dropout", "causal", "bias", "train"})


# --- today's attention (attention.modern): what forward takes besides x -----------------------


def _gqa_inputs(c, x: torch.Tensor) -> dict:
    """GroupedQueryAttention's mask (causal, with the window if any; None: no mask) and RoPE's cos
    and sin (None: no rotation), for x's tokens, on x's device."""
    t = x.shape[1]
    mask = masks.sliding_window_mask(t, window=c.window, device=x.device) if c.causal else None
    cos, sin = rope.compute_rope_params(c.d_out // c.heads, context_length=t) if c.rope else (None, None)
    cos, sin = (None, None) if cos is None else (cos.to(x.device), sin.to(x.device))
    return {"mask": mask, "cos": cos, "sin": sin}


def _gqa_call(m, c, x):
    inputs = _gqa_inputs(c, x)
    mask = inputs["mask"]
    if mask is None:  # forward always takes a mask: one that hides nothing
        mask = torch.zeros(x.shape[1], x.shape[1], dtype=torch.bool, device=x.device)
    return m(x, mask, inputs["cos"], inputs["sin"])


def _gqa_code(c, t: int) -> list[str]:
    lines = [f"T = {t}"]
    if c.causal:
        lines.append("mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # causal")
        if c.window is not None:
            lines.append(
                f"mask |= torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-{c.window})"
                f"  # a window of {c.window}: nothing {c.window} or more back"
            )
    else:
        lines.append("mask = torch.zeros(T, T, dtype=torch.bool)  # no mask")
    if c.rope:
        lines.append(f"cos, sin = compute_rope_params(head_dim={c.d_out // c.heads}, context_length=T)")
    else:
        lines.append("cos = sin = None  # no RoPE")
    return [*lines, "out = module(x.unsqueeze(0), mask, cos, sin)"]


_ONE_AT_A_TIME = [
    "module.reset_cache()  # one token at a time: each step adds its key and value to the cache",
    "out = torch.cat([module(x[None, t : t + 1], use_cache=True) for t in range(len(x))], dim=1)",
]
VARIANTS: dict[str, Variant] = {
    v.key: v
    for v in (
        Variant(
            key="simplified",
            cls=modules.SimplifiedSelfAttention,
            label=N_("Simplified: no weights (3.3)"),
            help=N_(
                "Section 3.3: scores = x·xᵀ, softmax, weighted sum of the inputs. No trainable weights, "
                "no scaling, no mask, one head."
            ),
            knobs=frozenset(),
            batched=False,
            arguments=lambda c, t: {},
            head_dim=lambda c: c.d_in,
            output_width=lambda c: c.d_in,
            trainable=False,
        ),
        Variant(
            key="v1",
            cls=modules.SelfAttention_v1,
            label="SelfAttention_v1: nn.Parameter (3.4)",
            help=N_(
                "Section 3.4: trainable W_query, W_key, W_value as nn.Parameter (torch.rand); one head, "
                "no mask."
            ),
            knobs=frozenset({"d_out"}),
            batched=False,
            arguments=lambda c, t: {"d_in": c.d_in, "d_out": c.d_out},
        ),
        Variant(
            key="v2",
            cls=modules.SelfAttention_v2,
            label="SelfAttention_v2: nn.Linear (3.4)",
            help=N_(
                "Section 3.4: the weights as nn.Linear layers (optionally with a bias); one head, no mask."
            ),
            knobs=frozenset({"d_out", "bias"}),
            batched=False,
            arguments=lambda c, t: {"d_in": c.d_in, "d_out": c.d_out, "qkv_bias": c.bias},
        ),
        Variant(
            key="causal",
            cls=modules.CausalAttention,
            label="CausalAttention (3.5)",
            help=N_(
                "Section 3.5: one head with the causal mask (−inf above the diagonal) and dropout on the "
                "weights; batched input."
            ),
            knobs=_MASKED,
            batched=True,
            arguments=lambda c, t: _batched(c, t),
        ),
        Variant(
            key="wrapper",
            cls=modules.MultiHeadAttentionWrapper,
            label="MultiHeadAttentionWrapper (3.6.1)",
            help=N_(
                "Section 3.6.1: H separate CausalAttention heads, outputs concatenated (width H × d_out)."
            ),
            knobs=_MASKED | {"heads"},
            batched=True,
            arguments=lambda c, t: _batched(c, t, num_heads=c.heads),
            output_width=lambda c: c.heads * c.d_out,
            d_out_label=N_("d_out per head"),
            builds_on=(modules.CausalAttention,),
        ),
        Variant(
            key="mha",
            cls=modules.MultiHeadAttention,
            label="MultiHeadAttention (3.6.2)",
            help=N_(
                "Section 3.6.2: one projection of width d_out split into H heads of d_out / H, causal "
                "mask, dropout, then out_proj. The chapter's final class, used in GPT."
            ),
            knobs=_MASKED | {"heads"},
            batched=True,
            arguments=lambda c, t: _batched(c, t, num_heads=c.heads),
            head_dim=lambda c: c.d_out // c.heads,
            splits_d_out=True,
        ),
        Variant(
            key="separate_dv",
            cls=blog_modules.SelfAttentionQKV,
            label=N_("Separate d_k and d_v (blog)"),
            help=N_(
                "From Raschka's blog post 'Understanding and coding self-attention': values may have a "
                "width d_v other than d_q = d_k; weights applied as W·x."
            ),
            knobs=frozenset({"d_out", "d_v"}),
            batched=False,
            arguments=lambda c, t: {"d_in": c.d_in, "d_k": c.d_out, "d_v": c.d_v},
            output_width=lambda c: c.d_v,
            d_out_label="d_q = d_k",
        ),
        Variant(
            key="stacked_heads",
            cls=blog_modules.MultiHeadSelfAttentionQKV,
            label=N_("Stacked heads, batched matmul (blog)"),
            help=N_(
                "From Raschka's blog post: H heads' weights stacked into one (H, d, d_in) tensor and "
                "applied with torch.bmm; heads concatenated, no mask."
            ),
            knobs=frozenset({"d_out", "d_v", "heads"}),
            batched=False,
            arguments=lambda c, t: {"d_in": c.d_in, "d_k": c.d_out, "d_v": c.d_v, "num_heads": c.heads},
            output_width=lambda c: c.heads * c.d_v,
            d_out_label=N_("d_q = d_k per head"),
        ),
        Variant(
            key="gqa",
            cls=gqa.GroupedQueryAttention,
            label="GroupedQueryAttention (Llama 3)",
            help=N_(
                "Llama 3, Qwen3, Gemma, Mistral (the book's llama3.py): H query heads share kv_groups "
                "key/value heads (1 = multi-query, H = multi-head); optionally a sliding window (Mistral, "
                "Gemma) and RoPE, queries and keys rotated by position. No biases, no dropout."
            ),
            knobs=frozenset({"d_out", "heads", "kv_groups", "window", "rope", "causal"}),
            batched=True,
            arguments=lambda c, t: {
                "d_in": c.d_in,
                "d_out": c.d_out,
                "num_heads": c.heads,
                "num_kv_groups": c.kv_groups,
            },
            head_dim=lambda c: c.d_out // c.heads,
            splits_d_out=True,
            builds_on=(rope.compute_rope_params, rope.apply_rope),
            call=_gqa_call,
            trace=lambda m, c, x, generator=None: m.trace(x, **_gqa_inputs(c, x), window=c.window),
            code=_gqa_code,
        ),
        Variant(
            key="kv_cache",
            cls=kv_cache.MultiHeadAttention,
            label=N_("MultiHeadAttention, KV cache"),
            help=N_(
                "The book's ch04/03_kv-cache: generation one token at a time; each step computes only "
                "the new token's query, key and value, keeps the keys and values in a cache and adds one row "
                "of scores. The same numbers as 3.6.2's causal attention, O(T) work per new token."
            ),
            knobs=frozenset({"d_out", "heads", "bias"}),
            batched=True,
            arguments=lambda c, t: {
                "d_in": c.d_in,
                "d_out": c.d_out,
                "context_length": t,
                "dropout": 0.0,
                "num_heads": c.heads,
                "qkv_bias": c.bias,
            },
            head_dim=lambda c: c.d_out // c.heads,
            splits_d_out=True,
            builds_on=(masks.sliding_window_mask,),
            fixed=(("causal", True),),  # one token at a time sees only the tokens before it
            call=lambda m, c, x: kv_cache.generate(m, x),
            trace=lambda m, c, x, generator=None: kv_cache.generation_trace(m, x, keep_steps=False)[0],
            code=lambda c, t: _ONE_AT_A_TIME,
        ),
        Variant(
            key="online",
            cls=online_softmax.OnlineSoftmaxAttention,
            label=N_("Online softmax (FlashAttention)"),
            help=N_(
                "FlashAttention's softmax (Dao et al. 2022) in 3.6.2's MultiHeadAttention: keys taken a "
                "tile at a time with a running maximum and sum, so the T × T matrix is never held whole. "
                "The same output within float rounding."
            ),
            knobs=frozenset({"d_out", "heads", "tile", "causal", "bias"}),
            batched=True,
            arguments=lambda c, t: _batched(c, t, num_heads=c.heads) | {"tile_size": c.tile},
            head_dim=lambda c: c.d_out // c.heads,
            splits_d_out=True,
            builds_on=(modules.MultiHeadAttention, online_softmax.Tile, online_softmax.online_attention),
            imports=("from dataclasses import dataclass",),
        ),
    )
}
