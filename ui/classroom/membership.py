"""Which class this session is in, and as whom: a student is a person, not a tab.

`?class=CODE` in any link joins the class. Joining gives the browser a student token: the address
carries it after joining (`&student=TOKEN`, so a reload, a second tab opened from the address or a
phone that slept keeps it) and a cookie adds to it (a QR code scanned again: ui/classroom/browser.py);
a token the class knows is the same student again, so one person gives one answer per round
whatever they reload. Share links never carry it (ui/url.py): whoever opens one joins as themselves.

`&teacher=SECRET` is exchanged on first load for a teacher's seat (a token of its own, kept in a
cookie) and the page opens again without it, replacing the history entry: the secret is gone from
Back, history and the projected address bar, and a reload finds the seat and keeps the teacher
the teacher.

A store out of reach (Redis restarted, a disk full) is one message and the page goes on alone; the
class is tried again after a wait that doubles up to a minute. The process's bell
(ui/classroom/bell.py) reruns a student's page when the class moves on.
"""

from __future__ import annotations

import functools
import secrets
import time
from dataclasses import dataclass
from typing import NoReturn

import streamlit as st

from attention.classroom import ClassError, Store, Vote, errors, open_store
from attention.classroom.codes import canonical, shown
from attention.i18n import tr, tr_n
from ui import internals, language, url
from ui.classroom import address, browser, trip
from ui.classroom import bell as ringing
from ui.widgets import literal

KEY, CODE = "_class", url.CLASS_KEY  # the membership; the class's code (ui/url.py keeps it in links)
REFUSED = "_class_refused"  # question -> why the class did not take this session's pick (questions.py)
LISTENING = "_class_listening"  # the bell knows this session: tell it when the session leaves
WAITING = "_class_waiting"  # the questions this page holds until the teacher reveals them (questions.py)
MESSAGE = "_class_message"  # what went wrong, said at the top of whichever page runs next
OFFLINE = "_class_offline"  # (retry at, wait): the store did not answer; the page works alone meanwhile
FIRST_WAIT, LONGEST_WAIT = 2.0, 60.0  # seconds before the store is tried again, doubling


@dataclass
class Member:
    code: str  # canonical (K7QXM2P9R)
    student: str  # this browser's token in the class (a student's), or the teacher's seat
    teacher: bool = False
    nickname: str = ""
    follow: bool = True
    seen: int = 0  # the teacher's view version this session has followed
    vote: Vote | None = None  # the class's question and round, as this page last saw it
    asked: tuple[str, int] | None = None  # the question round whose view this page has been taken to
    going: tuple[trip.Trip, int] | None = None  # a trip begun (and its tries), settled by arrived()
    secret_link: str | None = None  # the class's secret, when this session was given it (the teacher's link)

    @property
    def secret(self) -> str | None:
        """What a teacher's operation takes: the seat (None for a student)."""
        return self.student if self.teacher else None

    @property
    def shown_code(self) -> str:
        return shown(self.code)


@functools.cache
def store() -> Store:
    """The process's store (SQLite, or Redis with ATTENTION_CLASS_STORE), opened once."""
    return open_store()


def member() -> Member | None:
    return st.session_state.get(KEY)


def caller() -> str:
    """Whom wrong codes and started classes are counted against: the visitor's address
    (address.visitor: X-Forwarded-For only from a trusted proxy). A new tab is the same caller."""
    return "address:" + address.network_of(address.visitor())


def offline() -> bool:
    """Whether the store did not answer a moment ago (its retry not due yet)."""
    found = st.session_state.get(OFFLINE)
    return found is not None and time.monotonic() < found[0]


def unreachable(error: ClassError) -> None:
    """The store did not answer: said once, and tried again after a wait that doubles."""
    wait = min(LONGEST_WAIT, 2 * st.session_state.get(OFFLINE, (0, FIRST_WAIT / 2))[1])
    st.session_state[OFFLINE] = (time.monotonic() + wait, wait)
    _wake_when_back()
    # TRANSLATORS: {error} is a whole sentence or two ("Class mode is unavailable: …")
    say(tr_n("{error} Class mode tries again by itself in {seconds} second.",
             "{error} Class mode tries again by itself in {seconds} seconds.",
             int(wait), error=str(error), seconds=int(wait)))  # fmt: skip


def _wake_when_back() -> None:
    """A student's page that could not reach the store: the bell reruns it once the store answers
    again and its wait is over (a student's page has no timer of its own)."""
    session, m = internals.this_session(), member()
    if session is not None and m is not None and not m.teacher and OFFLINE in st.session_state:
        retry = st.session_state[OFFLINE][0]
        _listen(session, ringing.Tab(m.code, m.follow, m.seen, ringing.voting(m.vote), set(), retry))


def answered() -> None:
    """The store answered: no wait before the next try, and no refusal said while it did not."""
    if st.session_state.pop(OFFLINE, None) is not None:
        st.session_state.pop(REFUSED, None)


def say(message: str) -> None:
    """A message for the top of the page this session is on (app.py shows it)."""
    st.session_state[MESSAGE] = message


