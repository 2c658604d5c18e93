"""Watch it learn's Streamlit side: the run machinery every task shares (held run, Play / Pause /
Stop, the training loop, the scrub slider) and the tiny tasks' view. The induction view is
ui/induction.py.

The buttons act in callbacks, which run before the page: so the run that a click starts already
draws Pause enabled (a Pause drawn disabled during training could never be clicked).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import streamlit as st

from attention.devices import available_devices
from attention.errors import ConfigError
from attention.figures.training import pattern_figure, training_curves
from attention.slots import TRAININGS
from attention.training.tiny import MAX_SECONDS, MAX_STEPS, TASKS, TrainConfig, Trainer
from ui.slots import wait_for
from ui.widgets import chart, literal, narrow

HELD = "_held_train"  # app.py drops it when the learner leaves this page (frees the model)
PACES = {"watch": 0.15, "fast": 0.0}  # seconds between snapshots; either way the thread yields
PACE_LABELS = {"watch": "watch it (a short pause per snapshot)", "fast": "as fast as it goes"}
SLOW = 20.0  # seconds: a run that takes longer at "watch it" pace says so before Play


def held() -> dict:
    return st.session_state.setdefault(HELD, {"trainer": None, "running": False})


def resumable(trainer) -> bool:
    return trainer is not None and trainer.model is not None and not trainer.done


def new_run() -> None:
    """Play a new run: current() makes it from the settings of the run that follows."""
    held().update(trainer=None, running=True, waited=0.0)


def _play() -> None:
    if resumable(held()["trainer"]):
        held()["running"] = True
    else:
        new_run()


def _leave_line() -> None:
    """The run no longer wants a slot: the next in line goes."""
    if (ticket := held().get("ticket")) is not None:
        ticket.release()


def _pause() -> None:
    held()["running"] = False
    _leave_line()


def _stop() -> None:
    if held()["trainer"] is not None:
        held()["trainer"].free()  # the curves and snapshots stay to look at; the model and optimiser go
    held()["running"] = False
    _leave_line()


def current(config, make: Callable):
    """The held run for `config`: dropped when the settings changed, made when Play asked for it."""
    h = held()
    trainer = h["trainer"]
    if trainer is not None and trainer.config != config:  # new settings: a new run
        trainer.free()
        h.update(trainer=None, running=False)
        _leave_line()
        trainer = None
    if h["running"] and trainer is None:
        trainer = h["trainer"] = make(config)
    return trainer


def run_buttons(trainer) -> None:
    b = st.columns([1, 1, 1, 5])
    running = held()["running"]
    b[0].button("Resume" if resumable(trainer) else "Play", icon=":material/play_arrow:", type="primary",
                key="tr_play", disabled=running, on_click=_play)  # fmt: skip
    b[1].button("Pause", icon=":material/pause:", key="tr_pause", disabled=not running, on_click=_pause)
    stoppable = trainer is not None and trainer.model is not None
    b[2].button("Stop", icon=":material/stop:", key="tr_stop", disabled=not stoppable, on_click=_stop)


def play(trainer, chunk: int, pace: float, draw: Callable[[int, bool], None], finish: Callable | None = None):
    """Train while the run is playing, drawing after every chunk; a Pause or Stop click reruns the
    page, which interrupts this loop at its next drawing. A run first waits for a training slot
    (a lecture hall presses Play at once), saying how many runs are ahead. Any other rerun (the
    pace, projector mode) keeps its place in line, or its slot: the page's next run goes on with
    the same ticket. It gives the slot back when it ends, pauses, stops, fails or its settings
    change. A finished run is saved by `finish`, then freed."""
    h = held()
    if not h["running"]:
        return
    ticket, seconds = wait_for(TRAININGS, h, "run", keep_place=True)
    h["waited"] = h.get("waited", 0.0) + seconds
    try:
        while not trainer.done:
            trainer.train(chunk)
            ticket.ask()  # the heartbeat: still here
            draw(-1, True)
            # Watching pauses hold the slot: with others in line, skip them so the line moves
            # (a lecture hall's 30 runs then take ~1 s each, not ~10). sleep(0) still yields.
            time.sleep(0 if TRAININGS.waiting else pace)
    except Exception:  # an error, not a rerun: the slot must not stay taken
        ticket.release()
        raise
    ticket.release()  # finished: the next in line goes
    h["running"] = False
    if finish is not None:
        finish(trainer)
    trainer.free()  # done: the curves and snapshots hold everything left to show
    st.rerun()  # draw the finished run once more, with the step slider


def waited() -> None:
    """Says how long the run waited for a slot, when it did."""
    seconds = held().get("waited", 0.0)
    if seconds >= 1:
        st.caption(f"This run waited {seconds:.0f} s for a free training slot "
                   f"(this server trains {TRAININGS.capacity} at a time).")  # fmt: skip


def scrub(trainer) -> int:
    """The snapshot to show: the last, or the one the slider picks."""
    steps = [s.step for s in trainer.snapshots]
    if len(steps) < 2:
        return len(steps) - 1
    picked = st.select_slider(  # a new key whenever the run has grown: it opens on the last snapshot
        "Scrub through the saved snapshots (step)",
        steps,
        steps[-1],
        key=f"tr_scrub_{id(trainer)}_{len(steps)}",
    )
    return steps.index(picked)


def behind(trainer, index: int) -> str:
    """Why the snapshot shown is not the run's step: scrubbed back, or paused between snapshots."""
    step = trainer.snapshots[index].step
    if step == trainer.step:
        return ""
    if index in (-1, len(trainer.snapshots) - 1):
        return f" (the last snapshot; the run is at step {trainer.step})"
    return f" (scrubbed back; the run reached step {trainer.step})"


