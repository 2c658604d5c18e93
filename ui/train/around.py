"""What the page shows around Watch it learn's player (player.py): before Play, what it will do and
about how long it takes (timed once per model shape), and what became of a run left behind; while
it plays, who else plays it and how long it waited for a slot; after, the scrub slider and the run's
status. show() plays the held run and draws it with them."""

from __future__ import annotations

import math
from collections.abc import Callable

import streamlit as st

from attention.i18n import tr, tr_n
from attention.slots import TRAININGS
from attention.training import shared
from attention.training.run import Run
from ui.slots import session_id
from ui.train.player import PACE_LABELS, View, held, play

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


def fast() -> str:
    """The fast pace's label, as the plans quote it."""
    label = PACE_LABELS["fast"]  # (not tr(PACE_LABELS["fast"]): the catalogs would take "fast" for a message)
    return tr(label)


def before_play(view: View, config, pace: float) -> None:
    """What Play will do and about how long it takes; first, what became of a run thrown away when
    the learner left the page."""
    kind = view.RUN
    left_behind(kind, config)
    if live := shared.SHARED.live(kind, config, but=session_id()):
        n = live.audience.watching(but=session_id())
        st.info(
            tr_n(
                "{n} session on this server is playing these same settings now (step {step} of {steps}): "
                "Play joins that run, with its history.",
                "{n} sessions on this server are playing these same settings now (step {step} of {steps}): "
                "Play joins that run, with its history.",
                n,
                n=n,
                step=live.step,
                steps=config.steps,
            ),
            icon=":material/groups:",
        )
    elif shared.SHARED.finished_run(kind, config):
        st.info(
            tr(
                "These settings were trained on this server already: Play shows that run at once. "
                "Change the seed to train a new one."
            ),
            icon=":material/groups:",
        )
    training = min(kind.limit, config.steps * seconds_per_step(kind, config))
    if not live and not shared.SHARED.finished_run(kind, config):
        queue_ahead(training)
    pauses = config.steps // config.snapshot_every * pace
    st.info(view.plan(config, training, pauses))


def queue_ahead(each: float) -> None:
    """Before Play, when every training slot is taken: how many runs are ahead, and about how long
    the wait is (each run ahead taken to be as long as this one: `each` seconds)."""
    running, waiting = TRAININGS.running, TRAININGS.waiting
    if running < TRAININGS.capacity:
        return
    ahead = waiting + 1  # those in line, and a slot to free
    minutes = max(1, round(math.ceil(ahead / TRAININGS.capacity) * each / 60))
    st.warning(
        tr_n(
            "{n} run is ahead of yours on this server: Play waits about {minutes} min for a free slot.",
            "{n} runs are ahead of yours on this server: Play waits about {minutes} min for a free slot.",
            ahead,
            n=ahead,
            minutes=minutes,
        ),
        icon=":material/hourglass_top:",
    )


def left_behind(kind: type[Run], config) -> None:
    """What became of a run this session left: to the others that have it, or thrown away when the
    learner left the page (its name said from its kind and config, in this rerun's language)."""
    if left := held().get("left"):
        st.info(
            tr_n(
                "You left the shared run ({name}) at step {step}: it stays with the {n} other session that "
                "has it open. Press Play to join it again.",
                "You left the shared run ({name}) at step {step}: it stays with the {n} other sessions that "
                "have it open. Press Play to join it again.",
                left["others"],
                name=left["kind"].title(left["config"]),
                step=left["step"],
                n=left["others"],
            ),
            icon=":material/groups:",
        )
    lost = held().get("lost")
    if not lost:
        return
    name, step = lost["kind"].title(lost["config"]), lost["step"]
    if shared.SHARED.live(kind, config, but=session_id()):
        said = tr(
            "You left this page while your run ({name}) was at step {step}; other sessions with the same "
            "settings still play it. Press Play to join it again.",
            name=name,
            step=step,
        )
        st.info(said, icon=":material/groups:")
    elif lost["running"]:
        said = tr(
            "Your run ({name}) was training at step {step} of {steps} when you left this page. Leaving a "
            "page frees the model it trains, so that run is gone: press Play to start again.",
            name=name,
            step=step,
            steps=lost["steps"],
        )
        st.warning(said, icon=":material/history:")
    else:
        said = tr(
            "Your run ({name}) was paused at step {step} of {steps} when you left this page. Leaving a "
            "page frees the model it trains, so that run is gone: press Play to start again.",
            name=name,
            step=step,
            steps=lost["steps"],
        )
        st.warning(said, icon=":material/history:")


# --- while it plays ------------------------------------------------------------------------------


def waited() -> None:
    """Says how long the run waited for a slot, when it did."""
    seconds = held().get("waited", 0.0)
    if seconds >= 1:
        st.caption(
            tr(
                "This run waited {seconds:.0f} s for a free training slot (this server trains {capacity} at "
                "a time).",
                seconds=seconds,
                capacity=TRAININGS.capacity,
            )
        )


# --- after the loop ------------------------------------------------------------------------------


