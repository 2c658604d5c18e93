"""Watch it learn's view of a recorded training (attention/training/replay.py): the Shakespeare
model's training played back — its loss against the unigram and bigram baselines, each
layer's best previous-token and induction head on Shakespeare's own text, every head's scores at
the step shown — beside the induction run that trains live. The player (ui/train/player.py) plays it."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from attention.errors import ConfigError
from attention.figures.model import role_heatmap
from attention.figures.replay import best_per_layer, recorded_curves
from attention.i18n import N_, tr, tr_n
from attention.model import catalog
from attention.training import replay
from attention.training.held_out_text import MEASURED_ON, measured_on
from attention.training.replay import FORMED, Replay, ReplayConfig
from ui.chrome import pages
from ui.classroom import membership
from ui.train import around, player
from ui.url import link_params
from ui.widgets import HALF_PX, chart, literal

# a task per shipped Shakespeare model, listed where it is installed (its recording beside it)
LABELS = {
    catalog.SHAKESPEARE: replay.LABEL,
    # TRANSLATORS: Watch it learn's task: the recorded training of the Qwen3-layout Shakespeare model
    catalog.SHAKESPEARE_QWEN3: N_("Shakespeare's plays in Qwen3's layout: its training, recorded"),
}
TASKS = {task: (label, replay.GOAL) for task, label in LABELS.items() if catalog.installed(task)}
SETTINGS = ()
RUN = Replay
INTRO = N_(  # filled from the record: its config, its stage-1 steps, its snapshot interval
    "The same `GPTModel`, bigger (layers: {n_layers}, heads in each: {n_heads}, width {emb_dim}, GPT-2's "
    "vocabulary), trained on 36 of Shakespeare's plays for about an hour on one CPU core — too long for "
    "class, so this replays what its recipe recorded. Its first steps (shaded, {task_steps:,} of them) are "
    "the task *an induction head forms*, in the plays' commonest tokens, with no plays: the induction head "
    "forms there. Then the plays, with a few task sequences beside each batch so the head stays. At every "
    "snapshot (step interval: {every}): the loss on two plays it never read, and each head's role measured "
    "on passages of those plays (the previous-token role on the text as it is, the induction role on a "
    "passage repeated). Does a head learned on random tokens work on Shakespeare's lines?"
)


INTRO_QWEN3 = N_(  # filled from the record, as INTRO
    "The same plays, tokenizer and two stages in today's layout: Qwen3's (layers: {n_layers}; query heads: "
    "{n_heads}, sharing key/value heads: {n_kv_groups}; width {emb_dim}). It has no position embeddings: "
    "RoPE turns each query and key by its position, and its sliding-window layers see only the latest tokens "
    "(window: {sliding_window}). Its first steps (shaded, {task_steps:,} of them) are the induction task, "
    "then the plays. At every snapshot (step interval: {every}): the loss on two plays it never read and "
    "each head's role on their passages. Do the same heads form without position embeddings?"
)


def defaults(task: str = catalog.SHAKESPEARE) -> None:
    """Nothing to set: the recording is what it is."""


def controls(task: str = catalog.SHAKESPEARE) -> ReplayConfig:
    try:
        config = ReplayConfig.of(catalog.SHIPPED[task if task in LABELS else catalog.SHAKESPEARE])
    except ConfigError as error:
        st.warning(literal(str(error)))
        membership.stop()  # the page as far as it goes: a class student has arrived
    record = replay.record(config.folder)
    words = record["config"] | {"task_steps": record.get("task_steps", 0), "every": config.snapshot_every}
    intro = INTRO_QWEN3 if "n_kv_groups" in record["config"] else INTRO  # the Qwen3 layout's record
    st.markdown(tr(intro, **words))
    return config


def extras(config: ReplayConfig) -> None:
    """No knobs: a recording."""


def plan(config: ReplayConfig, training: float, pauses: float) -> str:
    return tr_n(
        "Press Play: the recorded {steps} step, a snapshot every {every}, about {pauses:.0f} s to watch "
        "('{fast}': at once). Nothing trains.",
        "Press Play: the recorded {steps} steps, a snapshot every {every}, about {pauses:.0f} s to watch "
        "('{fast}': at once). Nothing trains.",
        config.steps,
        steps=config.steps,
        every=config.snapshot_every,
        pauses=pauses,
        fast=around.fast(),
    )


def layout() -> dict:
    slots = {"progress": st.empty()}
    left, right = st.columns(2)
    slots["curves"], slots["roles"] = left.empty(), right.empty()
    slots["explain"], slots["heads"] = st.empty(), st.empty()
    return slots


# each role's words: formed, and not yet
ROLE_WORDS = {
    "previous": (
        N_("**Head {head} is a previous-token head** ({score:.2f} on 8 held-out passages)."),
        N_("No previous-token head yet (best: {head}, {score:.2f})."),
    ),
    "induction": (
        N_("**Head {head} is an induction head** ({score:.2f} on 8 held-out passages)."),
        N_("No induction head yet (best: {head}, {score:.2f})."),
    ),
}


def step_words(run: Replay, index: int) -> str:
    """The snapshot's step and held-out loss, in words."""
    snap = run.snapshots[index]
    windows = run.record.get("eval_windows", 24)
    return tr_n(
        "Step {step}: held-out loss {loss:.2f} nats per token on {windows} window of the held-out plays "
        "(a snapshot's estimate).",
        "Step {step}: held-out loss {loss:.2f} nats per token on {windows} windows of the held-out plays "
        "(a snapshot's estimate).",
        windows,
        step=snap.step,
        loss=snap.held_out_loss,
        windows=windows,
    )