def message() -> str | None:
    return st.session_state.pop(MESSAGE, None)


def _seconds() -> float:
    return store().limits.hours * 3600


def enter(code: str, secret: str | None = None, nickname: str | None = None) -> Member:
    """Join `code` as a student (this browser's token again when the class knows it), or, with
    the teacher's `secret` (or a seat), as its teacher; ClassError when it cannot be."""
    s, found = st.session_state, canonical(code) or ""
    seat = browser.cookie(found)
    if secret is None and seat and seat[0] == "teacher" and store().is_teacher(code, seat[1], caller()):
        secret = seat[1]  # this browser is the class's teacher (a reload, the code typed again)
    if secret is not None:
        if not store().is_teacher(code, secret, caller()):
            raise errors.not_teacher()
        m = Member(found, secret, teacher=True, follow=False)
    else:
        m = Member(found, _student(code, nickname), nickname=nickname or "")
        browser.remember(found, "student", m.student, _seconds())
    m.seen = store().view(code).version  # a view sent before joining is not followed
    s[KEY], s[CODE] = m, shown(found)
    answered()
    if internals.this_session() is not None:
        bell().start()  # a server with a class sweeps its store
    return m


def _student(code: str, nickname: str | None) -> str:
    """This browser's token in the class: the cookie's, else the address's, when the class knows it
    (no new student), else a new one. A token the class does not know is never taken as given:
    a link cannot choose who its visitor is."""
    # this browser's own token first: an address a classmate pasted must not make them you
    known = [(browser.cookie(canonical(code) or "") or ("", ""))[1], st.query_params.get("student")]
    for token in known:
        if token and browser.TOKEN.fullmatch(token) and store().is_student(code, token, caller()):
            if nickname is not None:
                store().join(code, token, nickname, caller=caller())
            return token
    token = secrets.token_urlsafe(16)
    store().join(code, token, nickname, caller=caller())
    return token


def leave() -> None:
    """Out of the class: a student is gone from its counts (the store deletes them), the address
    and this browser forget it."""
    m = st.session_state.get(KEY)
    for param in ("class", "student"):
        if param in st.query_params:  # else the next run's from_link would join it again
            del st.query_params[param]
    if m is not None:
        _drop(m)
    st.session_state.pop(CODE, None)


def _drop(m: Member) -> None:
    """This session out of `m`'s class: the store and this browser forget a student. A teacher's
    seat stays in this browser: the class's link makes it the teacher again."""
    st.session_state.pop(KEY, None)
    if not m.teacher:
        browser.forget(m.code)
        try:
            store().leave(m.code, m.student)
        except ClassError as error:
            if error.kind == "store":
                say(str(error))


def from_link() -> str | None:
    """A link's `?class=` (and `&teacher=`): join once per code; a message when it cannot be."""
    asked, secret = st.query_params.get("class"), st.query_params.get("teacher")
    m = st.session_state.get(KEY)
    if secret is not None:
        return _exchange(asked, secret, m)
    if not asked or (m is not None and canonical(asked) == m.code) or offline():
        return None
    if m is not None:  # a link to another class: this one is left first
        _drop(m)
    try:
        enter(asked)
    except ClassError as error:
        if error.kind in ("store", "tries"):  # the address keeps the class: joined when it can be
            st.session_state[CODE] = shown(canonical(asked)) if canonical(asked) else asked
        if error.kind == "store":  # and the page opens again by itself once the wait is over
            unreachable(error)
            browser.reload_in(st.session_state[OFFLINE][1])
            return None
        if error.kind == "tries":
            return str(error)
        st.session_state.pop(CODE, None)
        for param in ("class", "student"):
            if param in st.query_params:
                del st.query_params[param]
        return str(error)
    return None


def exchange(code: str, secret: str) -> None:
    """The teacher who started `code` here: a seat for this browser, kept in a cookie, so a reload
    keeps the teacher the teacher; the page runs again as the class's teacher."""
    seat = store().seat(code, secret)
    enter(code, seat).secret_link = secret
    browser.remember(canonical(code) or "", "teacher", seat, _seconds())
    st.rerun()


def _exchange(asked: str | None, secret: str, m: Member | None) -> str | None:
    """The teacher's link: a seat for this browser, then the page again without the secret."""
    if m is not None and m.teacher and canonical(asked or "") == m.code:
        del st.query_params["teacher"]  # no browser ran the line below (AppTest)
        return None
    try:
        seat = store().seat(asked or "", secret)
        enter(asked or "", seat).secret_link = secret
    except ClassError as error:
        if error.kind == "store":  # the link stays as it is (a new address would keep it in
            unreachable(error)  # history): the page opens it again once the wait is over
            st.warning(literal(message() or str(error)), icon=":material/groups:")
            browser.reload_in(st.session_state[OFFLINE][1])
            browser.send()
            st.stop()
        del st.query_params["teacher"]
        return str(error)
    browser.remember(canonical(asked or "") or "", "teacher", seat, _seconds())
    browser.reload_without("teacher")
    browser.send()
    st.stop()  # nothing drawn, nothing written to the address: the browser opens it again at once


