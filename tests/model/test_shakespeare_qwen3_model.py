"""The shipped Shakespeare model in Qwen3's layout (assets/shakespeare-qwen3,
attention/training/shakespeare_qwen3.py): it is the file we trained, transformers' own
Qwen3ForCausalLM and AutoTokenizer open the folder offline, with our Qwen3Model's logits and every
layer's attention weights; it reads the held-out plays well; its named heads do their jobs."""

import hashlib
import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention.model import roles, tokenizer
from attention.model.checkpoint import load_model
from attention.model.qwen3 import Qwen3Model
from attention.settings import ASSETS
from attention.training import plays

FOLDER = ASSETS / "shakespeare-qwen3"
SIZE = 14708624  # bytes of model.safetensors (bf16)
SHA256 = "ecb3f12bdf2d1788bfd1f66e1de4b5b975faf475cd265c5032dbea9b4eb528d1"
# The best heads and their scores on these probes (<|endoftext|> first), as the recipe measured them
# (held_out_text.measure, in config.json): a retrained model brings its own; docs/models.md names them.
MEASURED = json.loads((FOLDER / "config.json").read_text())["attention_explorer"]["measured"]
MEASURED = MEASURED["heads"]["start"]  # role: ["layer.head", score]


@pytest.fixture(scope="module")
def model():
    return load_model(FOLDER)


@pytest.fixture(scope="module")
def held():
    return plays.corpus()[1]


def test_the_model_file_is_the_one_we_trained():
    weights = FOLDER / "model.safetensors"
    assert weights.is_file(), f"{weights} is missing: the Qwen3-layout Shakespeare model ships in assets/"
    assert weights.stat().st_size == SIZE, "changed size: retrained? SIZE, SHA256, docs/models.md"
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == SHA256
    assert SIZE <= 40 * 2**20  # the budget
    config = json.loads((FOLDER / "config.json").read_text())
    assert config["model_type"] == "qwen3" and config["num_key_value_heads"] == 2
    assert "sliding_attention" in config["layer_types"] and config["use_sliding_window"]
    extra = config["attention_explorer"]
    assert "Shakespeare" in extra["trained_on"] and extra["held_out_loss"] < extra["baselines"]["unigram"] - 1


def test_transformers_opens_it_with_our_logits_and_weights(model, held, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    transformers = pytest.importorskip("transformers")
    theirs = transformers.AutoModelForCausalLM.from_pretrained(
        FOLDER, dtype=torch.float32, attn_implementation="eager"
    ).eval()
    assert type(theirs).__name__ == "Qwen3ForCausalLM" and isinstance(model, Qwen3Model)
    x = torch.cat([torch.tensor([plays.START]), held[1000 : 1000 + 127]])[None]  # (1, 128): a whole context
    with torch.no_grad():
        out = theirs(x, output_attentions=True)
    trace = model.trace(x)
    torch.testing.assert_close(trace.logits, out.logits, atol=1e-4, rtol=0)
    for mine, hf in zip(trace.layers, out.attentions, strict=True):
        torch.testing.assert_close(mine.weights, hf, atol=1e-5, rtol=0)
    text = "ROMEO:\nBut soft, what light through yonder window breaks?"
    assert transformers.AutoTokenizer.from_pretrained(FOLDER)(text)["input_ids"] == tokenizer.encode(text)
    assert tokenizer.from_folder(FOLDER).encode(text) == tokenizer.encode(text)


def test_it_predicts_held_out_plays_far_better_than_word_counts(model, held):
    """Mean loss on 16 windows spread evenly over both held-out plays: ≥ 1.5 nats under the unigram."""
    train, _ = plays.corpus()
    n = model.cfg["context_length"]
    step = (len(held) - n - 1) // 16
    windows = torch.stack([held[s : s + n + 1] for s in range(0, 16 * step, step)])  # (16, n + 1)
    with torch.no_grad():
        loss = F.cross_entropy(model(windows[:, :-1]).flatten(0, 1), windows[:, 1:].flatten()).item()
    assert loss <= plays.unigram_loss(train, windows[:, 1:].flatten()) - 1.5


@pytest.mark.parametrize("role", ["previous", "induction"])
def test_the_named_heads_do_their_jobs_on_natural_text(model, held, role):
    """On held-out passages (previous-token), and on held-out passages read twice (induction)."""
    scores = roles.text_roles(model, plays.passages(held, 64, 8, seed=2), plays.START)[role]
    name, measured = MEASURED[role]  # "layer.head", its score
    head = tuple(int(part) for part in name.split("."))
    assert measured >= 0.6 and scores[head] >= measured - 0.03, np.round(scores, 2)
