"""Watch it learn's induction run: the book's GPTModel (2 layers) trained live on repeated spans,
the phase change on the curves, each head's role as it forms, and the finished model opened in
Inside a model. The run machinery (Play / Pause / Stop, scrub) is ui/training.py's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from attention.figures.training import pattern_figure, phase_curves, role_curves
from attention.model import catalog
from attention.training.induction import MAX_SECONDS, MAX_STEPS, InductionConfig, InductionTrainer
from ui import training
from ui.chrome import pages
from ui.url import link_params
from ui.widgets import chart, narrow

SETTINGS = ("ind_layers", "ind_steps", "ind_seed")
RESULTS = "_ind_results"  # finished runs' figures, for the 2-layer vs 1-layer table (small)
LAYERS = {2: "2 layers: can form an induction head", 1: "1 layer: the control, cannot"}
FORMED = 0.5  # a role score above this: the head does the job (most of its weight where it should be)


def defaults() -> None:
    config = InductionConfig()
    for name, value in (("layers", config.layers), ("steps", config.steps), ("seed", config.seed)):
        st.session_state.setdefault(f"ind_{name}", value)


@st.cache_data(show_spinner=False, max_entries=16)
def _seconds_per_step(config: InductionConfig) -> float:
    return training.step_seconds(InductionTrainer(config))


def seconds_per_step(config: InductionConfig) -> float:
    """Timed once per model shape: the seed and the run's length do not change a step's cost."""
    return _seconds_per_step(replace(config, steps=MAX_STEPS, snapshot_every=MAX_STEPS, seed=0))


def _control() -> None:
    """One click: the same run with one layer."""
    st.session_state["ind_layers"] = 1
    training.new_run()


def _controls() -> InductionConfig:
    s = st.session_state
    defaults()
    c = st.columns([3, 1, 1])
    c[0].radio("Model", list(LAYERS), key="ind_layers", format_func=LAYERS.get, horizontal=True)
    c[1].number_input("steps", 100, MAX_STEPS, step=100, key="ind_steps")
    c[2].number_input("seed", 0, 2**31 - 1, key="ind_seed",
                      help="The weights' initialisation and the sequences drawn.")  # fmt: skip
    return InductionConfig(layers=int(s["ind_layers"]), steps=int(s["ind_steps"]), seed=int(s["ind_seed"]))


def _explain(trainer: InductionTrainer, index: int) -> None:
    """Names the heads that do the job at this snapshot, in words."""
    snap = trainer.snapshots[index]
    best = trainer.best_heads(index)
    (pl, ph, prev), (il, ih, ind) = best["previous"], best["induction"]
    accuracy = f"{snap.second_copy:.0%} right on the second copy, {snap.first_copy:.0%} on the first"
    if trainer.config.layers == 1:
        st.info(
            f"**One layer: no induction head can form.** A head here can match its query against each "
            f"key's own token, but no key carries “the token before me” yet — that takes a head in an "
            f"earlier layer. Best induction score {ind:.2f} (head {il}.{ih}); {accuracy}: at step "
            f"{snap.step} the model can only guess."
        )
        return
    lines = []
    if prev >= FORMED:
        lines.append(
            f"**Head {pl}.{ph} is a previous-token head** ({prev:.2f} of its weight on the token just "
            "before): it copies “the token before me” into each position."
        )
    else:
        lines.append(f"No previous-token head yet in layer 0 (best: head {pl}.{ph}, {prev:.2f}).")
    if ind >= FORMED:
        lines.append(
            f"**Head {il}.{ih} is an induction head** ({ind:.2f} of its weight on the token that followed "
            "the earlier copy of the current token): its query “my token” matches the key written by "
            f"head {pl}.{ph}, and it reads out what came next — {accuracy}."
        )
    else:
        lines.append(f"No induction head yet in layer {il} (best: head {il}.{ih}, {ind:.2f}); {accuracy}.")
    (st.success if prev >= FORMED and ind >= FORMED else st.info)(" ".join(lines))


def _draw(slots: dict, trainer: InductionTrainer, index: int, live: bool) -> None:
    snap = trainer.snapshots[index]
    suffix = f"_{trainer.step}" if live else ""
    c = trainer.config
    back = training.behind(trainer, index)
    loss = trainer.losses[snap.step - 1] if snap.step else float("nan")
    slots["progress"].progress(snap.step / c.steps, text=(
        f"step {snap.step}/{c.steps}{back} · loss {'—' if loss != loss else f'{loss:.3f}'} · second copy "
        f"{snap.second_copy:.1%} right · {trainer.seconds:.1f} s of training"))  # fmt: skip
    snaps = trainer.snapshots
    steps = [s.step for s in snaps]
    marker = None if live else snap.step
    with slots["curves"].container():
        chart(phase_curves(trainer.losses, steps, [s.second_copy for s in snaps],
                           [s.first_copy for s in snaps], trainer.phase_step, marker),
              key="ind_phase" + suffix)  # fmt: skip
    with slots["roles"].container():
        previous, induction = np.stack([s.previous for s in snaps]), np.stack([s.induction for s in snaps])
        chart(role_curves(steps, previous, induction, marker), key="ind_roles" + suffix)
    with slots["explain"].container():
        _explain(trainer, index)
    with slots["patterns"].container():
        tokens, last = trainer.probe_tokens(), c.layers - 1
        shown = [(0, "previous", "previous-token head")] if c.layers > 1 else []
        for layer, role, name in [*shown, (last, "induction", "induction head")]:
            weights, ideal = snap.probe[layer], trainer.ideal(role)
            figure = pattern_figure(
                weights, ideal, tokens, snap.step, layer, name, 400, 2 if narrow() else None
            )
            chart(figure, key=f"ind_layer{layer}" + suffix)
        st.caption(
            "The example sequence (never trained on): a start token, 4 random tokens, then 10 tokens "
            "twice. An induction head on the second copy looks one place right of the earlier copy of its "
            "own token: a diagonal stripe below the main one. Blank rows: nothing to copy there yet."
        )


def _save(trainer: InductionTrainer) -> None:
    """A finished run: its model saved for Inside a model, its figures kept for the table."""
    source, folder = catalog.new_run()
    trainer.save(folder)
    best = trainer.best_heads()
    snap = trainer.snapshots[-1]
    row = {
        "model": LAYERS[trainer.config.layers].split(":")[0],
        "seed": trainer.config.seed,
        "steps": trainer.step,
        "phase change at step": "—" if trainer.phase_step is None else str(trainer.phase_step),
        "best previous-token head": f"{best['previous'][0]}.{best['previous'][1]}: {best['previous'][2]:.2f}",
        "best induction head": f"{best['induction'][0]}.{best['induction'][1]}: {best['induction'][2]:.2f}",
        "right on the second copy": f"{snap.second_copy:.1%}",
        "right on the first copy": f"{snap.first_copy:.1%}",
        "seconds": round(trainer.seconds, 1),
    }
    st.session_state[RESULTS] = [*st.session_state.get(RESULTS, [])[-5:], row]
    trainer.saved = source


def _open_link(trainer: InductionTrainer) -> None:
    source = getattr(trainer, "saved", None)
    if source is None:
        return
    layer, head, _ = trainer.best_heads()["induction"]
    st.page_link(
        pages()["model"],
        label=f"Open this model's best induction head ({layer}.{head}) in Inside a model",
        icon=":material/open_in_new:",
        query_params=link_params(
            {
                "model": source,
                "view": "head",
                "layer": str(layer),
                "head": str(head),
                "text": " ".join(trainer.probe_tokens()),
            }
        ),  # fmt: skip
    )


def view(pace: float) -> None:
    st.markdown(
        "The book's `GPTModel` (chapter 4: embeddings, blocks of `MultiHeadAttention` and a feed-forward "
        "layer, residual paths) learns sequences of random tokens in which a stretch repeats: "
        "`<s> t17 t3 … | t40 t9 t81 … | t40 t9 t81 …`. The first copy cannot be predicted; the second "
        "can, by finding where the current token appeared before and copying what followed. That needs "
        "**two heads in two layers**: a previous-token head, then an induction head that reads it. Watch "
        "the loss fall in one sudden drop — the *phase change* — as the two heads form."
    )
    config = _controls()
    trainer = training.current(config, InductionTrainer)
    training.run_buttons(trainer)
    if config.layers == 2 and not training.held()["running"]:
        st.button("Run the 1-layer control (same steps, same seed)", icon=":material/compare_arrows:",
                  key="ind_control", on_click=_control)  # fmt: skip
    if trainer is None:
        estimate = min(MAX_SECONDS, config.steps * seconds_per_step(config))
        pauses = config.steps // config.snapshot_every * pace
        st.info(
            f"Press Play: {config.steps} steps of {config.batch} sequences, about {estimate + pauses:.0f} s "
            f"here (at most {MAX_SECONDS:.0f} s of training)."
            + (f" {pauses:.0f} s of them pauses to watch; 'as fast as it goes' skips them." if pauses else "")
        )
        _results()
        return
    slots = {"progress": st.empty()}
    left, right = st.columns(2)
    slots["curves"], slots["roles"] = left.empty(), right.empty()
    slots["explain"], slots["patterns"] = st.empty(), st.empty()
    draw = lambda index, live: _draw(slots, trainer, index, live)  # noqa: E731
    training.play(trainer, config.snapshot_every, pace, draw, finish=_save)
    _draw(slots, trainer, training.scrub(trainer), live=False)

    def finished() -> None:
        snap = trainer.snapshots[-1]
        phase = (
            f"The phase change came at step {trainer.phase_step} ({trainer.phase_seconds:.1f} s). "
            if trainer.phase_step is not None
            else "No phase change. "
        )
        st.success(
            f"Finished {trainer.step} steps in {trainer.seconds:.1f} s. {phase}Second copy "
            f"{snap.second_copy:.1%} right, first copy {snap.first_copy:.1%} (chance)."
        )
        _open_link(trainer)

    training.status(trainer, finished, MAX_SECONDS)
    _results()


def _results() -> None:
    rows = st.session_state.get(RESULTS)
    if rows:
        st.markdown("**Runs so far** (this session): two layers against one, the same budget.")
        st.dataframe(rows, hide_index=True)
