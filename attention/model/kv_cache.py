"""A KV cache for the book-style Qwen3, Llama 3 and Gemma 3 models: text read in chunks (a chunked
prefill) and then a token at a time, each layer keeping the rotated keys and values it computed so
that no token is read twice. A sliding-window layer keeps only what its next queries can still see.

    cache = KVCache(model)
    logits = read(model, ids[:, :8], cache)    # (B, 8, vocab): the first chunk
    logits = read(model, ids[:, 8:11], cache)  # the next 3 tokens, reading the 8 cached

Why a sliding layer holds `window + chunk - 1` keys while it reads a chunk: the chunk's first
query sees the window - 1 keys before it, its last query the chunk itself, so the layer may drop
nothing older than window - 1 before the chunk until every query of the chunk has read them. The
book's bonus Gemma 3 code trimmed its cache to `window` keys first and gave a chunked prefill
different logits (rasbt/LLMs-from-scratch #1013); tests/model/test_kv_cache.py holds that fix.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attention.chapter3.modules import attend
from attention.errors import ConfigError
from attention.i18n import tr
from attention.modern.masks import sliding_window_mask


@dataclass
class LayerCache:
    """One layer's cached keys and values (B, G, K, head_dim), rotated, and the position of the first."""

    keys: torch.Tensor | None = None
    values: torch.Tensor | None = None
    first: int = 0  # the position of keys[:, :, 0]
    attended: int = 0  # keys the last chunk's queries were compared with, cached and new


class KVCache:
    def __init__(self, model):
        self.layers = [LayerCache() for _ in model.trf_blocks]
        self.position = 0  # the tokens read so far

    def held(self) -> list[int]:
        """Keys each layer holds now."""
        return [0 if layer.keys is None else layer.keys.shape[2] for layer in self.layers]


@torch.no_grad()
def read(model, ids: torch.Tensor, cache: KVCache) -> torch.Tensor:
    """The logits (B, C, vocab) of the next C tokens `ids` (B, C), every earlier token's keys and
    values read from `cache`, which then holds these too."""
    start, chunk = cache.position, ids.shape[1]
    if start + chunk > model.cfg["context_length"]:
        raise ConfigError(
            tr(
                "The text has more tokens ({n}) than the model's context length ({most}).",
                n=start + chunk,
                most=model.cfg["context_length"],
            ),
            "tokens",
        )
    x = model.embed(ids)  # (B, C, d)
    for block, layer in zip(model.trf_blocks, cache.layers, strict=True):
        att = block.att
        cos, sin = model.rope_for(block)
        queries, keys, values = att.project(
            block.norm1(x), cos[start : start + chunk], sin[start : start + chunk]
        )
        if layer.keys is not None:  # the cached ones first: (B, G, K + C, hd)
            keys, values = torch.cat([layer.keys, keys], 2), torch.cat([layer.values, values], 2)
        mask = sliding_window_mask(
            chunk, keys.shape[2], window=block.window, q_start=start, k_start=layer.first, device=ids.device
        )  # (C, K + C)
        steps = attend(
            queries,
            keys.repeat_interleave(att.group_size, dim=1),  # (B, H, K + C, hd): each group's for its heads
            values.repeat_interleave(att.group_size, dim=1),
            divisor=att.divisor,
            mask=mask,
        )
        out = att.out_proj(steps.context.transpose(1, 2).reshape(ids.shape[0], chunk, att.d_out))
        x = block.after_attention(out, x)  # (B, C, d)
        layer.attended = keys.shape[2]
        kept = keys.shape[2] if block.window is None else min(block.window - 1, keys.shape[2])
        # only now, every query of the chunk having read them: the keys the next query cannot see go
        layer.keys, layer.values = keys[:, :, keys.shape[2] - kept :], values[:, :, keys.shape[2] - kept :]
        layer.first = start + chunk - kept
    cache.position += chunk
    return model.out_head(model.final_norm(x))  # (B, C, vocab)
