"""Tiny random checkpoints of transformers' own Llama, Qwen3 and Gemma 3, saved in Hugging Face's
layout (safetensors), and the comparisons the architecture tests share: logits and every layer's
attention weights against transformers' eager attention. No network."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

transformers = pytest.importorskip("transformers")

VOCAB, CONTEXT = 96, 16  # the tiny models' vocabulary and context: every position up to it is compared


def moved_norms(model: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    """Every norm's weight drawn off its initial value (ones, or zeros for Gemma's 1 + weight), so a
    norm the loader forgot or misplaced changes the logits."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "norm" in name:
                torch.nn.init.normal_(param, mean=float(param.mean()), std=0.3, generator=generator)
    return model


def tiny(kind: str, folder: Path, dtype: torch.dtype = torch.float32, seed: int = 0, **changes):
    """A tiny random transformers model of `kind` (qwen3, llama, gemma3), saved to `folder`
    (safetensors, in `dtype`): 4 query heads over 2 key/value heads (Gemma: over 1), QK-norm where
    the model has it, a sliding-window layer between full ones where its config carries them."""
    torch.manual_seed(seed)
    common = {
        "vocab_size": VOCAB,
        "hidden_size": 32,
        "intermediate_size": 48,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "max_position_embeddings": CONTEXT,
        "attn_implementation": "eager",
    }
    if kind == "qwen3":
        config = transformers.Qwen3Config(
            **common,
            head_dim=16,  # 4 x 16 = 64 query dimensions over a width of 32: head_dim is its own
            use_sliding_window=True,
            sliding_window=4,
            layer_types=["full_attention", "sliding_attention", "full_attention"],
            tie_word_embeddings=True,
            rope_parameters={"rope_type": "default", "rope_theta": 10_000.0},
        )
        model = transformers.Qwen3ForCausalLM(config)
    elif kind == "llama":
        config = transformers.LlamaConfig(
            **common,
            tie_word_embeddings=False,
            rope_parameters={
                "rope_type": "llama3",
                "rope_theta": 500_000.0,
                "factor": 32.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8,
            },
            rms_norm_eps=1e-5,
        )
        model = transformers.LlamaForCausalLM(config)
    elif kind == "gemma3":
        config = transformers.Gemma3TextConfig(
            **common | {"num_key_value_heads": 1},  # multi-query attention
            head_dim=16,
            sliding_window=4,
            layer_types=["sliding_attention", "full_attention", "sliding_attention"],
            query_pre_attn_scalar=24,
            rope_parameters={
                "full_attention": {"rope_type": "linear", "rope_theta": 1_000_000.0, "factor": 8.0},
                "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
            },
        )
        model = transformers.Gemma3ForCausalLM(config)
    else:
        raise ValueError(kind)
    for key, value in changes.items():
        setattr(model.config, key, value)
    moved_norms(model, seed).eval()
    model.to(dtype).save_pretrained(folder, safe_serialization=True)
    return model


def theirs(model, ids: torch.Tensor):
    """transformers' logits (B, T, V) and attentions (L of (B, H, T, T)), eager, in float32."""
    with torch.no_grad():
        out = model.float()(ids, output_attentions=True, use_cache=False)
    return out.logits, out.attentions


def assert_same(ours, model, ids: torch.Tensor, atol: float = 1e-5) -> dict:
    """Our trace's logits and every layer's attention weights equal transformers' within atol;
    the largest differences, for the record."""
    logits, attentions = theirs(model, ids)
    trace = ours.trace(ids)
    torch.testing.assert_close(trace.logits, logits, atol=atol, rtol=0)
    torch.testing.assert_close(ours(ids), logits, atol=atol, rtol=0)  # forward too
    assert len(trace.layers) == len(attentions)
    for layer, (mine, hf) in enumerate(zip(trace.layers, attentions, strict=True)):
        torch.testing.assert_close(mine.weights, hf, atol=atol, rtol=0, msg=f"layer {layer}")
    return {
        "logits": (trace.logits - logits).abs().max().item(),
        "weights": max(
            (m.weights - a).abs().max().item() for m, a in zip(trace.layers, attentions, strict=True)
        ),
    }


WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "mat",
    "and",
    "dog",
    "ran",
    "to",
    "park",
    "she",
    "saw",
    "him",
    "at",
    "home",
    "it",
    "was",
    "red",
    "blue",
    "green",
    "big",
    "small",
    "old",
    "new",
    "one",
    "two",
    "three",
    "four",
    "five",
    "day",
    "night",
    "sun",
    "moon",
    "tree",
    "house",
    "book",
    "read",
    "wrote",
    "said",
    "went",
    "came",
    "over",
    "under",
    "with",
    "from",
    "by",
    "for",
    "of",
    "in",
    "out",
    "up",
    "down",
    "far",
    "near",
    "good",
    "bad",
    "first",
    "last",
    "long",
    "short",
    "here",
    "there",
    "now",
    "then",
    "when",
    "why",
    "how",
    "what",
    "who",
    "this",
    "that",
    "these",
    "those",
    "my",
    "your",
    "our",
    "their",
    "is",
    "are",
    "be",
    "had",
    "has",
    "do",
    "did",
    "can",
    "will",
]


def word_tokenizer(folder: Path, vocab: int = VOCAB, bos: bool = False) -> None:
    """A tokenizer.json of whole words (the tokenizers library's WordLevel, split on spaces) over
    `vocab` ids: a tiny model's folder then reads typed text as a hub model's does. `bos`: it puts
    "<bos>" (the last id) before a text, as Gemma's and Llama 3's do."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    words = ["<unk>", *WORDS][:vocab] + [f"w{i}" for i in range(len(WORDS) + 1, vocab)]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.decoder = decoders.WordPiece()
    if bos:
        words[-1] = "<bos>"
        tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
        tok.pre_tokenizer, tok.decoder = pre_tokenizers.WhitespaceSplit(), decoders.WordPiece()
        tok.add_special_tokens(["<bos>"])
        tok.post_processor = processors.TemplateProcessing(
            single="<bos> $A", special_tokens=[("<bos>", vocab - 1)]
        )
    tok.save(str(Path(folder) / "tokenizer.json"))
