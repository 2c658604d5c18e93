"""The predict-first questions (Learn, Modern, What your language costs, Inside a model), alone or
as a class.

Alone: press an option (a pill) to see whether it was right; a keyboard user's arrow keys move
between the options and answer nothing, Space or Enter answers (WCAG 2.1.1). The last option, Show
me without predicting, shows the answer and what it answers without a guess. In a
class the teacher asks first: "Ask the class" sends the question with the teacher's options and
the view it was asked on (the page's sentence and settings), and every student's page goes to that
view, so every phone computes the same question from the same numbers, each in its own language. A
student's pick is recorded as its option's position in that round and held:
the page says "answer recorded" and shows nothing of the answer until the teacher reveals it. A
question the teacher has not asked waits, and so does one whose student has moved to another
sentence (a link takes them back).

The teacher's page shows, under the question, Ask the class; then a live histogram of the answers,
Reveal and Ask again (a second vote, the first kept beside it): ui/classroom/panel.py.

Built for a class of 200 answering at once (benchmarks/class_mode.py): before the reveal a
student's question is a fragment, so a pick reruns only the question, and the page holds its
questions without a timer: the process's bell (ui/classroom/bell.py) reruns the page when one is
revealed or asked."""

from __future__ import annotations

import streamlit as st

from attention.classroom import ClassError
from attention.i18n import tr
from ui import language, url
from ui.classroom import bell, membership, trip
from ui.classroom.membership import REFUSED, Member, member
from ui.classroom.panel import teacher_panel
from ui.widgets import literal


def self_check(
    key: str,
    question: str,
    options: list[str],
    answer: str,
    why: str,
    revealed: bool,
    view: dict[str, str] | None = None,
) -> str | None:
    """A prediction before the reveal: feedback once the learner has pressed an option; in a class,
    the pick is recorded and the answer waits for the teacher's reveal (`revealed`: the class's
    round of it is, looked up once per run by predict). `view`: what the question's options are
    computed from, as the page's address would hold it (None: the options never change)."""
    if len(set(options)) != len(options):
        raise ValueError(f"{key}: options must differ: {options}")  # "6 | 6 | 3" asks nothing
    m = member()
    label = tr("Predict: {question}", question=question)
    if m is not None and not m.teacher and not revealed:
        if (m.vote is None or m.vote.question != key) and not membership.offline():
            _not_asked(key, label, options)
        else:
            _held(key, label, options, view)
        return st.session_state.get(key)
    # Alone, the last option skips the guess: an option, not a button of its own (one element
    # fewer per question on every page load: benchmarks/element_costs.py, button)
    # TRANSLATORS: a predict-first question's last option: see the answer without guessing
    shown = options + [tr("Show me without predicting")] if m is None else options
    if m is None:
        _pick_in_these_words(key, shown)
    picked = _choose(_teachers(key) if m is not None and m.teacher else key, label, shown)
    if m is None:
        if picked is not None:
            skipped = picked not in options
            if skipped:  # kept past a language switch, which drops the option's old words
                st.session_state[f"{key}_seen"] = True
            _feedback(None if skipped else picked, answer, why)  # skipped: the answer, unjudged
        return picked
    if m.teacher:
        teacher_panel(key, options, answer, view or {})
    if revealed:
        _feedback(picked, answer, why)
    return picked


def _teachers(key: str) -> str:
    """The key of the teacher's own pick: a new widget after each Ask again, which starts empty.
    Setting the old one to None did not hold: the histogram's poll (ui/classroom/panel.py, a
    fragment rerun every POLL s) sends the browser's widget values, and one sent before the browser
    heard of the clearing put the old pick back (2 of 4 tries on a server taking 1 s a run). A value sent for
    a widget no longer drawn is dropped."""
    n = st.session_state.get(f"_{key}_asked_again", 0)
    return f"{key}_vote{n + 1}" if n else key


