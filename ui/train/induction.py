"""Watch it learn's view of the induction run (attention/training/induction.py): the book's
GPTModel (2 layers) trained live on repeated spans, the phase change on the curves, each head's
role as it forms, and the finished model opened in Inside a model. The player (ui/train/player.py) runs
it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from attention.errors import ConfigError
from attention.figures.train import pattern_figure, phase_curves, role_curves
from attention.i18n import N_, tr, tr_n
from attention.model import catalog
from attention.model.lab import CLEAR_ROLE
from attention.training import induction
from attention.training.induction import MAX_SECONDS, MAX_STEPS, InductionConfig, InductionTrainer
from ui.chrome import pages
from ui.model import caches as models
from ui.train import around, player
from ui.url import link_params
from ui.widgets import HALF_PX, chart, literal, narrow

TASKS = {"induction": (induction.LABEL, induction.GOAL)}
SETTINGS = ("ind_layers", "ind_steps", "ind_seed")
RUN = InductionTrainer
RESULTS = "_ind_results"  # finished runs' figures, for the 2-layer vs 1-layer table (small)
LAYERS = {2: N_("2 layers: can form an induction head"), 1: N_("1 layer: the control, cannot")}
FORMED = 0.5  # a role score above this: the head does the job (most of its weight where it should be)
INTRO = N_(
    "The book's `GPTModel` (chapter 4: embeddings, blocks of `MultiHeadAttention` and a feed-forward "
    "layer, residual paths) learns sequences of random tokens in which a stretch repeats: "
    "`<s> t17 t3 … | t40 t9 t81 … | t40 t9 t81 …`. The first copy cannot be predicted; the second "
    "can, by finding where the current token appeared before and copying what followed. That needs "
    "**two heads in two layers**: a previous-token head, then an induction head that reads it. Watch "
    "the loss fall in one sudden drop — the *phase change* — as the two heads form."
)
PROBE = N_(
    "The example sequence (never trained on): a start token, 4 random tokens, then 10 tokens "
    "twice. An induction head on the second copy looks one place right of the earlier copy of its "
    "own token: a diagonal stripe below the main one. Blank rows: nothing to copy there yet."
)


def defaults(task: str = "induction") -> None:
    """The run's own settings, where the learner has none yet."""
    config = InductionConfig()
    for name, value in (("layers", config.layers), ("steps", config.steps), ("seed", config.seed)):
        st.session_state.setdefault(f"ind_{name}", value)


def controls(task: str = "induction") -> InductionConfig:
    st.markdown(tr(INTRO))
    s = st.session_state
    defaults()
    c = st.columns([3, 1, 1])
    layers = {n: tr(label) for n, label in LAYERS.items()}  # said now: a format_func may run elsewhere
    c[0].radio(tr("Model"), list(layers), key="ind_layers", format_func=layers.get, horizontal=True)
    # TRANSLATORS: a setting: how many training steps
    c[1].number_input(tr("steps"), 100, MAX_STEPS, step=100, key="ind_steps")
    seed_help = tr("The weights' initialisation and the sequences drawn.")
    # TRANSLATORS: a setting: the random seed
    c[2].number_input(tr("seed"), 0, 2**31 - 1, key="ind_seed", help=seed_help)
    return InductionConfig(layers=int(s["ind_layers"]), steps=int(s["ind_steps"]), seed=int(s["ind_seed"]))


def _control() -> None:
    """One click: the same run with one layer."""
    st.session_state["ind_layers"] = 1
    player.new_run()


def extras(config: InductionConfig) -> None:
    if config.layers == 2 and not player.held()["running"]:
        label = tr("Run the 1-layer control (same steps, same seed)")
        st.button(label, icon=":material/compare_arrows:", key="ind_control", on_click=_control)


def plan(config: InductionConfig, training: float, pauses: float) -> str:
    said = tr_n(
        "Press Play: {steps} step, each on a batch of sequences (batch size: {batch}), about "
        "{seconds:.0f} s here (at most {limit:.0f} s of training).",
        "Press Play: {steps} steps, each on a batch of sequences (batch size: {batch}), about "
        "{seconds:.0f} s here (at most {limit:.0f} s of training).",
        config.steps,
        steps=config.steps,
        batch=config.batch,
        seconds=training + pauses,
        limit=MAX_SECONDS,
    )
    if not pauses:
        return said
    return (
        said
        + " "
        + tr(
            "{pauses:.0f} s of them pauses to watch; '{fast}' skips them.", pauses=pauses, fast=around.fast()
        )
    )


def layout() -> dict:
    slots = {"progress": st.empty()}
    left, right = st.columns(2)
    slots["curves"], slots["roles"] = left.empty(), right.empty()
    slots["explain"], slots["patterns"] = st.empty(), st.empty()
    return slots


