"""The induction run: the sequences, the phase change in two layers and not in one, the same run
twice, and a finished model that transformers and Inside a model open."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from attention.errors import ConfigError
from attention.model import catalog, roles, sentence
from attention.model.checkpoint import load_gpt2
from attention.training.induction import InductionConfig, InductionTrainer, sample
from tests.conftest import serving

STEPS = InductionConfig().steps  # the default run: seed 3 changes phase at step ~480


@pytest.fixture(scope="module")
def runs():
    """Two 1,000-step runs (~1 min): only the slow tests ask for them."""
    config = InductionConfig(steps=STEPS, snapshot_every=150)
    out = {}
    for name, c in (("two", config), ("one", replace(config, layers=1))):  # one layer: nothing to compose
        trainer = InductionTrainer(c)
        while not trainer.done:
            trainer.train(c.snapshot_every)
        out[name] = trainer
    return out


def test_the_second_copy_repeats_the_first_and_only_it_is_predictable():
    inputs, targets, predictable, first = sample(
        64, 64, (2, 23), (0, 8), 128, torch.Generator().manual_seed(0)
    )
    assert inputs.shape == targets.shape == predictable.shape == (64, 64)
    assert (inputs[:, 0] == 0).all() and (inputs[:, 1:] > 0).all()
    assert torch.equal(inputs[:, 1:], targets[:, :-1])
    for b, p in predictable.nonzero().tolist():  # the token after an earlier copy of mine is my target
        earlier = [q for q in range(p) if inputs[b, q] == inputs[b, p] and inputs[b, q + 1] == targets[b, p]]
        assert earlier, (b, p)
    assert predictable.sum(1).min() >= 1 and (predictable & first).sum() == 0
    assert predictable.sum() == first.sum()  # the same places, once in each copy


@pytest.mark.parametrize(
    "values, name", [({"heads": 3}, "heads"), ({"layers": 0}, "layers"), ({"steps": 10**6}, "steps")]
)
def test_impossible_settings_are_named(values, name):
    with pytest.raises(ConfigError) as error:
        InductionConfig(**values)
    assert error.value.field == name


@pytest.mark.slow
def test_two_layers_form_an_induction_head_and_one_layer_cannot(runs):
    two, one = runs["two"], runs["one"]
    assert two.phase_step is not None and 200 < two.phase_step < STEPS
    best = two.best_heads()
    assert best["previous"][2] > 0.8 and best["induction"][2] > 0.8
    assert best["induction"][0] == 1
    last = two.snapshots[-1]
    assert last.second_copy >= 0.9 and last.first_copy < 0.1
    # before the phase change no head does it yet
    assert two.snapshots[0].induction.max() < 0.2 and two.snapshots[0].second_copy < 0.1
    # the control: one layer, the same steps and seed
    assert one.phase_step is None
    assert one.best_heads()["induction"][2] < 0.3 and one.snapshots[-1].second_copy < 0.3


@pytest.mark.slow
def test_one_layer_repeats_tokens_it_has_seen_but_cannot_tell_which(runs):
    """What the page says of the control, measured: better than chance on the second copy (the next
    token is one already seen, and nearly all its guesses are such tokens), never on the first."""
    last = runs["one"].snapshots[-1]
    assert last.second_copy > 5 * max(last.first_copy, runs["one"].chance)
    assert last.from_context > 0.8 and last.first_copy < 3 * runs["one"].chance


@pytest.mark.slow
def test_the_same_seed_trains_the_same_run():
    a, b = (InductionTrainer(InductionConfig(steps=20, snapshot_every=10)) for _ in range(2))
    a.train(20), b.train(5), b.train(15)  # chunks do not change the run
    assert [s.step for s in a.snapshots] == [s.step for s in b.snapshots] == [0, 10, 20]
    assert a.losses == b.losses
    np.testing.assert_array_equal(a.snapshots[-1].probe, b.snapshots[-1].probe)
    c = InductionTrainer(InductionConfig(steps=20, seed=4, snapshot_every=20))
    c.train(20)
    assert c.losses != a.losses


@pytest.mark.parametrize("seed", range(5))
def test_the_probe_patterns_point_where_the_roles_say(seed):
    trainer = InductionTrainer(InductionConfig(steps=1, seed=seed))
    ideal, tokens = trainer.ideal(), trainer.probe
    rows = np.flatnonzero(~np.isnan(ideal).all(1))
    assert rows.tolist() == list(range(15, 25))  # the second copy of the 10-token span
    for q in rows:  # one key: right after the earlier copy of the query's token
        (k,) = np.flatnonzero(ideal[q])
        assert tokens[k - 1] == tokens[q] and k - 1 < q
    previous = trainer.ideal("previous")
    assert all(previous[q, q - 1] == 1 for q in range(1, len(tokens)))


@pytest.mark.slow
def test_a_finished_run_opens_in_transformers_and_inside_a_model(runs, monkeypatch, tmp_path):
    transformers = pytest.importorskip("transformers")
    monkeypatch.setattr(catalog, "RUNS", tmp_path / "runs")
    two = runs["two"]
    source, folder = catalog.new_run()
    two.save(folder)
    assert source not in catalog.choices()  # another session's run is not listed
    assert catalog.choices([source])[source].startswith("Your run: Induction run")
    model, info = catalog.load(source)
    assert info.symbols[:3] == ("<s>", "t1", "t2") and info.start_token == 0
    ids = torch.tensor([two.probe])
    hf = transformers.GPT2LMHeadModel.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        theirs = hf(ids, output_attentions=True)
        ours = model.trace(ids)
    torch.testing.assert_close(ours.logits, theirs.logits, atol=1e-5, rtol=1e-5)
    last = np.stack([a[0].numpy() for a in theirs.attentions])  # (L, H, T, T)
    assert np.abs(last - ours.weights.numpy()).max() < 1e-5
    # the induction score measured on transformers' attentions, over roles.py's probes, is roles.py's
    ours_roles = roles.head_roles(model, range(1, 128), 0, seed=5, draws=1)
    theirs_roles = []
    for probe in roles.probes(range(1, 128), 0, seed=5, draws=1):
        with torch.no_grad():
            attentions = hf(torch.tensor([probe.ids]), output_attentions=True).attentions
        weights = np.stack([a[0].numpy() for a in attentions])
        theirs_roles.append(roles.scores_of(weights, probe.ids, probe.second_copy)["induction"])
    np.testing.assert_allclose(np.mean(theirs_roles, axis=0), ours_roles["induction"], atol=1e-5)
    layer, head, _ = two.best_heads()["induction"]
    assert np.mean(theirs_roles, axis=0)[layer, head] > 0.8
    # the page's view of it: the same weights as the trainer's last snapshot
    view = sentence.sentence_view(model, two.probe, ())
    np.testing.assert_allclose(view.weights, two.snapshots[-1].probe, atol=1e-6)
    assert load_gpt2(folder).cfg["n_layers"] == 2


def test_run_sources_name_only_runs(monkeypatch, tmp_path, local_server):
    monkeypatch.setattr(catalog, "RUNS", tmp_path / "runs")
    for hostile in ("run:../../etc", "run:ABCDEF", "run:"):
        with pytest.raises(ConfigError):
            catalog.resolve(hostile)
    with pytest.raises(ConfigError, match="names no run trained here") as error:
        catalog.load("run:0123456789ab")
    assert str(tmp_path) not in str(error.value)  # no server path in a visitor's page
    serving(monkeypatch, "")  # public: a run's link is still let through,
    with pytest.raises(ConfigError, match="names no run trained here"):  # to the same words
        catalog.load("run:0123456789ab")


def test_old_runs_are_deleted_beyond_the_limit(monkeypatch, tmp_path):
    monkeypatch.setattr(catalog, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(catalog, "KEEP_RUNS", 3)
    trainer = InductionTrainer(InductionConfig(steps=1))
    for _ in range(5):
        trainer.save(catalog.new_run()[1])
    assert len(catalog.runs()) == 3


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_the_bundled_model_on_a_gpu_gives_the_cpu_numbers():
    model = load_gpt2(catalog.BUNDLED_PATH)
    ids = torch.tensor([[50256, *range(300, 316), *range(300, 316)]])  # 16 GPT-2 ids, twice
    cpu = model.trace(ids)
    gpu = model.to("cuda").trace(ids.to("cuda"))
    torch.testing.assert_close(gpu.logits.cpu(), cpu.logits, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(gpu.weights.cpu(), cpu.weights, atol=1e-5, rtol=1e-4)
    on_gpu = roles.head_roles(model, range(1000), 50256)["induction"]  # probes on the GPU
    np.testing.assert_allclose(
        on_gpu, roles.head_roles(model.cpu(), range(1000), 50256)["induction"], atol=1e-4
    )


def test_a_one_layer_run_is_named_in_the_singular_and_warns_with_the_students_words(monkeypatch, tmp_path):
    monkeypatch.setattr(catalog, "RUNS", tmp_path / "runs")
    source, folder = catalog.new_run()
    InductionTrainer(InductionConfig(steps=1, layers=1)).save(folder)
    assert "Induction run: 1 layer, seed 3, step 0" in catalog.choices([source])[source]  # not "1 layers"
    model, info = catalog.load(source)
    with pytest.raises(ConfigError) as error:  # the Alice sentence: the student's words, as typed, once each
        sentence.encode(info, sentence.SENTENCE, model.cfg["context_length"])
    assert "'Alice was beginning to get very tired of' is not one of them" in str(error.value)
