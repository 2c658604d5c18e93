"""The book's GPTModel with GPT-2's weights equals Hugging Face's GPT2LMHeadModel: logits and
every layer's attention, for random configs saved to disk and for GPT-2 small's full size."""

import json

import pytest
import torch

from attention.chapter3.modules import MultiHeadAttention
from attention.errors import ConfigError
from attention.model import checkpoint
from attention.model.checkpoint import config_from_hf, load_gpt2, load_state, save_gpt2
from attention.model.gpt import GPTModel, ModelTrace

transformers = pytest.importorskip("transformers")  # requirements-dev.txt: a test-only dependency


def hf_model(seed: int, **config):
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(attn_implementation="eager", bos_token_id=None, eos_token_id=None, **config)
    return transformers.GPT2LMHeadModel(cfg).eval()


def hf_run(model, ids):
    with torch.no_grad():
        out = model(ids, output_attentions=True)
    return out.logits, out.attentions


CONFIGS = [
    dict(vocab_size=100, n_positions=32, n_embd=64, n_layer=2, n_head=4),
    dict(vocab_size=100, n_positions=16, n_embd=64, n_layer=3, n_head=4),
    dict(vocab_size=57, n_positions=24, n_embd=48, n_layer=2, n_head=3),
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("prefix", [True, False])
def test_a_saved_checkpoint_gives_the_same_logits_and_attention(tmp_path, config, prefix):
    hf = hf_model(sum(config.values()), **config)
    hf.save_pretrained(tmp_path, safe_serialization=True)
    if not prefix:  # some checkpoints (openai-community/gpt2's own) store keys without "transformer."
        from safetensors.torch import load_file, save_file

        weights = load_file(tmp_path / "model.safetensors")
        save_file(
            {k.removeprefix("transformer."): v for k, v in weights.items()}, tmp_path / "model.safetensors"
        )
    ours = load_gpt2(tmp_path)
    assert isinstance(ours.trf_blocks[0].att, MultiHeadAttention)
    assert ours.out_head.weight is ours.tok_emb.weight  # tied as in GPT-2: one tensor, not a copy
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in hf.parameters())
    ids = torch.randint(
        0, config["vocab_size"], (2, config["n_positions"] - 3), generator=torch.Generator().manual_seed(1)
    )
    logits, attentions = hf_run(hf, ids)
    torch.testing.assert_close(ours(ids), logits, atol=1e-5, rtol=1e-5)
    trace = ours.trace(ids)
    torch.testing.assert_close(trace.logits, logits, atol=1e-5, rtol=1e-5)
    assert len(trace.layers) == config["n_layer"]
    for layer, theirs in zip(trace.layers, attentions, strict=True):
        torch.testing.assert_close(layer.weights, theirs, atol=1e-5, rtol=1e-5)


@pytest.mark.slow  # ~5 s: builds two 124 M-parameter models
def test_gpt2_small_full_size_in_memory():
    """GPT-2 small's real shapes (124 M parameters), random weights: no download."""
    hf = hf_model(0, vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12)
    ours = GPTModel(config_from_hf(hf.config.to_dict())).eval()
    load_state(ours, hf.state_dict())
    ids = torch.randint(0, 50257, (1, 32), generator=torch.Generator().manual_seed(2))
    logits, attentions = hf_run(hf, ids)
    trace = ours.trace(ids)
    assert trace.logits.shape == (1, 32, 50257) and trace.weights.shape == (12, 12, 32, 32)
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in hf.parameters()) + 50257 * 768
    torch.testing.assert_close(trace.logits, logits, atol=1e-4, rtol=1e-4)
    for layer, theirs in zip(trace.layers, attentions, strict=True):
        torch.testing.assert_close(layer.weights, theirs, atol=1e-5, rtol=1e-5)


def test_trace_is_forward_with_every_intermediate():
    torch.manual_seed(3)
    model = GPTModel(
        {
            "vocab_size": 40,
            "context_length": 12,
            "emb_dim": 16,
            "n_heads": 2,
            "n_layers": 2,
            "drop_rate": 0.0,
            "qkv_bias": False,
        }
    ).eval()
    ids = torch.randint(0, 40, (1, 10))
    trace = model.trace(ids, tokens=tuple("abcdefghij"))
    assert isinstance(trace, ModelTrace) and trace.tokens[0] == "a"
    assert torch.equal(trace.logits, model(ids))
    for layer in trace.layers:
        assert layer.module == "MultiHeadAttention" and layer.weights.shape == (1, 2, 10, 10)
        torch.testing.assert_close(layer.weights.sum(-1), torch.ones(1, 2, 10))
        assert (layer.weights[..., torch.triu(torch.ones(10, 10, dtype=torch.bool), 1)] == 0).all()
    with pytest.raises(ConfigError, match=r"than the model's context length \(12\)"):
        model.trace(torch.zeros(1, 13, dtype=torch.long))


