"""Which tokens mattered: rollout and flow against the paper's formula and a hand-checked max-flow;
Spearman against a hand example; gradient × input against finite differences; the batched
ablation against one run per token; on the copy model the ablation names the token being copied;
bad input is a ConfigError; the command line's JSON."""

# ruff: noqa: F811  (bundled and small are test_interventions' fixtures, taken as arguments)

import copy
import dataclasses
import json

import numpy as np
import pytest
import torch

from attention.errors import ConfigError
from attention.i18n import use
from attention.model import explain as explain_module
from attention.model import roles
from attention.model.__main__ import main
from attention.model.explain import FLOW_MAX_TOKENS, METHODS, explain, flow, rollout, spearman, summary
from tests.model.test_interventions import (  # noqa: F401 (bundled, small: fixtures)
    PHRASE,
    SMALL,
    START,
    bundled,
    random_ids,
    repeated_phrase,
    small,
)


def random_attention(layers: int, heads: int, tokens: int, seed: int = 0) -> torch.Tensor:
    """(L, H, T, T) causal softmax weights."""
    scores = torch.randn(layers, heads, tokens, tokens, generator=torch.Generator().manual_seed(seed))
    mask = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), 1)
    return torch.softmax(scores.masked_fill(mask, float("-inf")), -1)


# --- rollout and flow --------------------------------------------------------------------------


def test_rollout_rows_sum_to_one_and_identity_attention_gives_the_identity():
    out = rollout(random_attention(4, 3, 7))
    torch.testing.assert_close(out.sum(-1), torch.ones(7, dtype=out.dtype))
    assert torch.equal(torch.triu(out, 1), torch.zeros(7, 7, dtype=out.dtype))  # still causal
    identity = torch.eye(5).expand(3, 2, 5, 5)
    torch.testing.assert_close(rollout(identity), torch.eye(5, dtype=torch.float64))


def test_one_layer_of_rollout_is_half_attention_half_identity_renormalised():
    weights = random_attention(1, 4, 6, seed=1)
    mixed = 0.5 * weights[0].mean(0).double() + 0.5 * torch.eye(6, dtype=torch.float64)
    torch.testing.assert_close(rollout(weights), mixed / mixed.sum(-1, keepdim=True))


def test_rollout_equals_the_papers_formula_in_plain_numpy():
    """Abnar & Zuidema's compute_joint_attention: the residual added, rows renormalised, and the
    layers multiplied with the later one on the left."""
    weights = random_attention(3, 2, 6, seed=2).numpy().astype(np.float64)
    layers = []
    for layer in weights:
        with_residual = layer.mean(0) + np.eye(6)  # the paper's att_mat + eye, then normalised
        layers.append(with_residual / with_residual.sum(-1, keepdims=True))
    joint = layers[0]
    for layer in layers[1:]:
        joint = layer @ joint
    np.testing.assert_allclose(rollout(torch.tensor(weights)).numpy(), joint, atol=1e-12)


def test_flow_gives_the_max_flow_values_of_a_hand_checked_example():
    """Two layers of one head, both with A = [[1, 0, 0], [.5, .5, 0], [.2, .3, .5]]. With the
    residual, Ã = 0.5·A + 0.5·I = [[1, 0, 0], [.25, .75, 0], [.1, .15, .75]] (rows sum to 1).
    Flow from input token j to token 2 at the top goes through one middle node k per path,
    (0, j) -> (1, k) -> (2, 2), each path on its own edges, so it is Σ_k min(Ã[k, j], Ã[2, k]):
        j = 0: k=0 min(1, .1) + k=1 min(.25, .15) + k=2 min(.1, .75)  = .1 + .15 + .1 = 0.35
        j = 1: k=1 min(.75, .15) + k=2 min(.15, .75)                  = .15 + .15   = 0.30
        j = 2: k=2 min(.75, .75)                                                    = 0.75
    Rollout gives (Ã·Ã)[2] = (.2125, .225, .5625) instead: a product, not a bottleneck."""
    a = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    weights = a.expand(2, 1, 3, 3)
    np.testing.assert_allclose(flow(weights, 2), [0.35, 0.30, 0.75], atol=1e-12)
    np.testing.assert_allclose(rollout(weights)[2].numpy(), [0.2125, 0.225, 0.5625], atol=1e-12)
    np.testing.assert_allclose(flow(weights, 1), [0.25 + 0.25, 0.75], atol=1e-12)  # via (1, 0) and (1, 1)
    np.testing.assert_allclose(flow(weights[:1], 2), [0.1, 0.15, 0.75], atol=1e-12)  # one layer: Ã's row


