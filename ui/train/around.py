"""What the page shows around Watch it learn's player (player.py): before Play, what it will do and
about how long it takes (timed once per model shape), and what became of a run left behind; while
it plays, who else plays it and how long it waited for a slot; after, the scrub slider and the run's
status. show() plays the held run and draws it with them."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from attention.slots import TRAININGS
from attention.training import shared
from attention.training.run import Run
from ui.slots import session_id
from ui.train.player import View, held, play
from ui.widgets import plural

SLOW = 20.0  # seconds: a run that takes longer at "watch it" pace says so before Play
RUNS: dict[str, type[Run]] = {}  # the kinds of run timed so far, by class name (a plain cache key)


# --- before Play ---------------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=64)
def _seconds_per_step(kind: str, config) -> float:
    return RUNS[kind].seconds_per_step(config)


def seconds_per_step(kind: type[Run], config) -> float:
    """Timed once per model shape (Run.timing_config), cached by the run's name and its config."""
    RUNS[kind.__name__] = kind
    return _seconds_per_step(kind.__name__, kind.timing_config(config))


def before_play(view: View, config, pace: float) -> None:
    """What Play will do and about how long it takes; first, what became of a run thrown away when
    the learner left the page."""
    left = held().get("left")
    if left:
        st.info(
            f"You left the shared run ({left['name']}) at step {left['step']}: it stays with the "
            f"{plural(left['others'], 'other session')} that {'has' if left['others'] == 1 else 'have'} it "
            "open. Press Play to join it again.",
            icon=":material/groups:",
        )
    lost = held().get("lost")
    if lost and shared.SHARED.live(view.RUN, config, but=session_id()):
        st.info(
            f"You left this page while your run ({lost['name']}) was at step {lost['step']}; other "
            "sessions with the same settings still play it. Press Play to join it again.",
            icon=":material/groups:",
        )
    elif lost:
        doing = "training" if lost["running"] else "paused"
        st.warning(
            f"Your run ({lost['name']}) was {doing} at step {lost['step']} of {lost['steps']} when you "
            "left this page. Leaving a page frees the model it trains, so that run is gone: press Play "
            "to start again.",
            icon=":material/history:",
        )
    kind = view.RUN
    if live := shared.SHARED.live(kind, config, but=session_id()):
        n = live.audience.watching(but=session_id())
        st.info(
            f"{plural(n, 'session')} on this server {'is' if n == 1 else 'are'} playing these same "
            f"settings now (step {live.step} of {config.steps}): Play joins that run, with its history.",
            icon=":material/groups:",
        )
    elif shared.SHARED.finished_run(kind, config):
        st.info(
            "These settings were trained on this server already: Play shows that run at once. "
            "Change the seed to train a new one.",
            icon=":material/groups:",
        )
    training = min(kind.limit, config.steps * seconds_per_step(kind, config))
    pauses = config.steps // config.snapshot_every * pace
    st.info(view.plan(config, training, pauses))


# --- while it plays ------------------------------------------------------------------------------


def waited() -> None:
    """Says how long the run waited for a slot, when it did."""
    seconds = held().get("waited", 0.0)
    if seconds >= 1:
        st.caption(
            f"This run waited {seconds:.0f} s for a free training slot "
            f"(this server trains {TRAININGS.capacity} at a time)."
        )


# --- after the loop ------------------------------------------------------------------------------


def scrub(run: Run) -> int:
    """The snapshot to show: the last, or the one the slider picks."""
    steps = [s.step for s in run.snapshots]
    if len(steps) < 2:
        return len(steps) - 1
    picked = st.select_slider(  # a new key whenever the run has grown: it opens on the last snapshot
        "Scrub through the saved snapshots (step)",
        steps,
        steps[-1],
        key=f"tr_scrub_{id(run)}_{len(steps)}",
    )
    return steps.index(picked)


def behind(run: Run, index: int) -> str:
    """Why the snapshot shown is not the run's step (scrubbed back, or paused between snapshots),
    and that a run stopped short is stopped, and where: this line is the one under the buttons."""
    step, last = run.snapshots[index].step, index in (-1, len(run.snapshots) - 1)
    if run.stopped and not run.done:
        if step == run.step:
            return " (stopped here: the model is freed)"
        return f" ({'the last snapshot' if last else 'scrubbed back'}; stopped at step {run.step})"
    if step == run.step:
        return ""
    if last:
        return f" (the last snapshot; the run is at step {run.step})"
    return f" (scrubbed back; the run reached step {run.step})"


def status(run: Run, summary: Callable[[Run], None]) -> None:
    if run.done:
        summary(run)
        waited()
        if held().get("replayed"):
            st.caption(
                "These settings had already been trained on this server (by you or another session), "
                "so this is that run, from its saved snapshots: the same seed gives the same run. "
                "Change the seed to train a new one."
            )
        if run.out_of_time:
            st.warning(f"Stopped at the {run.limit:.0f} s limit per run; use fewer steps or a smaller model.")
    elif run.stopped:
        st.info(f"Stopped at step {run.step}: the model is freed. Press Play to start again.")
    elif others := run.audience.watching(but=session_id()):
        st.info(
            f"Paused for you at step {run.step}; the run goes on for the {plural(others, 'other session')} "
            "playing it (same settings). Resume to watch it again."
        )
    else:
        st.info(f"Paused at step {run.step}. Resume, or scrub back through the snapshots.")


def audience(run: Run, me: str, joined: int) -> str:
    """Who plays this run besides session `me` (which joined it at step `joined`), in words; ""
    when nobody does, or the run is over."""
    others = run.audience.watching(but=me)
    if run.done:
        return ""
    if run.audience.trainer not in (None, me) and run.step == 0:
        return (
            "Waiting: another session pressed Play on these same settings first; this run starts "
            f"when a training slot frees, and {plural(others + 1, 'session')} will watch it together."
        )
    if not others:  # alone; a run another session had left paused says where it was taken up
        return f"You took up at step {joined} a run another session had paused." if joined else ""
    history = f" You joined at step {joined}: the curves before it are the run's history." if joined else ""
    if run.audience.trainer == me:
        return (
            f":material/groups: {plural(others, 'other session')} on this server "
            f"{'is' if others == 1 else 'are'} watching this run: same settings, so one run, trained once."
            + history
        )
    return (
        f":material/groups: Shared run: {plural(others + 1, 'session')} with these settings are watching "
        "it; one of them trains it, and another takes over if it leaves." + history
    )


def show(view: View, run: Run, pace: float) -> None:
    """The held run: played while it plays, then drawn at the scrubbed snapshot, with its status."""
    note = st.empty()
    slots = view.layout()

    def tell() -> None:
        words = audience(run, session_id(), held().get("joined", 0))
        if not words:
            note.empty()
        elif words.startswith("Waiting:"):
            note.info(words, icon=":material/hourglass_top:")
        else:
            note.caption(words)

    play(run, pace, lambda index, live: view.draw(slots, run, index, live), view.keep, tell)
    tell()
    if run.snapshots:
        view.draw(slots, run, scrub(run), False)
    status(run, view.summary)
