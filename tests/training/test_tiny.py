"""The tiny attention model's run: it learns the default task, the same seed trains the same run,
the limits hold, and impossible settings are named."""

import numpy as np
import pytest
import torch

from attention.chapter3.modules import MultiHeadAttention
from attention.errors import ConfigError
from attention.training import tiny
from attention.training.tiny import TrainConfig, Trainer, train


@pytest.fixture(scope="module")
def trained():
    return train(TrainConfig())  # the default task, budget and seed (only the slow tests ask for it)


@pytest.mark.slow
def test_default_task_reaches_95_percent_within_the_default_budget(trained):
    assert trained.config.task == "previous" and trained.step == trained.config.steps
    assert trained.accuracies[-1][1] >= 0.95
    assert trained.seconds_to_95 is not None and trained.seconds_to_95 < trained.seconds
    assert 1_000 <= trained.parameters <= 10_000  # a few thousand
    assert isinstance(trained.model.attn, MultiHeadAttention)


@pytest.mark.slow
def test_previous_token_attention_looks_one_back(trained):
    assert trained.mean_weight_on_expected() >= 0.9  # over 64 held-out sequences
    weights = trained.probe_weights()[0]  # (T, T), the single head
    assert (weights[np.arange(1, 8), np.arange(7)] > 0.8).all()


def test_untrained_attention_does_not_look_one_back():
    """The test above can fail: random weights spread attention over every earlier key."""
    assert Trainer(TrainConfig()).mean_weight_on_expected() < 0.5


def test_same_seed_same_run_other_seed_other_run():
    a, b = train(TrainConfig(steps=20)), train(TrainConfig(steps=20))
    assert a.losses == b.losses
    np.testing.assert_array_equal(a.snapshots[-1].weights, b.snapshots[-1].weights)
    assert train(TrainConfig(steps=20, seed=1)).losses != a.losses


def test_global_rng_does_not_change_a_run():
    a = train(TrainConfig(steps=10))
    torch.manual_seed(999)
    torch.rand(1000)
    assert train(TrainConfig(steps=10)).losses == a.losses


@pytest.mark.slow
def test_snapshots_are_bounded_and_stop_drops_the_model():
    trainer = Trainer(TrainConfig(steps=700, snapshot_every=1, d_model=8))
    trainer.train(700)
    assert len(trainer.snapshots) <= tiny.MAX_SNAPSHOTS
    assert trainer.snapshots[0].step == 0 and trainer.snapshots[-1].step == 700
    trainer.stop()
    assert trainer.model is None and trainer.optimizer is None and trainer.done


def test_time_limit_stops_a_run(monkeypatch):
    monkeypatch.setattr(Trainer, "limit", 0.0)
    trainer = Trainer(TrainConfig(steps=100))
    trainer.train(100)
    assert trainer.done and trainer.out_of_time and trainer.step == 0


@pytest.mark.parametrize(
    "values, field",
    [
        ({"task": "nope"}, "task"),
        ({"heads": 3, "d_model": 16}, "heads"),
        ({"steps": 0}, "steps"),
        ({"steps": 10**9}, "steps"),
        ({"lr": 0.0}, "lr"),
        ({"task": "sort", "length": 12}, "length"),
        ({"heads": True}, "heads"),
        ({"batch": 2.0}, "batch"),
    ],
)
def test_bad_settings_name_the_field(values, field):
    with pytest.raises(ConfigError) as error:
        TrainConfig(**values)
    assert error.value.field == field


def test_a_command_lines_values_reach_the_task_and_others_are_left_out():
    config = Trainer.configure("sort", steps=40, seed=2, layers=1)  # --layers is the induction run's
    assert (config.task, config.steps, config.seed, config.heads) == ("sort", 40, 2, 2)
