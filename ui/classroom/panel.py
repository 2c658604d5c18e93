"""The teacher's panel under a predict-first question (ui/classroom/questions.py): Ask the class;
then a live histogram of the answers, labelled with the options as asked, and how many of those
joined have answered (refreshed every POLL s without rerunning the page), Reveal and Ask again. A
refusal is said where the teacher clicked. A question asked on another view than the page shows
(another sentence, other settings) is revealed there: the panel shows the way back in place of
Reveal, so that the class is judged on what it was asked. Revealing a question the class has
moved on from takes the class back to it; the one it was on then offers Ask the class again,
which takes it back there with its answers (no new vote)."""

from __future__ import annotations

import streamlit as st

from attention.classroom import ClassError, Round, Tally
from attention.figures.classroom import answer_bars
from attention.i18n import tr, tr_n
from ui import language
from ui.classroom import bell, membership, trip
from ui.classroom.membership import Member, member
from ui.widgets import chart, literal

POLL = 1.0  # seconds between the teacher's looks at the histogram
PANEL = "_class_panel_message"  # question -> what the teacher's last click there was refused with


@language.fragment(run_every=POLL)
def teacher_panel(key: str, options: list[str], answer: str, view: dict[str, str]) -> None:
    """The teacher's view of one question: Ask the class, then the live histogram, Reveal and
    Ask again. Only the teacher's seat opens the counts before the reveal."""
    m = member()
    if m is None or not m.teacher:
        return
    if membership.offline():
        st.warning(tr("Class mode cannot be reached right now. The page tries again by itself."))
        return
    try:
        tally = membership.store().tally(m.code, key, m.secret)
    except ClassError as error:
        if error.kind == "store":
            membership.unreachable(error)
        st.warning(literal(str(error)))
        return
    state = (tally.current.number, tally.current.revealed) if tally.current else None
    if st.session_state.setdefault(f"_{key}_class_state", state) != state:  # revealed, or asked again:
        st.session_state[f"_{key}_class_state"] = state  # the page shows (or hides) the answer
        st.rerun(scope="app")
    with st.container(border=True):
        if refused := st.session_state.get(PANEL, {}).pop(key, None):
            st.warning(literal(refused), icon=":material/error:")
        asked = (key, options, view)
        if not tally.rounds:
            st.button(tr("Ask the class"), key=f"{key}_ask", on_click=_ask, args=asked, type="primary")
            return
        current = tally.current
        elsewhere = _asked_elsewhere(current, view)
        _histogram(key, tally, options, answer, judged=not elsewhere)
        if not current.revealed and elsewhere:
            _go_back(current)
            return
        left, right = st.columns(2)
        left.button(
            tr("Reveal"),
            key=f"{key}_reveal",
            on_click=_reveal,
            args=(key,),
            disabled=current.revealed,
            type="primary",
        )
        if not current.revealed and _class_on(m) != key:  # revealing another one left this one
            st.caption(tr("The class is on another question now. Ask the class takes it back to this one."))
            right.button(tr("Ask the class"), key=f"{key}_reopen", on_click=_as_asked, args=(key,))
            return
        right.button(
            tr("Ask again"), key=f"{key}_again", on_click=_again, args=asked, disabled=not current.revealed
        )


def _class_on(m: Member) -> str | None:
    """The question the class's vote is on now (read with the bell's, at most BELL s old)."""
    try:
        vote = bell.shared(("vote", m.code), lambda: membership.store().vote(m.code))
    except ClassError:
        return None  # said where the page reads the class
    return vote.question if vote is not None else None


def _asked_elsewhere(current: Round, view: dict[str, str]) -> bool:
    """Whether the round was asked on another view than this page shows (another sentence, other
    settings): its answer here is not the one to what the class was asked."""
    if not (current.page or current.params):  # asked without a view: nothing to compare
        return False
    return (current.page, current.params) != (st.session_state.get("_page_path", ""), view)


def _go_back(current: Round) -> None:
    """In place of Reveal, on another view than the round's: the way back to it."""
    st.caption(
        tr(
            "You asked this question about another sentence or other settings (the bars show its "
            "options as the class saw them). Go back to them to reveal the answer."
        )
    )
    trip.link_to(current.page, current.params, tr("Go back to where you asked it"), ":material/undo:")


def _histogram(key: str, tally: Tally, options: list[str], answer: str, judged: bool) -> None:
    """`judged`: this page shows the round's own view, so its answer is the one to mark (✓)."""
    current = tally.current
    answered = current.answered if current else 0
    st.markdown(
        tr_n(
            "**{answered} of {joined}** student has answered (vote {round}).",
            "**{answered} of {joined}** students have answered (vote {round}).",
            tally.joined,
            answered=answered,
            joined=tally.joined,
            round=current.number if current else 1,
        )
    )
    rounds = tally.rounds[-2:] or (None,)  # the vote before discussion beside the one after
    asked = list(current.options) if current and current.options else options  # as the class saw them
    counts = [[r.counts.get(i, 0) if r else 0 for i in range(len(asked))] for r in rounds]
    names = [tr("vote {round}", round=r.number if r else 1) for r in rounds]
    revealed = bool(current and current.revealed)
    right = asked.index(answer) if judged and revealed and answer in asked else None
    chart(answer_bars(asked, counts, names, right), key=f"{key}_bars")


@language.callback
def _teacher_call(action, key: str, *args) -> bool:
    """Whether the store took the teacher's click (a refusal is said in the panel clicked)."""
    m = member()
    if m is None:
        return False
    try:
        action(m.code, m.secret, key, *args)
    except ClassError as error:
        st.session_state.setdefault(PANEL, {})[key] = str(error)
        return False
    return True


def _asked_on(options: list[str], view: dict[str, str]) -> dict:
    """What the class is asked: the options as the teacher reads them, and the view (page and its
    parameters) every student's page goes to."""
    return {"options": options, "page": st.session_state.get("_page_path", ""), "params": view}


def _ask(key: str, options: list[str], view: dict[str, str]) -> None:
    _teacher_call(lambda *a: membership.store().ask(*a, **_asked_on(options, view)), key)


def _reveal(key: str) -> None:
    """The round revealed where the class is judged on it: made the class's vote first if the class
    has moved on (every student's page goes back to its view, with the pick recorded there)."""
    if _as_asked(key):
        _teacher_call(membership.store().reveal, key)


@language.callback
def _as_asked(key: str) -> bool:
    """The class's vote made this question's current round again, with the round's own options and
    view, read now (another tab may have asked again since this panel was drawn): Store.ask then
    keeps the round, no new vote; on the class's vote already, it changes nothing. Whether the
    store took it (a refusal is said in the panel)."""
    m = member()
    if m is None:
        return False
    try:
        current = membership.store().tally(m.code, key, m.secret).current
    except ClassError as error:
        st.session_state.setdefault(PANEL, {})[key] = str(error)
        return False
    if current is None:
        return True  # nothing asked: the store refuses the reveal and says so
    again = (current.options, current.page, current.params or None)
    return _teacher_call(lambda *a: membership.store().ask(*a, *again), key)


def _again(key: str, options: list[str], view: dict[str, str]) -> None:
    if _teacher_call(lambda *a: membership.store().ask_again(*a, **_asked_on(options, view)), key):
        counted = f"_{key}_asked_again"  # the teacher's own pick starts afresh too (_teachers)
        st.session_state[counted] = st.session_state.get(counted, 0) + 1