def test_spearman_averages_ties_as_a_hand_example_says():
    """a = (1, 2, 2, 3) ranks (1, 2.5, 2.5, 4); b's ranks (1, 2, 3, 4). Centred: (-1.5, 0, 0, 1.5)
    and (-1.5, -.5, .5, 1.5); ρ = 4.5 / sqrt(4.5 · 5) = 0.948683..."""
    assert spearman([1, 2, 2, 3], [10, 20, 30, 40]) == pytest.approx(4.5 / np.sqrt(22.5), abs=1e-12)
    assert spearman([3, 1, 2], [0.1, 5, 2]) == pytest.approx(-1.0)
    assert spearman([0.2, 0.5, 0.9], [1, 7, 9]) == pytest.approx(1.0)
    assert np.isnan(spearman([1, 1, 1], [1, 2, 3])) and np.isnan(spearman([4], [2]))


# --- explain() ---------------------------------------------------------------------------------


def test_every_method_scores_each_token_up_to_the_position(small):
    ids = torch.randint(0, 97, (1, 20), generator=torch.Generator().manual_seed(1))
    e = explain(small, ids, position=11)
    assert e.position == 11 and set(e.scores) == set(METHODS) and set(e.correlations) == set(METHODS[:-1])
    assert all(e.scores[m].shape == (12,) for m in METHODS)
    logits = small(ids[:, :12])[0, -1]
    assert e.target == int(logits.argmax())
    assert e.logprob == pytest.approx(torch.log_softmax(logits, -1)[e.target].item(), abs=1e-5)
    assert explain(small, ids).position == 19  # None: the last token
    assert explain(small, ids, position=np.int64(-9)).position == 11  # a numpy int, counted from the end
    assert not any(s.flags.writeable for s in e.scores.values())  # safe to share from a page's cache
    trace = small.trace(ids)
    np.testing.assert_allclose(e.scores["attention"], trace.weights[-1].mean(0)[11, :12].numpy(), atol=1e-6)
    for method in METHODS[:-1]:
        assert e.correlations[method] == pytest.approx(spearman(e.scores[method], e.scores["ablation"]))


@pytest.mark.parametrize(("baseline", "passes"), [("mean", 1), ("zero", 1), ("mean", 4)])
def test_the_batched_ablation_equals_one_run_per_token(small, baseline, passes, monkeypatch):
    """Each token's embedding replaced in the model's own forward (a hook on tok_emb), one run
    per token: the same falls in log-probability as the batched passes (one, or the 10 rows cut
    into 4 passes of 3, 3, 3 and 1)."""
    if passes > 1:
        monkeypatch.setattr(explain_module, "ABLATION_TOKENS", 9 * 3)  # 3 rows of 9 tokens a pass
    ids = torch.randint(0, 97, (1, 9), generator=torch.Generator().manual_seed(2))
    e = explain(small, ids, baseline=baseline)
    swap = small.tok_emb.weight.mean(0) if baseline == "mean" else torch.zeros(SMALL["emb_dim"])
    model = copy.deepcopy(small)
    for j in range(9):

        def replace(module, inputs, output, j=j):
            output = output.clone()
            output[:, j] = swap
            return output

        handle = model.tok_emb.register_forward_hook(replace)
        with torch.no_grad():
            logprob = torch.log_softmax(model(ids)[0, -1], -1)[e.target].item()
        handle.remove()
        assert e.scores["ablation"][j] == pytest.approx(e.logprob - logprob, abs=1e-4), j


