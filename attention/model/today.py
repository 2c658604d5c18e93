"""What only real modern models show, measured on one sentence (Inside a model's "Today's
attention" view; any model of this package, the GPT-2 layout included for comparison):

    seen = walk(model, ids)                         # every head's weights and mean scores, one pass
    sinks = first_token_weight(model, ids, start)   # each layer's weight on the first token, with and
                                                    # without the start token in front
    alike = group_likeness(seen.weights, kv_heads)  # how alike query heads that share keys look
    cache = cache_size(model, ids)                  # the KV cache: bytes per token, and what a real
                                                    # cache (kv_cache.read) holds after the sentence
    bands = by_distance(seen)                       # weight and score by how far back the key is
    everything = measure(model, ids, start)         # all four, the sentence read twice at most

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

from attention.model import kv_cache
from attention.modern.gqa import kv_cache_bytes

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
class Walk:
    """What one pass keeps of every block's attention (run_blocks' keep: each block's other
    intermediates are dropped as it ends, so a large model holds one block's at a time)."""

    weights: torch.Tensor  # (L, H, T, T) float32
    scores: torch.Tensor  # (L, T, T) float32: the scaled scores before the mask, mean over heads
    windows: tuple[int | None, ...]  # each layer's sliding window (None: full attention)


@torch.no_grad()
def walk(model, ids: list[int]) -> Walk:
    weights, scores, windows = [], [], []

    def keep(layer):
        weights.append(layer.weights[0].to("cpu", torch.float32))
        scores.append(layer.scaled_scores[0].to("cpu", torch.float32).mean(0))
        windows.append(layer.window)

    model.run_blocks(torch.tensor([ids], device=next(model.parameters()).device), keep=keep)
    return Walk(torch.stack(weights), torch.stack(scores), tuple(windows))


@dataclass(frozen=True, eq=False)
class Sinks:
    """Mean weight on the first position, queries 1.. (query 0 has nothing else to look at); NaN
    where the sentence has no query but the first."""

    as_typed: np.ndarray  # (L, H) on the sentence as typed: its own first token
    after_start: np.ndarray  # (L, H) with the model's start token put in front of it
    first_token: int  # the sentence's own first token id
    start: int  # the start token's id

    def by_layer(self) -> tuple[np.ndarray, np.ndarray]:
        return self.as_typed.mean(1), self.after_start.mean(1)  # (L,) each


def first_weight(weights: torch.Tensor) -> np.ndarray:
    """(L, H): each head's weight on key 0, averaged over queries 1.. of (L, H, T, T) weights;
    NaN for one token (no query but the first)."""
    if weights.shape[-1] < 2:
        return np.full(weights.shape[:2], np.nan)
    return weights[:, :, 1:, 0].mean(-1).double().numpy()


@torch.no_grad()
def first_token_weight(model, ids: list[int], start: int, seen: Walk | None = None) -> Sinks:
    """Each head's weight on the first token on `ids`, and on `ids` after the start token (the
    sentence cut by one token where it would not fit). A sentence that already starts with the
    start token is read once more without it. `seen`: walk(model, ids), when it was made already."""
    most = model.cfg["context_length"]
    plain = list(ids[1:]) if len(ids) > 1 and ids[0] == start else list(ids)
    started = [start, *plain][:most]
    typed = seen.weights if seen is not None and plain == list(ids) else walk(model, plain).weights
    return Sinks(first_weight(typed), first_weight(walk(model, started).weights), plain[0], start)


@dataclass(frozen=True)
class Likeness:
    """How alike heads' weight maps are (mean cosine similarity of their (T, T) maps, query 0 left
    out), for pairs of query heads sharing a key/value head and pairs that do not, per layer."""

    same_group: np.ndarray  # (L,) NaN where no two heads share (GPT-2: every head its own)
    other_groups: np.ndarray  # (L,) NaN where every head shares one (multi-query attention)
    kv_heads: tuple[int, ...]


