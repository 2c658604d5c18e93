"""The Run contract (attention/training/run.py), for both trainers: Stop, Pause and a new rerun at
any moment, from other threads, as a Streamlit server's reruns press them. A chunk in flight ends
cleanly or finishes; nothing ever touches a freed model or optimiser; one thread trains at a time."""

import itertools
import threading
import time

import pytest
import torch

from attention.training.induction import InductionConfig, InductionTrainer
from attention.training.run import Run
from attention.training.tiny import TrainConfig, Trainer
from tests.threads import in_threads

SMALL_INDUCTION = {"emb_dim": 16, "heads": 2, "batch": 8}  # a step in a few ms
MAKERS = {
    "tiny": lambda **v: Trainer(TrainConfig(**{"steps": 3000, "snapshot_every": 3, "d_model": 8} | v)),
    "induction": lambda **v: InductionTrainer(
        InductionConfig(**SMALL_INDUCTION | {"steps": 4000, "snapshot_every": 4} | v)
    ),
}
ROUNDS = {"tiny": 40, "induction": 15}  # Stop presses per trainer (an induction run takes ~0.2 s to make)


@pytest.fixture(params=list(MAKERS))
def make(request):
    maker = MAKERS[request.param]
    maker.rounds = ROUNDS[request.param]
    return maker


def inside_steps(run: Run) -> dict:
    """Counts the threads inside run._step at once (`peak`), and signals the first step (`started`)."""
    seen = {"active": 0, "peak": 0, "started": threading.Event()}
    lock, step = threading.Lock(), run._step

    def counted():
        with lock:
            seen["active"] += 1
            seen["peak"] = max(seen["peak"], seen["active"])
        seen["started"].set()
        try:
            time.sleep(0.0005)  # widen the window a second thread would have to slip in
            return step()
        finally:
            with lock:
                seen["active"] -= 1

    run._step = counted
    return seen


def test_stop_pressed_mid_chunk_never_touches_freed_state(make):
    """The page's Stop frees the model while the previous rerun may still be inside train(chunk):
    without the lock, that rerun's next optimizer.step() met None (AttributeError)."""
    errors = []
    delays = itertools.cycle([0.0, 0.001, 0.003, 0.007])
    for _ in range(make.rounds):
        run = make()
        seen = inside_steps(run)

        def play(run=run):
            try:
                while run.train(50):  # the page's chunks, back to back
                    pass
            except Exception as error:  # noqa: BLE001 - any exception fails the test below
                errors.append(error)

        thread = threading.Thread(target=play)
        thread.start()
        assert seen["started"].wait(10)
        time.sleep(next(delays))
        assert run.stop()  # waits for the step in flight, then frees
        stopped_at = run.step
        thread.join(10)
        assert not thread.is_alive()
        assert run.model is None and run.optimizer is None and run.stopped
        assert run.step == stopped_at and run.train(10) == 0  # a stopped run never trains again
        assert len(run.losses) == run.step and seen["peak"] == 1
    assert not errors, errors


@pytest.mark.slow  # 2-3 s of threads pressing Play, Pause and Stop
def test_many_presses_from_many_threads(make):
    """Stop, Pause and new reruns pressed at once from several threads: no exception, one thread
    in a step at a time, and the run's numbers are those of one uninterrupted run."""
    run = make(seed=1, snapshot_every=20, steps=600)
    seen = inside_steps(run)
    errors = []
    deadline = time.monotonic() + 1.5

    def rerun(n: int) -> None:
        try:
            while time.monotonic() < deadline:
                if n == 0:
                    run.pause()  # a Pause click: every loop ends at its next step
                else:  # a rerun that goes on playing takes the run over
                    lease = run.lease()
                    while run.train(2, lease) and time.monotonic() < deadline:
                        time.sleep(0.001)  # the page draws between chunks
                time.sleep(0.003 * (n + 1))
        except Exception as error:  # noqa: BLE001 - any exception fails the test below
            errors.append(error)

    in_threads(4, rerun, timeout=60)
    assert run.stop()
    assert not errors, errors
    assert seen["peak"] == 1 and run.step > 0 and len(run.losses) == run.step
    steps = [s.step for s in run.snapshots]
    assert steps == sorted(set(steps)) and steps[-1] == run.step - run.step % run.chunk
    alone = make(seed=1, snapshot_every=20, steps=600)
    alone.train(run.step)
    assert alone.losses == run.losses  # the steps never interleaved: the same run as in one thread


def test_pause_returns_when_the_step_in_flight_is_over_and_the_run_can_go_on(make):
    run = make()
    seen = inside_steps(run)
    lease = run.lease()
    thread = threading.Thread(target=lambda: [None for _ in iter(lambda: run.train(3, lease), 0)])
    thread.start()
    assert seen["started"].wait(10)
    run.pause()
    paused_at = run.step
    thread.join(10)
    assert not thread.is_alive() and run.step == paused_at  # the old loop trained no more
    assert run.resumable and run.train(3, lease) == 0  # its lease is spent ...
    assert run.train(3, run.lease()) == 3  # ... a new loop goes on with the same run


def test_stop_keeps_a_finished_run_once_then_frees_it(make, tmp_path):
    run = make(steps=6)
    while run.train(run.chunk):
        pass
    assert run.done and not run.resumable
    kept = []
    assert run.stop(then=lambda r: kept.append(r.save(tmp_path / "model")))
    assert kept and (tmp_path / "model" / "model.safetensors").exists()
    assert not run.stop(then=kept.append) and len(kept) == 1  # already stopped: `then` never runs
    broken = make(steps=6)
    with pytest.raises(OSError):
        broken.stop(then=lambda r: (_ for _ in ()).throw(OSError("disk full")))
    assert broken.stopped  # freed all the same


def test_the_pace_is_one_steps_cost_and_its_run_is_freed(make):
    kind = type(make(steps=1))
    config = make(steps=1).config
    assert kind.timing_config(config) == kind.timing_config(type(config)(**{**vars(config), "seed": 9}))
    seconds = kind.seconds_per_step(config)
    assert 0 < seconds < 5


def test_a_tiny_run_saves_weights_that_load_back(tmp_path):
    from safetensors.torch import load_file

    run = Trainer(TrainConfig(steps=20))
    run.train(20)
    folder = run.save(tmp_path / "tiny")
    state = load_file(str(folder / "model.safetensors"))
    assert set(state) == set(run.model.state_dict())
    for name, tensor in run.model.state_dict().items():
        torch.testing.assert_close(state[name], tensor)
    assert '"task": "previous"' in (folder / "config.json").read_text()