def test_save_gpt2_round_trips_and_transformers_opens_it(tmp_path):
    torch.manual_seed(4)
    model = GPTModel(
        {
            "vocab_size": 30,
            "context_length": 16,
            "emb_dim": 32,
            "n_heads": 4,
            "n_layers": 2,
            "drop_rate": 0.0,
            "qkv_bias": False,
        }
    ).eval()
    save_gpt2(model, tmp_path, attention_explorer={"trained_on": "a test"})
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["tie_word_embeddings"] is False and config["attention_explorer"]["trained_on"] == "a test"
    again = load_gpt2(tmp_path)
    ids = torch.randint(0, 30, (1, 16))
    torch.testing.assert_close(again(ids), model(ids))
    hf = transformers.GPT2LMHeadModel.from_pretrained(tmp_path, attn_implementation="eager").eval()
    logits, attentions = hf_run(hf, ids)
    torch.testing.assert_close(logits, model(ids), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(attentions[1], model.trace(ids).layers[1].weights, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda p: None, "does not exist"),
        (lambda p: p.mkdir(), "is not a GPT-2 checkpoint"),
        (
            lambda p: (
                p.mkdir(),
                (p / "config.json").write_text("{}"),
                (p / "model.safetensors").write_bytes(b"x"),
            ),
            "is not a GPT-2 config.json",
        ),
        (
            lambda p: (
                p.mkdir(),
                (p / "pytorch_model.bin").write_bytes(b"pickle"),
                (p / "config.json").write_text("{}"),
            ),
            "not opened",
        ),
    ],
)
def test_a_path_that_is_not_a_checkpoint_is_a_clear_error(tmp_path, setup, message):
    path = tmp_path / "model"
    setup(path)
    with pytest.raises(ConfigError, match=message):
        load_gpt2(path)


@pytest.mark.parametrize("config", CONFIGS)
def test_the_parameter_count_is_read_off_the_config_exactly(config):
    cfg = config_from_hf(config)
    untied = cfg["vocab_size"] * cfg["emb_dim"]  # a fresh GPTModel's own output layer
    assert checkpoint.parameter_count(cfg) + untied == sum(p.numel() for p in GPTModel(cfg).parameters())


@pytest.mark.parametrize(
    "change, message",
    [
        ({"n_embd": 2048, "n_head": 16, "n_layer": 12}, "needs 2,307 MB of memory"),
        ({"n_positions": 200_000, "n_layer": 4}, "needs 610,401 MB"),  # masks: few parameters, 600 GB
        ({"n_head": 5}, "n_embd=64 is not a multiple of n_head=5"),
        ({"n_layer": 0}, "n_layer=0 is out of range"),
        ({"n_embd": "64"}, "n_embd='64' must be a whole number"),
        ({"n_head": None}, "n_head=None must be a whole number"),
    ],
)
def test_a_config_json_is_checked_before_a_model_is_allocated(tmp_path, change, message):
    """A config.json from anywhere (a folder, a hub repo) could ask for terabytes: the checks come
    first. Without them the first case would allocate 2.4 GB and then fail on the weights' shapes
    (and the second would ask for 600 GB)."""
    (tmp_path / "config.json").write_text(json.dumps(CONFIGS[0] | change))
    (tmp_path / "model.safetensors").write_bytes(b"not read")
    with pytest.raises(ConfigError, match=message):
        load_gpt2(tmp_path)


def test_the_size_limit_is_a_setting(monkeypatch):
    monkeypatch.setattr(checkpoint, "MAX_MODEL_MB", 0.1)
    with pytest.raises(ConfigError, match="ATTENTION_MAX_MODEL_MB"):
        config_from_hf(CONFIGS[0])


@pytest.mark.parametrize("config", CONFIGS)
def test_the_memory_a_config_asks_for_is_what_the_model_allocates(config):
    cfg = config_from_hf(config)
    model = GPTModel(cfg)
    tensors = [*model.parameters(), *model.buffers()]
    assert checkpoint.model_bytes(cfg) == sum(t.numel() * t.element_size() for t in tensors)


def test_a_checkpoint_of_another_shape_names_the_tensor(tmp_path):
    hf_model(0, **CONFIGS[0]).save_pretrained(tmp_path, safe_serialization=True)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(config | {"n_embd": 32}))
    with pytest.raises(ConfigError, match="wte: the checkpoint has shape"):
        load_gpt2(tmp_path)


def test_a_local_generator_draws_the_same_model_as_manual_seed():
    """Training in a shared server must not touch torch's global RNG; the draw is the same."""
    from attention.chapter3.modules import reset_parameters

    cfg = {
        "vocab_size": 30,
        "context_length": 16,
        "emb_dim": 32,
        "n_heads": 4,
        "n_layers": 2,
        "drop_rate": 0.0,
        "qkv_bias": True,
    }
    torch.manual_seed(5)
    book = GPTModel(cfg)
    ours = reset_parameters(GPTModel(cfg), torch.Generator().manual_seed(5))
    for (name, a), (_, b) in zip(book.named_parameters(), ours.named_parameters(), strict=True):
        assert torch.equal(a, b), name