def _pick_in_these_words(key: str, shown: list[str]) -> None:
    """Alone: a pick kept past a language switch, by its position. The switch changes the options'
    words, and Streamlit then forgets the pick (it is no option any more): the question would ask
    again and hide what it had answered. Its position is kept under a key with the question's
    prefix, so a new sentence (ui/widgets.reset_predictions) clears it with the pick."""
    s, at = st.session_state, f"{key}_at"
    picked = s.get(key)
    if picked in shown:
        s[at] = shown.index(picked)
    elif isinstance(s.get(at), int) and s[at] < len(shown):  # None, or in the old words
        s[key] = shown[s[at]]  # before the question is drawn: it shows the pick, in these words


@language.fragment
def _held(key: str, label: str, options: list[str], view: dict[str, str] | None) -> None:
    """A class student's question before the reveal, a fragment: a pick reruns only this."""
    m = member()
    vote = m.vote if m is not None else None
    if membership.offline():  # held, not answered alone: the class still gets its reveal
        _shown(key, label, options)
        st.caption(tr("Class mode cannot be reached right now. You can answer once it is back."))
        return
    if vote is None or vote.question != key:  # asked meanwhile, then moved on: as _not_asked
        _not_asked(key, label, options)
        return
    if view is not None and view != vote.params:  # the student moved to another sentence
        _shown(key, label, options)
        st.warning(
            tr("Your teacher asked this question about their own sentence and settings."),
            icon=":material/groups:",
        )
        trip.link_to(vote.page, vote.params, tr("Answer your teacher's question"))
        return
    picked = _choose(key, label, options, on_click=_record, args=(key, options, vote.round))
    if refused := st.session_state.get(REFUSED, {}).get(key):
        st.warning(literal(refused), icon=":material/error:")  # not "recorded" when it was not
    elif picked is not None:
        st.info(
            tr("Answer recorded. Your teacher reveals the answer to the whole class."),
            icon=":material/how_to_vote:",
        )


def _not_asked(key: str, label: str, options: list[str]) -> None:
    """A class student's question the teacher is not asking: what it asks and its options, to read
    ahead, and why it cannot be answered yet, as one element with nothing to press (no disabled
    radio, no fragment). A page holds up to six of these, and 100 followers draw them at once:
    0.17 ms of server CPU each, against 0.81 ms as a disabled radio and its line in a fragment
    (benchmarks/element_costs.py: markdown, held_fragment). A pick made while it was asked is
    kept (Streamlit forgets a widget's value in a run that does not draw it): the teacher may
    reveal it after asking another, and the reveal judges it."""
    url.hold([key])
    said = tr("Your teacher is not asking this question now. You can answer it when they do.")
    st.markdown("\n".join([label, "", *(f"- {literal(o)}" for o in options), "", f":small[:gray[{said}]]"]))


def _choose(key: str, label: str, options: list[str], on_click=None, args: tuple = ()) -> str | None:
    """The options as pills, and a press on one answers: one widget, where a radio needed a form
    and a Check button to hold its value back (three elements: twice the server's work of one pills
    on every page load, benchmarks/element_costs.py radio + form against pills). A keyboard user's
    arrow keys move between the pills and answer nothing; Space or Enter answers (WCAG 2.1.1).
    Screen readers hear a radio group named by the question. Once answered it keeps a pick
    (required): a press on it again is not a way to take the answer back. session_state[key]
    stays None until a pill is pressed; what a pick does (a class student's vote recorded) is
    `on_click`."""
    return st.pills(
        label,
        options,
        key=key,
        format_func=literal,
        required=True,
        on_change=on_click or "rerun",
        args=args,
    )


def _shown(key: str, label: str, options: list[str]) -> None:
    """A question that cannot be answered right now, drawn as _choose draws it (the pick this page
    holds, if any, still showing), with nothing to press."""
    st.pills(label, options, key=key, format_func=literal, required=True, disabled=True)


