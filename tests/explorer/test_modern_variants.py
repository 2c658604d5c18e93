"""Today's attention as rows of the variant table: the engine's traces of GroupedQueryAttention,
the KV cache and the online softmax, against chapter 3's MultiHeadAttention, and their knobs read
from untrusted values with a note that says what was used."""

from dataclasses import replace

import pytest
import torch

from attention.errors import ConfigError
from attention.explorer import ExplorerConfig, run
from attention.explorer.config import MAX_TOKENS
from attention.explorer.query_params import from_values, to_query_params

LONG = " ".join(f"w{i % 50}" for i in range(MAX_TOKENS))  # every position up to the cap
BASE = dict(text=LONG, embedding="random", d_in=8, d_out=8, heads=4, seed=7)


@pytest.fixture(scope="module")
def mha():
    return run(ExplorerConfig(variant="mha", **BASE))


def test_kv_cache_rows_are_the_causal_weights_at_every_position(mha):
    """Step t of generation (one token, the cache holding 0..t-1) gives row t of chapter 3's causal
    weights: the same constructor, the same seed, the same weights."""
    cached = run(ExplorerConfig(variant="kv_cache", **BASE))
    assert cached.module == "MultiHeadAttention" and cached.num_tokens == MAX_TOKENS
    torch.testing.assert_close(cached.weights, mha.weights, atol=1e-6, rtol=0)
    torch.testing.assert_close(cached.output, mha.output, atol=1e-6, rtol=0)
    assert torch.isinf(
        cached.scores[0, 0][torch.triu(torch.ones(MAX_TOKENS, MAX_TOKENS, dtype=torch.bool), 1)]
    ).all()


@pytest.mark.parametrize("tile", [1, 7, 44, 64, 256])  # dividing 256 tokens, or not
def test_online_softmax_equals_plain_attention(mha, tile):
    online = run(ExplorerConfig(variant="online", tile=tile, **BASE))
    assert online.tile_size == tile
    torch.testing.assert_close(online.weights, mha.weights, atol=1e-6, rtol=0)
    torch.testing.assert_close(online.context, mha.context, atol=1e-6, rtol=0)
    torch.testing.assert_close(online.output, mha.output, atol=1e-6, rtol=0)


@pytest.mark.parametrize("window", [1, 4, 10, MAX_TOKENS])
def test_a_window_hides_every_key_window_or_more_back(window):
    trace = run(ExplorerConfig(variant="gqa", kv_groups=2, window=window, **BASE))
    back = torch.arange(MAX_TOKENS)[:, None] - torch.arange(MAX_TOKENS)[None, :]
    hidden = (back < 0) | (back >= window)
    assert torch.equal(trace.mask, hidden) and trace.window == window
    assert (trace.weights[..., hidden] == 0).all()
    assert (trace.weights[..., ~hidden] > 0).all()
    torch.testing.assert_close(trace.weights.sum(-1), torch.ones(1, 4, MAX_TOKENS))


def test_gqa_heads_of_one_group_read_the_same_keys_and_values():
    trace = run(ExplorerConfig(variant="gqa", kv_groups=2, **BASE))
    assert trace.kv_groups == 2
    assert torch.equal(trace.keys[:, 0], trace.keys[:, 1]) and torch.equal(
        trace.values[:, 2], trace.values[:, 3]
    )
    assert not torch.equal(trace.keys[:, 1], trace.keys[:, 2])


def test_rope_scores_depend_only_on_distance():
    """Every query and key the same vector: with RoPE the scores are a function of i - j alone."""
    config = ExplorerConfig(
        variant="gqa",
        text="a a a a a a a a a a",
        embedding="random",
        d_out=8,
        heads=2,
        kv_groups=2,
        rope=True,
        causal=False,
    )
    scores = run(config).scores[0, 0]
    for distance in range(-9, 10):
        diagonal = torch.diagonal(scores, offset=-distance)
        torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal), atol=1e-5, rtol=0)
    plain = run(replace(config, rope=False)).scores[0, 0]
    assert torch.allclose(plain, plain[0, 0].expand_as(plain))  # no position at all without RoPE


