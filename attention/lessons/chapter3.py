"""The chapter's computation written out step by step, for the Learn page. No Streamlit.

Every number comes from the engine (run, build_module, embeddings); this module only arranges the
intermediate values the way the book's chapter 3 and Raschka's blog post write them by hand.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from attention.chapter3 import AttentionTrace
from attention.chapter3.modules import MultiHeadAttention, MultiHeadAttentionWrapper, reset_parameters
from attention.explorer.config import ExplorerConfig
from attention.explorer.engine import build_module, run
from attention.i18n import N_

MAX_TOKENS = 12  # the worked sums stay readable
# scaling_demo's columns besides d_k: each a table header, translated where the table is shown
SCALING_COLUMNS = (N_("score std"), N_("largest weight, unscaled"), N_("largest weight, scaled"))


def sentence_config(text: str, seed: int, own: bool) -> ExplorerConfig:
    """The lesson's module, SelfAttention_v1(d_in=3, d_out=2), on a book sentence with the book's
    vectors, or on the learner's own sentence with a seeded random embedding; ConfigError for a
    text that cannot be used."""
    embedding = "random" if own else "book"
    return ExplorerConfig(text=text, embedding=embedding, d_in=3, variant="v1", d_out=2, seed=seed)


def first_tokens(config: ExplorerConfig, limit: int = MAX_TOKENS) -> ExplorerConfig:
    """The config on its sentence's first `limit` tokens (the config itself when it has no more)."""
    texts = config.tokens.texts
    return config if len(texts) <= limit else replace(config, text=" ".join(texts[:limit]))


@functools.lru_cache(maxsize=64)  # a class on one sentence: built once, not per page load
def trainable_weights(config: ExplorerConfig) -> dict[str, np.ndarray]:
    """Section 3.4's W_query, W_key, W_value, each (d_in, d_out), seeded as the engine seeds them
    (read-only: every session shares them)."""
    module, _ = build_module(config)
    weights = {name: getattr(module, name).detach().numpy() for name in ("W_query", "W_key", "W_value")}
    for w in weights.values():
        w.flags.writeable = False
    return weights


def fmt(value: float, digits: int = 4) -> str:
    return f"{value:.{digits}f}"


@dataclass(frozen=True)
class WorkedQuery:
    """Section 3.3 for one query: dot products term by term, softmax, the weighted sum."""

    query: int
    tokens: tuple[str, ...]
    x: list[list[float]]  # (T, d_in)
    dot_terms: list[str]  # per key: "0.55·0.43 + 0.87·0.15 + 0.66·0.89"
    scores: list[float]  # (T,)
    exps: list[float]  # exp(score) per key
    exp_sum: float
    weights: list[float]  # (T,)
    context_terms: list[list[float]]  # per key: weight * x_key, (T, d_in)
    context: list[float]  # (d_in,)

    @property
    def top_key(self) -> int:
        return max(range(len(self.weights)), key=self.weights.__getitem__)


@functools.lru_cache(maxsize=32)  # every Learn load shows it: traced once per sentence, not per load
def simplified(config: ExplorerConfig) -> AttentionTrace:
    """The engine's trace of section 3.3's simplified self-attention (no weights) on config's input
    (frozen: shared by every session, as ui/cache.py shares traces)."""
    return run(replace(config, variant="simplified"))


@functools.lru_cache(maxsize=64)  # every Learn load asks for its query's (its question needs the top key)
def worked_query(config: ExplorerConfig, query: int) -> WorkedQuery:
    """Simplified self-attention (no weights) for `query`, from the engine's own trace (shared by
    every session that asks: read, never changed)."""
    trace = simplified(config)
    x = trace.x[0].tolist()
    scores = trace.scores[0, 0, query].tolist()
    weights = trace.weights[0, 0, query].tolist()
    q = x[query]
    return WorkedQuery(
        query=query,
        tokens=trace.tokens.texts,
        x=x,
        dot_terms=[" + ".join(f"{a:.2f}·{b:.2f}" for a, b in zip(q, row, strict=True)) for row in x],
        scores=scores,
        exps=[math.exp(s) for s in scores],
        exp_sum=sum(math.exp(s) for s in scores),
        weights=weights,
        context_terms=[[w * v for v in row] for w, row in zip(weights, x, strict=True)],
        context=trace.output[0, query].tolist(),
    )


def simplified_matrices(config: ExplorerConfig) -> dict:
    """Section 3.3 for every query at once: scores x·xᵀ (T, T) and their row-wise softmax."""
    trace = simplified(config)
    return {"scores": trace.scores[0, 0].numpy(), "weights": trace.weights[0, 0].numpy()}