def test_gradient_times_input_is_the_derivative_of_scaling_each_token(small):
    """score_j = d/dα log p(target) with token j's embedding scaled by α, at α = 1 (central
    differences, in float64)."""
    model = copy.deepcopy(small).double()
    ids = torch.randint(0, 97, (1, 8), generator=torch.Generator().manual_seed(3))
    e = explain(model, ids)
    step = 1e-5

    def logprob_scaled(j, alpha):
        scale = torch.ones(8, dtype=torch.float64)
        scale[j] = alpha  # in float64: a float32 1 + 1e-5 is off by 1e-3 of the step
        handle = model.tok_emb.register_forward_hook(lambda module, inputs, output: output * scale[:, None])
        with torch.no_grad():
            out = torch.log_softmax(model(ids)[0, -1], -1)[e.target].item()
        handle.remove()
        return out

    for j in range(8):
        numeric = (logprob_scaled(j, 1 + step) - logprob_scaled(j, 1 - step)) / (2 * step)
        assert e.scores["gradient"][j] == pytest.approx(numeric, abs=1e-8), j
    assert not any(p.grad is not None for p in model.parameters())  # the model gets no gradient


@pytest.mark.slow  # ~2 s each: 100 explanations
@pytest.mark.parametrize("baseline", ["mean", "zero"])
def test_on_the_copy_model_the_ablation_names_the_token_being_copied(bundled, baseline, monkeypatch):
    """Start, a stretch of random tokens, the stretch again (roles.probes, the model's training
    data), and the repeated phrase; every prediction inside a second copy that the model gets
    right. The token being copied (the first copy's token after the current one) is always among
    the three whose ablation costs most, among the two in ≥ 90% of the predictions, and first
    in most. Those three are the induction circuit's (the current token, the query; the same
    token in the first copy, the key through the previous-token head; the one after it, the
    value) in ≥ 95%. Measured over seeds 0-3, both baselines: top two 93-98%, first 66-79%,
    the circuit's three 98-100%."""
    monkeypatch.setattr(explain_module, "FLOW_MAX_TOKENS", 0)  # flow is not what this measures (and slow)
    cases = [(p.ids, p.second_copy) for p in roles.probes(range(START), START, seed=1, draws=1)]
    ranks, circuit = [], []
    for ids, second in [*cases, repeated_phrase()]:
        span = second.stop - second.start
        for position in range(second.start, second.stop - 1):
            copied = position - span + 1
            e = explain(bundled, torch.tensor([ids]), position, baseline)
            if e.target != ids[copied]:
                continue  # the model does not copy here (a few first tokens of a copy)
            order = np.argsort(-e.scores["ablation"]).tolist()
            ranks.append(order.index(copied))
            circuit.append(set(order[:3]) == {position, copied - 1, copied})
            assert e.scores["ablation"][copied] > 1.0  # removing the evidence costs over a nat
    ranks = np.array(ranks)
    assert len(ranks) >= 90 and ranks.max() <= 2
    assert np.mean(ranks < 2) >= 0.9 and np.mean(ranks == 0) >= 0.6 and np.mean(circuit) >= 0.95


def test_flow_is_left_out_over_the_cap(small, monkeypatch):
    ids = torch.randint(0, 97, (1, 24), generator=torch.Generator().manual_seed(4))
    monkeypatch.setattr(explain_module, "FLOW_MAX_TOKENS", 10)  # the small model reads 24: a cap it can pass
    over, under = explain(small, ids, position=10), explain(small, ids, position=9)
    assert over.scores["flow"] is None and np.isnan(over.correlations["flow"])
    assert under.scores["flow"].shape == (10,) and not np.isnan(under.correlations["flow"])
    assert "flow" in summary(over, [str(i) for i in ids[0].tolist()])


def test_bad_input_is_a_config_error(small):
    ids = torch.randint(0, 97, (1, 6), generator=torch.Generator().manual_seed(5))
    cases = [
        (lambda: explain(small, ids, position=6), r"position=6 .*0\.\.5"),
        (lambda: explain(small, ids, position=-7), "position=-7"),
        (lambda: explain(small, ids, position=True), "position=True"),
        (lambda: explain(small, torch.zeros(1, 0, dtype=torch.long)), "empty"),
        (lambda: explain(small, ids, baseline="noise"), "baseline='noise'"),
    ]
    for call, words in cases:
        with pytest.raises(ConfigError, match=words):
            call()


