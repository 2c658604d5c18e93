"""Llama 3.2 (Meta, 2024) from scratch, in the book's names: Qwen3's pieces (qwen3.py) without
QK-norm, with Llama 3's RoPE, whose low frequencies are slowed for long contexts.

Laid out as the book's bonus code lays it out: rasbt/LLMs-from-scratch, ch05/07_gpt_to_llama and
pkg/llms_from_scratch/llama3.py (Sebastian Raschka, Apache License 2.0), written again here. From
the book's chapter-4 GPTModel to Llama, as that notebook walks it:

    LayerNorm -> RMSNorm          (qwen3.RMSNorm)
    GELU feed-forward -> SwiGLU   (qwen3.FeedForward: fc1 the gate, fc2 up, fc3 down)
    pos_emb -> RoPE               (modern.rope, with freq_config: Llama 3's rescaled frequencies)
    MultiHeadAttention -> GroupedQueryAttention (qwen3.GroupedQueryAttention, qk_norm=False)

    model = Llama3Model(LLAMA32_CONFIG_1B)    # or checkpoint.load_model("SmolLM2-135M's folder")
    trace = model.trace(ids)
"""

from __future__ import annotations

from collections.abc import Mapping

from attention.errors import ConfigError
from attention.i18n import tr
from attention.model import qwen3
from attention.model.qwen3 import Qwen3Model, load_weights_into_qwen, state_of  # noqa: F401  (the same names)

# Llama 3.2 1B (meta-llama/Llama-3.2-1B's config.json), in the book's keys
LLAMA32_CONFIG_1B = {
    "vocab_size": 128_256,
    "context_length": 131_072,
    "emb_dim": 2048,
    "n_heads": 32,
    "n_layers": 16,
    "hidden_dim": 8192,
    "head_dim": 64,
    "qk_norm": False,
    "n_kv_groups": 8,
    "rope_base": 500_000.0,
    "rope_freq": {
        "factor": 32.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_context_length": 8192,
    },
    "norm_eps": 1e-5,
    "tie_embeddings": True,
}


class Llama3Model(Qwen3Model):
    """The same walk as Qwen3Model (tok_emb, trf_blocks, final_norm, out_head); its blocks'
    attention has no QK-norm, and its RoPE (cos, sin) comes from Llama 3's rescaled frequencies."""

    MODEL_TYPE = "llama"


def config_from_hf(hf: Mapping) -> dict:
    """A Llama config.json (Llama 3.2, SmolLM2) -> the book's config."""
    if hf.get("mlp_bias"):
        raise ConfigError(
            tr("mlp_bias: a Llama with biases in its feed-forward is not built here."), "source"
        )
    return qwen3.config_from_hf(dict(hf) | {"model_type": "llama"})


def hf_config(cfg: Mapping, **extra) -> dict:
    """The book's config -> a config.json that transformers' LlamaForCausalLM opens."""
    rope = {"rope_type": "default", "rope_theta": float(cfg["rope_base"])}
    if freq := cfg.get("rope_freq"):
        rope |= {
            "rope_type": "llama3",
            "factor": freq["factor"],
            "low_freq_factor": freq["low_freq_factor"],
            "high_freq_factor": freq["high_freq_factor"],
            "original_max_position_embeddings": freq["original_context_length"],
        }
    config = qwen3.hf_config(cfg, **extra) | {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}
    for key in ("layer_types", "use_sliding_window", "sliding_window", "max_window_layers"):
        config.pop(key)
    return config | {"rope_parameters": rope, "mlp_bias": False}


load_weights_into_llama = load_weights_into_qwen  # the same names: q_norm/k_norm are skipped, it has none
MODEL, load_weights = Llama3Model, load_weights_into_llama
