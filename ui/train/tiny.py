"""Watch it learn's view of the tiny tasks (attention/training/tiny.py): a single MultiHeadAttention
learns a task whose right attention pattern is known. The player (ui/train/player.py) runs it."""

from __future__ import annotations

import streamlit as st

from attention.devices import available_devices
from attention.errors import ConfigError
from attention.figures.train import pattern_figure, training_curves
from attention.i18n import N_, tr, tr_n
from attention.training import tasks
from attention.training.tiny import MAX_SECONDS, MAX_STEPS, TrainConfig, Trainer
from ui.train import around, player
from ui.widgets import chart, literal, narrow

TASKS = {key: (task.label, task.goal) for key, task in tasks.TASKS.items()}
SETTINGS = ("tr_steps", "tr_heads", "tr_d_model", "tr_lr", "tr_seed", "tr_device")
RUN = Trainer
INTRO = N_(
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
    st.markdown(tr(INTRO))
    s = st.session_state
    c = st.columns(6)
    # TRANSLATORS: a setting: how many training steps
    c[0].number_input(tr("steps"), 10, MAX_STEPS, step=50, key="tr_steps")
    # TRANSLATORS: a setting: how many attention heads
    c[1].selectbox(tr("heads"), [1, 2, 4], key="tr_heads")
    width_help = tr("The embedding width, d_in = d_out of the attention module.")
    c[2].selectbox(tr("width (d_model)"), [8, 16, 24, 32, 48, 64], key="tr_d_model", help=width_help)
    c[3].select_slider(tr("learning rate"), [0.001, 0.003, 0.01, 0.03], 0.003, key="tr_lr")
    # TRANSLATORS: a setting: the random seed
    c[4].number_input(tr("seed"), 0, 2**31 - 1, 0, key="tr_seed")
    device_help = tr("CPU unless a GPU is here")
    c[5].selectbox(tr("device"), available_devices(), key="tr_device", help=device_help)
    values = {name: s[f"tr_{name}"] for name in ("steps", "heads", "d_model", "seed", "device")}
    try:
        return TrainConfig(task=task, lr=float(s["tr_lr"]), **values)
    except ConfigError as error:
        fallback = TrainConfig.for_task(task, seed=values["seed"])
        defaults = {"default_heads": fallback.heads, "default_d_model": fallback.d_model}
        if error.field == "heads":  # the only one the widgets can get wrong: a width the heads do not divide
            said = tr(
                "d_model={d_model} is not divisible by heads={heads}. Using the task's defaults instead: "
                "heads={default_heads}, d_model={default_d_model}.",
                d_model=values["d_model"],
                heads=values["heads"],
                **defaults,
            )
        else:
            # TRANSLATORS: {error} is a whole sentence saying what is wrong with the settings
            said = tr(
                "{error}. Using the task's defaults instead: heads={default_heads}, "
                "d_model={default_d_model}.",
                error=literal(str(error).rstrip(".")),  # the message adds its own full stop
                **defaults,
            )
        st.warning(said)
        return fallback


def extras(config: TrainConfig) -> None:
    """No buttons beyond Play / Pause / Stop."""


def plan(config: TrainConfig, training: float, pauses: float) -> str:
    said = tr_n(
        "Press Play: {steps} step with batch size {batch}, at most {limit:.0f} s of training.",
        "Press Play: {steps} steps with batch size {batch}, at most {limit:.0f} s of training.",
        config.steps,
        steps=config.steps,
        batch=config.batch,
        limit=MAX_SECONDS,
    )
    if pauses:
        took = tr(
            "About {seconds:.0f} s at this pace ({pauses:.0f} s of them pauses to watch; '{fast}' skips "
            "them).",
            seconds=training + pauses,
            pauses=pauses,
            fast=around.fast(),
        )
    elif training > around.SLOW:
        took = tr("About {seconds:.0f} s at this pace.", seconds=training)
    else:
        return said
    return f"{said} {took}"


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
    suffix = player.live_key(live)
    accuracy = dict(accuracies).get(snap.step, accuracies[-1][1])
    loss = "—" if not snap.step or snap.loss != snap.loss else f"{snap.loss:.4f}"
    line = [
        around.at_step(run, index),
        tr("loss {loss}", loss=loss),
        tr("accuracy on unseen sequences {accuracy:.1%}", accuracy=accuracy),
        tr("{seconds:.1f} s of training", seconds=run.seconds),
    ]
    slots["progress"].progress(snap.step / run.config.steps, text=" · ".join(line))
    with slots["curves"].container():
        marker = None if live else snap.step
        chart(training_curves(losses, accuracies, marker), key="tr_curves" + suffix)
    with slots["pattern"].container():
        figure = pattern_figure(
            snap.weights, run.expected(), run.probe_tokens(), snap.step, cols=2 if narrow() else None
        )
        chart(figure, key="tr_pattern" + suffix)
        score = run.pattern_score(snap.weights)
        words = [
            tr(
                "Example sequence: {tokens} (fixed, never trained on; blank rows: nothing asked there)",
                tokens=literal(" ".join(run.probe_tokens())),
            ),
            tr("accuracy at step {step}: {accuracy:.1%}", step=snap.step, accuracy=accuracy),
        ]
        if score is not None:
            words.append(tr("best head's weight on the expected keys: {score:.2f}", score=score))
        st.caption(" · ".join(words))


def keep(run: Trainer) -> None:
    """Nothing to keep: the curves and snapshots are the run's record."""


def summary(run: Trainer) -> None:
    accuracy = run.accuracies[-1][1]
    score = run.pattern_score(run.snapshots[-1].weights)
    reached = next((s for s, a in run.accuracies if a >= 0.95), None)
    words = tr_n(
        "Finished: accuracy on unseen sequences {accuracy:.1%} after {steps} step ({seconds:.1f} s).",
        "Finished: accuracy on unseen sequences {accuracy:.1%} after {steps} steps ({seconds:.1f} s).",
        run.step,
        accuracy=accuracy,
        steps=run.step,
        seconds=run.seconds,
    )
    if reached is not None:
        words += " " + tr(
            "95% reached at step {step} ({seconds:.2f} s).", step=reached, seconds=run.seconds_to_95
        )
    words += " " + (
        ""
        if score is None
        else tr("The best head puts {score:.2f} of its weight on the expected keys.", score=score)
    )
    (st.success if accuracy >= 0.95 else st.info)(words)


def after() -> None:
    """Nothing below the run."""
