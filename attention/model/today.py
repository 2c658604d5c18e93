"""What only real modern models show, measured on one sentence (Inside a model's "Today's
attention" view; any model of this package, the GPT-2 layout included for comparison):

    sinks = first_token_weight(model, ids, start)   # each layer's weight on the first token, with and
                                                    # without the start token in front
    alike = group_likeness(trace)                   # how alike query heads that share keys look
    cache = kv_cache(model, ids)                    # the KV cache's bytes per token: formula and tensors
    bands = by_distance(trace)                      # weight and score by how far back the key is

An attention sink: softmax must hand out all of each row's weight, so a head with nothing worth
reading puts it somewhere harmless, and models learn to park it on the first token (Xiao et al.
2023, "Efficient Streaming Language Models with Attention Sinks", which keeps those first keys in a
sliding KV cache; gpt-oss gives each head a learned sink logit in the softmax's denominator
instead). Grouped-query attention (Ainslie et al. 2023) stores one key and value per group of query
heads: its KV cache is that many times smaller.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attention.model.gpt import ModelTrace

# KV cache per token of the models students meet, from their config.json (the hub's): layers, key/
# value heads, head_dim, and 2 bytes a number (bfloat16, as they are served)
KNOWN_MODELS = {
    "GPT-2 small": (12, 12, 64),
    "SmolLM2-135M": (30, 3, 64),
    "Qwen3-0.6B": (28, 8, 128),
    "Gemma 3 270M": (18, 1, 256),
    "Llama 3.2 1B": (16, 8, 64),
}


@dataclass(frozen=True, eq=False)
class Sinks:
    """Mean weight on the first position, queries 1.. (query 0 has nothing else to look at)."""

    as_typed: np.ndarray  # (L, H) on the sentence as typed: its own first token
    after_start: np.ndarray  # (L, H) with the model's start token put in front of it
    first_token: int  # the sentence's own first token id
    start: int  # the start token's id

    def by_layer(self) -> tuple[np.ndarray, np.ndarray]:
        return self.as_typed.mean(1), self.after_start.mean(1)  # (L,) each


def first_weight(weights: torch.Tensor) -> np.ndarray:
    """(L, H): each head's weight on key 0, averaged over queries 1.. of (L, H, T, T) weights."""
    return weights[:, :, 1:, 0].mean(-1).double().numpy()


@torch.no_grad()
def first_token_weight(model, ids: list[int], start: int) -> Sinks:
    """Each head's weight on the first token on `ids`, and on `ids` after the start token (the
    sentence cut by one token where it would not fit). A sentence that already starts with the
    start token is read once more without it."""
    device = next(model.parameters()).device
    most = model.cfg["context_length"]
    plain = list(ids[1:]) if ids and ids[0] == start else list(ids)
    plain = plain or list(ids)
    started = [start, *plain][:most]
    weights = [model.trace(torch.tensor([seq], device=device)).weights.float() for seq in (plain, started)]
    if len(plain) < 2:  # one token: no query but the first
        empty = np.zeros((model.layers, model.heads))
        return Sinks(empty, first_weight(weights[1]) if len(started) > 1 else empty, plain[0], start)
    return Sinks(first_weight(weights[0]), first_weight(weights[1]), plain[0], start)


@dataclass(frozen=True)
class Likeness:
    """How alike heads' weight maps are (mean cosine similarity of their (T, T) maps, query 0 left
    out), for pairs of query heads sharing a key/value head and pairs that do not, per layer."""

    same_group: np.ndarray  # (L,) NaN where no two heads share (GPT-2: every head its own)
    other_groups: np.ndarray  # (L,) NaN where every head shares one (multi-query attention)
    kv_heads: tuple[int, ...]


