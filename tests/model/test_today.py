"""Today's attention, measured: weight on the first token with and without the start token, how
alike heads that share keys look, the KV cache per token (formula = the tensors computed), and the
weight by distance (a sliding layer puts none beyond its window), on the bundled models."""

import numpy as np
import pytest
import torch

from attention.model import catalog, today
from attention.model.checkpoint import load_model
from attention.model.sentence import SHAKESPEARE_SENTENCE, encode


@pytest.fixture(scope="module")
def qwen():
    model = load_model(catalog.SHAKESPEARE_QWEN3_PATH)
    info = catalog.info(catalog.SHAKESPEARE_QWEN3, None)
    ids, _ = encode(info, SHAKESPEARE_SENTENCE, 128)
    return model, info, ids


def test_the_first_tokens_weight_is_the_traces_own_with_and_without_the_start_token(qwen):
    model, info, ids = qwen
    sinks = today.first_token_weight(model, ids, info.start_token)
    for seq, got in (([info.start_token, *ids], sinks.after_start), (ids, sinks.as_typed)):
        weights = model.trace(torch.tensor([seq])).weights  # (L, H, T, T)
        want = np.stack(
            [
                [weights[layer, h, 1:, 0].mean().item() for h in range(model.heads)]
                for layer in range(model.layers)
            ]
        )
        np.testing.assert_allclose(got, want, rtol=1e-5)
    # a sentence that starts with the start token is read without it too
    again = today.first_token_weight(model, [info.start_token, *ids], info.start_token)
    np.testing.assert_allclose(again.as_typed, sinks.as_typed)


def test_heads_that_share_keys_are_compared_apart_from_the_others(qwen):
    model, _, ids = qwen
    alike = today.group_likeness(model.trace(torch.tensor([ids])))
    assert alike.kv_heads == (0, 0, 0, 0, 1, 1, 1, 1)
    assert alike.same_group.shape == alike.other_groups.shape == (model.layers,)
    assert np.all((alike.same_group > 0) & (alike.same_group <= 1 + 1e-9))
    gpt = load_model(catalog.SHAKESPEARE_PATH)
    alone = today.group_likeness(gpt.trace(torch.tensor([ids])))
    assert np.isnan(alone.same_group).all() and not np.isnan(alone.other_groups).any()


@pytest.mark.parametrize("path", [catalog.SHAKESPEARE_QWEN3_PATH, catalog.SHAKESPEARE_PATH])
def test_the_kv_cache_per_token_is_the_keys_and_values_computed(path, qwen):
    model = load_model(path)
    cache = today.kv_cache(model, qwen[2])
    assert cache.measured == cache.per_token  # float32: 4 bytes a number
    if path == catalog.SHAKESPEARE_QWEN3_PATH:
        assert cache.per_token == 2 * 4 * 2 * 32 * 4  # 2 kv heads of 32
    else:
        assert cache.per_token == 2 * 4 * 4 * 32 * 4  # GPT: 4 heads of 32, each its own
    assert today.cache_bytes(*today.KNOWN_MODELS["Qwen3-0.6B"]) == 114_688


def test_a_sliding_layer_puts_no_weight_beyond_its_window_and_every_row_adds_up(qwen):
    model, _, ids = qwen
    bands = today.by_distance(model.trace(torch.tensor([ids])))
    assert bands.windows == (None, 32, 32, None)
    assert np.all(bands.weight[1:3, 32:] == 0) and np.all(bands.weight[[0, 3], 32:40] > 0)
    t = len(ids)
    pairs = np.arange(t, 0, -1)  # T - d (query, key) pairs at distance d
    np.testing.assert_allclose((bands.weight * pairs).sum(1), t, rtol=1e-4)  # each row sums to 1
    assert np.all(bands.mean_distance[1:3] < 32)
