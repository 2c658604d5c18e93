"""The shipped Shakespeare model (assets/shakespeare, attention/training/shakespeare.py): it is the
file we trained, it opens offline in our GPTModel and in Hugging Face's GPT2LMHeadModel with the
same logits, it is a language model (held-out loss well under a unigram model of the plays), and
its named heads do their jobs on natural text: the induction head at the issue's target, the
previous-token head short of it (an xfail, strict: README, The Shakespeare model)."""

import hashlib
import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention.model import catalog, roles
from attention.model.checkpoint import load_gpt2
from attention.training import plays

FOLDER = catalog.SHAKESPEARE_PATH
SIZE = 14490248  # bytes of model.safetensors (fp16)
SHA256 = "62d97f3e84d9e52f821568093a69d865710240ed0d55f6200329587935cdbea2"
PREVIOUS_HEAD = (0, 0)  # layer, head: the README names them
INDUCTION_HEAD = (1, 3)
TARGETS = {"previous": 0.8, "induction": 0.6}  # issue 21, on natural-text probes
# What the shipped model reaches (README: The Shakespeare model); the rows of TARGETS it misses are
# the xfail tests below, strict: a model that reaches them fails them, so that they are promoted
REACHED = {"previous": 0.3, "induction": 0.6}


@pytest.fixture(scope="module")
def model():
    return load_gpt2(FOLDER)


@pytest.fixture(scope="module")
def held():
    return plays.corpus()[1]


def test_the_model_file_is_the_one_we_trained():
    weights = FOLDER / "model.safetensors"
    assert weights.is_file(), f"{weights} is missing: the Shakespeare model ships in assets/"
    assert weights.stat().st_size == SIZE, "the model file changed size: retrained? SIZE, SHA256, README"
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == SHA256
    assert SIZE <= 40 * 2**20  # the issue's budget, fp16
    extra = json.loads((FOLDER / "config.json").read_text())["attention_explorer"]
    assert "Shakespeare" in extra["trained_on"] and extra["held_out_loss"] < extra["baselines"]["unigram"] - 1


def test_it_is_the_default_model_and_opens_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert catalog.default() == catalog.SHAKESPEARE
    model, info = catalog.load(catalog.SHAKESPEARE)
    assert info.reads_language and not model.training and model.cfg["vocab_size"] == 50257


def test_hugging_face_opens_it_with_the_same_logits(model, held):
    transformers = pytest.importorskip("transformers")
    theirs = transformers.GPT2LMHeadModel.from_pretrained(FOLDER, attn_implementation="eager").float().eval()
    x = held[1000 : 1000 + model.cfg["context_length"]][None]  # (1, T): a whole context of held-out text
    with torch.no_grad():
        ours, hf = model(x), theirs(x).logits
    assert (ours - hf).abs().max().item() < 1e-4


def test_it_predicts_held_out_plays_far_better_than_word_counts(model, held):
    """Mean loss on 16 windows spread evenly over both held-out plays: ≥ 1.5 nats under the unigram
    model of the training plays (its loss on the same tokens)."""
    train, _ = plays.corpus()
    n = model.cfg["context_length"]
    step = (len(held) - n - 1) // 16
    windows = torch.stack([held[s : s + n + 1] for s in range(0, 16 * step, step)])  # (16, n + 1)
    with torch.no_grad():
        loss = F.cross_entropy(model(windows[:, :-1]).flatten(0, 1), windows[:, 1:].flatten()).item()
    targets = windows[:, 1:].flatten()
    unigram = plays.unigram_loss(train, targets)
    assert loss <= unigram - 1.5, (loss, unigram)


@pytest.mark.parametrize("role", ["previous", "induction"])
def test_the_named_heads_do_their_jobs_on_natural_text(model, held, role):
    """On held-out passages (previous-token), and on held-out passages read twice (induction)."""
    scores = roles.text_roles(model, plays.passages(held, 64, 8, seed=2), plays.START)[role]
    head = PREVIOUS_HEAD if role == "previous" else INDUCTION_HEAD
    assert scores[head] >= REACHED[role], np.round(scores, 2)
    # other passages than the recipe's snapshots used
    other = roles.text_roles(model, plays.passages(held, 64, 8, seed=7), plays.START)[role]
    assert other[head] >= REACHED[role] - 0.05


@pytest.mark.xfail(strict=True, reason="issue 21's target, not reached yet (README: The Shakespeare model)")
def test_the_issues_previous_token_target(model, held):
    scores = roles.text_roles(model, plays.passages(held, 64, 8, seed=2), plays.START)["previous"]
    assert scores.max() >= TARGETS["previous"]
