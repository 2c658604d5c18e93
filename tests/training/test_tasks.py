"""The tasks of Watch it learn: each one's expected attention pattern really solves it."""

import numpy as np
import pytest
import torch

from attention.training import tasks
from attention.training.tasks import TASKS
from attention.training.tiny import TrainConfig


@pytest.mark.parametrize("task", [t for t in TASKS if t != "text"])
def test_the_expected_pattern_solves_each_task(task):
    """Reading the value at each expected key gives the target: the pattern really is a solution."""
    config = TrainConfig.for_task(task)
    inputs, targets = TASKS[task].sample(50, config.length, torch.Generator().manual_seed(0))
    assert inputs.shape == targets.shape == (50, config.context_length)
    for ids, target in zip(inputs, targets, strict=True):
        expected = TASKS[task].expected(ids)
        asked = target != tasks.IGNORE
        assert np.array_equal(~np.isnan(expected).any(axis=1), asked.numpy())
        np.testing.assert_allclose(expected[asked.numpy()].sum(axis=1), 1.0)
        keys = expected[asked.numpy()].argmax(axis=1)
        assert (ids[keys] == target[asked]).all()
        assert (np.triu(np.nan_to_num(expected), 1) == 0).all()  # never a future key


def test_text_task_predicts_the_next_character():
    inputs, targets = TASKS["text"].sample(4, 16, torch.Generator().manual_seed(0))
    assert (inputs[:, 1:] == targets[:, :-1]).all()
    assert TASKS["text"].expected(inputs[0]) is None
    assert "Alice" in tasks.TEXT_FILE.read_text()
