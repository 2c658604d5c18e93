"""The predict-first questions (Learn, Modern, What your language costs), alone or as a class.

Alone: pick an option and see at once whether it was right. In a class, a student's pick is
recorded for the class (its option's position: the same in every language) and held: the page
says "answer recorded" and shows nothing of the answer until the teacher reveals it, and "show me
without predicting" waits for the reveal too. The teacher's page shows, under the question, Ask
the class; then a live histogram of the answers and how many of those joined have answered
(refreshed every second, without rerunning the page), Reveal, and Ask again (a second vote,
the first kept beside it).

Built for a class of 200 answering at once (benchmarks/class_mode.py): before the reveal a
student's question is a fragment, so a pick reruns only the question (nothing else on the page
changes until the reveal; a page's rerun is 10-20 times the CPU), and the page holds its
questions without a timer: the process's bell (ui/classroom/bell.py) reruns the page when one is
revealed."""

from __future__ import annotations

import streamlit as st

from attention.classroom import ClassError, Tally
from attention.figures.classroom import answer_bars
from attention.i18n import tr
from ui import language
from ui.classroom import bell, membership
from ui.classroom.membership import REFUSED, Member, member
from ui.widgets import chart, literal

POLL = 1.0  # seconds between the teacher's looks at the histogram


def self_check(
    key: str, question: str, options: list[str], answer: str, why: str, revealed: bool
) -> str | None:
    """A prediction before the reveal: feedback once the learner picks an option; in a class,
    the pick is recorded and the answer waits for the teacher's reveal (`revealed`: the class's
    round of it is, looked up once per run by predict)."""
    if len(set(options)) != len(options):
        raise ValueError(f"{key}: options must differ: {options}")  # "6 | 6 | 3" asks nothing
    m = member()
    label = tr("Predict: {question}", question=question)
    if m is not None and not m.teacher and not revealed:
        _held(key, label, options)
        return st.session_state.get(key)
    picked = st.radio(label, options, index=None, key=key, format_func=literal)
    if m is None:
        if picked is not None:
            _feedback(picked, answer, why)
        return picked
    if m.teacher:
        teacher_panel(key, options, answer)
    if revealed:
        _feedback(picked, answer, why)
    return picked


@language.fragment
def _held(key: str, label: str, options: list[str]) -> None:
    """A class student's question before the reveal, a fragment: a pick reruns only this."""
    picked = st.radio(
        label, options, index=None, key=key, format_func=literal, on_change=_record, args=(key, options)
    )
    if refused := st.session_state.get(REFUSED, {}).get(key):
        st.warning(literal(refused), icon=":material/error:")  # not "recorded" when it was not
    elif picked is not None:
        st.info(
            tr("Answer recorded. Your teacher reveals the answer to the whole class."),
            icon=":material/how_to_vote:",
        )


def _feedback(picked: str | None, answer: str, why: str) -> None:
    if picked == answer:
        st.success(tr("Right: {answer}. {why}", answer=literal(answer), why=why))
    elif picked is not None:
        st.error(tr("Not quite: the answer is {answer}. {why}", answer=literal(answer), why=why))
    else:  # revealed to a class member who did not answer
        st.info(tr("The answer: {answer}. {why}", answer=literal(answer), why=why))


def predict(key: str, question: str, options: list[str], answer: str, why: str, everything: bool) -> bool:
    """Ask before showing: True (draw what answers it) once the learner has picked an option or
    asked to see it, or when `everything` is on show; in a class, once the teacher has revealed."""
    m = member()
    revealed = m is not None and _revealed(m, key)
    picked = self_check(key, question, options, answer, why, revealed)
    if m is not None:
        if revealed:
            return True
        if not m.teacher:  # the bell reruns the page when the teacher reveals it
            st.session_state.setdefault(membership.WAITING, set()).add(key)
            st.caption(tr("Waiting for your teacher to reveal the answer…"))
        return False
    if picked is not None or everything or st.session_state.get(f"{key}_seen"):
        return True
    st.button(
        tr("Show me without predicting"),
        key=f"{key}_show",
        type="secondary",
        on_click=lambda: st.session_state.update({f"{key}_seen": True}),
    )
    return False


