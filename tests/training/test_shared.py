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
    assert (a.audience.holding(), a.audience.watching()) == (2, 0)  # both have it; nobody plays it yet


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
    assert shared.finished_run(Trainer, TrainConfig(steps=1, seed=2)) is run  # the last one played


def test_a_run_cut_short_by_the_time_limit_is_not_the_answer_for_its_settings(monkeypatch):
    shared = Shared()
    run = shared.join(Trainer, TrainConfig(steps=50), "a")
    monkeypatch.setattr(Trainer, "limit", 0.0)  # a busy server: out of time at once
    run.train(50)
    assert run.done and not run.complete
    run.stop()
    shared.finish(run)
    assert shared.finished_run(Trainer, TrainConfig(steps=50)) is None
    assert shared.join(Trainer, TrainConfig(steps=50), "b") is not run  # trained again


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
    audience.leave("a")  # a paused
    assert audience.claim("b") and not audience.claim("a")  # b trains it now; a, resumed, watches
    audience.leave("b")  # b paused: nobody trains, a watches, both hold it
    assert audience.trainer is None and audience.watching() == 1 and audience.watching(but="a") == 0
    assert audience.holding() == 2
    audience.beat("b")  # a heartbeat from b's old loop, after it paused: b is not brought back
    assert audience.watching() == 1
    audience.drop("b")
    assert audience.holding() == 1


def test_a_trainer_that_went_quiet_is_replaced(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(run_module.time, "monotonic", lambda: clock[0])
    audience = run_module.Audience()
    assert audience.claim("a")
    clock[0] += run_module.STALE - 1
    assert not audience.claim("b")  # a is quiet, but not for long enough
    clock[0] += 2
    assert audience.claim("b")  # a's tab is gone: b trains
    assert audience.watching() == 1  # a is no longer counted as playing
