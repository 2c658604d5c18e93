"""Gemma 3 (Google, 2025) from scratch, in the book's names: Qwen3's grouped-query attention
(qwen3.py) with Gemma's changes.

Laid out as the book's bonus code lays it out: rasbt/LLMs-from-scratch, ch05/12_gemma3 (Sebastian
Raschka, Apache License 2.0), written again here. What Gemma 3 does differently from Qwen3:

    tok_emb's output x sqrt(emb_dim)   the embeddings scaled up before the first block
    RMSNorm with (1 + scale)           its scale starts at 0 and the norm multiplies by 1 + scale
    four norms per block               norm1 before attention and post_attention_norm after it,
                                       norm2 before the feed-forward and post_ff_norm after it
    query_pre_attn_scalar              the scores are divided by sqrt(query_pre_attn_scalar), not
                                       sqrt(head_dim)
    sliding and full layers            layer_types: most layers slide (5 of 6 in Gemma 3), each
                                       kind with its own RoPE base (rope_local_base for sliding
                                       layers, rope_base, maybe slowed by rope_factor, for full)
    multi-query attention              in the 270M and 1B models: one key/value head for all
    FeedForward                        GELU (tanh) gate: fc3(gelu(fc1(x)) * fc2(x))

    model = Gemma3Model(GEMMA3_CONFIG_270M)   # or checkpoint.load_model("gemma-3-270m's folder")
    trace = model.trace(ids)

Shape legend: B batch, T tokens, d emb_dim.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
import torch.nn as nn

from attention.errors import ConfigError
from attention.i18n import tr
from attention.model import qwen3
from attention.model.qwen3 import GroupedQueryAttention, Qwen3Model, Weights, assign
from attention.modern.rope import compute_rope_params

# google/gemma-3-270m's config.json, in the book's keys
GEMMA3_CONFIG_270M = {
    "vocab_size": 262_144,
    "context_length": 32_768,
    "emb_dim": 640,
    "n_heads": 4,
    "n_layers": 18,
    "hidden_dim": 2048,
    "head_dim": 256,
    "qk_norm": True,
    "n_kv_groups": 1,
    "rope_local_base": 10_000.0,
    "rope_base": 1_000_000.0,
    "sliding_window": 512,
    "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 3,
    "query_pre_attn_scalar": 256,
}


class RMSNorm(nn.Module):
    """Gemma's RMSNorm: x / sqrt(mean(x²) + eps) * (1 + scale), in float32, the scale starting at 0."""

    def __init__(self, emb_dim, eps=1e-6, dtype=None):
        super().__init__()
        self.eps = eps
        self.scale = nn.Parameter(torch.zeros(emb_dim, dtype=dtype))

    def forward(self, x):
        input_dtype = x.dtype
        x = x.float()
        norm_x = x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)  # (..., emb_dim)
        return (norm_x * (1.0 + self.scale.float())).to(input_dtype)


class FeedForward(nn.Module):
    """GeGLU: the gate fc1 through GELU (tanh approximation) times fc2, back down through fc3."""

    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], bias=False, dtype=cfg["dtype"])
        self.fc2 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], bias=False, dtype=cfg["dtype"])
        self.fc3 = nn.Linear(cfg["hidden_dim"], cfg["emb_dim"], bias=False, dtype=cfg["dtype"])

    def forward(self, x):  # x: (B, T, d)
        x_fc1 = self.fc1(x)  # (B, T, hidden_dim)
        x_fc2 = self.fc2(x)  # (B, T, hidden_dim)
        return self.fc3(nn.functional.gelu(x_fc1, approximate="tanh") * x_fc2)  # (B, T, d)