def test_the_summary_is_written_from_the_numbers_in_the_readers_language(bundled):
    ids = [START, *range(100, 108), *range(100, 108)]
    tokens = [f"t{i}" for i in range(len(ids))]
    e = explain(bundled, torch.tensor([ids]), position=12)
    best = int(np.argmax(e.scores["ablation"]))
    text = summary(e, tokens, "next")
    assert f"«{tokens[best]}» (position {best})" in text and "«next»" in text
    top = max(e.correlations, key=lambda m: e.correlations[m])
    assert f"ρ = {e.correlations[top]:.2f}" in text
    one = explain(bundled, torch.tensor([ids[:1]]))
    assert "no method can be compared" in summary(one, tokens)
    try:
        use("uk")
        assert summary(e, tokens, "next") != text and f"«{tokens[best]}»" in summary(e, tokens, "next")
    finally:
        use("en")


# --- the command line --------------------------------------------------------------------------


def test_the_command_line_prints_stable_json(capsys):
    text = "<|endoftext|>" + PHRASE + PHRASE
    assert main(["lens", "--model", "bundled", "--text", text, "--top", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"] == "attention-explorer/lens/1" and out["stages"] == 3
    keys = {"schema", "model", "ids", "tokens", "stages", "top", "final", "commit", "logit_parts"}
    assert set(out) == keys
    count = len(out["ids"])
    assert np.array(out["final"]["logprobs"]).shape == (3, count) and len(out["commit"]) == count
    assert len(out["top"]) == 3 and len(out["top"][0]) == count and len(out["top"][0][0]) == 3
    assert set(out["top"][2][0][0]) == {"id", "token", "probability"}
    parts = out["logit_parts"]
    assert parts["token"]["token"] == "·Alice" and np.array(parts["heads"]).shape == (2, 4)
    assert parts["total"] == pytest.approx(parts["logit"], abs=1e-4)

    assert main(["explain", "--text", text, "--position", "20", "--baseline", "zero", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"] == "attention-explorer/explain/1" and out["position"] == 20
    assert out["baseline"] == "zero" and out["flow"] == {"capped": False, "max_tokens": FLOW_MAX_TOKENS}
    assert set(out["scores"]) == set(METHODS) and all(len(s) == 21 for s in out["scores"].values())
    assert set(out["correlations"]) == set(METHODS[:-1]) and out["target"]["id"] == out["ids"][21]
    assert out["summary"].startswith("After «")

    assert main(["explain", "--text", text, "--position", str(count)]) == 2
    assert f"error: position={count} is not a token of this input" in capsys.readouterr().err


def test_the_summary_says_when_every_method_ranks_alike():
    """Equal ρ (as printed) names no method closest and none furthest."""
    scores = {m: np.array([0.1, 0.5, 0.2]) for m in ("attention", "rollout", "flow", "gradient", "ablation")}
    tied = explain_module.Explanation(
        2, 7, -0.5, "mean", scores, dict.fromkeys(("attention", "rollout", "flow", "gradient"), 0.8)
    )
    said = summary(tied, ["a", "b", "c"])
    assert "Every method ranks the tokens equally close" in said and "most like" not in said
    apart = explain_module.Explanation(
        2, 7, -0.5, "mean", scores, {"attention": 0.5, "rollout": 0.8, "flow": 0.8, "gradient": 0.8}
    )
    assert "most like the ablation" in summary(apart, ["a", "b", "c"])


def test_a_question_with_a_tie_or_no_removal_that_matters_is_undecided(small):
    """Which explanation? grades "which removal hurts most?" only where one removal does: two
    within TIE_NATS are a tie, a largest fall under FLAT_NATS says nothing."""
    e = explain(small, random_ids(1, 8))

    def drops(*values):
        return dataclasses.replace(e, scores={**e.scores, "ablation": np.array(values)})

    assert explain_module.undecided(drops(0.9, 0.2, 0.1)) is None
    assert explain_module.undecided(drops(0.2, 0.9, 0.895)) == ("tie", [1, 2])
    assert explain_module.undecided(drops(0.01, 0.04, -0.3)) == ("flat", [1])
    assert explain_module.TIE_NATS < explain_module.FLAT_NATS
