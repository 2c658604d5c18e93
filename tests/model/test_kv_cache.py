"""The KV cache of the modern models: a prompt read in chunks of any size, then a token at a time,
gives the full forward's logits at every position up to the context; a sliding-window layer holds
window + chunk - 1 keys while it reads a chunk and window - 1 after it (the book's fix #1013: a
cache trimmed to the window before the chunk's queries read it gives other logits)."""

import pytest
import torch

from attention.errors import ConfigError
from attention.model import catalog, kv_cache
from attention.model.checkpoint import load_model
from tests.model.tiny_hf import CONTEXT, VOCAB, tiny

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    made = {}
    for kind in ("qwen3", "llama", "gemma3"):
        folder = tmp_path_factory.mktemp(kind)
        tiny(kind, folder)
        made[kind] = load_model(folder)
    made["shakespeare-qwen3"] = load_model(catalog.SHAKESPEARE_QWEN3_PATH)
    return made


def chunked(model, ids, sizes):
    cache, logits, at = kv_cache.KVCache(model), [], 0
    for size in sizes:
        logits.append(kv_cache.read(model, ids[:, at : at + size], cache))
        at += size
    return torch.cat(logits, 1), cache


@pytest.mark.parametrize("kind", ["qwen3", "llama", "gemma3", "shakespeare-qwen3"])
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 128])
def test_a_chunked_read_gives_the_full_forwards_logits_at_every_position(models, kind, chunk):
    if kind == "shakespeare-qwen3" and chunk < 7:
        pytest.skip("the tiny models take every chunk size; the bundled one, 128 positions, two")
    model = models[kind]
    length = model.cfg["context_length"]
    vocab = VOCAB if kind != "shakespeare-qwen3" else 5000
    ids = torch.randint(0, vocab, (2, length), generator=torch.Generator().manual_seed(chunk))
    sizes = [min(chunk, length - i) for i in range(0, length, chunk)]
    logits, cache = chunked(model, ids, sizes)
    torch.testing.assert_close(logits, model(ids), atol=2e-5, rtol=1e-5)
    assert cache.position == length


@pytest.mark.parametrize("chunk", [2, 3, 5])
def test_a_sliding_layer_holds_window_plus_chunk_minus_one_keys_while_it_reads(models, chunk):
    model = models["qwen3"]  # layers full, sliding (window 4), full
    window = model.trf_blocks[1].window
    ids = torch.randint(0, VOCAB, (1, CONTEXT), generator=torch.Generator().manual_seed(0))
    cache, at = kv_cache.KVCache(model), 0
    while at + chunk <= CONTEXT:
        kv_cache.read(model, ids[:, at : at + chunk], cache)
        at += chunk
        before = min(window - 1, at - chunk)  # what the layer kept from earlier chunks
        assert cache.layers[1].attended == before + chunk  # = window + chunk - 1 once it is full
        assert cache.held()[1] == min(window - 1, at) and cache.held()[0] == at
    assert cache.layers[1].attended == window + chunk - 1


def test_a_cache_trimmed_to_the_window_before_the_chunk_is_read_is_wrong(models, monkeypatch):
    """#1013's bug, put back: the cached and new keys cut to `window` before the queries read
    them. The chunk's first queries lose keys they may see, and the logits change."""
    model = models["qwen3"]
    ids = torch.randint(0, VOCAB, (1, 12), generator=torch.Generator().manual_seed(1))
    real = kv_cache.sliding_window_mask

    def trimmed(queries, keys, window=None, q_start=0, k_start=0, **kw):
        mask = real(queries, keys, window=window, q_start=q_start, k_start=k_start, **kw)
        if window is not None and keys > window:  # the older keys hidden from every query
            mask[:, : keys - window] = True
        return mask

    good, _ = chunked(model, ids, [4, 4, 4])
    monkeypatch.setattr(kv_cache, "sliding_window_mask", trimmed)
    bad, _ = chunked(model, ids, [4, 4, 4])
    assert not torch.allclose(good[:, 4:], bad[:, 4:], atol=1e-4)
    torch.testing.assert_close(good[:, :4], bad[:, :4])  # the first chunk had nothing cached


def test_reading_past_the_context_is_a_clear_error(models):
    model = models["qwen3"]
    cache = kv_cache.KVCache(model)
    kv_cache.read(model, torch.zeros(1, CONTEXT, dtype=torch.long), cache)
    with pytest.raises(ConfigError, match="than the model's context length"):
        kv_cache.read(model, torch.zeros(1, 1, dtype=torch.long), cache)