def group_likeness(weights: torch.Tensor, kv_heads: tuple[int, ...]) -> Likeness:
    """weights (L, H, T, T); NaN throughout for fewer than 3 tokens (too few rows to compare)."""
    kv, layers = tuple(kv_heads), weights.shape[0]
    pairs = [(a, b) for a in range(len(kv)) for b in range(a + 1, len(kv))]
    same = [p for p in pairs if kv[p[0]] == kv[p[1]]]
    other = [p for p in pairs if kv[p[0]] != kv[p[1]]]
    if weights.shape[-1] < 3:
        return Likeness(np.full(layers, np.nan), np.full(layers, np.nan), kv)
    flat = torch.nn.functional.normalize(weights[:, :, 1:].flatten(2), dim=-1)  # (L, H, N)
    cosine = (flat @ flat.transpose(1, 2)).double().numpy()  # (L, H, H)

    def mean(chosen):
        if not chosen:
            return np.full(layers, np.nan)
        rows, cols = zip(*chosen, strict=True)
        return cosine[:, list(rows), list(cols)].mean(-1)

    return Likeness(mean(same), mean(other), kv)


@dataclass(frozen=True)
class CacheSize:
    """The KV cache: bytes per token from the config (2 x layers x key/value heads x head_dim x
    bytes a number), and, for the models with a cache here (kv_cache.read), the bytes it really
    holds after reading the sentence: less than per_token x tokens where sliding layers keep only
    their last window - 1 tokens."""

    layers: int
    kv_heads: int
    head_dim: int
    bytes_per_number: int
    tokens: int
    held: int | None  # None: no cache here (GPT-2's layout)

    @property
    def per_token(self) -> int:
        return kv_cache_bytes(1, self.kv_heads, self.head_dim, self.layers, self.bytes_per_number)

    @property
    def full(self) -> int:
        """What a cache without sliding windows holds after the sentence."""
        return self.per_token * self.tokens


def cache_bytes(layers: int, kv_heads: int, head_dim: int, bytes_per_number: int = 2) -> int:
    """Bytes per token of a model in KNOWN_MODELS (as served: 2 bytes a number)."""
    return kv_cache_bytes(1, kv_heads, head_dim, layers, bytes_per_number)


@torch.no_grad()
def cache_size(model, ids: list[int]) -> CacheSize:
    att = model.trf_blocks[0].att
    groups = getattr(att, "num_kv_groups", att.num_heads)
    size = next(model.parameters()).element_size()
    held = None
    if hasattr(model, "rope_for"):  # the models kv_cache reads: read the sentence, count what stays
        cache = kv_cache.KVCache(model)
        kv_cache.read(model, torch.tensor([ids], device=next(model.parameters()).device), cache)
        held = sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)
    return CacheSize(model.layers, groups, att.head_dim, size, len(ids), held)


@dataclass(frozen=True, eq=False)
class Distances:
    """Per layer, by how far back the key is (0: the query itself): the mean weight and the mean
    scaled score over every query and head that can see that far."""

    weight: np.ndarray  # (L, T) mean weight at distance d (0 where masked: a sliding window's edge)
    score: np.ndarray  # (L, T) mean scaled score before the mask
    windows: tuple[int | None, ...]  # each layer's window (None: full attention)
    mean_distance: np.ndarray  # (L,) the weighted mean distance back a query reads from


def by_distance(seen: Walk) -> Distances:
    t = seen.weights.shape[-1]
    query, key = torch.meshgrid(torch.arange(t), torch.arange(t), indexing="ij")
    back = query - key  # (T, T) how far back the key is; negative: the future
    past = back >= 0
    pairs = torch.bincount(back[past], minlength=t).double()  # (T,) (query, key) pairs d apart: T - d
    mean_weight = seen.weights.double().mean(1)  # (L, T, T) over heads

    def by_d(values: torch.Tensor) -> np.ndarray:  # (L, T, T) -> (L, T): mean at each distance
        return np.stack([(torch.bincount(back[past], v[past], minlength=t) / pairs).numpy() for v in values])

    weight, score = by_d(mean_weight), by_d(seen.scores.double())
    steps = np.arange(t)
    mean_distance = (weight * pairs.numpy() * steps).sum(1) / (weight * pairs.numpy()).sum(1)
    return Distances(weight, score, seen.windows, mean_distance)


@dataclass(frozen=True, eq=False)
class Today:
    """Everything the view shows for one sentence."""

    sinks: Sinks
    likeness: Likeness
    cache: CacheSize
    distances: Distances


@torch.no_grad()
def measure(model, ids: list[int], start: int) -> Today:
    """All four on one sentence: one pass for the weights and scores (walk), one more with the
    start token in front, and one through the KV cache."""
    seen = walk(model, ids)
    return Today(
        first_token_weight(model, ids, start, seen),
        group_likeness(seen.weights, model.kv_heads),
        cache_size(model, ids),
        by_distance(seen),
    )
