"""Watch attention learn: train a tiny MultiHeadAttention model live and see its pattern emerge."""

import time
from dataclasses import replace

import streamlit as st

from attention import ConfigError
from attention.devices import available_devices
from attention.figures.training import pattern_figure, training_curves
from attention.training import MAX_SECONDS, MAX_STEPS, TASKS, TrainConfig, Trainer
from ui.router import use_router
from ui.widgets import chart, literal

use_router()

HELD = "_held_train"  # app.py drops it when the learner leaves this page (frees the model)
PACES = {"watch": 0.15, "fast": 0.0}  # seconds between snapshots; either way the thread yields
SETTINGS = ("tr_task", "tr_steps", "tr_heads", "tr_d_model", "tr_lr", "tr_seed", "tr_device", "tr_pace")
SLOW = 20.0  # seconds: a run that takes longer at "watch it" pace says so before Play


@st.cache_data(show_spinner=False, max_entries=64)
def seconds_per_step(config: TrainConfig) -> float:
    """Measured on a fresh trainer (a few steps, milliseconds): what one step costs here."""
    trainer = Trainer(replace(config, steps=MAX_STEPS))
    trainer.train(2)  # warm-up
    start = time.perf_counter()
    trainer.train(5)
    trainer.free()
    return (time.perf_counter() - start) / 5


def _task_defaults() -> None:
    config = TrainConfig.for_task(st.session_state["tr_task"])
    for name in ("steps", "heads", "d_model"):
        st.session_state[f"tr_{name}"] = getattr(config, name)


def _controls() -> tuple[TrainConfig, float]:
    s = st.session_state
    if "tr_task" not in s:  # a first visit, or back from another page (Streamlit forgot the widgets)
        s["tr_task"] = "previous"
        _task_defaults()
        s.update(s.get("_train_settings", {}))
    st.selectbox("Task", list(TASKS), key="tr_task", on_change=_task_defaults,
                 format_func=lambda t: f"{TASKS[t].label}")  # fmt: skip
    st.caption("The pattern that solves it: " + TASKS[s["tr_task"]].goal + ".")
    c = st.columns(6)
    c[0].number_input("steps", 10, MAX_STEPS, step=50, key="tr_steps")
    c[1].selectbox("heads", [1, 2, 4], key="tr_heads")
    c[2].selectbox("width (d_model)", [8, 16, 24, 32, 48, 64], key="tr_d_model",
                   help="The embedding width, d_in = d_out of the attention module.")  # fmt: skip
    c[3].select_slider("learning rate", [0.001, 0.003, 0.01, 0.03], 0.003, key="tr_lr")
    c[4].number_input("seed", 0, 2**31 - 1, 0, key="tr_seed")
    c[5].selectbox("device", available_devices(), key="tr_device", help="CPU unless a GPU is here")
    pace_labels = {"watch": "watch it (a short pause per snapshot)", "fast": "as fast as it goes"}
    pace = st.radio("Pace", list(PACES), horizontal=True, key="tr_pace", format_func=pace_labels.get)
    s["_train_settings"] = {k: s[k] for k in SETTINGS if k in s}  # kept while the learner is elsewhere
    values = {name: s[f"tr_{name}"] for name in ("steps", "heads", "d_model", "seed", "device")}
    try:
        return TrainConfig(task=s["tr_task"], lr=float(s["tr_lr"]), **values), PACES[pace]
    except ConfigError as error:
        fallback = TrainConfig.for_task(s["tr_task"], seed=values["seed"])
        st.warning(
            f"{error}. Using the task's defaults instead: heads={fallback.heads}, d_model={fallback.d_model}."
        )
        return fallback, PACES[pace]


def _draw(slots: dict, trainer: Trainer, index: int, live: bool) -> None:
    """Progress, curves and the probe's pattern at snapshot `index`, into the page's placeholders.
    Live redraws get fresh keys (one run draws them many times)."""
    snap = trainer.snapshots[index]
    suffix = f"_{trainer.step}" if live else ""
    accuracy = dict(trainer.accuracies).get(snap.step, trainer.accuracies[-1][1])
    loss = snap.loss if snap.step else float("nan")
    back = "" if snap.step == trainer.step else f" (scrubbed back; the run reached step {trainer.step})"
    slots["progress"].progress(snap.step / trainer.config.steps, text=(
        f"step {snap.step}/{trainer.config.steps}{back} · loss {'—' if loss != loss else f'{loss:.4f}'} · "
        f"accuracy on unseen sequences "
        f"{accuracy:.1%} · {trainer.seconds:.1f} s of training"))  # fmt: skip
    with slots["curves"].container():
        marker = None if live else snap.step
        chart(training_curves(trainer.losses, trainer.accuracies, marker), key="tr_curves" + suffix)
    with slots["pattern"].container():
        chart(
            pattern_figure(snap.weights, trainer.expected(), trainer.probe_tokens(), snap.step),
            key="tr_pattern" + suffix,
        )
        score = trainer.pattern_score(snap.weights)
        st.caption(
            f"Example sequence: {literal(' '.join(trainer.probe_tokens()))} "
            "(fixed, never trained on; blank rows: nothing asked there) · "
            f"accuracy at step {snap.step}: {accuracy:.1%}"
            + ("" if score is None else f" · best head's weight on the expected keys: {score:.2f}")
        )


