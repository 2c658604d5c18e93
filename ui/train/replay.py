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
from attention.model import catalog
from attention.training import replay
from attention.training.replay import FORMED, Replay, ReplayConfig
from ui.chrome import pages
from ui.train import around
from ui.url import link_params
from ui.widgets import chart, literal

# listed where the Shakespeare model is installed (its recording beside it)
TASKS = {"shakespeare": (replay.LABEL, replay.GOAL)} if catalog.installed(catalog.SHAKESPEARE) else {}
SETTINGS = ()
RUN = Replay
INTRO = (  # filled from the record: its config, its stage-1 steps, its snapshot interval
    "The same `GPTModel`, bigger ({n_layers} layers × {n_heads} heads, width {emb_dim}, GPT-2's "
    "vocabulary), trained on 36 of Shakespeare's plays for about an hour on one CPU core — too long for "
    "class, so this replays what its recipe recorded. Its first {task_steps:,} steps (shaded) are the task "
    "*an induction head forms*, in the plays' commonest tokens, with no plays: the induction head forms "
    "there. Then the plays, with a few task sequences beside each batch so the head stays. Every {every} "
    "steps: the loss on two plays it never read, and each head's role measured on passages of those plays "
    "(the previous-token role on the text as it is, the induction role on a passage repeated). Does a "
    "head learned on random tokens work on Shakespeare's lines?"
)


def defaults(task: str = "shakespeare") -> None:
    """Nothing to set: the recording is what it is."""


def controls(task: str = "shakespeare") -> ReplayConfig:
    try:
        config = ReplayConfig.of()
    except ConfigError as error:
        st.warning(literal(str(error)))
        st.stop()
    record = replay.record(config.folder)
    words = record["config"] | {"task_steps": record.get("task_steps", 0), "every": config.snapshot_every}
    st.markdown(INTRO.format(**words))
    return config


def extras(config: ReplayConfig) -> None:
    """No knobs: a recording."""


def plan(config: ReplayConfig, training: float, pauses: float) -> str:
    return (
        f"Press Play: the recorded {config.steps} steps, a snapshot every {config.snapshot_every}, "
        f"about {pauses:.0f} s to watch ('as fast as it goes': at once). Nothing trains."
    )


def layout() -> dict:
    slots = {"progress": st.empty()}
    left, right = st.columns(2)
    slots["curves"], slots["roles"] = left.empty(), right.empty()
    slots["explain"], slots["heads"] = st.empty(), st.empty()
    return slots


def words(run: Replay, index: int) -> str:
    """The snapshot in words, from its numbers."""
    snap, best = run.snapshots[index], run.best(index)
    lines = [
        f"Step {snap.step}: held-out loss {snap.held_out_loss:.2f} nats per token on "
        f"{run.record.get('eval_windows', 24)} windows of the held-out plays (a snapshot's estimate)."
    ]
    for role, name in (("previous", "previous-token"), ("induction", "induction")):
        layer, head, score = best[role]
        lines.append(
            f"**Head {layer}.{head} is {'an' if name[0] == 'i' else 'a'} {name} head** ({score:.2f} on "
            "8 held-out passages)."
            if score >= FORMED
            else f"No {name} head yet (best: {layer}.{head}, {score:.2f})."
        )
    if run.done and index in (-1, len(run.snapshots) - 1):  # played to the end, not paused there
        lines.append(measured(run.record))
    return " ".join(lines)


def measured(record: dict) -> str:
    """The finished model's numbers, the ones every page and the docs quote, and what they mean."""
    base = record["baselines"]
    done = record.get("measured")
    if not done:
        return f"(Unigram {base['unigram']:.2f}, bigram {base['bigram']:.2f} on the held-out plays.)"
    loss, start = done["held_out_loss"], done["bands"]["start"]["mean"]
    margin = base["bigram"] - loss
    return (
        f"**Finished, measured on {done['on']}:** loss {loss:.2f} nats per token ({start:.2f} with "
        f"<|endoftext|> first), against {base['bigram']:.2f} for a bigram model (the word before predicts "
        f"the next) and {base['unigram']:.2f} for word counts. A margin of {margin:.2f} nats over the bigram "
        f"means the model gives the right next token about {math.exp(margin):.2f}× the bigram's "
        "probability, on average: real, but small — a 7-million-parameter model that read 36 plays "
        "mostly knows which words follow which, plus what its induction head copies."
    )


def draw(slots: dict, run: Replay, index: int, live: bool) -> None:
    snap, snaps = run.snapshots[index], run.snapshots
    suffix = f"_{run.step}" if live else ""
    slots["progress"].progress(
        snap.step / run.config.steps,
        text=f"step {snap.step}/{run.config.steps}{around.behind(run, index)} · held-out loss "
        f"{snap.held_out_loss:.3f} (recorded)",
    )
    steps, marker = [s.step for s in snaps], None if live else snap.step
    losses = [loss for loss in run.losses if np.isfinite(loss)]
    with slots["curves"].container():
        held = [s.held_out_loss for s in snaps]
        task = run.record.get("task_steps", 0)
        figure = recorded_curves(losses, steps, held, run.record["baselines"], run.appears(), marker, task)
        chart(figure, key="rep_curves" + suffix)
    with slots["roles"].container():
        scores = {r: np.stack([s.natural[r] for s in snaps]) for r in ("previous", "induction")}
        chart(best_per_layer(steps, scores, marker), key="rep_roles" + suffix)
    with slots["explain"].container():
        (st.success if min(b[2] for b in run.best(index).values()) >= FORMED else st.info)(words(run, index))
    with slots["heads"].container():
        left, right = st.columns(2)
        for column, role in zip((left, right), ("previous", "induction"), strict=True):
            with column:
                heatmap = role_heatmap(
                    snap.natural[role], role, f"every head's {role} score, step {snap.step}"
                )
                chart(heatmap, key=f"rep_{role}" + suffix)


def keep(run: Replay) -> None:
    """Nothing to keep: the recording stays on disk."""


def summary(run: Replay) -> None:
    appears = run.appears()
    st.success(
        f"Replayed {run.step} recorded steps. "
        + (f"An induction head appeared at step {appears}. " if appears else "No induction head formed. ")
        + words(run, -1).split(". ", 1)[0]
        + "."
    )
    layer, head, _ = run.best(-1)["induction"]
    st.page_link(
        pages()["model"],
        label=f"Look inside this model (its induction head {layer}.{head}) in Inside a model",
        icon=":material/open_in_new:",
        query_params=link_params(
            {"model": "shakespeare", "view": "head", "layer": str(layer), "head": str(head)}
        ),
    )


def after() -> None:
    """Nothing below the run."""