def _revealed(m: Member, key: str) -> bool:
    try:
        if m.teacher:  # the teacher's own click must show at once
            return membership.store().revealed(m.code, key)
        return bell.shared(("revealed", m.code, key), lambda: membership.store().revealed(m.code, key))
    except ClassError:
        return True  # the class has ended: the page is the student's own again


def _record(key: str, options: list[str]) -> None:
    """A student's pick, recorded for the class (a new pick replaces it in this round)."""
    m, picked = member(), st.session_state.get(key)
    if m is None or picked is None:
        return
    refused = st.session_state.setdefault(REFUSED, {})
    try:
        membership.store().answer(m.code, m.student, key, str(options.index(picked)))
    except ClassError as error:
        refused[key] = str(error)  # said under the question, in place of "Answer recorded"
    else:
        refused.pop(key, None)
        return
    st.rerun()  # revealed meanwhile, or the class gone: the whole page, not only the question


@language.fragment(run_every=POLL)
def teacher_panel(key: str, options: list[str], answer: str) -> None:
    """The teacher's view of one question: Ask the class, then the live histogram, Reveal and
    Ask again. Only the teacher's secret opens the counts before the reveal."""
    m = member()
    if m is None or not m.teacher:
        return
    try:
        tally = membership.store().tally(m.code, key, m.secret)
        current = membership.store().current_question(m.code)
    except ClassError as error:
        st.warning(literal(str(error)))
        return
    state = (tally.current.number, tally.current.revealed) if tally.current else None
    if st.session_state.setdefault(f"_{key}_class_state", state) != state:  # revealed, or asked again:
        st.session_state[f"_{key}_class_state"] = state  # the page shows (or hides) the answer
        st.rerun(scope="app")
    with st.container(border=True):
        if current != key and not tally.rounds:
            st.button(tr("Ask the class"), key=f"{key}_ask", on_click=_ask, args=(key,), type="primary")
            return
        _histogram(key, tally, options, answer)
        left, right = st.columns(2)
        revealed = bool(tally.current and tally.current.revealed)
        left.button(
            tr("Reveal"),
            key=f"{key}_reveal",
            on_click=_reveal,
            args=(key,),
            disabled=revealed,
            type="primary",
        )
        right.button(tr("Ask again"), key=f"{key}_again", on_click=_again, args=(key,), disabled=not revealed)


def _histogram(key: str, tally: Tally, options: list[str], answer: str) -> None:
    current = tally.current
    answered = current.answered if current else 0
    st.markdown(
        tr(
            "**{answered} of {joined}** students have answered (vote {round}).",
            answered=answered,
            joined=tally.joined,
            round=current.number if current else 1,
        )
    )
    rounds = tally.rounds[-2:] or (None,)  # the vote before discussion beside the one after
    counts = [[r.counts.get(str(i), 0) if r else 0 for i in range(len(options))] for r in rounds]
    names = [tr("vote {round}", round=r.number if r else 1) for r in rounds]
    revealed = bool(current and current.revealed)
    right = options.index(answer) if revealed and answer in options else None
    chart(answer_bars(options, counts, names, right), key=f"{key}_bars")


def _teacher_call(action, key: str) -> None:
    m = member()
    try:
        action(m.code, m.secret, key)
    except ClassError as error:
        st.session_state["_class_message"] = str(error)


def _ask(key: str) -> None:
    _teacher_call(membership.store().ask, key)


def _reveal(key: str) -> None:
    _teacher_call(membership.store().reveal, key)


def _again(key: str) -> None:
    _teacher_call(membership.store().ask_again, key)
    st.session_state[key] = None  # the teacher's own pick, if any, cleared too
