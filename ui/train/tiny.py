"""Watch it learn's view of the tiny tasks (attention/training/tiny.py): a single MultiHeadAttention
learns a task whose right attention pattern is known. The player (ui/train/player.py) runs it."""

from __future__ import annotations

import streamlit as st

from attention.devices import available_devices
from attention.errors import ConfigError
from attention.figures.train import pattern_figure, training_curves
from attention.training import tasks
from attention.training.tiny import MAX_SECONDS, MAX_STEPS, TrainConfig, Trainer
from ui.train import around
from ui.widgets import chart, literal, narrow

TASKS = {key: (task.label, task.goal) for key, task in tasks.TASKS.items()}
SETTINGS = ("tr_steps", "tr_heads", "tr_d_model", "tr_lr", "tr_seed", "tr_device")
RUN = Trainer
INTRO = (
    "A tiny model — token and position embeddings, the book's `MultiHeadAttention` (causal), a linear "
    "readout, no residual path — learns a task whose right attention pattern is known. With random "
    "weights the heatmaps mean nothing; watch the pattern appear as the loss falls."
)


def defaults(task: str) -> None:
    """The task's own steps, heads and width."""
    config = TrainConfig.for_task(task)
    for name in ("steps", "heads", "d_model"):
        st.session_state[f"tr_{name}"] = getattr(config, name)


def controls(task: str) -> TrainConfig:
    st.markdown(INTRO)
    s = st.session_state
    c = st.columns(6)
    c[0].number_input("steps", 10, MAX_STEPS, step=50, key="tr_steps")
    c[1].selectbox("heads", [1, 2, 4], key="tr_heads")
    width_help = "The embedding width, d_in = d_out of the attention module."
    c[2].selectbox("width (d_model)", [8, 16, 24, 32, 48, 64], key="tr_d_model", help=width_help)
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


def extras(config: TrainConfig) -> None:
    """No buttons beyond Play / Pause / Stop."""


def plan(config: TrainConfig, training: float, pauses: float) -> str:
    took = f" About {training + pauses:.0f} s at this pace" + (
        f" ({pauses:.0f} s of them pauses to watch; 'as fast as it goes' skips them)." if pauses else "."
    )
    return (
        f"Press Play: {config.steps} steps of batch {config.batch}, at most {MAX_SECONDS:.0f} s of training."
        + (took if training + pauses > around.SLOW or pauses else "")
    )


def layout() -> dict:
    slots = {"progress": st.empty()}
    left, right = st.columns([2, 3])
    slots["curves"], slots["pattern"] = left.empty(), right.empty()
    return slots


def draw(slots: dict, run: Trainer, index: int, live: bool) -> None:
    """Progress, curves and the probe's pattern at snapshot `index`, into the page's placeholders.
    Live redraws get fresh keys (one run draws them many times)."""
    # Copies, snapshot first: another session's thread may be adding to a shared run meanwhile
    snap = run.snapshots[index]
    losses, accuracies = list(run.losses), list(run.accuracies)
    suffix = f"_{run.step}" if live else ""
    accuracy = dict(accuracies).get(snap.step, accuracies[-1][1])
    loss = "—" if not snap.step or snap.loss != snap.loss else f"{snap.loss:.4f}"
    slots["progress"].progress(
        snap.step / run.config.steps,
        text=f"step {snap.step}/{run.config.steps}{around.behind(run, index)} · loss {loss} · "
        f"accuracy on unseen sequences {accuracy:.1%} · {run.seconds:.1f} s of training",
    )
    with slots["curves"].container():
        marker = None if live else snap.step
        chart(training_curves(losses, accuracies, marker), key="tr_curves" + suffix)
    with slots["pattern"].container():
        figure = pattern_figure(
            snap.weights, run.expected(), run.probe_tokens(), snap.step, cols=2 if narrow() else None
        )
        chart(figure, key="tr_pattern" + suffix)
        score = run.pattern_score(snap.weights)
        st.caption(
            f"Example sequence: {literal(' '.join(run.probe_tokens()))} "
            "(fixed, never trained on; blank rows: nothing asked there) · "
            f"accuracy at step {snap.step}: {accuracy:.1%}"
            + ("" if score is None else f" · best head's weight on the expected keys: {score:.2f}")
        )


def keep(run: Trainer) -> None:
    """Nothing to keep: the curves and snapshots are the run's record."""


def summary(run: Trainer) -> None:
    accuracy = run.accuracies[-1][1]
    score = run.pattern_score(run.snapshots[-1].weights)
    reached = next((s for s, a in run.accuracies if a >= 0.95), None)
    words = (
        f"Finished: accuracy on unseen sequences {accuracy:.1%} after {run.step} steps "
        f"({run.seconds:.1f} s). "
        + ("" if reached is None else f"95% reached at step {reached} ({run.seconds_to_95:.2f} s). ")
        + ("" if score is None else f"The best head puts {score:.2f} of its weight on the expected keys.")
    )
    (st.success if accuracy >= 0.95 else st.info)(words)


def after() -> None:
    """Nothing below the run."""