def _feedback(picked: str | None, answer: str, why: str) -> None:
    """The verdict and the answer in its own frame ("Answer: …", never "the answer is …": an
    option can be a whole sentence, or end in its own full stop), as one message each, so that
    each language writes the two as it joins them; then why, as its own paragraph. (No tr() inside
    an f-string: Babel does not look there; tests/i18n/test_catalogs.py checks.)"""
    shown = literal(answer)
    if picked == answer:
        # TRANSLATORS: after a right prediction; {answer} is the right option's text as shown (a
        # number, a token, or a sentence)
        said = tr("Right. Answer: {answer}", answer=shown)
        st.success(f"{said}\n\n{why}")
    elif picked is not None:
        # TRANSLATORS: after a wrong prediction, which may be far off: a kind "no" ("Not quite" is
        # English's), never "almost"; {answer} is the right option's text as shown (a number, a
        # token, or a sentence)
        said = tr("Not quite. Answer: {answer}", answer=shown)
        st.error(f"{said}\n\n{why}")
    else:  # revealed to a class member who did not answer, or asked for by a learner alone
        # TRANSLATORS: {answer} is the right option's text as shown (a number, a token, or a sentence)
        said = tr("Answer: {answer}", answer=shown)
        st.info(f"{said}\n\n{why}")


def predict(
    key: str,
    question: str,
    options: list[str],
    answer: str,
    why: str,
    everything: bool,
    view: dict[str, str] | None = None,
) -> bool:
    """Ask before showing: True (draw what answers it) once the learner has pressed an option (Show
    me without predicting is one), or when `everything` is on show; in a class, once the teacher has
    revealed.
    `view`: what the options are computed from, as the page's address holds it (self_check)."""
    m = member()
    revealed = m is not None and _revealed(m, key)
    if m is not None and not m.teacher:
        _own_pick(m, key, options)
    picked = self_check(key, question, options, answer, why, revealed, view)
    if m is not None:
        if revealed:
            return True
        if not m.teacher:  # the bell reruns the page when the teacher reveals it
            st.session_state.setdefault(membership.WAITING, set()).add(key)
            if m.vote is not None and m.vote.question == key:  # asked: else _held says it is not
                st.caption(tr("Waiting for your teacher to reveal the answer…"))
        return False
    # _seen: a reader who had answered before the question was asked afresh (ui/model/explain.py)
    return picked is not None or everything or bool(st.session_state.get(f"{key}_seen"))


def _own_pick(m: Member, key: str, options: list[str]) -> None:
    """The pick the class recorded for this student in the current vote, shown on this page: a
    reload, a second tab or a phone back from sleep shows the answer that counts (and judges it
    at the reveal), not an empty question or another tab's older pick."""
    vote = m.vote
    if vote is None or vote.question != key or membership.offline():
        return
    try:
        stored = membership.store().picked(m.code, m.student, key, vote.round)
    except ClassError:
        return  # said where the class is read (membership.watch)
    if stored is not None and stored < len(options) and st.session_state.get(key) != options[stored]:
        st.session_state[key] = options[stored]


def _revealed(m: Member, key: str) -> bool:
    if membership.offline():
        return False  # held until the store answers again
    try:
        if m.teacher:  # the teacher's own click must show at once
            return membership.store().revealed(m.code, key)
        return bell.shared(("revealed", m.code, key), lambda: membership.store().revealed(m.code, key))
    except ClassError as error:
        if error.kind == "store":
            membership.unreachable(error)
            return False
        return True  # the class has ended: the page is the student's own


@language.callback
def _record(key: str, options: list[str], round_: int) -> None:
    """A student's pick, recorded for the class in the round it was made in (a new pick replaces
    it in that round; a pick made as the teacher asks again is refused, not moved to the new one)."""
    m, picked = member(), st.session_state.get(key)
    if m is None or picked is None:
        return
    refused = st.session_state.setdefault(REFUSED, {})
    try:
        membership.store().answer(m.code, m.student, key, options.index(picked), round_)
    except ClassError as error:
        refused[key] = str(error)  # said under the question, in place of "Answer recorded"
        if error.kind == "store":
            membership.unreachable(error)
        st.session_state[key] = None  # not recorded: no pick shown, and pressing one again retries
    else:
        refused.pop(key, None)
        return
    st.rerun()  # revealed meanwhile, or the class gone: the whole page, not only the question
