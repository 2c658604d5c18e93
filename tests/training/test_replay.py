"""A recorded training played back (replay.py): every step's loss and every snapshot as recorded,
the step an induction head appears, no training slot; a folder without a record says so."""

import json

import numpy as np
import pytest

from attention.errors import ConfigError
from attention.training import replay
from attention.training.replay import Replay, ReplayConfig


def recorded(folder, steps=300, every=100):
    snapshots = [
        {
            "step": step,
            "train_loss": 8.0 - step / 100,
            "held_out_loss": 8.5 - step / 100,
            "natural": {
                "previous": [[0.1, step / 1000], [0.0, 0.1]],
                "first": [[0.2, 0.2], [0.2, 0.2]],
                "duplicate": [[0.0, 0.0], [0.0, 0.0]],
                "induction": [[0.0, 0.0], [0.1, 0.3 if step < 200 else 0.7]],
            },
            "random": {r: [[0.0, 0.0], [0.0, 0.0]] for r in ("previous", "first", "duplicate", "induction")},
        }
        for step in range(every, steps + 1, every)
    ]
    record = {
        "config": {},
        "baselines": {"unigram": 6.5, "bigram": 5.1},
        "losses": [9 - i / 100 for i in range(steps)],
        "snapshots": snapshots,
    }
    (folder / "training.json").write_text(json.dumps(record))
    replay.record.cache_clear()
    return record


def test_a_replay_gives_back_every_recorded_loss_and_snapshot(tmp_path):
    record = recorded(tmp_path)
    run = Replay(ReplayConfig.of(tmp_path))
    assert (run.config.steps, run.config.snapshot_every) == (300, 100) and not run.needs_slot
    while not run.done:
        run.train(run.chunk)
    assert run.losses == pytest.approx(record["losses"])
    assert [s.step for s in run.snapshots] == [100, 200, 300]
    np.testing.assert_array_equal(
        run.snapshots[1].natural["induction"], record["snapshots"][1]["natural"]["induction"]
    )
    assert run.snapshots[-1].held_out_loss == record["snapshots"][-1]["held_out_loss"]
    assert run.appears() == 200 and run.appears("previous") is None
    assert run.best()["induction"] == (1, 1, 0.7)


def test_a_replay_can_pause_stop_and_scrub_like_any_run(tmp_path):
    recorded(tmp_path)
    run = Replay(ReplayConfig.of(tmp_path))
    assert run.train(150) == 150 and len(run.snapshots) == 1
    run.pause()
    assert run.resumable and run.stop() and run.stopped and run.train(10) == 0


def test_a_folder_without_a_record_says_how_to_make_one(tmp_path):
    replay.record.cache_clear()
    with pytest.raises(ConfigError, match="No recorded training"):
        ReplayConfig.of(tmp_path)