@pytest.mark.parametrize(
    "raw, note, used",
    [
        ({"window": "0"}, "window=0 is out of range", {"window": None}),
        ({"window": "-3"}, "window=-3 is out of range", {"window": None}),
        ({"window": "1e9"}, "window=1000000000 is over the limit, 256", {"window": MAX_TOKENS}),
        ({"window": "two"}, "window='two' is not a number; used no window", {"window": None}),
        ({"window": "3", "causal": "0"}, "needs the causal mask on", {"window": None, "causal": False}),
        ({"heads": "4", "d_out": "8", "kv_groups": "3"}, "try 2 or 4 groups", {"kv_groups": 2}),
        ({"heads": "2", "kv_groups": "16"}, "try 2 groups", {"kv_groups": 2}),
        ({"d_out": "6", "heads": "2", "rope": "1"}, "must be even; it is 6 / 2 = 3", {"rope": False}),
        ({"kv_groups": "0"}, "kv_groups=0 is out of range", {"kv_groups": 1}),
    ],
)
def test_bad_gqa_settings_are_repaired_with_a_note(raw, note, used):
    config, notes = from_values({"variant": "gqa"} | raw)
    assert any(note in n for n in notes), notes
    for name, value in used.items():
        assert getattr(config, name) == value


def test_the_knobs_round_trip_through_a_link():
    config = ExplorerConfig(variant="gqa", d_out=8, heads=4, kv_groups=2, window=3, rope=True).normalised()
    params = to_query_params(config)
    assert params["kv_groups"] == "2" and params["window"] == "3" and params["rope"] == "1"
    assert "tile" not in params and "dropout" not in params
    assert from_values(params) == (config, [])
    online = ExplorerConfig(variant="online", tile=5).normalised()
    assert from_values(to_query_params(online)) == (online, [])


def test_a_knob_the_variant_lacks_is_ignored_with_a_note():
    config, notes = from_values({"variant": "mha", "window": "3", "kv_groups": "2"})
    assert config.window is None and config.kv_groups == 1
    assert any("window does not apply" in n for n in notes)


def test_the_config_itself_refuses_what_cannot_be_computed():
    with pytest.raises(ConfigError, match="window=0"):
        ExplorerConfig(variant="gqa", window=0)
    with pytest.raises(ConfigError, match="num_kv_groups=3"):
        ExplorerConfig(variant="gqa", heads=4, d_out=8, kv_groups=3)


def test_gqa_builds_its_mask_and_rope_on_the_inputs_device():
    """The engine moves x and the module to the device; the mask and cos, sin must follow x (a
    CPU mask on a GPU failed). The meta device stands in for a GPU here."""
    from attention.explorer.variants import _gqa_inputs

    config = ExplorerConfig(variant="gqa", d_out=8, heads=2, window=3, rope=True).normalised()
    inputs = _gqa_inputs(config, torch.empty(1, 6, 3, device="meta"))
    assert {t.device.type for t in inputs.values()} == {"meta"}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_gqa_on_cuda_equals_the_cpu():
    config = ExplorerConfig(variant="gqa", window=3, rope=True, **BASE)
    cpu, cuda = run(replace(config, device="cpu")), run(replace(config, device="cuda"))
    assert cuda.device == "cuda"
    torch.testing.assert_close(cuda.weights, cpu.weights, atol=1e-5, rtol=0)


def test_a_knob_the_variant_lacks_gets_one_note_whatever_its_value():
    config, notes = from_values({"variant": "kv_cache", "window": "500", "kv_groups": "99", "causal": "0"})
    assert config.window is None and config.kv_groups == 1 and config.causal  # the cache is causal
    assert sorted(notes) == sorted(
        f"{knob} does not apply to MultiHeadAttention; ignored it."
        for knob in ("window", "kv_groups", "causal")
    )
