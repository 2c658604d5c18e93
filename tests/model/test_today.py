"""Today's attention, measured: weight on the first token with and without the start token, how
alike heads that share keys look, the KV cache (bytes per token from the config; what a real
cache holds after the sentence, less where sliding layers drop old keys), and the weight by
distance (a sliding layer puts none beyond its window; the mean distance by brute force), on the
bundled models; short sentences give NaN, not numbers made of nothing."""

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
        want = weights[:, :, 1:, 0].mean(-1).double().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5)
    # a sentence that starts with the start token is read without it too
    again = today.first_token_weight(model, [info.start_token, *ids], info.start_token)
    np.testing.assert_allclose(again.as_typed, sinks.as_typed)
    alone = today.first_token_weight(model, ids[:1], info.start_token)  # one token: no query to ask
    assert np.isnan(alone.as_typed).all() and not np.isnan(alone.after_start).any()


def test_heads_that_share_keys_are_compared_apart_from_the_others(qwen):
    model, _, ids = qwen
    alike = today.group_likeness(today.walk(model, ids).weights, model.kv_heads)
    assert alike.kv_heads == (0, 0, 0, 0, 1, 1, 1, 1)
    weights = model.trace(torch.tensor([ids])).weights[:, :, 1:].flatten(2).double()  # (L, H, N)
    cosine = torch.nn.functional.cosine_similarity(weights[:, 0], weights[:, 1], dim=-1)  # a same-group pair
    assert np.all(alike.same_group > 0) and np.all(alike.same_group <= 1 + 1e-9)
    assert (alike.same_group != alike.other_groups).all() and cosine.shape == (model.layers,)
    gpt = load_model(catalog.SHAKESPEARE_PATH)
    alone = today.group_likeness(today.walk(gpt, ids).weights, gpt.kv_heads)
    assert np.isnan(alone.same_group).all() and not np.isnan(alone.other_groups).any()
    short = today.group_likeness(today.walk(model, ids[:2]).weights, model.kv_heads)
    assert np.isnan(short.same_group).all() and np.isnan(short.other_groups).all()


def test_the_kv_cache_holds_less_than_the_formula_where_layers_slide(qwen):
    model, _, ids = qwen
    cache = today.cache_size(model, ids)
    assert cache.per_token == 2 * 4 * 2 * 32 * 4  # float32: 4 layers, 2 kv heads of 32
    # full layers keep every token; the two sliding ones only their last 31
    per_layer = cache.per_token // 4
    assert cache.held == per_layer * (2 * len(ids) + 2 * 31) < cache.full == cache.per_token * len(ids)
    gpt = today.cache_size(load_model(catalog.SHAKESPEARE_PATH), ids)
    assert gpt.per_token == 2 * 4 * 4 * 32 * 4 and gpt.held is None  # GPT: every head its own
    assert today.cache_bytes(*today.KNOWN_MODELS["Qwen3-0.6B"]) == 114_688


def test_a_sliding_layer_puts_no_weight_beyond_its_window_and_the_mean_distance_is_right(qwen):
    model, _, ids = qwen
    seen = today.walk(model, ids)
    bands = today.by_distance(seen)
    assert bands.windows == (None, 32, 32, None)
    assert np.all(bands.weight[1:3, 32:] == 0) and np.all(bands.weight[[0, 3], 32:40] > 0)
    weights = seen.weights.double().mean(1).numpy()  # (L, T, T)
    t = len(ids)
    for layer in range(model.layers):  # brute force: every (query, key) pair
        pairs = [(q - k, weights[layer, q, k]) for q in range(t) for k in range(q + 1)]
        want = sum(d * w for d, w in pairs) / sum(w for _, w in pairs)
        assert bands.mean_distance[layer] == pytest.approx(want, rel=1e-9)
        for d in (0, 1, 31, t - 1):
            assert bands.weight[layer, d] == pytest.approx(
                np.mean([w for dd, w in pairs if dd == d]), rel=1e-9
            )
    assert np.all(bands.mean_distance[1:3] < 32)
