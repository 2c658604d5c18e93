"""Qwen3's pieces (attention/model/qwen3.py builds the model from them): its config's keys and
checks, RMSNorm, the SwiGLU FeedForward, GroupedQueryAttention (keys and values repeat_interleave'd
to the query heads, QK-norm, RoPE, an explicit softmax) and the TransformerBlock. In a module of
their own only to keep each under 400 lines; read qwen3.py first, as the book's bonus code reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import torch
import torch.nn as nn

from attention.chapter3.modules import assemble_trace, attend
from attention.chapter3.trace import AttentionTrace
from attention.errors import ConfigError
from attention.i18n import tr
from attention.modern.rope import apply_rope

# The book's keys (pkg/llms_from_scratch/qwen3.py), and ours on top: which layers slide and how far,
# biases on the attention's projections (Hugging Face's attention_bias), RMSNorm's epsilon, RoPE's
# frequency rescaling (Llama 3's), and where the key/value heads come from.
CONFIG_KEYS = (
    "vocab_size",
    "context_length",
    "emb_dim",
    "n_heads",
    "n_layers",
    "hidden_dim",
    "head_dim",
    "qk_norm",
    "n_kv_groups",
    "rope_base",
)
DEFAULTS = {
    "layer_types": None,  # one "full_attention" or "sliding_attention" per layer; None: all full
    "sliding_window": None,  # keys a sliding layer's query sees, itself included
    "qkv_bias": False,
    "norm_eps": 1e-6,
    "rope_freq": None,  # Llama 3's long-context rescaling (modern.rope.compute_rope_params)
    "tie_embeddings": True,
    "dtype": torch.float32,
}
LAYER_TYPES = ("full_attention", "sliding_attention")

# Qwen3-0.6B (Qwen/Qwen3-0.6B's config.json), as the book writes it
QWEN_CONFIG_06_B = {
    "vocab_size": 151_936,
    "context_length": 40_960,
    "emb_dim": 1024,
    "n_heads": 16,
    "n_layers": 28,
    "hidden_dim": 3072,
    "head_dim": 128,
    "qk_norm": True,
    "n_kv_groups": 8,
    "rope_base": 1_000_000.0,
}


def check_config(cfg: Mapping) -> dict:
    """The config with DEFAULTS filled in; ConfigError naming the offending keys and values for one
    the model cannot be built from (checked before anything is allocated)."""
    if missing := [k for k in CONFIG_KEYS if k not in cfg]:
        raise ConfigError(tr("A model config needs {keys}.", keys=", ".join(missing)), "config")
    cfg = DEFAULTS | dict(cfg)
    sizes = ("vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "hidden_dim", "head_dim")
    for key in (*sizes, "n_kv_groups"):
        value = cfg[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(
                tr("{key}={value} must be a whole number of at least 1.", key=key, value=repr(value)), key
            )
    if cfg["n_heads"] % cfg["n_kv_groups"]:
        raise ConfigError(
            tr(
                "n_heads={heads} must be a multiple of n_kv_groups={groups}: each key/value head serves the "
                "same number of query heads.",
                heads=cfg["n_heads"],
                groups=cfg["n_kv_groups"],
            ),
            "n_kv_groups",
        )
    if cfg["head_dim"] % 2:
        raise ConfigError(
            tr("head_dim={dim} must be even: RoPE turns pairs of coordinates.", dim=cfg["head_dim"]),
            "head_dim",
        )
    types = cfg["layer_types"] or ["full_attention"] * cfg["n_layers"]
    if len(types) != cfg["n_layers"] or any(t not in LAYER_TYPES for t in types):
        raise ConfigError(
            tr(
                "layer_types={types} must give one of {kinds} for each layer (layers: {n}).",
                types=repr(types)[:200],
                kinds=", ".join(LAYER_TYPES),
                n=cfg["n_layers"],
            ),
            "layer_types",
        )
    window = cfg["sliding_window"]
    if "sliding_attention" in types and (
        isinstance(window, bool) or not isinstance(window, int) or window < 1
    ):
        raise ConfigError(
            tr(
                "{key}={value} must be a whole number of at least 1.",
                key="sliding_window",
                value=repr(window),
            ),
            "sliding_window",
        )
    return cfg | {"layer_types": list(types)}


class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) * scale, computed in float32 whatever the weights' dtype (as Qwen3's
    and Llama's own RMSNorm: the scale multiplies after the cast back)."""

    def __init__(self, emb_dim, eps=1e-6, dtype=None):
        super().__init__()
        self.eps = eps
        self.scale = nn.Parameter(torch.ones(emb_dim, dtype=dtype))

    def forward(self, x):
        input_dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1)
        norm_x = x * torch.rsqrt(variance + self.eps)
        return self.scale * norm_x.to(input_dtype)


