"""The Qwen3-layout Shakespeare recipe, on a tiny model of the same layout: its model is Qwen3's
(8 query heads over 2 key/value heads, QK-norm, RoPE, sliding layers between full ones), starts as
the GPTModel recipe's does (unused ids' rows zero, tied output), trains with the same loop, and is
saved in Hugging Face's layout with GPT-2's tokenizer: transformers opens it with the same logits."""

import json

import pytest
import torch

from attention.model import tokenizer
from attention.model.checkpoint import load_model
from attention.model.hf_layout import save_hf
from attention.model.qwen3 import Qwen3Model
from attention.training import plays, shakespeare, shakespeare_qwen3

TINY = {"emb_dim": 32, "head_dim": 8, "hidden_dim": 48}  # the layout kept, the widths shrunk


@pytest.fixture
def used(monkeypatch):
    monkeypatch.setattr(shakespeare_qwen3, "CONFIG", shakespeare_qwen3.CONFIG | TINY)
    small = {"BATCH": 2, "EVERY": 2, "EVAL_WINDOWS": 2, "WARMUP": 1, "COPY_STEPS": 2, "COPY_BATCH": 2}
    for name, value in (small | {"KEEP_BATCH": 2}).items():
        monkeypatch.setattr(shakespeare, name, value)
    train, _ = plays.corpus("scenes")
    return torch.unique(torch.cat([train, torch.tensor([plays.START])]))


def test_the_model_is_qwen3s_layout_and_starts_as_the_other_recipes(used):
    model = shakespeare_qwen3.build(0, used)
    assert isinstance(model, Qwen3Model)
    att = model.trf_blocks[0].att
    assert (att.num_heads, att.num_kv_groups) == (8, 2) and att.q_norm is not None
    assert [b.window for b in model.trf_blocks] == [None, 32, 32, None]
    unused = torch.ones(50257, dtype=torch.bool)
    unused[used] = False
    assert model.tok_emb.weight[unused].abs().max() == 0 and model.out_head.weight is model.tok_emb.weight
    assert not hasattr(model, "pos_emb")  # RoPE: positions turn queries and keys, no embedding


def test_the_shipped_size_is_within_40_mb():
    cfg = shakespeare_qwen3.CONFIG
    model = Qwen3Model(cfg | {"dtype": torch.bfloat16})
    megabytes = sum(p.numel() for p in model.parameters()) * 2 / 1e6
    assert 10 < megabytes <= 40


@pytest.mark.slow
def test_a_few_steps_train_and_transformers_opens_the_folder(used, tmp_path):
    transformers = pytest.importorskip("transformers")
    model, snapshots = shakespeare.train(tmp_path, steps=4, log=lambda _: None, build=shakespeare_qwen3.build)
    assert (
        snapshots[-1]["step"] == 4
        and model.tok_emb.weight[~torch.isin(torch.arange(50257), used)].abs().max() == 0
    )
    save_hf(model, tmp_path, dtype=torch.bfloat16, attention_explorer={"name": "tiny"})
    tokenizer.save_gpt2_tokenizer(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["model_type"] == "qwen3" and config["layer_types"][1] == "sliding_attention"
    theirs = transformers.AutoModelForCausalLM.from_pretrained(
        tmp_path, dtype=torch.float32, attn_implementation="eager"
    ).eval()
    assert type(theirs).__name__ == "Qwen3ForCausalLM" and theirs.config.sliding_window == 32
    ids = torch.tensor(
        [tokenizer.encode("<|endoftext|>ROMEO:\nBut soft, what light through yonder window breaks?")]
    )
    assert transformers.AutoTokenizer.from_pretrained(tmp_path)("ROMEO:")["input_ids"] == tokenizer.encode(
        "ROMEO:"
    )
    ours = load_model(tmp_path)
    with torch.no_grad():
        out = theirs(ids, output_attentions=True)
    trace = ours.trace(ids)
    torch.testing.assert_close(trace.logits, out.logits, atol=1e-4, rtol=0)
    for mine, hf in zip(trace.layers, out.attentions, strict=True):
        torch.testing.assert_close(mine.weights, hf, atol=1e-5, rtol=0)