class TransformerBlock(nn.Module):
    def __init__(self, cfg, layer_type="sliding_attention"):
        super().__init__()
        self.att = GroupedQueryAttention(
            d_in=cfg["emb_dim"],
            num_heads=cfg["n_heads"],
            num_kv_groups=cfg["n_kv_groups"],
            head_dim=cfg["head_dim"],
            qk_norm=cfg["qk_norm"],
            qkv_bias=cfg["qkv_bias"],
            query_pre_attn_scalar=cfg["query_pre_attn_scalar"],
            norm=RMSNorm,
            eps=cfg["norm_eps"],
            dtype=cfg["dtype"],
        )
        self.ff = FeedForward(cfg)
        norm = lambda: RMSNorm(cfg["emb_dim"], eps=cfg["norm_eps"], dtype=cfg["dtype"])  # noqa: E731
        self.norm1, self.post_attention_norm = norm(), norm()
        self.norm2, self.post_ff_norm = norm(), norm()
        self.layer_type = layer_type
        self.window = cfg["sliding_window"] if layer_type == "sliding_attention" else None

    def forward(self, x, mask, cos, sin):  # x: (B, T, d)
        shortcut = x
        x = self.norm1(x)
        x = self.att(x, mask, cos, sin)
        x = self.post_attention_norm(x)
        x = x + shortcut  # the shortcut around attention and its two norms
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = self.post_ff_norm(x)
        return x + shortcut  # and around the feed-forward and its two

    def after_attention(self, attended, shortcut):
        """forward from the attention's output (B, T, d) on: what the traced walk runs after att.trace."""
        attention, ff = self.parts(attended, shortcut)
        return shortcut + attention + ff

    def parts(self, attended, shortcut):
        """What forward adds to the residual stream: the attention's output through its post-norm,
        and the feed-forward's through its two norms."""
        attention = self.post_attention_norm(attended)
        return attention, self.post_ff_norm(self.ff(self.norm2(attention + shortcut)))

    def attention_gain(self, attended):
        """(B, T, d): what post_attention_norm multiplies `attended` by, its 1/rms frozen at this run's
        value: each head's share through it then adds up to the block's attention part exactly."""
        x = attended.float()
        gain = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.post_attention_norm.eps)  # (B, T, 1)
        return gain * (1.0 + self.post_attention_norm.scale.float())  # (B, T, d)


class Gemma3Model(Qwen3Model):
    """Qwen3Model's walk with Gemma's blocks, its embeddings scaled by sqrt(emb_dim), and two RoPE
    tables: (cos_local, sin_local) for the sliding layers, (cos, sin) for the full ones."""

    MODEL_TYPE = "gemma3_text"
    block = TransformerBlock

    def __init__(self, cfg):
        cfg = {"rope_local_base": 10_000.0, "rope_factor": 1.0, "query_pre_attn_scalar": None} | dict(cfg)
        if not cfg["query_pre_attn_scalar"]:
            cfg["query_pre_attn_scalar"] = cfg["head_dim"]
        super().__init__(cfg)
        self.final_norm = RMSNorm(self.cfg["emb_dim"], eps=self.cfg["norm_eps"], dtype=self.cfg["dtype"])

    def make_rope(self):
        for suffix, base, factor in (
            ("", self.cfg["rope_base"], self.cfg["rope_factor"]),
            ("_local", self.cfg["rope_local_base"], 1.0),
        ):
            cos, sin = compute_rope_params(
                head_dim=self.cfg["head_dim"],
                theta_base=base,
                context_length=self.cfg["context_length"],
                linear_factor=factor,
            )  # (context_length, hd) each
            self.register_buffer("cos" + suffix, cos.to(self.cfg["dtype"]), persistent=False)
            self.register_buffer("sin" + suffix, sin.to(self.cfg["dtype"]), persistent=False)

    def rope_for(self, block):
        if block.layer_type == "sliding_attention":
            return self.cos_local, self.sin_local
        return self.cos, self.sin

    def start(self, tok_embeds):
        """Token embeddings (B, T, d) times sqrt(d), rounded to the dtype (Gemma3TextScaledWordEmbedding)."""
        return tok_embeds * torch.tensor(self.cfg["emb_dim"] ** 0.5, dtype=tok_embeds.dtype)


def config_from_hf(hf: Mapping) -> dict:
    """A Gemma 3 text config.json (gemma3_text) -> the book's config; ConfigError for what Gemma 3's
    text models do not use and this code does not compute (logit soft-capping, bidirectional
    attention, another activation)."""
    need = ("vocab_size", "hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size")
    if missing := [k for k in need if k not in hf]:
        raise ConfigError(tr("config.json has no {keys}.", keys=", ".join(missing)), "source")
    for key in ("attn_logit_softcapping", "final_logit_softcapping", "use_bidirectional_attention"):
        if hf.get(key):
            raise ConfigError(
                tr("{key}={value} is not computed here.", key=key, value=repr(hf[key])), "source"
            )
    if hf.get("hidden_activation", "gelu_pytorch_tanh") != "gelu_pytorch_tanh":
        raise ConfigError(
            tr(
                "hidden_activation={value}: Gemma 3's is gelu_pytorch_tanh.",
                value=repr(hf["hidden_activation"]),
            ),
            "source",
        )
    layers = hf["num_hidden_layers"]
    types = hf.get("layer_types")
    if types is None:  # transformers' Gemma3TextConfig: every sliding_window_pattern-th layer is full
        pattern = hf.get("sliding_window_pattern", hf.get("_sliding_window_pattern", 6))
        types = ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(layers)]
    per_type = isinstance(hf.get("rope_parameters"), dict) and "full_attention" in hf["rope_parameters"]
    base, freq, factor = qwen3.rope_of(hf, "full_attention")
    if per_type:
        local, local_freq, local_factor = qwen3.rope_of(hf, "sliding_attention")
    else:  # before transformers 5: rope_local_base_freq, no scaling on the sliding layers
        local, local_freq, local_factor = float(hf.get("rope_local_base_freq", 10_000.0)), None, 1.0
    if freq is not None or local_freq is not None or local_factor != 1.0:
        raise ConfigError(
            tr("Gemma 3's RoPE is computed here as default, or linear on the full layers."), "source"
        )
    heads = hf["num_attention_heads"]
    head_dim = hf.get("head_dim") or hf["hidden_size"] // heads
    return qwen3.check_config(
        {
            "vocab_size": hf["vocab_size"],
            "context_length": hf.get("max_position_embeddings", 32_768),
            "emb_dim": hf["hidden_size"],
            "n_heads": heads,
            "n_layers": layers,
            "hidden_dim": hf["intermediate_size"],
            "head_dim": head_dim,
            "qk_norm": True,
            "n_kv_groups": hf.get("num_key_value_heads") or heads,
            "rope_base": base,
            "rope_factor": factor,
            "rope_local_base": local,
            "layer_types": types,
            "sliding_window": hf.get("sliding_window"),
            "query_pre_attn_scalar": hf.get("query_pre_attn_scalar") or head_dim,
            "qkv_bias": bool(hf.get("attention_bias", False)),
            "norm_eps": float(hf.get("rms_norm_eps", 1e-6)),
            "tie_embeddings": bool(hf.get("tie_word_embeddings", True)),
        }
    )


