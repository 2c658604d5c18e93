"""Qwen3Model against transformers' Qwen3ForCausalLM on a tiny random checkpoint: grouped-query
attention (4 query heads over 2 key/value heads), QK-norm, head_dim independent of the width, tied
embeddings, RoPE, and a sliding-window layer between full ones. Logits and every layer's attention
weights within 1e-5 in float32, at every position up to the context length."""

from __future__ import annotations

import pytest
import torch

from attention.errors import ConfigError
from attention.model import qwen3
from attention.model.checkpoint import load_model
from attention.modern.masks import sliding_window_mask
from tests.model.tiny_hf import CONTEXT, VOCAB, assert_same, tiny

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qwen3")
    return folder, tiny("qwen3", folder)


def test_logits_and_every_layers_weights_equal_transformers(saved):
    folder, theirs = saved
    ours = load_model(folder)
    assert isinstance(ours, qwen3.Qwen3Model)
    ids = torch.randint(0, VOCAB, (2, CONTEXT), generator=torch.Generator().manual_seed(1))
    diffs = assert_same(ours, theirs, ids)
    print(f"qwen3 max abs diff: {diffs}")
    for length in (1, 2, 5):  # short sentences too (every position is in the full one already)
        assert_same(ours, theirs, ids[:, :length])


def test_the_pieces_are_the_books(saved):
    ours = load_model(saved[0])
    block = ours.trf_blocks[0]
    att = block.att
    assert (att.num_heads, att.num_kv_groups, att.head_dim, att.d_out) == (4, 2, 16, 64)
    assert att.q_norm is not None and att.k_norm is not None
    assert ours.out_head.weight is ours.tok_emb.weight  # tied: one tensor
    assert [b.window for b in ours.trf_blocks] == [None, 4, None]
    for name in ("W_query", "W_key", "W_value", "out_proj"):
        assert isinstance(getattr(att, name), torch.nn.Linear)
    assert all(isinstance(getattr(block.ff, n), torch.nn.Linear) for n in ("fc1", "fc2", "fc3"))
    assert isinstance(block.norm1, qwen3.RMSNorm) and isinstance(ours.final_norm, qwen3.RMSNorm)


def test_the_trace_says_which_key_value_head_each_query_head_reads(saved):
    ours = load_model(saved[0])
    trace = ours.trace(torch.arange(8)[None])
    assert trace.kv_heads == (0, 0, 1, 1) == ours.kv_heads
    layer = trace.layers[0]
    assert layer.kv_groups == 2 and layer.rope
    # heads of one group read the same keys and values; the groups differ
    torch.testing.assert_close(layer.keys[:, 0], layer.keys[:, 1])
    assert not torch.equal(layer.keys[:, 1], layer.keys[:, 2])
    torch.testing.assert_close(layer.weights.sum(-1), torch.ones(1, 4, 8))  # rows sum to 1


def test_the_sliding_layers_mask_equals_transformers(saved):
    """Every position: the sliding layer's traced mask is transformers' (a key `window` or more
    back is masked) and its weights there are exactly 0; the full layers' masks are causal."""
    ours = load_model(saved[0])
    trace = ours.trace(torch.arange(CONTEXT)[None])
    from transformers.masking_utils import causal_mask_function, sliding_window_causal_mask_function

    q, k = torch.arange(CONTEXT)[:, None], torch.arange(CONTEXT)[None, :]
    for layer, window in zip(trace.layers, (None, 4, None), strict=True):
        allowed = (sliding_window_causal_mask_function(window) if window else causal_mask_function)(
            0, 0, q, k
        )  # (T, T) True where transformers lets a query look
        assert torch.equal(layer.mask, ~allowed)
        assert torch.equal(layer.mask, sliding_window_mask(CONTEXT, window=window))
        assert layer.window == window
        assert torch.all(layer.weights[..., layer.mask] == 0)
    assert trace.layers[1].mask.sum() > trace.layers[0].mask.sum()


def test_a_bad_config_names_its_value():
    cfg = qwen3.QWEN_CONFIG_06_B | {"n_layers": 2, "vocab_size": 10, "emb_dim": 8, "hidden_dim": 8}
    with pytest.raises(ConfigError, match="n_kv_groups=8"):
        qwen3.Qwen3Model(cfg | {"n_heads": 12})
    with pytest.raises(ConfigError, match="head_dim=7"):
        qwen3.Qwen3Model(cfg | {"head_dim": 7})
    with pytest.raises(ConfigError, match="sliding_window"):
        qwen3.Qwen3Model(cfg | {"layer_types": ["sliding_attention", "full_attention"]})
    with pytest.raises(ConfigError, match="needs rope_base"):
        qwen3.Qwen3Model({k: v for k, v in cfg.items() if k != "rope_base"})
    with pytest.raises(ConfigError, match="than the model's context length"):
        qwen3.Qwen3Model(cfg | {"context_length": 4, "head_dim": 8}).trace(
            torch.zeros(1, 5, dtype=torch.long)
        )


def test_a_mismatched_tensor_is_named(saved, tmp_path):
    from safetensors.torch import load_file, save_file

    folder, _ = saved
    state = load_file(folder / "model.safetensors")
    state["model.layers.1.self_attn.k_proj.weight"] = torch.zeros(3, 32)
    (tmp_path / "config.json").write_text((folder / "config.json").read_text())
    save_file(state, tmp_path / "model.safetensors")
    with pytest.raises(
        ConfigError, match=r"model.layers.1.self_attn.k_proj.weight: the checkpoint has shape \(3, 32\)"
    ):
        load_model(tmp_path)
    del state["model.layers.1.self_attn.k_proj.weight"]
    save_file(state, tmp_path / "model.safetensors")
    with pytest.raises(ConfigError, match="no 'model.layers.1.self_attn.k_proj.weight'"):
        load_model(tmp_path)


def test_saved_in_hugging_faces_layout_transformers_opens_it(saved, tmp_path):
    from attention.model.hf_layout import save_hf

    ours = load_model(saved[0])
    save_hf(ours, tmp_path)
    again = transformers.Qwen3ForCausalLM.from_pretrained(tmp_path, attn_implementation="eager").eval()
    ids = torch.randint(0, VOCAB, (1, CONTEXT), generator=torch.Generator().manual_seed(2))
    assert_same(ours, again, ids)
    assert transformers.AutoConfig.from_pretrained(tmp_path).layer_types == [
        "full_attention",
        "sliding_attention",
        "full_attention",
    ]