def sidebar() -> None:
    """Which class, follow or not, the teacher's Send view, and Leave."""
    m = member()
    if m is None:
        return
    with st.container(border=True):
        role = tr("teacher") if m.teacher else tr("student")
        # TRANSLATORS: {code} is the class's join code; {role} is Teacher or Student, as this page names them
        st.markdown(tr("**Class {code}** · {role}", code=m.shown_code, role=role))
        if m.teacher:
            st.button(tr("Send my view to the class"), key="class_send", on_click=send_view, width="stretch")
        else:
            st.toggle(
                tr("Follow the teacher"),
                value=m.follow,
                key="class_follow",
                on_change=lambda: setattr(m, "follow", st.session_state["class_follow"]),
                help=tr(
                    "Your page switches to the view your teacher sends. Turn this off to explore on your own."
                ),
            )
        st.button(
            tr("Leave the class"), key="class_leave", on_click=language.callback(leave), type="tertiary"
        )


def view_params() -> dict[str, str]:
    """This page's view as its address holds it (the app's own parameters left out)."""
    return {k: v for k, v in st.query_params.to_dict().items() if k not in url.APP_PARAMS}


@language.callback
def send_view() -> None:
    """The teacher's page and its address (what the address holds) to every follower."""
    m = member()
    if m is None:
        return
    page = st.session_state.get("_page_path", "")
    params = url.exact_view(page)  # Learn's own sentence written out: the same on every phone
    try:
        version = store().send_view(m.code, m.secret, page, view_params() if params is None else params)
    except ClassError as error:
        say(str(error))
        return
    m.seen = version
    st.toast(tr("Sent to the class."), icon=":material/cast:")


def watching() -> bool:
    """Whether this session is a class's student: its page changes when the class moves on (the
    bell reruns it), so a callback must not narrow that run to a fragment (st.rerun(scope=...))."""
    m = member()
    return m is not None and not m.teacher


def watch(pages: dict) -> None:
    """A student's page's run, before the page draws: a new question asked goes to the teacher's
    view of it (every student answers the teacher's question), a newer view the teacher sent is
    followed; then the bell is told what this page shows (ui/classroom/bell.py), which reruns it
    when the class moves on. Nothing outside a class or for the teacher."""
    session = internals.this_session()
    st.session_state.pop(trip.CHECKED, None)  # set by this run's trip.go, if it gets there
    if offline():  # the store did not answer a moment ago: the page shows what it has
        _wake_when_back()
        return
    if not watching():  # it left the class (or became its teacher)
        _unlisten(session)
        return
    m = member()
    st.session_state[WAITING] = set()  # this run's page adds the questions it holds (questions.py)
    try:
        view = ringing.shared(("view", m.code), lambda: store().view(m.code))
        vote = ringing.shared(("vote", m.code), lambda: store().vote(m.code))
    except ClassError as error:
        if error.kind == "store":
            unreachable(error)
            return
        leave()
        _unlisten(session)  # now: a ring while this run goes on would rerun the page past what it says
        say(
            tr(
                "Your class has ended: its teacher closed it, or its time ran out. The page is yours alone "
                "again."
            )
        )
        st.rerun()
    answered()
    changed = ringing.voting(vote) != ringing.voting(m.vote)
    if changed and vote is not None:
        if m.vote is not None and vote.question == m.vote.question:  # asked again: no pick yet
            st.session_state[vote.question] = None
        st.session_state.get(REFUSED, {}).pop(vote.question, None)
    m.vote = vote
    if not (m.follow and view.page in pages):
        m.seen = max(m.seen, view.version)
    if (going := trip.where(m, vote, view, pages)) is not None:
        trip.go(m, going, pages, view_params())
    if session is not None:
        seen = max(m.seen, m.going[0].seen) if m.going else m.seen  # where this run is going
        waiting = st.session_state[WAITING]  # filled as the page draws its questions
        _listen(session, ringing.Tab(m.code, m.follow, seen, ringing.voting(m.vote), waiting))


def _listen(session: str, tab: ringing.Tab) -> None:
    """The bell looks at this page from now on, as this run drew it and on the browser connection
    it drew on: a browser back on another one is rung (bell.py)."""
    tab.connection = internals.this_connection()
    bell().listen(session, tab)
    st.session_state[LISTENING] = True


def _unlisten(session: str | None) -> None:
    """This page is no longer a class student's: the bell forgets it, if it listened."""
    if st.session_state.pop(LISTENING, False):
        bell().forget(session)


def arrived() -> None:
    """The end of a run that drew its page whole: where the class took it is settled (trip.py)."""
    trip.arrived(member())


def stop() -> NoReturn:
    """st.stop() for a page that ends its run early, having said why in place of what it would show
    (Compare's two sides on different sentences, Scaling with nothing picked, a recording that will
    not open): the page is drawn as far as it goes, so a class student's trip to it is settled as
    at a run's end (arrived). Else each of its runs would take the student there again, up to
    trip.TRIES times."""
    arrived()
    st.stop()


@functools.cache
def bell() -> ringing.Bell:
    """The process's bell, on the process's store."""
    return ringing.Bell(store())