def hf_config(cfg: Mapping, **extra) -> dict:
    """The book's config -> a config.json that transformers' Gemma3ForCausalLM opens."""
    full = {"rope_type": "default", "rope_theta": float(cfg["rope_base"])}
    if cfg.get("rope_factor", 1.0) != 1.0:
        full = full | {"rope_type": "linear", "factor": float(cfg["rope_factor"])}
    return {
        "model_type": "gemma3_text",
        "architectures": ["Gemma3ForCausalLM"],
        "vocab_size": cfg["vocab_size"],
        "max_position_embeddings": cfg["context_length"],
        "hidden_size": cfg["emb_dim"],
        "num_attention_heads": cfg["n_heads"],
        "num_hidden_layers": cfg["n_layers"],
        "intermediate_size": cfg["hidden_dim"],
        "head_dim": cfg["head_dim"],
        "num_key_value_heads": cfg["n_kv_groups"],
        "hidden_activation": "gelu_pytorch_tanh",
        "query_pre_attn_scalar": cfg["query_pre_attn_scalar"],
        "layer_types": list(cfg["layer_types"]),
        "sliding_window": cfg["sliding_window"],
        "rope_parameters": {
            "full_attention": full,
            "sliding_attention": {"rope_type": "default", "rope_theta": float(cfg["rope_local_base"])},
        },
        "attention_bias": cfg["qkv_bias"],
        "rms_norm_eps": cfg["norm_eps"],
        "tie_word_embeddings": cfg["tie_embeddings"],
        "attn_logit_softcapping": None,
        "final_logit_softcapping": None,
        **extra,
    }


# Hugging Face's four norms of a block -> ours
NORMS = {
    "input_layernorm": "norm1",
    "post_attention_layernorm": "post_attention_norm",
    "pre_feedforward_layernorm": "norm2",
    "post_feedforward_layernorm": "post_ff_norm",
}


def load_weights_into_gemma(model: Gemma3Model, params: Mapping[str, torch.Tensor]) -> Gemma3Model:
    """Hugging Face's Gemma 3 names onto the book's, each shape checked: as load_weights_into_qwen,
    with the block's four norms (NORMS); Gemma's stored norm weights are the `scale` of 1 + scale."""
    get = Weights(params)
    qwen3.load_ends(model, get)
    for i, block in enumerate(model.trf_blocks):
        prefix = f"model.layers.{i}."
        qwen3.load_attention(block.att, get, prefix)
        qwen3.load_feed_forward(block.ff, get, prefix)
        for theirs, ours in NORMS.items():
            assign(getattr(block, ours).scale, get(f"{prefix}{theirs}.weight"), f"{prefix}{theirs}.weight")
    return model


def state_of(model: Gemma3Model) -> dict[str, torch.Tensor]:
    """The model's weights under Hugging Face's names (load_weights_into_gemma's inverse)."""
    out = qwen3.state_of(model)  # attention, feed-forward, embedding, final norm, lm_head if untied
    for i, block in enumerate(model.trf_blocks):
        for theirs, ours in NORMS.items():
            out[f"model.layers.{i}.{theirs}.weight"] = getattr(block, ours).scale.detach().clone()
    return out


MODEL, load_weights = Gemma3Model, load_weights_into_gemma