class FeedForward(nn.Module):
    """SwiGLU (Shazeer 2020): the gate fc1 through SiLU times fc2, back down through fc3."""

    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], bias=False, dtype=cfg["dtype"])
        self.fc2 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], bias=False, dtype=cfg["dtype"])
        self.fc3 = nn.Linear(cfg["hidden_dim"], cfg["emb_dim"], bias=False, dtype=cfg["dtype"])

    def forward(self, x):  # x: (B, T, d)
        x_fc1 = self.fc1(x)  # (B, T, hidden_dim)
        x_fc2 = self.fc2(x)  # (B, T, hidden_dim)
        return self.fc3(nn.functional.silu(x_fc1) * x_fc2)  # (B, T, d)


class GroupedQueryAttention(nn.Module):
    """num_heads query heads over num_kv_groups key/value heads: the keys and values of group g are
    repeat_interleave'd to query heads g * group_size .. (g + 1) * group_size - 1, so query head h
    reads key/value head h // group_size. Optionally each head's queries and keys pass through an
    RMSNorm of head_dim (QK-norm) before RoPE. The scores are divided by sqrt(head_dim), or by
    sqrt(query_pre_attn_scalar) where a model says so (Gemma 3); the softmax is written out."""

    def __init__(
        self,
        d_in,
        num_heads,
        num_kv_groups,
        head_dim=None,
        qk_norm=False,
        qkv_bias=False,
        query_pre_attn_scalar=None,
        norm=RMSNorm,
        eps=1e-6,
        dtype=None,
    ):
        super().__init__()
        if num_heads % num_kv_groups:
            raise ConfigError(
                tr(
                    "n_heads={heads} must be a multiple of n_kv_groups={groups}: each key/value head serves "
                    "the same number of query heads.",
                    heads=num_heads,
                    groups=num_kv_groups,
                )
            )
        self.num_heads = num_heads
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups
        self.head_dim = head_dim or d_in // num_heads
        self.d_out = num_heads * self.head_dim
        self.W_query = nn.Linear(d_in, self.d_out, bias=qkv_bias, dtype=dtype)
        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias, dtype=dtype)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias, dtype=dtype)
        self.out_proj = nn.Linear(self.d_out, d_in, bias=qkv_bias, dtype=dtype)
        self.q_norm = norm(self.head_dim, eps=eps, dtype=dtype) if qk_norm else None
        self.k_norm = norm(self.head_dim, eps=eps, dtype=dtype) if qk_norm else None
        # what the scores are divided by: sqrt(head_dim), as in chapter 3, unless the model says otherwise
        self.divisor = (query_pre_attn_scalar or self.head_dim) ** 0.5

    def project(self, x, cos, sin):
        """Queries (B, H, T, hd) and keys, values (B, G, T, hd): QK-normed, then rotated."""
        b, num_tokens, _ = x.shape
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys = self.W_key(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        if self.q_norm is not None:
            queries, keys = self.q_norm(queries), self.k_norm(keys)  # each head's own vectors
        queries = apply_rope(queries, cos, sin)  # (B, H, T, hd)
        keys = apply_rope(keys, cos, sin)  # (B, G, T, hd)
        return queries, keys, values

    def forward(self, x, mask, cos, sin):  # x: (B, T, d); mask (T, T) True where a query may not look
        b, num_tokens, _ = x.shape
        queries, keys, values = self.project(x, cos, sin)
        keys = keys.repeat_interleave(self.group_size, dim=1)  # (B, H, T, hd)
        values = values.repeat_interleave(self.group_size, dim=1)  # (B, H, T, hd)
        attn_scores = queries @ keys.transpose(2, 3)  # (B, H, T, T)
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)
        attn_weights = torch.softmax(attn_scores / self.divisor, dim=-1)  # (B, H, T, T)
        context = (attn_weights @ values).transpose(1, 2).reshape(b, num_tokens, self.d_out)  # (B, T, H*hd)
        return self.out_proj(context)  # (B, T, d)

    def trace(self, x, mask, cos, sin, window=None) -> AttentionTrace:
        """forward with every step kept (chapter 3's attend): the keys and values each query head
        read (its group's, so the heads of one group show the same ones), the QK-normed and rotated
        queries and keys, the mask. `window` is recorded (the mask already holds it)."""
        b, num_tokens, _ = x.shape
        queries, keys, values = self.project(x, cos, sin)
        keys = keys.repeat_interleave(self.group_size, dim=1)  # (B, H, T, hd)
        values = values.repeat_interleave(self.group_size, dim=1)  # (B, H, T, hd)
        steps = attend(queries, keys, values, divisor=self.divisor, mask=mask)
        output = self.out_proj(steps.context.transpose(1, 2).reshape(b, num_tokens, self.d_out))  # (B, T, d)
        trace = assemble_trace(self, x, steps, output)
        return replace(trace, kv_groups=self.num_kv_groups, window=window, rope=True)