def status(trainer, finished: Callable[[], None], limit: float) -> None:
    if trainer.done:
        finished()
        waited()
        if trainer.seconds >= limit:
            st.warning(f"Stopped at the {limit:.0f} s limit per run; use fewer steps or a smaller model.")
    elif trainer.model is None:
        st.info(f"Stopped at step {trainer.step}: the model is freed. Press Play to start again.")
    else:
        st.info(f"Paused at step {trainer.step}. Resume, or scrub back through the snapshots.")


# --- the tiny tasks (a single MultiHeadAttention) -------------------------------------------------


def step_seconds(trainer) -> float:
    """What one step of a fresh `trainer` costs on this machine now (2 warm-up steps, then 5
    timed); the trainer is freed."""
    trainer.train(2)
    start = time.perf_counter()
    trainer.train(5)
    trainer.free()
    return (time.perf_counter() - start) / 5


@st.cache_data(show_spinner=False, max_entries=64)
def _seconds_per_step(config: TrainConfig) -> float:
    return step_seconds(Trainer(config))


def seconds_per_step(config: TrainConfig) -> float:
    """Timed once per model shape: the seed, learning rate and length do not change a step's cost."""
    return _seconds_per_step(replace(config, steps=MAX_STEPS, seed=0, lr=0.003))


def task_defaults(task: str) -> None:
    """A tiny task's own steps, heads and width (the induction run keeps its own settings)."""
    if task not in TASKS:
        return
    config = TrainConfig.for_task(task)
    for name in ("steps", "heads", "d_model"):
        st.session_state[f"tr_{name}"] = getattr(config, name)


def _controls(task: str) -> TrainConfig:
    s = st.session_state
    c = st.columns(6)
    c[0].number_input("steps", 10, MAX_STEPS, step=50, key="tr_steps")
    c[1].selectbox("heads", [1, 2, 4], key="tr_heads")
    c[2].selectbox("width (d_model)", [8, 16, 24, 32, 48, 64], key="tr_d_model",
                   help="The embedding width, d_in = d_out of the attention module.")  # fmt: skip
    c[3].select_slider("learning rate", [0.001, 0.003, 0.01, 0.03], 0.003, key="tr_lr")
    c[4].number_input("seed", 0, 2**31 - 1, 0, key="tr_seed")
    c[5].selectbox("device", available_devices(), key="tr_device", help="CPU unless a GPU is here")
    values = {name: s[f"tr_{name}"] for name in ("steps", "heads", "d_model", "seed", "device")}
    try:
        return TrainConfig(task=task, lr=float(s["tr_lr"]), **values)
    except ConfigError as error:
        fallback = TrainConfig.for_task(task, seed=values["seed"])
        st.warning(
            f"{error}. Using the task's defaults instead: heads={fallback.heads}, d_model={fallback.d_model}."
        )
        return fallback