def scrub(run: Run) -> int:
    """The snapshot to show: the last, or the one the slider picks."""
    steps = [s.step for s in run.snapshots]
    if len(steps) < 2:
        return len(steps) - 1
    picked = st.select_slider(  # a new key whenever the run has grown: it opens on the last snapshot
        tr("Scrub through the saved snapshots (step)"),
        steps,
        steps[-1],
        key=f"tr_scrub_{id(run)}_{len(steps)}",
    )
    return steps.index(picked)


def at_step(run: Run, index: int) -> str:
    """The step shown, of the run's steps, and why it is not the run's step (scrubbed back, or
    paused between snapshots), and that a run stopped short is stopped, and where: the first item
    of the line under the buttons."""
    step, last = run.snapshots[index].step, index in (-1, len(run.snapshots) - 1)
    values = {"step": step, "steps": run.config.steps, "at": run.step}
    if run.stopped and not run.done:
        if step == run.step:
            return tr("step {step}/{steps} (stopped here: the model is freed)", **values)
        if last:
            return tr("step {step}/{steps} (the last snapshot; stopped at step {at})", **values)
        return tr("step {step}/{steps} (scrubbed back; stopped at step {at})", **values)
    if step == run.step:
        return tr("step {step}/{steps}", **values)
    if last:
        return tr("step {step}/{steps} (the last snapshot; the run is at step {at})", **values)
    return tr("step {step}/{steps} (scrubbed back; the run reached step {at})", **values)


def status(run: Run, summary: Callable[[Run], None]) -> None:
    if run.done:
        summary(run)
        waited()
        if held().get("replayed"):
            st.caption(
                tr(
                    "These settings had already been trained on this server (by you or another session), "
                    "so this is that run, from its saved snapshots: the same seed gives the same run. "
                    "Change the seed to train a new one."
                )
            )
        if run.out_of_time:
            st.warning(
                tr(
                    "Stopped at the {limit:.0f} s limit per run; use fewer steps or a smaller model.",
                    limit=run.limit,
                )
            )
    elif run.stopped:
        st.info(tr("Stopped at step {step}: the model is freed. Press Play to start again.", step=run.step))
    elif others := run.audience.watching(but=session_id()):
        st.info(
            tr_n(
                "Paused for you at step {step}; the run goes on for the {n} other session playing it (same "
                "settings). Resume to watch it again.",
                "Paused for you at step {step}; the run goes on for the {n} other sessions playing it (same "
                "settings). Resume to watch it again.",
                others,
                step=run.step,
                n=others,
            )
        )
    else:
        st.info(tr("Paused at step {step}. Resume, or scrub back through the snapshots.", step=run.step))


def waiting(run: Run, me: str) -> bool:
    """Session `me` waits for another session's run of its settings to start."""
    return not run.done and run.audience.trainer not in (None, me) and run.step == 0


def audience(run: Run, me: str, joined: int) -> str:
    """Who plays this run besides session `me` (which joined it at step `joined`), in words; ""
    when nobody does, or the run is over."""
    others = run.audience.watching(but=me)
    if run.done:
        return ""
    if waiting(run, me):
        return tr_n(
            "Waiting: another session pressed Play on these same settings first; this run starts when a "
            "training slot frees, and {n} session will watch it together.",
            "Waiting: another session pressed Play on these same settings first; this run starts when a "
            "training slot frees, and {n} sessions will watch it together.",
            others + 1,
            n=others + 1,
        )
    if not others:  # alone; a run another session had left paused says where it was taken up
        return (
            tr("You took up at step {step} a run another session had paused.", step=joined) if joined else ""
        )
    history = ""
    if joined:
        history = " " + tr(
            "You joined at step {step}: the curves before it are the run's history.", step=joined
        )
    if run.audience.trainer == me:
        return (
            ":material/groups: "
            + tr_n(
                "{n} other session on this server is watching this run: same settings, so one run, "
                "trained once.",
                "{n} other sessions on this server are watching this run: same settings, so one run, "
                "trained once.",
                others,
                n=others,
            )
            + history
        )
    return (
        ":material/groups: "
        + tr_n(
            "Shared run: {n} session with these settings is watching it; one of them trains it, and "
            "another takes over if it leaves.",
            "Shared run: {n} sessions with these settings are watching it; one of them trains it, and "
            "another takes over if it leaves.",
            others + 1,
            n=others + 1,
        )
        + history
    )


def show(view: View, run: Run, pace: float) -> None:
    """The held run: played while it plays, then drawn at the scrubbed snapshot, with its status."""
    note = st.empty()
    slots = view.layout()

    def tell() -> None:
        words = audience(run, session_id(), held().get("joined", 0))
        if not words:
            note.empty()
        elif waiting(run, session_id()):
            note.info(words, icon=":material/hourglass_top:")
        else:
            note.caption(words)

    play(run, pace, lambda index, live: view.draw(slots, run, index, live), view.keep, tell)
    tell()
    if run.snapshots:
        view.draw(slots, run, scrub(run), False)
    status(run, view.summary)