class TransformerBlock(nn.Module):
    def __init__(self, cfg, layer_type="full_attention"):
        super().__init__()
        self.att = GroupedQueryAttention(
            d_in=cfg["emb_dim"],
            num_heads=cfg["n_heads"],
            num_kv_groups=cfg["n_kv_groups"],
            head_dim=cfg["head_dim"],
            qk_norm=cfg["qk_norm"],
            qkv_bias=cfg["qkv_bias"],
            eps=cfg["norm_eps"],
            dtype=cfg["dtype"],
        )
        self.ff = FeedForward(cfg)
        self.norm1 = RMSNorm(cfg["emb_dim"], eps=cfg["norm_eps"], dtype=cfg["dtype"])
        self.norm2 = RMSNorm(cfg["emb_dim"], eps=cfg["norm_eps"], dtype=cfg["dtype"])
        self.layer_type = layer_type
        self.window = cfg["sliding_window"] if layer_type == "sliding_attention" else None

    def forward(self, x, mask, cos, sin):  # x: (B, T, d)
        shortcut = x
        x = self.norm1(x)
        x = self.att(x, mask, cos, sin)
        x = x + shortcut  # the shortcut around attention
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        return x + shortcut  # and around the feed-forward

    def after_attention(self, attended, shortcut):
        """forward from the attention's output (B, T, d) on: what the traced walk runs after att.trace."""
        attention, ff = self.parts(attended, shortcut)
        return shortcut + attention + ff

    def parts(self, attended, shortcut):
        """What forward adds to the residual stream `shortcut`: attention's part, the feed-forward's."""
        return attended, self.ff(self.norm2(attended + shortcut))

    def attention_gain(self, attended):
        """None: attention's part is its output itself (pre-norm: no norm after it)."""
        return None


# --- reading a checkpoint's tensors (qwen3.load_weights_into_qwen, gemma3's) ------------------


def assign(param: torch.Tensor, value: torch.Tensor, name: str) -> None:
    """Copy `value` into `param`, raising ConfigError that names the tensor on a shape mismatch."""
    if param.shape != value.shape:
        shapes = {"theirs": tuple(value.shape), "ours": tuple(param.shape)}
        raise ConfigError(
            tr("{name}: the checkpoint has shape {theirs}, the model {ours}.", name=name, **shapes), "source"
        )
    with torch.no_grad():
        param.copy_(value)


class Weights:
    """A checkpoint's tensors by Hugging Face name, "model." prefix or not; ConfigError naming a
    missing one. `params` may be lazy (checkpoint.Tensors reads each when asked)."""

    def __init__(self, params: Mapping[str, torch.Tensor]):
        self.params = params
        self.names = {k.removeprefix("model."): k for k in params}

    def __contains__(self, name: str) -> bool:
        return name.removeprefix("model.") in self.names

    def __call__(self, name: str) -> torch.Tensor:
        if name.removeprefix("model.") not in self.names:
            raise ConfigError(tr("The checkpoint has no {name}.", name=repr(name)), "source")
        return self.params[self.names[name.removeprefix("model.")]]