def _draw(slots: dict, trainer: Trainer, index: int, live: bool) -> None:
    """Progress, curves and the probe's pattern at snapshot `index`, into the page's placeholders.
    Live redraws get fresh keys (one run draws them many times)."""
    snap = trainer.snapshots[index]
    suffix = f"_{trainer.step}" if live else ""
    accuracy = dict(trainer.accuracies).get(snap.step, trainer.accuracies[-1][1])
    loss = snap.loss if snap.step else float("nan")
    back = behind(trainer, index)
    slots["progress"].progress(snap.step / trainer.config.steps, text=(
        f"step {snap.step}/{trainer.config.steps}{back} · loss {'—' if loss != loss else f'{loss:.4f}'} · "
        f"accuracy on unseen sequences {accuracy:.1%} · {trainer.seconds:.1f} s of training"))  # fmt: skip
    with slots["curves"].container():
        marker = None if live else snap.step
        chart(training_curves(trainer.losses, trainer.accuracies, marker), key="tr_curves" + suffix)
    with slots["pattern"].container():
        cols = 2 if narrow() else None
        chart(pattern_figure(snap.weights, trainer.expected(), trainer.probe_tokens(), snap.step, cols=cols),
              key="tr_pattern" + suffix)  # fmt: skip
        score = trainer.pattern_score(snap.weights)
        st.caption(
            f"Example sequence: {literal(' '.join(trainer.probe_tokens()))} "
            "(fixed, never trained on; blank rows: nothing asked there) · "
            f"accuracy at step {snap.step}: {accuracy:.1%}"
            + ("" if score is None else f" · best head's weight on the expected keys: {score:.2f}")
        )


def tiny_view(task: str, pace: float) -> None:
    st.markdown(
        "A tiny model — token and position embeddings, the book's `MultiHeadAttention` (causal), a linear "
        "readout, no residual path — learns a task whose right attention pattern is known. With random "
        "weights the heatmaps mean nothing; watch the pattern appear as the loss falls."
    )
    config = _controls(task)
    trainer = current(config, Trainer)
    run_buttons(trainer)
    if trainer is None:
        training = min(MAX_SECONDS, config.steps * seconds_per_step(config))
        pauses = config.steps // config.snapshot_every * pace
        took = f" About {training + pauses:.0f} s at this pace" + (
            f" ({pauses:.0f} s of them pauses to watch; 'as fast as it goes' skips them)." if pauses else "."
        )
        st.info(
            f"Press Play: {config.steps} steps of batch {config.batch}, "
            f"at most {MAX_SECONDS:.0f} s of training." + (took if training + pauses > SLOW or pauses else "")
        )
        return
    slots = {"progress": st.empty()}
    left, right = st.columns([2, 3])
    slots["curves"], slots["pattern"] = left.empty(), right.empty()
    play(trainer, config.snapshot_every, pace, lambda index, live: _draw(slots, trainer, index, live))
    _draw(slots, trainer, scrub(trainer), live=False)

    def finished() -> None:
        accuracy = trainer.accuracies[-1][1]
        score = trainer.pattern_score(trainer.snapshots[-1].weights)
        reached = next((s for s, a in trainer.accuracies if a >= 0.95), None)
        summary = (
            f"Finished: accuracy on unseen sequences {accuracy:.1%} after {trainer.step} steps "
            f"({trainer.seconds:.1f} s). "
            + ("" if reached is None else f"95% reached at step {reached} ({trainer.seconds_to_95:.2f} s). ")
            + ("" if score is None else f"The best head puts {score:.2f} of its weight on the expected keys.")
        )
        (st.success if accuracy >= 0.95 else st.info)(summary)

    status(trainer, finished, MAX_SECONDS)


TASK_LABELS = {key: task.label for key, task in TASKS.items()} | {
    "induction": "find what followed this token last time: an induction head forms (GPTModel, 2 layers)"
}
TASK_GOALS = {key: task.goal for key, task in TASKS.items()} | {
    "induction": "a layer-1 head looks at the token right after the earlier copy of the current token"
}