def group_likeness(trace: ModelTrace) -> Likeness:
    kv = trace.kv_heads
    weights = trace.weights.float()[:, :, 1:]  # (L, H, T - 1, T)
    flat = torch.nn.functional.normalize(weights.flatten(2), dim=-1)  # (L, H, N)
    cosine = (flat @ flat.transpose(1, 2)).double().numpy()  # (L, H, H)
    heads = len(kv)
    pairs = [(a, b) for a in range(heads) for b in range(a + 1, heads)]
    same = [p for p in pairs if kv[p[0]] == kv[p[1]]]
    other = [p for p in pairs if kv[p[0]] != kv[p[1]]]

    def mean(chosen):
        if not chosen:
            return np.full(cosine.shape[0], np.nan)
        rows, cols = zip(*chosen, strict=True)
        return cosine[:, list(rows), list(cols)].mean(-1)

    return Likeness(mean(same), mean(other), tuple(kv))


@dataclass(frozen=True)
class KVCache:
    """Bytes the KV cache holds per token: from the config (2 x layers x key/value heads x head_dim
    x bytes a number) and measured (the keys and values the model computed on the sentence, as a
    cache would store them, divided by its length)."""

    layers: int
    kv_heads: int
    head_dim: int
    bytes_per_number: int
    measured: float

    @property
    def per_token(self) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * self.bytes_per_number


def cache_bytes(layers: int, kv_heads: int, head_dim: int, bytes_per_number: int = 2) -> int:
    return 2 * layers * kv_heads * head_dim * bytes_per_number


@torch.no_grad()
def kv_cache(model, ids: list[int]) -> KVCache:
    """The model's KV cache per token, computed and measured: its key and value projections on
    the sentence (W_key, W_value: one row per key/value head, never repeated per query head)."""
    device = next(model.parameters()).device
    x = model.start(model.tok_emb(torch.tensor([ids], device=device)))  # (1, T, d)
    stored = 0
    for block in model.trf_blocks:
        trace = model.attend(block, x)
        normed = block.norm1(x)
        stored += block.att.W_key(normed).nbytes + block.att.W_value(normed).nbytes
        added, mlp = block.parts(trace.output, x)
        x = x + added + mlp
    att = model.trf_blocks[0].att
    groups = getattr(att, "num_kv_groups", att.num_heads)
    size = next(model.parameters()).element_size()
    return KVCache(model.layers, groups, att.head_dim, size, stored / len(ids))


@dataclass(frozen=True)
class Distances:
    """Per layer, by how far back the key is (0: the query itself): the mean weight and the mean
    scaled score over every query and head that can see that far."""

    weight: np.ndarray  # (L, T) mean weight at distance d (0 where masked: a sliding window's edge)
    score: np.ndarray  # (L, T) mean scaled score before the mask, NaN where no query is that far
    windows: tuple[int | None, ...]  # each layer's window (None: full attention)
    mean_distance: np.ndarray  # (L,) the weighted mean distance back a query reads from


def by_distance(trace: ModelTrace) -> Distances:
    t = trace.weights.shape[-1]
    query, key = torch.meshgrid(torch.arange(t), torch.arange(t), indexing="ij")
    distance = (query - key).clamp(min=-1)  # (T, T); -1 above the diagonal (the future)
    weights, scores = [], []
    for layer in trace.layers:
        w = layer.weights[0].float().mean(0)  # (T, T) mean over heads
        s = layer.scaled_scores[0].float().mean(0)
        weights.append([float(w[distance == d].mean()) for d in range(t)])
        scores.append([float(s[distance == d].mean()) for d in range(t)])
    weight = np.array(weights)  # (L, T)
    steps = np.arange(t)
    rows = np.array([np.bincount(distance[distance >= 0].numpy(), minlength=t)])  # queries per distance
    mean_distance = (weight * rows * steps).sum(1) / (weight * rows).sum(1)
    return Distances(weight, np.array(scores), tuple(layer.window for layer in trace.layers), mean_distance)


@dataclass(frozen=True, eq=False)
class Today:
    """Everything the view shows for one sentence."""

    sinks: Sinks
    likeness: Likeness
    cache: KVCache
    distances: Distances


@torch.no_grad()
def measure(model, ids: list[int], start: int) -> Today:
    device = next(model.parameters()).device
    trace = model.trace(torch.tensor([ids], device=device))
    return Today(
        first_token_weight(model, ids, start), group_likeness(trace), kv_cache(model, ids), by_distance(trace)
    )
