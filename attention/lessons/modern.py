"""The Modern attention page's answers, computed (no Streamlit): each of its five questions answered
with numbers from the learner's sentence, by the variants of attention.chapter3's table (the
engine's traces) and this package's functions.

    kv_cache(config)          generation one token at a time: what each step computes and keeps
    grouped(config)           which query heads read which key/value head; cache bytes per token
    window_reach(window)      how far back information can travel through L windowed layers
    rope_shift(config, shift) the scores with the whole sentence moved `shift` positions later
    online(config, query)     the online softmax's tiles for one query, and its largest block

A table's column names are marked messages (N_), kept in English for the code that reads them: the
page translates them where it shows the table (tr); the words in its cells are in the reader's
language already.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import torch

from attention.chapter3.embeddings import embed
from attention.chapter3.trace import AttentionTrace
from attention.explorer.config import ExplorerConfig
from attention.explorer.engine import build_module, run
from attention.i18n import N_, tr, tr_n
from attention.modern import kv_cache as cache
from attention.modern.gqa import kv_cache_bytes
from attention.modern.online_softmax import online_attention
from attention.modern.rope import apply_rope, compute_rope_params

# Llama 3 8B's attention (its config.json): 32 layers, 32 query heads of 128, 8 key/value heads,
# bfloat16: what a KV cache per token costs at a real model's size.
LLAMA3_8B = {"n_layers": 32, "heads": 32, "kv_groups": 8, "head_dim": 128, "bytes_per_value": 2}


def _input(config: ExplorerConfig) -> torch.Tensor:
    c = config.normalised()
    return embed(c.tokens, c.embedding, c.d_in, c.seed, c.matrix).unsqueeze(0)  # (1, T, d_in)


# --- 1. the KV cache -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Generation:
    whole: AttentionTrace  # the generation as one trace: row t from step t
    steps: list[AttentionTrace]  # step t: one query against the t + 1 keys cached so far
    full: AttentionTrace  # chapter 3's MultiHeadAttention on the whole sentence, same weights
    table: pd.DataFrame  # per step: keys cached, products with and without the cache, cache bytes

    @property
    def largest_difference(self) -> float:
        """max |step t's weights - row t of the full causal weights| over every step."""
        return float((self.whole.weights - self.full.weights).abs().max())


@torch.no_grad()
def kv_cache(config: ExplorerConfig) -> Generation:
    """`config` (a kv_cache variant) generated one token at a time, beside the full causal pass."""
    config = replace(config, variant="kv_cache").normalised()
    module, _ = build_module(config)
    whole, steps = cache.generation_trace(module, _input(config))
    full = run(replace(config, variant="mha", causal=True, dropout=0.0, train=False))
    heads, head_dim = config.heads, config.d_out // config.heads
    t = np.arange(1, len(steps) + 1)  # keys seen at each step
    table = pd.DataFrame(
        {
            N_("step"): np.arange(len(steps)),
            N_("new token"): list(config.tokens.texts),
            N_("keys cached"): t,
            N_("q·k products, all heads, cache"): heads * t,
            N_("q·k products, all heads, no cache"): heads * t * t,  # the whole (t, t) matrix, then masked
            N_("cache bytes"): [kv_cache_bytes(n, heads, head_dim) for n in t],
        }
    )
    return Generation(whole, steps, full, table)


# --- 2. grouped-query attention ------------------------------------------------------------------


