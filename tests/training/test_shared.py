"""Runs shared by their settings (attention.training.shared) and who plays them (run.Audience)."""

import gc

from attention.training import run as run_module
from attention.training.replay import Replay, ReplayConfig
from attention.training.shared import Shared
from attention.training.tiny import TrainConfig, Trainer
from tests.training.test_replay import recorded


def test_the_same_settings_are_one_run_and_other_settings_another():
    shared = Shared()
    a = shared.join(Trainer, TrainConfig(steps=10), "a")
    assert shared.join(Trainer, TrainConfig(steps=10), "b") is a
    assert shared.join(Trainer, TrainConfig(steps=10, seed=1), "c") is not a
    assert a.audience.watching() == 2


def test_a_finished_run_is_kept_and_a_stopped_one_replaced():
    shared = Shared(finished=2)
    done = shared.join(Trainer, TrainConfig(steps=4), "a")
    done.train(4)
    done.stop()
    shared.finish(done)
    del done
    gc.collect()
    again = shared.join(Trainer, TrainConfig(steps=4), "b")
    assert again.done and again.step == 4  # its snapshots, at once: nothing trains
    cut = shared.join(Trainer, TrainConfig(steps=8), "a")
    cut.train(2)
    cut.stop()  # stopped before it finished: it never trains again
    fresh = shared.join(Trainer, TrainConfig(steps=8), "b")
    assert fresh is not cut and fresh.step == 0 and not fresh.stopped


def test_only_the_last_finished_runs_are_kept():
    shared = Shared(finished=2)
    for seed in range(3):
        run = shared.join(Trainer, TrainConfig(steps=1, seed=seed), "a")
        run.train(1)
        run.stop()
        shared.finish(run)
    assert shared.finished_run(Trainer, TrainConfig(steps=1, seed=0)) is None
    assert shared.finished_run(Trainer, TrainConfig(steps=1, seed=2)) is not None


def test_a_live_run_nobody_holds_is_freed():
    shared = Shared()
    run = shared.join(Trainer, TrainConfig(steps=10), "a")
    run.train(1)
    del run
    gc.collect()
    assert shared.join(Trainer, TrainConfig(steps=10), "a").step == 0  # a new one


def test_a_replay_is_not_shared(tmp_path):
    """A recorded run's steps are reads: each session plays its own."""
    recorded(tmp_path)
    shared = Shared()
    config = ReplayConfig.of(tmp_path)
    assert shared.join(Replay, config, "a") is not shared.join(Replay, config, "b")


def test_one_session_trains_and_a_watcher_takes_over_when_it_leaves():
    audience = run_module.Audience()
    assert audience.claim("a") and not audience.claim("b")  # a trains, b watches
    assert audience.claim("a")  # again: still a's
    audience.release("a")  # a paused: it may go on watching
    assert audience.claim("b") and not audience.claim("a")
    audience.leave("b")  # b left: nobody trains, a watches
    assert audience.trainer is None and audience.watching() == 1 and audience.watching(but="a") == 0


def test_a_trainer_that_went_quiet_is_replaced(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(run_module.time, "monotonic", lambda: clock[0])
    audience = run_module.Audience()
    assert audience.claim("a")
    clock[0] += run_module.STALE - 1
    assert not audience.claim("b")  # a is quiet, but not for long enough
    clock[0] += 2
    assert audience.claim("b")  # a's tab is gone: b trains
    assert audience.watching() == 1  # a is no longer counted