def control_words(snap, best: dict, chance: float) -> str:
    """The 1-layer control at a snapshot, in words written from its numbers: what one layer can do
    with the repeat (repeat tokens it has seen) and what it cannot (find which one comes next)."""
    il, ih, ind = best["induction"]
    second, first = snap.second_copy, snap.first_copy
    words = tr(
        "**One layer: no induction head can form.** A head here can match its query against each key's "
        "own token, but no key carries “the token before me” yet — that takes a head in an earlier "
        "layer. Best induction score {score:.2f} (head {head}). At step {step}: {second:.1%} right "
        "on the second copy, {first:.1%} on the first (chance: {chance:.1%}).",
        score=ind,
        head=f"{il}.{ih}",
        step=snap.step,
        second=second,
        first=first,
        chance=chance,
    )
    if second < max(2 * first, first + 0.03):
        more = tr("No better on the second copy than on the first yet: nothing learned from the repeat.")
    elif snap.from_context >= 0.5:
        more = tr(
            "One layer can still repeat tokens it has seen: {seen:.0%} of its guesses on the "
            "second copy are tokens already in the sequence, and there the next token always is one of "
            "them (on the first copy it is usually new). What one layer cannot do is tell which of them "
            "comes next — the token after the earlier copy of the current token — so "
            "{wrong:.0%} of its guesses on the second copy are still wrong.",
            seen=snap.from_context,
            wrong=1 - second,
        )
    else:
        more = tr(
            "It has learned something from the repeat, but without a previous-token head it cannot find the "
            "token after the earlier copy of the current one: {wrong:.0%} of its guesses there are wrong.",
            wrong=1 - second,
        )
    return f"{words} {more}"


def _explain(run: InductionTrainer, index: int) -> None:
    """Names the heads that do the job at this snapshot, in words."""
    snap = run.snapshots[index]
    best = run.best_heads(index)
    if run.config.layers == 1:
        st.info(control_words(snap, best, run.chance))
        return
    (pl, ph, prev), (il, ih, ind) = best["previous"], best["induction"]
    values = {"previous": f"{pl}.{ph}", "induction": f"{il}.{ih}", "layer": il, "prev": prev, "ind": ind}
    values |= {"second": snap.second_copy, "first": snap.first_copy}
    if prev >= FORMED:
        lines = [
            tr(
                "**Head {previous} is a previous-token head** ({prev:.2f} of its weight on the token just "
                "before): it copies “the token before me” into each position.",
                **values,
            )
        ]
    else:
        lines = [tr("No previous-token head yet in layer 0 (best: head {previous}, {prev:.2f}).", **values)]
    if ind >= FORMED:
        lines.append(
            tr(
                "**Head {induction} is an induction head** ({ind:.2f} of its weight on the token that "
                "followed the earlier copy of the current token): its query “my token” matches the key "
                "written by head {previous}, and it reads out what came next — {second:.0%} right on the "
                "second copy, {first:.0%} on the first.",
                **values,
            )
        )
    else:
        lines.append(
            tr(
                "No induction head yet in layer {layer} (best: head {induction}, {ind:.2f}); {second:.0%} "
                "right on the second copy, {first:.0%} on the first.",
                **values,
            )
        )
    (st.success if prev >= FORMED and ind >= FORMED else st.info)(" ".join(lines))


def draw(slots: dict, run: InductionTrainer, index: int, live: bool) -> None:
    # Copies, snapshots first: another session's thread may be adding to the run (a shared run),
    # and one drawing must read one moment of it (every snapshot's step has its loss by then).
    snaps = list(run.snapshots)
    losses, snap, c = list(run.losses), snaps[index], run.config
    suffix = player.live_key(live)
    loss = f"{losses[snap.step - 1]:.3f}" if snap.step else "—"
    line = [
        around.at_step(run, index),
        tr("loss {loss}", loss=loss),
        tr("second copy {second:.1%} right", second=snap.second_copy),
        tr("{seconds:.1f} s of training", seconds=run.seconds),
    ]
    slots["progress"].progress(snap.step / c.steps, text=" · ".join(line))
    steps = [s.step for s in snaps]
    marker = None if live else snap.step
    with slots["curves"].container():
        second, first = [s.second_copy for s in snaps], [s.first_copy for s in snaps]
        curves = phase_curves(losses, steps, second, first, run.phase_step, marker)
        chart(curves, key="ind_phase" + suffix, width=HALF_PX)
    with slots["roles"].container():
        previous, induction = np.stack([s.previous for s in snaps]), np.stack([s.induction for s in snaps])
        chart(role_curves(steps, previous, induction, marker), key="ind_roles" + suffix, width=HALF_PX)
    with slots["explain"].container():
        _explain(run, index)
    with slots["patterns"].container():
        tokens, last = run.probe_tokens(), c.layers - 1
        shown = [(0, "previous", tr("previous-token head"))] if c.layers > 1 else []
        for layer, role, name in [*shown, (last, "induction", tr("induction head"))]:
            cols = 2 if narrow() else None
            figure = pattern_figure(
                snap.probe[layer], run.ideal(role), tokens, snap.step, layer, name, 400, cols
            )
            chart(figure, key=f"ind_layer{layer}" + suffix)
        st.caption(tr(PROBE))


