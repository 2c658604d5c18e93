"""The lab's experiments and words (lab.py): the experiments pick the heads the roles name; the
repeat and first-copy positions are where a phrase repeats; the corrupted twin is as long and
copies nothing; every paragraph's numbers are the result's own."""

import re

import numpy as np
import pytest

from attention.errors import ConfigError
from attention.model import catalog, lab, roles, sentence
from attention.model.interventions import Metric, ablation_map, patching_map
from tests.model.test_interventions import bundled  # noqa: F401 (a fixture)


@pytest.fixture(scope="module")
def scores(bundled):  # noqa: F811
    return roles.head_roles(bundled, range(50256), 50256)


@pytest.fixture(scope="module")
def info():
    return catalog.info(catalog.BUNDLED, catalog.BUNDLED_PATH)


@pytest.fixture(scope="module")
def alice(info):
    return sentence.encode(info, sentence.SENTENCE, 128)


def test_the_experiments_pick_the_heads_their_roles_name(scores):
    assert lab.experiment_heads("induction", scores) == ((1, 0), (1, 1), (1, 2), (1, 3))
    assert lab.experiment_heads("previous", scores) == ((0, 1), (0, 2))
    assert lab.experiment_heads("layer0", scores) == ((0, 0), (0, 1), (0, 2), (0, 3))


def test_a_model_without_the_role_says_so(scores):
    flat = {role: np.zeros_like(v) for role, v in scores.items()}
    with pytest.raises(ConfigError, match="No head of this model has a clear induction role"):
        lab.experiment_heads("induction", flat)
    with pytest.raises(ConfigError, match="not an experiment"):
        lab.experiment_heads("everything", scores)


@pytest.mark.parametrize("length", [1, 2, 5, 20])
def test_repeats_are_the_second_copy_after_its_first_token(length):
    span = list(range(100, 100 + length))
    ids = [7, *span, *span]
    assert lab.repeat_positions(ids) == tuple(range(2 + length, 1 + 2 * length))
    assert lab.first_copy(ids) == (tuple(range(1, 1 + length)) if length > 1 else ())
    assert lab.repeat_positions(list(range(30))) == ()


@pytest.mark.parametrize("length", [2, 5, 10])
def test_the_repeat_period_is_the_length_of_the_repeated_stretch(length):
    span = list(range(100, 100 + length))
    assert lab.repeat_period([7, 3, 4, *span, *span]) == length
    assert lab.repeat_period([7, *span, *span, *span[:3]]) == length  # a third copy begun: still L
    assert lab.repeat_period(list(range(30))) is None


def test_the_corrupted_twin_is_as_long_and_leaves_nothing_to_copy(info, alice):
    ids, _ = alice
    twin = lab.corrupted_twin(info, ids)
    assert len(twin) == len(ids) and twin != ids
    assert twin[16:] == ids[16:]  # the second copy is kept: the prediction there is what changes
    assert lab.repeat_positions(twin) == ()
    with pytest.raises(ConfigError, match="Nothing in this sentence repeats"):
        lab.corrupted_twin(info, list(range(20)))


@pytest.mark.parametrize("experiment", list(lab.EXPERIMENTS))
@pytest.mark.parametrize("mode", ["zero", "mean"])
def test_the_knockout_words_carry_the_results_own_numbers(bundled, scores, info, alice, experiment, mode):  # noqa: F811
    ids, tokens = alice
    result = lab.knockout(bundled, info, ids, tokens, lab.experiment_heads(experiment, scores), mode)
    words = " ".join(lab.say_knockout(result))
    where = list(result.repeats)
    before, after = (np.nanmean(result.loss[w][where]) for w in ("before", "after"))
    assert f"from {before:.2f} to {after:.2f} nats" in words
    assert after - before > 2  # every classic experiment breaks the copy on this model
    assert result.next["before"][0][1] in words and result.next["after"][0][1] in words
    if experiment != "induction":  # a layer-0 knockout shows in layer 1's induction pattern
        match = re.search(
            r"Head (1\.\d)'s induction pattern on this sentence fell from ([\d.]+) to ([\d.]+)", words
        )
        assert match and float(match[3]) < float(match[2]) / 2


def test_no_heads_or_a_head_that_does_not_exist_is_a_config_error(bundled, info, alice):  # noqa: F811
    ids, tokens = alice
    with pytest.raises(ConfigError, match="at least one head"):
        lab.knockout(bundled, info, ids, tokens, ())
    with pytest.raises(ConfigError, match="does not exist"):
        lab.knockout(bundled, info, ids, tokens, ((5, 0),))


def test_the_map_words_name_the_maps_largest_heads(bundled, info, alice):  # noqa: F811
    ids, _ = alice
    metric = Metric(positions=lab.repeat_positions(ids))
    grid = ablation_map(bundled, ids, metric)
    words = " ".join(lab.say_map(grid, "ablation"))
    largest = np.unravel_index(np.abs(grid.values).argmax(), grid.values.shape)
    assert f"{largest[0]}.{largest[1]} ({grid.values[largest]:+.2f} nats)" in words
    patched = patching_map(bundled, ids, lab.corrupted_twin(info, ids), metric)
    words = " ".join(lab.say_map(patched, "patching"))
    best = np.unravel_index(np.abs(patched.values).argmax(), patched.values.shape)
    assert f"{best[0]}.{best[1]} ({patched.values[best]:.0%})" in words
    assert f"{patched.clean:.2f}" in words and f"{patched.base:.2f}" in words


def test_the_example_sentence_repeats_in_the_models_own_tokens(info):
    small = catalog.ModelInfo(
        "run:x", "run", symbols=("t0", "t1", "t2", *(f"t{i}" for i in range(3, 12)), "<s>")
    )
    text = sentence.example(small)
    assert text == "<s> t0 t1 t2 t3 t4 t5 t6 t7 t8 t9 t0 t1 t2 t3 t4 t5 t6 t7 t8 t9"
    ids, _ = sentence.encode(small, text, 64)
    assert lab.repeat_positions(ids) == tuple(range(12, 21))
    assert sentence.example(info) == sentence.SENTENCE


def test_the_words_name_each_stretch_of_repeats(bundled, info):  # noqa: F811
    ids, tokens = sentence.encode(info, sentence.SHAKESPEARE_SENTENCE, 128)
    assert lab.stretches(lab.repeat_positions(ids)) == [(10, 10), (30, 44)]
    result = lab.knockout(bundled, info, ids, tokens, ((1, 0),))
    assert "(positions 10 and 30–44)" in " ".join(lab.say_knockout(result))
