"""checkpoint.load_model, the one entry point: a folder in Hugging Face's layout opens as the model
its config.json's model_type names, from one safetensors file or shards, bf16 or fp32; the memory a
config asks for is checked before anything is allocated; a folder's tokenizer.json opens offline."""

from __future__ import annotations

import json

import pytest
import torch

from attention.errors import ConfigError
from attention.model import checkpoint, tokenizer
from attention.model.gpt import GPTModel
from attention.model.qwen3 import Qwen3Model
from tests.model.tiny_hf import CONTEXT, VOCAB, assert_same, tiny

transformers = pytest.importorskip("transformers")
IDS = torch.randint(0, VOCAB, (2, CONTEXT), generator=torch.Generator().manual_seed(5))


@pytest.mark.parametrize("kind", ["qwen3", "llama", "gemma3"])
def test_a_bf16_checkpoint_opens_in_float32_equal_to_transformers(tmp_path, kind):
    tiny(kind, tmp_path, dtype=torch.bfloat16)
    assert json.loads((tmp_path / "config.json").read_text())["dtype"] == "bfloat16"
    ours = checkpoint.load_model(tmp_path)
    assert ours.tok_emb.weight.dtype == torch.float32
    # transformers reads the same file into float32 (its RoPE computed afresh, as ours is)
    theirs = transformers.AutoModelForCausalLM.from_pretrained(
        tmp_path, dtype=torch.float32, attn_implementation="eager"
    ).eval()
    assert_same(ours, theirs, IDS)


def test_a_bf16_checkpoint_can_stay_bf16(tmp_path):
    tiny("qwen3", tmp_path, dtype=torch.bfloat16)
    ours = checkpoint.load_model(tmp_path, dtype=torch.bfloat16)
    assert {p.dtype for p in ours.parameters()} == {torch.bfloat16}
    trace = ours.trace(IDS)
    # computed in bfloat16, read out in float32 (numpy, and so every view, has no bfloat16)
    assert trace.logits.dtype == trace.weights.dtype == torch.float32
    assert torch.equal(trace.logits.bfloat16().float(), trace.logits)  # each logit a bfloat16 value
    theirs = transformers.AutoModelForCausalLM.from_pretrained(tmp_path, dtype=torch.float32)
    with torch.no_grad():
        reference = theirs(IDS).logits
    torch.testing.assert_close(trace.logits.float(), reference, atol=0.1, rtol=0.05)


@pytest.mark.parametrize("kind", ["qwen3", "gemma3"])
def test_a_sharded_checkpoint_opens(tmp_path, kind):
    theirs = tiny(kind, tmp_path)
    (tmp_path / "model.safetensors").unlink()
    theirs.save_pretrained(tmp_path, max_shard_size="20KB")
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    assert len(set(index["weight_map"].values())) > 2 and not (tmp_path / "model.safetensors").exists()
    assert_same(checkpoint.load_model(tmp_path), theirs, IDS)


def test_a_shard_index_may_only_name_files_in_the_folder(tmp_path):
    tiny("qwen3", tmp_path)
    (tmp_path / "model.safetensors").unlink()
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"x": "../elsewhere"}}))
    with pytest.raises(ConfigError, match="files in the folder"):
        checkpoint.load_model(tmp_path)


def test_gpt2_folders_still_open_as_gptmodel(tmp_path):
    model = GPTModel(
        {"vocab_size": 50, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 1, "drop_rate": 0.0,
         "qkv_bias": False}
    )  # fmt: skip
    checkpoint.save_gpt2(model, tmp_path)
    assert isinstance(checkpoint.load_model(tmp_path), GPTModel)
    assert isinstance(checkpoint.load_model(tmp_path / "model.safetensors"), GPTModel)


def test_no_weights_an_unknown_model_type_and_too_big_are_refused(tmp_path):
    tiny("qwen3", tmp_path)
    (tmp_path / "model.safetensors").rename(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match="no model.safetensors"):
        checkpoint.load_model(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(config | {"model_type": "mamba"}))
    with pytest.raises(ConfigError, match="'mamba'"):
        checkpoint.load_model(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps(config | {"hidden_size": 2**20, "vocab_size": 2**20}))
    with pytest.raises(ConfigError, match="MB of memory"):
        checkpoint.load_model(tmp_path)  # refused before anything is allocated


def test_qwen3_0_6b_config_reads_as_the_books():
    """Qwen/Qwen3-0.6B's config.json (as published, before transformers 5) in the book's keys."""
    from attention.model import qwen3

    published = {
        "model_type": "qwen3", "vocab_size": 151936, "max_position_embeddings": 40960, "hidden_size": 1024,
        "num_attention_heads": 16, "num_hidden_layers": 28, "intermediate_size": 3072, "head_dim": 128,
        "num_key_value_heads": 8, "rope_theta": 1000000, "rope_scaling": None, "sliding_window": None,
        "use_sliding_window": False, "max_window_layers": 28, "tie_word_embeddings": True,
        "rms_norm_eps": 1e-06,
    }  # fmt: skip
    cfg = qwen3.config_from_hf(published)
    assert {k: cfg[k] for k in qwen3.QWEN_CONFIG_06_B} == qwen3.QWEN_CONFIG_06_B
    assert cfg["layer_types"] == ["full_attention"] * 28 and cfg["tie_embeddings"]
    assert checkpoint.modern_bytes(cfg, torch.bfloat16) / 2**20 < 1500  # 0.6 B parameters in bf16


def test_a_folders_tokenizer_json(tmp_path):
    tokenizer.save_gpt2_tokenizer(tmp_path)
    folder = tokenizer.from_folder(tmp_path)
    text = "ROMEO:\nO, 'tis 한국 <|endoftext|>"
    assert folder.encode(text) == tokenizer.encode(text)
    assert folder.labels(folder.encode(text)) == tokenizer.labels(tokenizer.encode(text))
    assert transformers.AutoTokenizer.from_pretrained(tmp_path)(text)["input_ids"] == tokenizer.encode(text)
    assert tokenizer.from_folder(tmp_path / "nothing") is None


def test_a_sentencepiece_style_vocabulary_reads_as_bytes(tmp_path):
    """Gemma's tokens: "▁" for a space, "<0x0A>" for a byte."""
    from tokenizers import Tokenizer, decoders, models

    vocab = {"<unk>": 0, "▁the": 1, "<0x0A>": 2, "cat": 3}
    spm = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    spm.decoder = decoders.Metaspace()
    spm.save(str(tmp_path / "tokenizer.json"))
    folder = tokenizer.from_folder(tmp_path)
    assert not folder.byte_level
    assert folder.token_bytes([1, 2, 3]) == [b" the", b"\n", b"cat"]


def test_the_model_loaded_is_the_architectures_own(tmp_path):
    tiny("qwen3", tmp_path)
    assert type(checkpoint.load_model(tmp_path)) is Qwen3Model
    assert type(checkpoint.load_model(tmp_path / "model.safetensors")) is Qwen3Model  # its folder