# The buttons act in callbacks, which run before the page: so the run that a click starts
# already draws Pause enabled (a Pause drawn disabled during training could never be clicked).


def _resumable(trainer: Trainer | None) -> bool:
    return trainer is not None and trainer.model is not None and not trainer.done


def _play() -> None:
    held = st.session_state[HELD]
    if not _resumable(held["trainer"]):
        held["trainer"] = None  # a new run, made below from this run's settings
    held["running"] = True


def _pause() -> None:
    st.session_state[HELD]["running"] = False


def _stop() -> None:
    held = st.session_state[HELD]
    if held["trainer"] is not None:
        held["trainer"].free()  # the curves and snapshots stay to look at; the model and optimiser go
    held["running"] = False


st.title("Watch attention learn")
st.markdown(
    "A tiny model — token and position embeddings, the book's `MultiHeadAttention` (causal), a linear "
    "readout, no residual path — learns a task whose right attention pattern is known. With random "
    "weights the heatmaps mean nothing; watch the pattern appear as the loss falls."
)
config, pace = _controls()
held = st.session_state.setdefault(HELD, {"trainer": None, "running": False})
trainer: Trainer | None = held["trainer"]
if trainer is not None and trainer.config != config:  # new settings: a new run
    trainer.free()
    held.update(trainer=None, running=False)
    trainer = None
if held["running"] and trainer is None:  # Play was clicked for a new run
    trainer = held["trainer"] = Trainer(config)

b = st.columns([1, 1, 1, 5])
b[0].button("Resume" if _resumable(trainer) else "Play", icon=":material/play_arrow:", type="primary",
            key="tr_play", disabled=held["running"], on_click=_play)  # fmt: skip
b[1].button("Pause", icon=":material/pause:", key="tr_pause", disabled=not held["running"], on_click=_pause)
b[2].button("Stop", icon=":material/stop:", key="tr_stop", disabled=trainer is None or trainer.model is None,
            on_click=_stop)  # fmt: skip

if trainer is None:
    training = min(MAX_SECONDS, config.steps * seconds_per_step(config))
    pauses = config.steps // config.snapshot_every * pace
    took = f" About {training + pauses:.0f} s at this pace" + (
        f" ({pauses:.0f} s of them pauses to watch; 'as fast as it goes' skips them)." if pauses else "."
    )
    st.info(
        f"Press Play: {config.steps} steps of batch {config.batch}, at most {MAX_SECONDS:.0f} s of training."
        + (took if training + pauses > SLOW or pauses else "")
    )
    st.stop()

slots = {"progress": st.empty()}
left, right = st.columns([2, 3])
slots["curves"], slots["pattern"] = left.empty(), right.empty()

if held["running"]:
    while not trainer.done:
        trainer.train(config.snapshot_every)
        _draw(slots, trainer, -1, live=True)  # a Pause or Stop click interrupts the run here
        time.sleep(pace)  # also hands the interpreter to other sessions between chunks
    held["running"] = False
    trainer.free()  # done: the curves and snapshots hold everything left to show
    st.rerun()  # draw the finished run once more, with the step slider

shown = len(trainer.snapshots) - 1
if len(trainer.snapshots) > 1:
    steps = [s.step for s in trainer.snapshots]
    picked = st.select_slider(  # a new key whenever the run has grown: it opens on the last snapshot
        "Scrub through the saved snapshots (step)",
        steps,
        steps[-1],
        key=f"tr_scrub_{id(trainer)}_{len(steps)}",
    )
    shown = steps.index(picked)
_draw(slots, trainer, shown, live=False)

accuracy = trainer.accuracies[-1][1]
if trainer.done:
    score = trainer.pattern_score(trainer.snapshots[-1].weights)
    reached = next((s for s, a in trainer.accuracies if a >= 0.95), None)
    summary = (
        f"Finished: accuracy on unseen sequences {accuracy:.1%} after {trainer.step} steps "
        f"({trainer.seconds:.1f} s). "
        + (f"95% reached at step {reached} ({trainer.seconds_to_95:.2f} s). " if reached is not None else "")
        + ("" if score is None else f"The best head puts {score:.2f} of its weight on the expected keys.")
    )
    (st.success if accuracy >= 0.95 else st.info)(summary)
    if trainer.out_of_time:
        st.warning(f"Stopped at the {MAX_SECONDS:.0f} s limit per run; use fewer steps or a smaller model.")
elif trainer.model is None:
    st.info(f"Stopped at step {trainer.step}: the model is freed. Press Play to start again.")
else:
    st.info(f"Paused at step {trainer.step}. Resume, or scrub back through the snapshots.")
