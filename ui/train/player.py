"""Watch it learn's player, for any Run (attention/training/run.py): the run a session holds, Play /
Pause / Stop and the training loop (the words around them, the scrub slider and show(): around.py).
A view (ui/train/tiny.py, ui/train/induction.py) says what to draw; `View` lists what it gives.

The buttons act in callbacks, which run before the page: so the run that a click starts already
draws Pause enabled (a Pause drawn disabled during training could never be clicked). Streamlit
starts the rerun a click asks for at once, in a thread of its own, while the previous rerun may
still be inside run.train(): Pause and Stop wait for the step in flight (Run.pause, Run.stop), and
a rerun that goes on playing takes the run over with a new lease, so one loop trains at a time.

Runs are shared by their settings (attention.training.shared): Play on settings another session
is playing joins that run, one session's loop trains it and the others' loops watch it; Pause and
Stop leave it to the others, and a finished run replays at once for whoever plays it next.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Protocol

import streamlit as st

from attention.i18n import N_, tr
from attention.slots import TRAININGS
from attention.training import shared
from attention.training.run import Run
from ui.slots import session_id, wait_for

HELD = "_held_train"  # app.py drops it when the learner leaves this page (frees the model)
NOTE = "_train_note"  # what the held run was doing: survives leaving the page, unlike HELD
KEPT = "_train_settings"  # the page's settings, kept while the learner is elsewhere
PACES = {"watch": 0.15, "fast": 0.0}  # seconds between snapshots; either way the thread yields
PACE_LABELS = {"watch": N_("watch it (a short pause per snapshot)"), "fast": N_("as fast as it goes")}
WATCH = 0.5  # seconds between a watcher's looks at a run another session trains


class View(Protocol):
    """What a view module gives the player and the page."""

    TASKS: dict[str, tuple[str, str]]  # task key -> (label, the pattern that solves it), both N_
    SETTINGS: tuple[str, ...]  # its widgets' keys, kept while the learner is on another page
    RUN: type[Run]

    def defaults(self, task: str) -> None: ...  # the task's own settings into the widgets
    def controls(self, task: str): ...  # its words and knobs -> the run's config
    def extras(self, config) -> None: ...  # buttons beside Play / Pause / Stop
    def plan(self, config, training: float, pauses: float) -> str: ...  # what Play will do (tr)
    def layout(self) -> dict: ...  # the placeholders draw() fills
    def draw(self, slots: dict, run, index: int, live: bool) -> None: ...
    def keep(self, run) -> None: ...  # a finished run, before its model is freed
    def summary(self, run) -> None: ...  # the words under a finished run
    def after(self) -> None: ...  # below the run


# --- the page's settings ------------------------------------------------------------------------


_DRAWS = itertools.count()


def live_key(live: bool) -> str:
    """A key's suffix for a live redraw of a run's charts: fresh at every draw ("" for the scrubbed
    view). Not the run's step: one script run can draw the same step twice (a snapshot that lands
    after the step was drawn, while another session trains it): 30 Plays at once raised
    StreamlitDuplicateElementKey (benchmarks/classroom.py --mix play)."""
    return f"_{next(_DRAWS)}" if live else ""


def pick(views: dict[str, View]) -> tuple[str, float]:
    """The task and the pace (seconds between snapshots); every setting is kept while the learner
    is on another page, and comes back with them."""
    s = st.session_state
    if "tr_task" not in s:  # a first visit, or back from another page (Streamlit forgot the widgets)
        s["tr_task"] = first = next(iter(views))
        views[first].defaults(first)
        s.update(s.get(KEPT, {}))
    # the words said now, in this rerun's language: a format_func may be called from another thread
    labels = {key: tr(label) for view in views.values() for key, (label, _) in view.TASKS.items()}
    paces = {key: tr(label) for key, label in PACE_LABELS.items()}
    st.selectbox(
        tr("Task"),
        list(views),
        key="tr_task",
        format_func=labels.get,
        on_change=lambda: _defaults(views),
    )
    task = s["tr_task"]
    # TRANSLATORS: {goal} names the attention pattern that solves the task, a short phrase (e.g. the previous
    # token)
    st.caption(tr("The pattern that solves it: {goal}.", goal=tr(views[task].TASKS[task][1])))
    pace = st.radio(tr("Pace"), list(PACES), horizontal=True, key="tr_pace", format_func=paces.get)
    settings = ("tr_task", "tr_pace", *dict.fromkeys(k for view in views.values() for k in view.SETTINGS))
    s[KEPT] = {k: s[k] for k in settings if k in s}
    return task, PACES[pace]


def _defaults(views: dict[str, View]) -> None:
    task = st.session_state["tr_task"]
    views[task].defaults(task)


# --- the held run and its buttons ---------------------------------------------------------------


def held() -> dict:
    """This session's run: {"run", "running", "ticket", "waited", "lost"}. Made afresh after the
    learner left the page; "lost" then says what the run thrown away was doing."""
    s = st.session_state
    if HELD not in s:
        s[HELD] = {"run": None, "running": False, "lost": s.pop(NOTE, None)}
    return s[HELD]


def active() -> bool:
    """A run is held (playing, paused or finished): the page is about its curves now."""
    h = st.session_state.get(HELD)
    return bool(h and (h["run"] is not None or h["running"]))


def current(config, kind: type[Run]) -> Run | None:
    """The held run for `config`: let go when the settings changed; when Play asked for it, the run
    of these settings on this server (attention.training.shared): a live one is joined, a finished
    one replays at once, and only settings nobody plays make a new one."""
    h = held()
    run = h["run"]
    if run is not None and run.config != config:  # new settings: another run
        _let_go(run)
        h.update(run=None, running=False)
        _leave_line()
        run = None
    if h["running"] and run is None:
        run = h["run"] = shared.SHARED.join(kind, config, session_id())
        h["joined"] = run.step  # 0: a new run (or one still waiting); more: joined mid-way or finished
        h["replayed"] = run.done  # trained here before: no training, its snapshots at once
    remember(run, h["running"])
    return run


def remember(run: Run | None, running: bool) -> None:
    """Notes what a run that can go on is doing, outside HELD: leaving the page drops HELD (and frees
    the model), and coming back says what was thrown away. (Never through held(): a rerun still
    training after the learner left must not make HELD again.)"""
    note = None
    if run is not None and run.resumable:  # its kind and config: the page names it in its language
        note = dict(kind=type(run), config=run.config, step=run.step, steps=run.config.steps, running=running)
    st.session_state[NOTE] = note


def new_run() -> None:
    """Play a new run: current() makes it from the settings of the run that follows."""
    h = held()
    if h["run"] is not None:
        _let_go(h["run"])
    h.update(run=None, running=True, waited=0.0, lost=None, left=None)


def _play() -> None:
    run = held()["run"]
    if run is not None and run.resumable:
        held()["running"] = True
    else:
        new_run()


def _leave_line(h: dict | None = None) -> None:
    """The run no longer wants a slot: the next in line goes. `h`: the page state an old rerun's
    thread holds (never held() there: it must not make the page's state again after the learner
    left)."""
    if (ticket := (held() if h is None else h).get("ticket")) is not None:
        ticket.release()


def _pause() -> None:
    h = held()
    h["running"] = False
    if h["run"] is not None:
        _stop_playing(h["run"])
    _leave_line()


def _stop_playing(run: Run) -> None:
    """This session plays the run no more: when it was training it, the step in flight ends and
    its loop trains no more (Run.pause); another session watching it takes over."""
    h, me = held(), session_id()
    h["loop"] = None  # this session's play loop ends at its next look
    if run.audience.trainer == me:
        run.pause()
    run.audience.leave(me)


def _free(run: Run) -> None:
    """Stops a run: the curves and snapshots stay to look at; the model and optimiser go. A run
    that finished is kept first (saved), even when this Stop came before its own play loop could
    keep it: stop() runs `then` once, whoever stops first."""
    run.stop(then=held().get("keep") if run.done else None)


def _let_go(run: Run) -> bool:
    """This session lets go of a run: stopped and freed when no other session has it on its page
    (playing or paused); otherwise it is theirs (True)."""
    _stop_playing(run)
    run.audience.drop(session_id())
    if run.audience.holding():
        return True
    _free(run)
    return False


def _stop() -> None:
    h = held()
    h["running"] = False
    run = h["run"]
    if run is not None and _let_go(run):  # others have it: this session leaves it to them
        left = {"kind": type(run), "config": run.config, "step": run.step, "others": run.audience.holding()}
        h.update(run=None, left=left)
    _leave_line()


def buttons(run: Run | None) -> None:
    b = st.columns([1, 1, 1, 5])
    running = held()["running"]
    resume = run is not None and run.resumable
    b[0].button(
        tr("Resume") if resume else tr("Play"),
        icon=":material/play_arrow:",
        type="primary",
        key="tr_play",
        disabled=running,
        on_click=_play,
    )
    b[1].button(tr("Pause"), icon=":material/pause:", key="tr_pause", disabled=not running, on_click=_pause)
    stoppable = run is not None and not run.stopped
    b[2].button(tr("Stop"), icon=":material/stop:", key="tr_stop", disabled=not stoppable, on_click=_stop)


# --- playing -------------------------------------------------------------------------------------


_NO_SLOT = SimpleNamespace(ask=lambda: 0, release=lambda: None)  # a ticket that holds nothing


def play(
    run: Run,
    pace: float,
    draw: Callable[[int, bool], None],
    keep: Callable[[Run], None],
    tell: Callable[[], None] = lambda: None,
) -> None:
    """Play the run: train it, or watch it grow while another session with the same settings
    trains it, until it finishes; a Pause or Stop click reruns the page, which ends this loop. When
    the session training it pauses, stops or leaves, the next watcher to look takes over. A
    finished run is kept by `keep` (saved once, noted in every session that played it), then freed.
    `tell()` says who plays it, after every chunk or look (a look draws, so a closed tab's loop
    ends there: Streamlit stops a session's script at its next message)."""
    h = held()
    if not h["running"]:
        return
    h["keep"] = keep  # a Stop that lands as the run finishes keeps it too (_free)
    me, loop = session_id(), object()
    h["loop"] = loop  # a newer rerun of this page plays on in its own loop, and this one ends
    drawn = -1
    try:
        while not run.done and not run.stopped and h.get("loop") is loop:
            if run.audience.claim(me):
                _train(run, pace, draw, me, tell, (h, loop))
                drawn = run.snapshots[-1].step if run.snapshots else -1
                if not run.done and h.get("loop") is loop:  # another session took it over (this
                    _leave_line(h)  # one went quiet): it trains in its own slot, this one watches
            else:  # another session trains it: draw each new snapshot, and take over if it stops
                run.audience.beat(me)
                if run.snapshots and run.snapshots[-1].step != drawn:
                    drawn = run.snapshots[-1].step
                    draw(-1, True)
                tell()
                time.sleep(WATCH)
    finally:
        if h.get("loop") is loop:  # no newer rerun took over: this session plays it no more (left, done)
            run.audience.leave(me)
    if not run.done or h.get("loop") is not loop:  # paused, stopped, taken over: that rerun draws it
        return
    h["running"] = False
    if not run.stop(then=keep):  # another session's loop or Stop kept it first
        keep(run)  # noted for this session too (the model was saved once)
    shared.SHARED.finish(run)
    st.rerun()  # draw the finished run once more, with the step slider


def _train(
    run: Run, pace: float, draw: Callable[[int, bool], None], me: str, tell: Callable[[], None], page: tuple
) -> None:
    """Trains the run a chunk at a time, drawing after each, while this loop holds its lease: after
    a training slot (a lecture hall presses Play at once; the wait says how many runs are ahead).
    Another rerun of this page (the pace, projector mode) keeps the place in line, or the slot, and
    takes the run over with the same ticket. The slot goes back when the run ends, pauses, stops,
    fails or its settings change."""
    h, loop = page  # the page state and play loop this training belongs to
    beat = functools.partial(run.audience.beat, me)  # the session that trains it is still here
    # a recorded run's step is a read (replay.py): no slot to wait for
    ticket, seconds = (
        wait_for(TRAININGS, h, "run", keep_place=True, beat=beat) if run.needs_slot else (_NO_SLOT, 0.0)
    )
    h["waited"] = h.get("waited", 0.0) + seconds
    lease = run.lease()  # a rerun still inside this run's train() stops at its next step
    try:
        while run.train(run.chunk, lease):
            if h.get("loop") is not loop:  # paused or stopped meanwhile: its slot went back, keep it so
                break
            ticket.ask()  # the heartbeats: still here
            beat()
            remember(run, True)
            draw(-1, True)
            tell()
            # Watching pauses hold the slot: with others in line, skip them so the line moves
            # (a lecture hall's 30 runs then take ~1 s each, not ~10). sleep(0) still yields.
            time.sleep(0 if run.needs_slot and TRAININGS.waiting else pace)
    except Exception:  # an error, not a rerun: the slot must not stay taken
        ticket.release()
        raise
    if run.done:
        ticket.release()  # finished: the next in line goes
