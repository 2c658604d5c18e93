"""Qwen3 (Alibaba, 2025) from scratch, in the book's names, traced block by block.

Laid out as the book's bonus code lays it out: rasbt/LLMs-from-scratch, ch05/11_qwen3 and
pkg/llms_from_scratch/qwen3.py (Sebastian Raschka, Apache License 2.0), written again here with
our trace beside each forward. What changed from the book's chapter-4 GPTModel, top to bottom:

    no position embeddings      queries and keys are rotated by position instead (RoPE)
    RMSNorm for LayerNorm       no mean subtracted, no shift: x / rms(x) * scale
    GroupedQueryAttention       n_heads query heads share n_kv_groups key/value heads; each head's
                                queries and keys go through their own RMSNorm first (QK-norm);
                                head_dim is its own setting, not emb_dim / n_heads
    sliding-window layers       where layer_types says "sliding_attention": a query sees only the
                                last sliding_window keys (itself included)
    FeedForward                 SwiGLU: fc3(silu(fc1(x)) * fc2(x)), no biases
    out_head                    tied to tok_emb (one tensor) where the checkpoint has no lm_head

    model = Qwen3Model(cfg)                   # or checkpoint.load_model("a Hugging Face folder")
    trace = model.trace(ids)                  # ModelTrace, as GPTModel.trace gives it
    trace.kv_heads                            # (H,): the key/value head each query head reads

The config is a plain dict of the book's keys (CONFIG_KEYS; check_config says what is wrong with
one); config_from_hf reads a Hugging Face config.json, and load_weights_into_qwen maps Hugging
Face's tensor names onto these, checking every shape. llama3.py and gemma3.py build on the pieces.

Shape legend: B batch, T tokens, H query heads, G key/value heads (n_kv_groups), d emb_dim,
hd head_dim.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch
import torch.nn as nn

from attention.errors import ConfigError
from attention.i18n import tr
from attention.model.gpt import Edit, ModelTrace, with_context

# The book's keys (pkg/llms_from_scratch/qwen3.py), and ours on top: which layers slide and how far,
# biases on the attention's projections (Hugging Face's attention_bias), RMSNorm's epsilon, RoPE's
# frequency rescaling (Llama 3's), and where the key/value heads come from.
from attention.model.qwen3_parts import (  # noqa: F401  (qwen3's names: the book's layout)
    CONFIG_KEYS,
    DEFAULTS,
    LAYER_TYPES,
    QWEN_CONFIG_06_B,
    FeedForward,
    GroupedQueryAttention,
    RMSNorm,
    TransformerBlock,
    Weights,
    assign,
    check_config,
)
from attention.modern.masks import sliding_window_mask
from attention.modern.rope import compute_rope_params


class Qwen3Model(nn.Module):
    """The book's Qwen3Model: tok_emb, trf_blocks, final_norm, out_head; RoPE's cos and sin made
    once for the whole context (buffers, not weights). forward gives the logits; trace and
    run_blocks keep GPTModel's contract, so the pages, roles and interventions read it the same."""

    MODEL_TYPE = "qwen3"  # config.json's model_type
    block = TransformerBlock  # the block class; llama3 and gemma3 change pieces, not the walk

    def __init__(self, cfg):
        super().__init__()
        cfg = check_config(cfg)
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"], dtype=cfg["dtype"])
        self.trf_blocks = nn.ModuleList([type(self).block(cfg, t) for t in cfg["layer_types"]])
        self.final_norm = RMSNorm(cfg["emb_dim"], eps=cfg["norm_eps"], dtype=cfg["dtype"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False, dtype=cfg["dtype"])
        if cfg["tie_embeddings"]:
            self.out_head.weight = self.tok_emb.weight  # one tensor, as Qwen3-0.6B's checkpoint has it
        self.make_rope()

    def make_rope(self):
        cos, sin = compute_rope_params(
            head_dim=self.cfg["head_dim"],
            theta_base=self.cfg["rope_base"],
            context_length=self.cfg["context_length"],
            freq_config=self.cfg["rope_freq"],
        )  # (context_length, hd) each, computed in float32, kept in the weights' dtype (as transformers)
        self.register_buffer("cos", cos.to(self.cfg["dtype"]), persistent=False)
        self.register_buffer("sin", sin.to(self.cfg["dtype"]), persistent=False)

    def rope_for(self, block) -> tuple[torch.Tensor, torch.Tensor]:
        """The (cos, sin) a block rotates its queries and keys with (Gemma's layers have two kinds)."""
        return self.cos, self.sin

    def embed(self, in_idx):
        return self.start(self.tok_emb(in_idx))  # (B, T, d)

    # The walk's pieces, as GPTModel names them (lens, explain read them):
    def start(self, tok_embeds):
        """The residual stream's start from token embeddings (B, T, d): they are it (RoPE turns
        queries and keys inside attention; no positions are added)."""
        return tok_embeds

    def attend(self, block, x):
        """block's attention trace on the residual stream x (B, T, d): its mask and RoPE tables."""
        mask = self.masks(x.shape[1], x.device)[block.window]
        return block.att.trace(block.norm1(x), mask, *self.rope_for(block), window=block.window)

    def blocks_from(self, x):
        """Every block on the residual stream x: the stream after the last, before final_norm."""
        masks = self.masks(x.shape[1], x.device)
        for block in self.trf_blocks:
            x = block(x, masks[block.window], *self.rope_for(block))
        return x

    def masks(self, num_tokens: int, device) -> dict[str | None, torch.Tensor]:
        """window -> (T, T) bool mask, True where a query may not look: causal (window None), and
        for a sliding layer also every key `window` or more positions back."""
        windows = {block.window for block in self.trf_blocks}
        return {w: sliding_window_mask(num_tokens, window=w, device=device) for w in windows}

    def check_length(self, in_idx):
        if in_idx.shape[1] > self.cfg["context_length"]:
            most = self.cfg["context_length"]
            n = in_idx.shape[1]
            raise ConfigError(
                tr(
                    "The text has more tokens ({n}) than the model's context length ({most}).", n=n, most=most
                ),
                "tokens",
            )

    def forward(self, in_idx):
        return self.out_head(self.hidden_states(in_idx))  # (B, T, vocab_size)

    def hidden_states(self, in_idx):
        """forward up to final_norm, before out_head: (B, T, d)."""
        self.check_length(in_idx)
        return self.final_norm(self.blocks_from(self.embed(in_idx)))  # (B, T, d)

    @torch.no_grad()
    def trace(
        self, in_idx: torch.Tensor, tokens: tuple[str, ...] = (), edit: Edit | None = None
    ) -> ModelTrace:
        """forward(in_idx), keeping every block's attention trace (GPTModel.trace's contract)."""
        layers = []
        x = self.run_blocks(in_idx, edit, layers.append)  # (B, T, d)
        logits = self.out_head(self.final_norm(x))  # (B, T, vocab_size)
        layers = tuple(t.to("cpu", torch.float32) for t in layers)  # float32 whatever the weights' dtype
        return ModelTrace(ids=in_idx.cpu(), logits=logits.float().cpu(), layers=layers, tokens=tokens)

    def run_blocks(
        self, in_idx: torch.Tensor, edit: Edit | None = None, keep: Callable | None = None
    ) -> torch.Tensor:
        """The residual stream after the last block, before final_norm, (B, T, d), each block's
        AttentionTrace to keep() when given; `edit` as in GPTModel.run_blocks (a context put in
        place of the heads' own before out_proj, for this call only)."""
        self.check_length(in_idx)
        x = self.embed(in_idx)  # (B, T, d)
        masks = self.masks(in_idx.shape[1], in_idx.device)
        for layer, block in enumerate(self.trf_blocks):
            x = self.block_step(layer, block, x, masks[block.window], edit, keep)
        return x

    def block_step(self, layer, block, x, mask, edit, keep):
        """One block of run_blocks: TransformerBlock.forward with att.trace in place of att."""
        attention = block.att.trace(block.norm1(x), mask, *self.rope_for(block), window=block.window)
        if edit is not None and (change := edit(layer, attention)) is not None:
            context, rows = change
            attention = with_context(block.att, attention, context, rows, steps_too=keep is not None)
            x = x if rows is None else x[rows]  # (N, T, d)
        if keep is not None:
            keep(attention)
        return block.after_attention(attention.output, x)

    @property
    def heads(self) -> int:
        return self.cfg["n_heads"]

    @property
    def layers(self) -> int:
        return self.cfg["n_layers"]

    @property
    def kv_heads(self) -> tuple[int, ...]:
        """(H,): the key/value head each query head reads (h // group size)."""
        group = self.cfg["n_heads"] // self.cfg["n_kv_groups"]
        return tuple(h // group for h in range(self.cfg["n_heads"]))


# --- Hugging Face's layout ------------------------------------------------------------------


def rope_of(hf: Mapping, layer_type: str | None = None) -> tuple[float, dict | None, float]:
    """(base, Llama 3's freq_config or None, linear factor) of a config.json's RoPE: transformers
    5's rope_parameters (per layer type for Gemma 3) or the older rope_theta + rope_scaling.
    ConfigError for a kind of RoPE this code does not compute (YaRN, dynamic, ...)."""
    params = hf.get("rope_parameters") or {}
    if layer_type is not None and layer_type in params:
        params = params[layer_type]
    scaling = dict(hf.get("rope_scaling") or {})
    params = scaling | {"rope_theta": hf.get("rope_theta", 10_000.0)} | dict(params)
    kind = params.get("rope_type", params.get("type", "default"))
    base = float(params["rope_theta"])
    if kind == "default":
        return base, None, 1.0
    if kind == "linear":
        return base, None, float(params["factor"])
    if kind == "llama3":
        freq = {
            "factor": float(params["factor"]),
            "low_freq_factor": float(params["low_freq_factor"]),
            "high_freq_factor": float(params["high_freq_factor"]),
            "original_context_length": int(params["original_max_position_embeddings"]),
        }
        return base, freq, 1.0
    raise ConfigError(
        # TRANSLATORS: {kind} is a RoPE type's name as config.json writes it (e.g. yarn)
        tr("RoPE of type {kind} is not computed here (default, linear and llama3 are).", kind=repr(kind)),
        "source",
    )


def config_from_hf(hf: Mapping) -> dict:
    """A Qwen3 (or Llama) config.json -> the book's config (check_config's checks)."""
    need = ("vocab_size", "hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size")
    if missing := [k for k in need if k not in hf]:
        raise ConfigError(tr("config.json has no {keys}.", keys=", ".join(missing)), "source")
    heads = hf["num_attention_heads"]
    base, freq, factor = rope_of(hf)
    if factor != 1.0:
        raise ConfigError(
            tr("Linear RoPE scaling (factor {factor}) is computed for Gemma 3 only.", factor=factor), "source"
        )
    window = hf.get("sliding_window") if hf.get("use_sliding_window", True) else None
    types = hf.get("layer_types")
    if types is None:  # transformers' Qwen3Config: layers from max_window_layers on slide
        first = hf.get("max_window_layers", hf["num_hidden_layers"])
        types = [
            "sliding_attention" if window and i >= first else "full_attention"
            for i in range(hf["num_hidden_layers"])
        ]
    if window is None:  # a sliding layer with no window (use_sliding_window false) attends to all
        types = ["full_attention"] * len(types)
    return check_config(
        {
            "vocab_size": hf["vocab_size"],
            "context_length": hf.get("max_position_embeddings", 2048),
            "emb_dim": hf["hidden_size"],
            "n_heads": heads,
            "n_layers": hf["num_hidden_layers"],
            "hidden_dim": hf["intermediate_size"],
            "head_dim": hf.get("head_dim") or hf["hidden_size"] // heads,
            "qk_norm": hf.get("model_type") == "qwen3",
            "n_kv_groups": hf.get("num_key_value_heads") or heads,
            "rope_base": base,
            "rope_freq": freq,
            "layer_types": types,
            "sliding_window": window,
            "qkv_bias": bool(hf.get("attention_bias", False)),
            "norm_eps": float(hf.get("rms_norm_eps", 1e-6)),
            "tie_embeddings": bool(hf.get("tie_word_embeddings", False)),
        }
    )


def hf_config(cfg: Mapping, **extra) -> dict:
    """The book's config -> a config.json that transformers' Qwen3ForCausalLM opens."""
    sliding = "sliding_attention" in cfg["layer_types"]
    return {
        "model_type": "qwen3",
        "architectures": ["Qwen3ForCausalLM"],
        "vocab_size": cfg["vocab_size"],
        "max_position_embeddings": cfg["context_length"],
        "hidden_size": cfg["emb_dim"],
        "num_attention_heads": cfg["n_heads"],
        "num_hidden_layers": cfg["n_layers"],
        "intermediate_size": cfg["hidden_dim"],
        "head_dim": cfg["head_dim"],
        "num_key_value_heads": cfg["n_kv_groups"],
        "hidden_act": "silu",
        "rope_parameters": {"rope_type": "default", "rope_theta": float(cfg["rope_base"])},
        "rope_theta": float(cfg["rope_base"]),  # transformers before 5 read this
        "layer_types": list(cfg["layer_types"]),
        "use_sliding_window": sliding,
        "sliding_window": cfg["sliding_window"] if sliding else None,
        "max_window_layers": cfg["n_layers"],
        "attention_bias": cfg["qkv_bias"],
        "attention_dropout": 0.0,
        "rms_norm_eps": cfg["norm_eps"],
        "tie_word_embeddings": cfg["tie_embeddings"],
        "bos_token_id": None,
        "eos_token_id": None,
        **extra,
    }


def load_attention(att: GroupedQueryAttention, get: Weights, prefix: str) -> None:
    """q/k/v/o_proj (and their biases, q_norm, k_norm where the model has them) into one block's att."""
    for ours, theirs in (
        ("W_query", "q_proj"),
        ("W_key", "k_proj"),
        ("W_value", "v_proj"),
        ("out_proj", "o_proj"),
    ):
        layer = getattr(att, ours)
        assign(layer.weight, get(f"{prefix}self_attn.{theirs}.weight"), f"{prefix}self_attn.{theirs}.weight")
        if layer.bias is not None:
            assign(layer.bias, get(f"{prefix}self_attn.{theirs}.bias"), f"{prefix}self_attn.{theirs}.bias")
    if att.q_norm is not None:
        assign(att.q_norm.scale, get(f"{prefix}self_attn.q_norm.weight"), f"{prefix}self_attn.q_norm.weight")
        assign(att.k_norm.scale, get(f"{prefix}self_attn.k_norm.weight"), f"{prefix}self_attn.k_norm.weight")


def load_feed_forward(ff: nn.Module, get: Weights, prefix: str) -> None:
    for ours, theirs in (("fc1", "gate_proj"), ("fc2", "up_proj"), ("fc3", "down_proj")):
        assign(getattr(ff, ours).weight, get(f"{prefix}mlp.{theirs}.weight"), f"{prefix}mlp.{theirs}.weight")


def load_ends(model: nn.Module, get: Weights) -> None:
    """The embedding, the final norm, and lm_head (or tok_emb's tensor where the model ties them)."""
    assign(model.tok_emb.weight, get("model.embed_tokens.weight"), "model.embed_tokens.weight")
    norm = model.final_norm
    assign(
        norm.scale if hasattr(norm, "scale") else norm.weight, get("model.norm.weight"), "model.norm.weight"
    )
    if model.out_head.weight is not model.tok_emb.weight:  # untied: its own lm_head, where there is one
        name = "lm_head.weight" if "lm_head.weight" in get else "model.embed_tokens.weight"
        assign(model.out_head.weight, get(name), name)


def load_weights_into_qwen(model: Qwen3Model, params: Mapping[str, torch.Tensor]) -> Qwen3Model:
    """Hugging Face's Qwen3 (or Llama) tensor names onto the book's, each shape checked:
    embed_tokens -> tok_emb; per layer q/k/v/o_proj -> att.W_query/W_key/W_value/out_proj,
    q_norm/k_norm -> att.q_norm/k_norm, input_layernorm -> norm1, post_attention_layernorm -> norm2,
    gate/up/down_proj -> ff.fc1/fc2/fc3; norm -> final_norm; lm_head -> out_head (untied only)."""
    get = Weights(params)
    load_ends(model, get)
    for i, block in enumerate(model.trf_blocks):
        prefix = f"model.layers.{i}."
        load_attention(block.att, get, prefix)
        load_feed_forward(block.ff, get, prefix)
        assign(block.norm1.scale, get(prefix + "input_layernorm.weight"), prefix + "input_layernorm.weight")
        assign(
            block.norm2.scale,
            get(prefix + "post_attention_layernorm.weight"),
            prefix + "post_attention_layernorm.weight",
        )
    return model


def state_of(model: Qwen3Model) -> dict[str, torch.Tensor]:
    """The model's weights under Hugging Face's names (load_weights_into_qwen's inverse); lm_head
    only when untied."""
    out = {"model.embed_tokens.weight": model.tok_emb.weight, "model.norm.weight": model.final_norm.scale}
    for i, block in enumerate(model.trf_blocks):
        p, att = f"model.layers.{i}.", block.att
        for ours, theirs in (
            ("W_query", "q_proj"),
            ("W_key", "k_proj"),
            ("W_value", "v_proj"),
            ("out_proj", "o_proj"),
        ):
            out[f"{p}self_attn.{theirs}.weight"] = getattr(att, ours).weight
            if getattr(att, ours).bias is not None:
                out[f"{p}self_attn.{theirs}.bias"] = getattr(att, ours).bias
        if att.q_norm is not None:
            out[f"{p}self_attn.q_norm.weight"], out[f"{p}self_attn.k_norm.weight"] = (
                att.q_norm.scale,
                att.k_norm.scale,
            )
        for ours, theirs in (("fc1", "gate_proj"), ("fc2", "up_proj"), ("fc3", "down_proj")):
            out[f"{p}mlp.{theirs}.weight"] = getattr(block.ff, ours).weight
        out[p + "input_layernorm.weight"] = block.norm1.scale
        out[p + "post_attention_layernorm.weight"] = block.norm2.scale
    if model.out_head.weight is not model.tok_emb.weight:
        out["lm_head.weight"] = model.out_head.weight
    return {k: v.detach().contiguous().clone() for k, v in out.items()}


MODEL, load_weights = Qwen3Model, load_weights_into_qwen  # what checkpoint.load_model builds and calls
