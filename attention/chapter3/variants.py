"""The one table of attention variants: what each computes, which knobs it has, how to build it.

Everything that depends on the variant reads this table: the config (which knobs apply), the
engine (the constructor call and the input's shape), the code snippet (the same constructor
call, as text) and the sidebar (labels and knobs).

    variant      class                        from                               knobs
    simplified   SimplifiedSelfAttention      book 3.3, no weights               -
    v1           SelfAttention_v1             book 3.4, nn.Parameter weights     d_out
    v2           SelfAttention_v2             book 3.4, nn.Linear weights        d_out, bias
    causal       CausalAttention              book 3.5                           all but heads
    wrapper      MultiHeadAttentionWrapper    book 3.6.1                         all
    mha          MultiHeadAttention           book 3.6.2                         all
    separate_dv  SelfAttentionQKV             Raschka's blog, d_v != d_k         d_out (= d_k), d_v
    stacked_heads MultiHeadSelfAttentionQKV   Raschka's blog, torch.bmm          d_out, d_v, heads
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch.nn as nn

from attention.chapter3 import blog_modules, modules

KNOBS = ("d_out", "d_v", "heads", "dropout", "causal", "bias", "train")
# Before they were named for what they compute, two variants were named for their source.
FORMER_KEYS = {"blog": "separate_dv", "blog_heads": "stacked_heads"}


@dataclass(frozen=True)
class Variant:
    key: str
    cls: type[nn.Module]
    label: str  # what it is, short enough for the sidebar
    help: str  # what it computes and where it is taught
    knobs: frozenset[str]  # which of KNOBS change its computation
    batched: bool  # forward takes (B, T, d_in); otherwise (T, d_in)
    arguments: Callable[[Any, int], dict]  # (config, context_length) -> constructor keywords
    head_dim: Callable[[Any], int]  # query/key width per head
    output_width: Callable[[Any], int]  # last axis of the output
    d_out_label: str = "d_out"

    def build(self, config, context_length: int) -> nn.Module:
        return self.cls(**self.arguments(config, context_length))

    def constructor(self, config, context_length: int) -> str:
        """The same call as text, for a script a reader can run."""
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.arguments(config, context_length).items())
        return f"{self.cls.__name__}({arguments})"

    def has(self, knob: str) -> bool:
        return knob in self.knobs


def _causal(c) -> dict:
    return {} if c.causal else {"causal": False}  # the book's default is causal=True


_MASKED = frozenset({"d_out", "dropout", "causal", "bias", "train"})
VARIANTS: dict[str, Variant] = {
    v.key: v
    for v in (
        Variant("simplified", modules.SimplifiedSelfAttention, "Simplified: no weights (3.3)",
                "Section 3.3: scores = x·xᵀ, softmax, weighted sum of the inputs. No trainable weights, "
                "no scaling, no mask, one head.", frozenset(), False,
                lambda c, t: {}, lambda c: c.d_in, lambda c: c.d_in),
        Variant("v1", modules.SelfAttention_v1, "SelfAttention_v1: nn.Parameter (3.4)",
                "Section 3.4: trainable W_query, W_key, W_value as nn.Parameter (torch.rand); one head, "
                "no mask.", frozenset({"d_out"}), False,
                lambda c, t: {"d_in": c.d_in, "d_out": c.d_out}, lambda c: c.d_out, lambda c: c.d_out),
        Variant("v2", modules.SelfAttention_v2, "SelfAttention_v2: nn.Linear (3.4)",
                "Section 3.4: the weights as nn.Linear layers (optionally with a bias); one head, no mask.",
                frozenset({"d_out", "bias"}), False,
                lambda c, t: {"d_in": c.d_in, "d_out": c.d_out, "qkv_bias": c.bias},
                lambda c: c.d_out, lambda c: c.d_out),
        Variant("causal", modules.CausalAttention, "CausalAttention (3.5)",
                "Section 3.5: one head with the causal mask (−inf above the diagonal) and dropout on the "
                "weights; batched input.", _MASKED, True,
                lambda c, t: {"d_in": c.d_in, "d_out": c.d_out, "context_length": t, "dropout": c.dropout,
                              "qkv_bias": c.bias, **_causal(c)},
                lambda c: c.d_out, lambda c: c.d_out),
        Variant("wrapper", modules.MultiHeadAttentionWrapper, "MultiHeadAttentionWrapper (3.6.1)",
                "Section 3.6.1: H separate CausalAttention heads, outputs concatenated (width H × d_out).",
                _MASKED | {"heads"}, True,
                lambda c, t: {"d_in": c.d_in, "d_out": c.d_out, "context_length": t, "dropout": c.dropout,
                              "num_heads": c.heads, "qkv_bias": c.bias, **_causal(c)},
                lambda c: c.d_out, lambda c: c.heads * c.d_out, "d_out per head"),
        Variant("mha", modules.MultiHeadAttention, "MultiHeadAttention (3.6.2)",
                "Section 3.6.2: one projection of width d_out split into H heads of d_out / H, causal "
                "mask, dropout, then out_proj. The chapter's final class, used in GPT.",
                _MASKED | {"heads"}, True,
                lambda c, t: {"d_in": c.d_in, "d_out": c.d_out, "context_length": t, "dropout": c.dropout,
                              "num_heads": c.heads, "qkv_bias": c.bias, **_causal(c)},
                lambda c: c.d_out // c.heads, lambda c: c.d_out),
        Variant("separate_dv", blog_modules.SelfAttentionQKV, "Separate d_k and d_v (blog)",
                "From Raschka's blog post 'Understanding and coding self-attention': values may have a "
                "width d_v other than d_q = d_k; weights applied as W·x.", frozenset({"d_out", "d_v"}),
                False, lambda c, t: {"d_in": c.d_in, "d_k": c.d_out, "d_v": c.d_v},
                lambda c: c.d_out, lambda c: c.d_v, "d_q = d_k"),
        Variant("stacked_heads", blog_modules.MultiHeadSelfAttentionQKV,
                "Stacked heads, batched matmul (blog)",
                "From Raschka's blog post: H heads' weights stacked into one (H, d, d_in) tensor and "
                "applied with torch.bmm; heads concatenated, no mask.",
                frozenset({"d_out", "d_v", "heads"}), False,
                lambda c, t: {"d_in": c.d_in, "d_k": c.d_out, "d_v": c.d_v, "num_heads": c.heads},
                lambda c: c.d_out, lambda c: c.heads * c.d_v, "d_q = d_k per head"),
    )
}  # fmt: skip