def scaling_demo(dims=(2, 8, 32, 128, 512, 2048), samples: int = 200, seed: int = 0) -> list[dict]:
    """Why divide by sqrt(d_k): for random unit-variance queries and keys, the dot products grow
    like sqrt(d_k), so an unscaled softmax saturates (one weight near 1) as d_k grows."""
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for d_k in dims:
        q = torch.randn(samples, 1, d_k, generator=generator)  # (S, 1, d_k)
        k = torch.randn(samples, 8, d_k, generator=generator)  # (S, 8 keys, d_k)
        scores = (q @ k.transpose(1, 2)).squeeze(1)  # (S, 8)
        unscaled = torch.softmax(scores, dim=-1).max(dim=-1).values.mean().item()
        scaled = torch.softmax(scores / d_k**0.5, dim=-1).max(dim=-1).values.mean().item()
        values = (scores.std().item(), unscaled, scaled)
        rows.append({"d_k": d_k} | dict(zip(SCALING_COLUMNS, values, strict=True)))
    return rows


def causal_two_ways(config: ExplorerConfig) -> dict[str, torch.Tensor]:
    """The book's two masks on the same weights: tril-multiply-and-renormalise vs −inf."""
    plain = run(replace(config, variant="v2"))  # no mask
    causal = run(replace(config, variant="causal", dropout=0.0, causal=True))
    weights = plain.weights[0, 0]  # (T, T)
    tril = torch.tril(torch.ones_like(weights))  # (T, T)
    masked_simple = weights * tril  # (T, T)
    renormalised = masked_simple / masked_simple.sum(dim=-1, keepdim=True)  # (T, T)
    return {
        "weights": weights,
        "masked_simple": masked_simple,
        "renormalised": renormalised,
        "minus_inf": causal.weights[0, 0],
        "masked_scores": causal.masked_scores[0, 0],
    }


def dropout_demo(config: ExplorerConfig, p: float, draws: int = 1000) -> dict:
    """One draw (mask, scaling), eval mode, and the average row sums over many seeds."""
    base = replace(config, variant="causal", dropout=p, causal=True)
    one = run(replace(base, train=True))
    evaluated = run(replace(base, train=False))
    weights = one.weights[0, 0]  # (T, T)
    generator = torch.Generator().manual_seed(config.seed)
    keep = torch.empty((draws, *weights.shape)).bernoulli_(1 - p, generator=generator)  # (N, T, T)
    mean_row_sums = (weights * keep / (1 - p)).sum(-1).mean(0)  # (T,)
    return {"trace": one, "eval": evaluated, "mean_row_sums": mean_row_sums, "draws": draws}


def multihead_shapes(batch: int, tokens: int, d_in: int, d_out: int, heads: int) -> list[tuple[str, str]]:
    """Split heads, every intermediate's shape, as MultiHeadAttention.forward computes them."""
    head_dim = d_out // heads
    b, t = batch, tokens
    return [
        ("x", f"({b}, {t}, {d_in})"),
        ("keys = W_key(x)", f"({b}, {t}, {d_out})"),
        ("keys.view(b, num_tokens, num_heads, head_dim)", f"({b}, {t}, {heads}, {head_dim})"),
        ("keys.transpose(1, 2)", f"({b}, {heads}, {t}, {head_dim})"),
        ("attn_scores = queries @ keys.transpose(2, 3)", f"({b}, {heads}, {t}, {t})"),
        ("attn_weights = softmax(masked / √head_dim)", f"({b}, {heads}, {t}, {t})"),
        ("(attn_weights @ values).transpose(1, 2)", f"({b}, {t}, {heads}, {head_dim})"),
        ("context_vec.contiguous().view(b, num_tokens, d_out)", f"({b}, {t}, {d_out})"),
        ("out_proj(context_vec)", f"({b}, {t}, {d_out})"),
    ]


@functools.lru_cache(maxsize=4)  # read, never changed, by every Learn page load
def exercise_3_2(seed: int = 123) -> torch.Tensor:
    """The wrapper with d_out = 1 per head and 2 heads on the book's inputs: width 2."""
    from attention.chapter3.embeddings import presets

    inputs = torch.tensor(presets()[0]["vectors"])  # (6, 3)
    batch = torch.stack((inputs, inputs))  # (2, 6, 3)
    module = reset_parameters(
        MultiHeadAttentionWrapper(3, 1, 6, 0.0, num_heads=2), torch.Generator().manual_seed(seed)
    )
    with torch.no_grad():
        return module(batch)  # (2, 6, 2)


@functools.lru_cache(maxsize=16)  # a module built, if on the meta device, on every Learn load
def parameter_count(d_in: int = 768, d_out: int = 768, heads: int = 12, qkv_bias: bool = False) -> int:
    """Exercise 3.3: GPT-2-sized MultiHeadAttention has 2,360,064 parameters."""
    with torch.device("meta"):  # shapes only, no memory
        module = MultiHeadAttention(d_in, d_out, 1024, 0.0, heads, qkv_bias)
    return sum(p.numel() for p in module.parameters())
