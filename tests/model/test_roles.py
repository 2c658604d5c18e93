"""Head roles: a hand-built head of each kind scores ~1 for its role and low for the others."""

import numpy as np
import pytest
import torch

from attention.model import roles
from attention.model.gpt import GPTModel

IDS = [99, 3, 7, 10, 11, 12, 13, 14, 10, 11, 12, 13, 14]  # start, prefix 3 7, span 10..14 twice
SECOND = slice(8, 13)


def ideal(role: str) -> np.ndarray:
    """A (T, T) attention matrix that does exactly `role` (rows elsewhere: uniform over the past)."""
    t = len(IDS)
    w = np.tril(np.ones((t, t)))
    w /= w.sum(1, keepdims=True)
    for q in range(1, t):
        if role == "previous":
            keys = [q - 1]
        elif role == "first":
            keys = [0]
        elif role == "duplicate":
            keys = [k for k in range(q) if IDS[k] == IDS[q]]
        else:
            keys = [k + 1 for k in range(q - 1) if IDS[k] == IDS[q]]
        if keys:
            w[q] = 0
            w[q, keys] = 1 / len(keys)
    return w


@pytest.mark.parametrize("role", list(roles.ROLES))
def test_each_ideal_head_scores_for_its_role_only(role):
    scores = roles.scores_of(ideal(role), IDS, SECOND)
    assert scores[role] >= 0.99
    others = [scores[r] for r in roles.ROLES if r != role]
    assert max(others) < 0.5, scores


def test_a_fixed_distance_head_is_not_an_induction_head():
    """A head that looks L − 1 back passes one fixed-L probe; averaged over L and offsets it fails."""
    probes = roles.probes(range(50), 99, draws=1)
    lookback = 5 - 1  # right for L = 5 only
    results = []
    for probe in probes:
        t = len(probe.ids)
        w = np.zeros((t, t))
        for q in range(t):
            w[q, max(0, q - lookback)] = 1
        results.append(roles.scores_of(w, probe.ids, probe.second_copy)["induction"])
    assert max(results) == 1.0 and np.mean(results) < 0.3


def test_probes_repeat_a_span_after_a_random_prefix():
    probe = roles.probes(range(100), 99, lengths=(6,), prefixes=(3,), draws=1)[0]
    span = probe.ids[4:10]
    assert probe.ids[0] == 99 and probe.ids[10:] == span and len(set(probe.ids[1:10])) == 9
    assert probe.second_copy == slice(10, 16)


def test_untrained_heads_have_no_induction_or_previous_token_role():
    torch.manual_seed(0)
    model = GPTModel(
        {
            "vocab_size": 64,
            "context_length": 48,
            "emb_dim": 32,
            "n_heads": 4,
            "n_layers": 2,
            "drop_rate": 0.0,
            "qkv_bias": False,
        }
    ).eval()
    scores = roles.head_roles(model, draws=1)
    assert set(scores) == set(roles.ROLES) and scores["induction"].shape == (2, 4)
    assert scores["induction"].max() < 0.3 and scores["previous"].max() < 0.3
    top = roles.ranked(scores, top=2)
    assert len(top) == 8 and top[0]["score"] >= top[1]["score"] and top[0]["head"].count(".") == 1


def test_a_role_no_query_asks_about_ranks_its_heads_last():
    scores = {"induction": np.array([[np.nan, 0.2], [0.5, np.nan]])}
    assert [r["head"] for r in roles.ranked(scores, top=2)] == ["1.0", "0.1"]
