"""Gemma3Model against transformers' Gemma3ForCausalLM on a tiny random checkpoint: multi-query
attention (4 query heads over 1 key/value head), QK-norm, sliding and full layers with two RoPE
bases (the full one linearly slowed), query_pre_attn_scalar, four norms per block with (1 + weight),
embeddings scaled by sqrt(d). Logits and every layer's weights within 1e-5 in float32."""

from __future__ import annotations

import pytest
import torch

from attention.model import gemma3
from attention.model.checkpoint import load_model
from attention.model.hf_layout import save_hf
from tests.model.tiny_hf import CONTEXT, VOCAB, assert_same, tiny

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gemma3")
    return folder, tiny("gemma3", folder)


def test_logits_and_every_layers_weights_equal_transformers(saved):
    folder, theirs = saved
    ours = load_model(folder)
    assert isinstance(ours, gemma3.Gemma3Model)
    ids = torch.randint(0, VOCAB, (2, CONTEXT), generator=torch.Generator().manual_seed(1))
    print(f"gemma3 max abs diff: {assert_same(ours, theirs, ids)}")
    assert_same(ours, theirs, ids[:, :3])


def test_its_pieces(saved):
    ours = load_model(saved[0])
    block = ours.trf_blocks[0]
    assert block.att.num_kv_groups == 1 and block.att.divisor == 24**0.5  # MQA; query_pre_attn_scalar
    assert [b.window for b in ours.trf_blocks] == [4, None, 4]
    assert isinstance(block.post_attention_norm, gemma3.RMSNorm) and isinstance(
        block.post_ff_norm, gemma3.RMSNorm
    )
    assert not torch.equal(ours.cos, ours.cos_local)  # two RoPE bases
    assert ours.out_head.weight is ours.tok_emb.weight
    trace = ours.trace(torch.arange(6)[None])
    assert trace.kv_heads == (0, 0, 0, 0)
    assert [layer.window for layer in trace.layers] == [4, None, 4]


@pytest.mark.parametrize("change", ["post_attention_norm", "post_ff_norm", "embedding scale", "local base"])
def test_each_gemma_piece_matters(saved, change):
    """Counter-tests: leave out one of Gemma's changes and the logits differ from transformers'."""
    folder, theirs = saved
    ours = load_model(folder)
    if change == "embedding scale":
        ours.embed = lambda ids: ours.tok_emb(ids)  # no sqrt(d)
    elif change == "local base":
        ours.cos_local, ours.sin_local = ours.cos, ours.sin
    else:
        with torch.no_grad():
            getattr(ours.trf_blocks[1], change).scale.zero_()
    with pytest.raises(AssertionError):
        assert_same(
            ours, theirs, torch.randint(0, VOCAB, (1, CONTEXT), generator=torch.Generator().manual_seed(4))
        )


def test_saved_in_hugging_faces_layout_transformers_opens_it(saved, tmp_path):
    ours = load_model(saved[0])
    save_hf(ours, tmp_path)
    again = transformers.Gemma3ForCausalLM.from_pretrained(tmp_path, attn_implementation="eager").eval()
    assert_same(
        ours, again, torch.randint(0, VOCAB, (1, CONTEXT), generator=torch.Generator().manual_seed(2))
    )