def words(run: Replay, index: int) -> str:
    """The snapshot in words, from its numbers."""
    best = run.best(index)
    lines = [step_words(run, index)]
    for role, (formed, not_yet) in ROLE_WORDS.items():
        layer, head, score = best[role]
        lines.append(tr(formed if score >= FORMED else not_yet, head=f"{layer}.{head}", score=score))
    if run.done and index in (-1, len(run.snapshots) - 1):  # played to the end, not paused there
        lines.append(measured(run.record))
    return " ".join(lines)


def measured(record: dict) -> str:
    """The finished model's numbers, the ones every page and the docs quote, and what they mean."""
    base = record["baselines"]
    done = record.get("measured")
    if not done:
        return tr(
            "(Unigram {unigram:.2f}, bigram {bigram:.2f} on the held-out plays.)",
            unigram=base["unigram"],
            bigram=base["bigram"],
        )
    loss, start = done["held_out_loss"], done["bands"]["start"]["mean"]
    margin = base["bigram"] - loss
    context = record["config"]["context_length"]  # what it was measured on, in this page's language
    on = tr(MEASURED_ON, context=context) if done["on"] == measured_on(context) else done["on"]
    return tr(
        "**Finished, measured on {on}:** loss {loss:.2f} nats per token ({start:.2f} with "
        "<|endoftext|> first), against {bigram:.2f} for a bigram model (the word before predicts "
        "the next) and {unigram:.2f} for word counts. A margin of {margin:.2f} nats over the bigram "
        "means the model gives the right next token about {times:.2f}× the bigram's "
        "probability, on average: real, but small — a 7-million-parameter model that read 36 plays "
        "mostly knows which words follow which, plus what its induction head copies.",
        on=on,
        loss=loss,
        start=start,
        bigram=base["bigram"],
        unigram=base["unigram"],
        margin=margin,
        times=math.exp(margin),
    )


def draw(slots: dict, run: Replay, index: int, live: bool) -> None:
    snap, snaps = run.snapshots[index], run.snapshots
    suffix = player.live_key(live)
    line = [around.at_step(run, index), tr("held-out loss {loss:.3f} (recorded)", loss=snap.held_out_loss)]
    slots["progress"].progress(snap.step / run.config.steps, text=" · ".join(line))
    steps, marker = [s.step for s in snaps], None if live else snap.step
    losses = [loss for loss in run.losses if np.isfinite(loss)]
    with slots["curves"].container():
        held = [s.held_out_loss for s in snaps]
        task = run.record.get("task_steps", 0)
        figure = recorded_curves(losses, steps, held, run.record["baselines"], run.appears(), marker, task)
        chart(figure, key="rep_curves" + suffix, width=HALF_PX)
    with slots["roles"].container():
        scores = {r: np.stack([s.natural[r] for s in snaps]) for r in ("previous", "induction")}
        chart(best_per_layer(steps, scores, marker), key="rep_roles" + suffix, width=HALF_PX)
    with slots["explain"].container():
        (st.success if min(b[2] for b in run.best(index).values()) >= FORMED else st.info)(words(run, index))
    with slots["heads"].container():
        left, right = st.columns(2)
        captions = (
            tr("every head's previous score, step {step}", step=snap.step),
            tr("every head's induction score, step {step}", step=snap.step),
        )
        for column, role, caption in zip((left, right), ("previous", "induction"), captions, strict=True):
            with column:
                chart(
                    role_heatmap(snap.natural[role], role, caption), key=f"rep_{role}" + suffix, width=HALF_PX
                )


def keep(run: Replay) -> None:
    """Nothing to keep: the recording stays on disk."""


def summary(run: Replay) -> None:
    appears = run.appears()
    replayed = tr_n(
        "Replayed {steps} recorded step.", "Replayed {steps} recorded steps.", run.step, steps=run.step
    )
    if appears:
        formed = tr("An induction head appeared at step {step}.", step=appears)
    else:
        formed = tr("No induction head formed.")
    st.success(f"{replayed} {formed} {step_words(run, -1)}")
    layer, head, _ = run.best(-1)["induction"]
    st.page_link(
        pages()["model"],
        label=tr(
            "Look inside this model (its induction head {head}) in Inside a model", head=f"{layer}.{head}"
        ),
        icon=":material/open_in_new:",
        query_params=link_params(
            {"model": _source(run.config.folder), "view": "head", "layer": str(layer), "head": str(head)}
        ),
    )


def _source(folder: str) -> str:
    """The Model list's name of the shipped model whose recording this is."""
    return next((task for task in LABELS if str(catalog.SHIPPED[task]) == folder), catalog.SHAKESPEARE)


def after() -> None:
    """Nothing below the run."""