def head_groups(heads: int, kv_groups: int) -> pd.DataFrame:
    """Which key/value head each query head reads (llama3.py's repeat_interleave: neighbours
    share), one column per query head (named by its number)."""
    size = heads // kv_groups
    reads = [[h // size for h in range(heads)]]
    return pd.DataFrame(reads, index=[N_("reads key/value head")], columns=range(heads))


def distinct_keys(trace: AttentionTrace) -> int:
    """How many different key matrices the query heads read."""
    keys = trace.keys[0]  # (H, T, d)
    return len({tuple(k.flatten().tolist()) for k in keys})


def cache_per_token(model: dict = LLAMA3_8B) -> pd.DataFrame:
    """A model's KV cache per token as multi-head, its grouped-query setting and multi-query."""
    rows = []
    kv_groups = model["kv_groups"]
    for name, groups in (
        (tr("multi-head (every query head its own)"), model["heads"]),
        (
            tr_n(
                "grouped-query ({n} key/value head)",
                "grouped-query ({n} key/value heads)",
                kv_groups,
                n=kv_groups,
            ),
            kv_groups,
        ),
        (tr("multi-query (1 key/value head)"), 1),
    ):
        per_token = kv_cache_bytes(1, groups, model["head_dim"], model["n_layers"], model["bytes_per_value"])
        rows.append(
            {
                N_("attention"): name,
                N_("key/value heads"): groups,
                N_("KiB per token"): per_token / 2**10,
                N_("GiB for 8,192 tokens"): per_token * 8192 / 2**30,
            }
        )
    return pd.DataFrame(rows)


# --- 3. sliding window ---------------------------------------------------------------------------


def window_reach(window: int, layers: int = 6) -> pd.DataFrame:
    """How far back a token's information can reach through L layers of windowed attention: each
    layer moves it at most window - 1 positions."""
    return pd.DataFrame(
        {
            N_("layers"): range(1, layers + 1),
            N_("reach (tokens back)"): [(window - 1) * n for n in range(1, layers + 1)],
        }
    )


def layers_to_reach(distance: int, window: int) -> int | None:
    """The fewest windowed layers that carry a token `distance` positions forward (None: never)."""
    return None if window <= 1 else math.ceil(distance / (window - 1))


# --- 4. RoPE -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shift:
    rope: np.ndarray  # (T, T) head 0's scores with RoPE, positions 0..T-1
    rope_shifted: np.ndarray  # the same with positions shift..shift+T-1
    absolute: np.ndarray  # learned absolute positions (GPT-2's way): x + P[position]
    absolute_shifted: np.ndarray

    @property
    def rope_change(self) -> float:
        return float(np.abs(self.rope - self.rope_shifted).max())

    @property
    def absolute_change(self) -> float:
        return float(np.abs(self.absolute - self.absolute_shifted).max())


@torch.no_grad()
def rope_shift(config: ExplorerConfig, shift: int) -> Shift:
    """Head 0's scores q·k for the sentence at positions 0.. and at shift..: rotated by RoPE, and
    with a learned absolute position embedding (seeded nn.Embedding rows) added to x instead."""
    config = replace(config, variant="gqa", rope=True).normalised()
    module, generator = build_module(config)
    x = _input(config)
    num_tokens, head_dim = x.shape[1], config.d_out // config.heads
    cos, sin = compute_rope_params(head_dim, context_length=shift + num_tokens)
    queries, keys, _ = module._project(x, None, None)  # (B, H, T, d), (B, G, T, d): not rotated yet
    keys = module._expand(keys)

    def scores(q, k):
        return (q @ k.transpose(-2, -1))[0, 0].numpy()

    def rotated(offset):
        return scores(apply_rope(queries, cos, sin, offset), apply_rope(keys, cos, sin, offset))

    positions = torch.randn(shift + num_tokens, x.shape[-1], generator=generator)  # GPT-2's wpe, seeded

    def absolute(offset):
        q, k, _ = module._project(x + positions[offset : offset + num_tokens], None, None)
        return scores(q, module._expand(k))

    return Shift(rotated(0), rotated(shift), absolute(0), absolute(shift))


# --- 5. the online softmax -----------------------------------------------------------------------


@dataclass(frozen=True)
class Online:
    tiles: pd.DataFrame  # one row per tile, for one query of head 0
    output: np.ndarray  # (T, d_v) head 0's context, online
    plain: np.ndarray  # (T, d_v) chapter 3's MultiHeadAttention's, the same seed and weights
    largest_block: int  # numbers in the largest block of scores held at once: T x tile
    full_matrix: int  # T x T

    @property
    def largest_difference(self) -> float:
        return float(np.abs(self.output - self.plain).max())


@torch.no_grad()
def online(config: ExplorerConfig, query: int) -> Online:
    """The online softmax over `config`'s tiles for head 0: the running max m, the rescale of the
    sum so far exp(m_old - m_new), the running sum l and the output so far, for one query."""
    config = replace(config, variant="online").normalised()
    trace = run(config)
    tile = config.tile
    q, k, v = (getattr(trace, n)[:, :1] for n in ("queries", "keys", "values"))  # head 0, (1, 1, T, d)
    output, tiles = online_attention(q, k, v, tile, trace.mask)
    rows, previous = [], -math.inf
    for t in tiles:  # as text: a tile the mask hides, and the first tile's rescale, are words
        m, largest = float(t.running_max[0, 0, query, 0]), float(t.scores[0, 0, query].max())
        rows.append(
            {
                N_("keys"): f"{t.start}–{t.stop - 1}" if t.stop - t.start > 1 else str(t.start),
                N_("largest score in the tile"): f"{largest:.4f}"
                if math.isfinite(largest)
                else tr("all masked"),
                N_("running max m"): f"{m:.4f}",
                N_("old sum rescaled by"): tr("— (none yet)")
                if previous == -math.inf
                else f"{math.exp(previous - m):.4f}",
                N_("running sum l"): f"{float(t.running_sum[0, 0, query, 0]):.4f}",
                N_("output so far (acc / l), first coordinate"): f"{float(t.partial[0, 0, query, 0]):.4f}",
            }
        )
        previous = m
    num_tokens = trace.num_tokens
    return Online(
        pd.DataFrame(rows),
        output[0, 0].numpy(),
        run(replace(config, variant="mha")).context[0, 0].numpy(),
        num_tokens * min(tile, num_tokens),
        num_tokens * num_tokens,
    )
