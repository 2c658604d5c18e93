"""Llama3Model against transformers' LlamaForCausalLM on a tiny random checkpoint: grouped-query
attention (4 query heads over 2 key/value heads), RMSNorm, SwiGLU, RoPE with Llama 3's frequency
rescaling, an untied output layer. Logits and every layer's weights within 1e-5 in float32."""

from __future__ import annotations

import pytest
import torch

from attention.model import llama3
from attention.model.checkpoint import load_model
from attention.model.hf_layout import save_hf
from tests.model.tiny_hf import CONTEXT, VOCAB, assert_same, tiny

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("llama")
    return folder, tiny("llama", folder)


def test_logits_and_every_layers_weights_equal_transformers(saved):
    folder, theirs = saved
    ours = load_model(folder)
    assert isinstance(ours, llama3.Llama3Model)
    ids = torch.randint(0, VOCAB, (2, CONTEXT), generator=torch.Generator().manual_seed(1))
    print(f"llama max abs diff: {assert_same(ours, theirs, ids)}")
    assert_same(ours, theirs, ids[:, :3])


def test_its_pieces(saved):
    ours = load_model(saved[0])
    att = ours.trf_blocks[0].att
    assert att.q_norm is None and att.k_norm is None  # no QK-norm in Llama
    assert (att.num_heads, att.num_kv_groups, att.head_dim) == (4, 2, 8)
    assert ours.out_head.weight is not ours.tok_emb.weight  # this one is untied
    assert ours.cfg["rope_freq"]["original_context_length"] == 8
    assert all(b.window is None for b in ours.trf_blocks)
    assert ours.trace(torch.arange(5)[None]).kv_heads == (0, 0, 1, 1)


def test_the_rescaled_frequencies_matter(saved):
    """Llama 3's rescaling changes the logits here (a counter-test: without it they differ)."""
    folder, theirs = saved
    ours = load_model(folder)
    ours.cfg["rope_freq"] = None
    ours.make_rope()
    ids = torch.randint(0, VOCAB, (1, CONTEXT), generator=torch.Generator().manual_seed(3))
    with pytest.raises(AssertionError):
        assert_same(ours, theirs, ids)


def test_saved_in_hugging_faces_layout_transformers_opens_it(saved, tmp_path):
    ours = load_model(saved[0])
    save_hf(ours, tmp_path)
    again = transformers.LlamaForCausalLM.from_pretrained(tmp_path, attn_implementation="eager").eval()
    assert_same(
        ours, again, torch.randint(0, VOCAB, (1, CONTEXT), generator=torch.Generator().manual_seed(2))
    )