def keep(run: InductionTrainer) -> None:
    """A finished run: its model saved for Inside a model (once: every session that played a
    shared run keeps it, the first one while the model is still there), its figures kept for the
    table, and the run listed among this session's models."""
    if run.saved is None and not run.stopped:
        try:
            source, folder = catalog.new_run()
        except ConfigError as error:  # the runs folder was refused (another account's, open to others)
            st.warning(literal(str(error)))
        else:
            run.save(folder)
            run.saved = source
    if run.saved is not None and run.saved in models.own_runs():
        return  # this session kept it already
    best, snap = run.best_heads(), run.snapshots[-1]
    (pl, ph, prev), (il, ih, ind) = best["previous"], best["induction"]
    row = {  # values: after() names the columns, and the model, in the language it draws in
        "layers": run.config.layers,
        "seed": run.config.seed,
        "steps": run.step,
        "phase": "—" if run.phase_step is None else str(run.phase_step),
        "previous": f"{pl}.{ph}: {prev:.2f}",
        "induction": f"{il}.{ih}: {ind:.2f}",
        "second": f"{snap.second_copy:.1%}",
        "first": f"{snap.first_copy:.1%}",
        "seconds": round(run.seconds, 1),
    }
    st.session_state[RESULTS] = [*st.session_state.get(RESULTS, [])[-5:], row]
    if run.saved is not None:
        st.session_state[models.OWN_RUNS] = [run.saved, *models.own_runs()]  # listed for this session


def _model_link(params: dict[str, str], label: str, icon: str = ":material/open_in_new:") -> None:
    st.page_link(pages()["model"], label=label, icon=icon, query_params=link_params(params))


def _open_link(run: InductionTrainer) -> None:
    """The saved model one click away: on its best induction head and in the lab without it, when
    that head is clear (a score of CLEAR_ROLE or more, as Inside a model's head roles require);
    otherwise on its previous-token head if that one is clear, and on the heads' roles."""
    if run.saved is None:
        return
    best = run.best_heads()
    params = {"model": run.saved, "text": " ".join(run.probe_tokens())}
    layer, head, score = best["induction"]
    if score >= CLEAR_ROLE:
        at = params | {"view": "head", "layer": str(layer), "head": str(head)}
        _model_link(
            at, tr("Open this model's best induction head ({head}) in Inside a model", head=f"{layer}.{head}")
        )
        _model_link(  # the lab: does the copy break without it? (its experiments knock out all of them)
            at | {"view": "lab", "ko": f"{layer}.{head}"},
            tr("Test it: knock out head {head} and see whether the copy breaks", head=f"{layer}.{head}"),
            ":material/science:",
        )
        return
    st.caption(
        tr(
            "No head of this model is an induction head: the best, {head}, scores {score:.2f} (a clear role "
            "scores {clear} or more), so there is none to open or knock out.",
            head=f"{layer}.{head}",
            score=score,
            clear=CLEAR_ROLE,
        )
    )
    pl, ph, prev = best["previous"]
    if prev >= CLEAR_ROLE:
        at = params | {"view": "head", "layer": str(pl), "head": str(ph)}
        said = tr(
            "Open its previous-token head ({head}, {score:.2f}) in Inside a model",
            head=f"{pl}.{ph}",
            score=prev,
        )
        _model_link(at, said)
    _model_link(params | {"view": "roles"}, tr("See what its heads do instead: Head roles in Inside a model"))


def summary(run: InductionTrainer) -> None:
    snap = run.snapshots[-1]
    phase = tr("No phase change.")
    if run.phase_step is not None:
        phase = tr(
            "The phase change came at step {step} ({seconds:.1f} s).",
            step=run.phase_step,
            seconds=run.phase_seconds,
        )
    finished = tr_n(
        "Finished {steps} step in {seconds:.1f} s.",
        "Finished {steps} steps in {seconds:.1f} s.",
        run.step,
        steps=run.step,
        seconds=run.seconds,
    )
    copies = tr(
        "Second copy {second:.1%} right, first copy {first:.1%} (chance).",
        second=snap.second_copy,
        first=snap.first_copy,
    )
    st.success(f"{finished} {phase} {copies}")
    _open_link(run)


def after() -> None:
    """The finished runs of this session, two layers against one."""
    rows = st.session_state.get(RESULTS)
    if rows:
        st.markdown(tr("**Runs so far** (this session): two layers against one, the same budget."))
        # a table, not a data grid: its headers wrap, so all nine columns fit the page in any language
        st.table(pd.DataFrame([_row(row) for row in rows]), hide_index=True)


def _row(row: dict) -> dict:
    """A finished run's row of the table, its columns and model named in this rerun's language."""
    n = row["layers"]
    return {
        # TRANSLATORS: a column of the runs table: the model (1 or 2 layers)
        tr("model"): tr_n("{n} layer", "{n} layers", n, n=n),
        # TRANSLATORS: a column of the runs table: the random seed
        tr("seed"): row["seed"],
        # TRANSLATORS: a column of the runs table: how many steps were trained
        tr("steps"): row["steps"],
        tr("phase change at step"): row["phase"],
        tr("best previous-token head"): row["previous"],
        tr("best induction head"): row["induction"],
        tr("right on the second copy"): row["second"],
        tr("right on the first copy"): row["first"],
        tr("seconds"): f"{row['seconds']:.1f}",
    }
