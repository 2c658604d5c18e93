"""Which class this session is in: `?class=CODE` in any link joins it, `&teacher=SECRET` makes the
session its teacher (the secret leaves the address at once: a projected address bar must not show
it). The sidebar says which class and how to leave; a student who follows sees their page switch
to the view the teacher sends, and a question held for the reveal answered, within a second: the
process's bell (ui/classroom/bell.py) reruns a student's page when the class moves on; a waiting
student costs the server nothing."""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import streamlit as st

from attention.classroom import ClassError, Store, open_store
from attention.classroom.codes import canonical, shown
from attention.i18n import tr
from ui import internals, url
from ui.classroom import bell as ringing
from ui.slots import session_id

KEY, CODE = "_class", url.CLASS_KEY  # the membership; the class's code (ui/url.py keeps it in links)
REFUSED = "_class_refused"  # question -> why the class did not take this session's pick (questions.py)
LISTENING = "_class_listening"  # the bell knows this session: tell it when the session leaves
WAITING = "_class_waiting"  # the questions this page holds until the teacher reveals them (questions.py)


@dataclass
class Member:
    code: str  # canonical (K7QXM2P9R)
    student: str  # this session's id in the class
    secret: str | None = None  # the teacher's; None for a student
    nickname: str = ""
    follow: bool = True
    seen: int = 0  # the teacher's view version this session has followed
    vote: tuple[str, int] | None = None  # the class's question and its round, as this page last saw

    @property
    def teacher(self) -> bool:
        return self.secret is not None

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
    """Whom wrong codes are counted against: this tab's session. Not the address: behind nginx, or
    a school's one public address, a whole class has the same one, and ten typos would lock
    everyone out. A guesser opening new tabs gains nothing that matters: a code is 45 random
    bits (35 trillion), and each tab still waits after ten wrong tries."""
    return session_id()


def enter(code: str, secret: str | None = None, nickname: str = "") -> Member:
    """Join `code` (as its teacher with `secret`); ClassError when it cannot be joined."""
    s = st.session_state
    if secret is not None:
        if not store().is_teacher(code, secret, caller()):
            raise ClassError(tr("Only the class's teacher can do this; open the teacher's link."), "teacher")
        found = store().find(code, caller())
    else:
        found = store().join(code, session_id(), nickname, caller=caller())
    seen = store().view(found).version  # a view sent before joining is not followed
    s[KEY] = Member(canonical(found), session_id(), secret, nickname, follow=secret is None, seen=seen)
    s[CODE] = found  # as it is shown: K7QX-M2P9R
    return s[KEY]


def leave() -> None:
    m = st.session_state.pop(KEY, None)
    if "class" in st.query_params:  # else the next run's from_link would join it again
        del st.query_params["class"]
    st.session_state.pop(CODE, None)
    if m is not None and not m.teacher:
        with contextlib.suppress(ClassError):  # the class is gone already
            store().leave(m.code, m.student)


def from_link() -> str | None:
    """A link's `?class=` (and `&teacher=`): join once per code; a message when it cannot be."""
    asked, secret = st.query_params.get("class"), st.query_params.get("teacher")
    m = member()
    if "teacher" in st.query_params:
        del st.query_params["teacher"]  # never left in the address bar (or in a shared link)
    if not asked or (m is not None and canonical(asked) == m.code and (secret is None or m.teacher)):
        return None
    try:
        enter(asked, secret)
    except ClassError as error:
        if "class" in st.query_params:
            del st.query_params["class"]
        return str(error)
    return None


def sidebar() -> None:
    """Which class, follow or not, the teacher's Send view, and Leave."""
    m = member()
    if m is None:
        return
    with st.container(border=True):
        role = tr("teacher") if m.teacher else tr("student")
        st.markdown(tr("**Class {code}** · {role}", code=m.shown_code, role=role))
        if m.teacher:
            st.button(tr("Send my view to the class"), key="class_send", on_click=send_view, width="stretch")
        else:
            st.toggle(
                tr("Follow the teacher"),
                value=m.follow,
                key="class_follow",
                on_change=lambda: setattr(m, "follow", st.session_state["class_follow"]),
                help=tr("Your page switches to the view your teacher sends. Turn it off to explore alone."),
            )
        st.button(tr("Leave the class"), key="class_leave", on_click=leave, type="tertiary")


def send_view() -> None:
    """The teacher's page and its address (what the address holds) to every follower."""
    m = member()
    page = st.session_state.get("_page_path", "")
    params = {k: v for k, v in st.query_params.to_dict().items() if k not in url.APP_PARAMS}
    try:
        version = store().send_view(m.code, m.secret, page, params)
    except ClassError as error:
        st.session_state["_class_message"] = str(error)
        return
    m.seen = version
    st.toast(tr("Sent to the class."), icon=":material/cast:")


def watching() -> bool:
    """Whether this session is a class's student: its page changes when the class moves on (the
    bell reruns it), so a callback must not narrow that run to a fragment (st.rerun(scope=...))."""
    m = member()
    return m is not None and not m.teacher


def watch(pages: dict) -> None:
    """A student's page's run, before the page draws: follow a newer view the teacher sent,
    start a new vote afresh; then tell the bell what this page shows (ui/classroom/bell.py), which
    reruns it when the class moves on. Nothing outside a class or for the teacher."""
    session = internals.this_session()
    if not watching():
        if st.session_state.pop(LISTENING, False):  # it left the class (or became its teacher)
            bell().forget(session)
        return
    m = member()
    st.session_state[WAITING] = set()  # this run's page adds the questions it holds (questions.py)
    try:
        view = ringing.shared(("view", m.code), lambda: store().view(m.code))
        vote = ringing.shared(("vote", m.code), lambda: ringing.vote(store(), m.code))
    except ClassError as error:
        leave()
        st.session_state["_class_message"] = str(error)
        st.rerun()
    if m.follow and view.version > m.seen and view.page in pages:
        m.seen = view.version
        st.switch_page(pages[view.page], query_params=view.params | url.link_params({}))
    m.seen = max(m.seen, view.version)
    if vote != m.vote:  # the teacher asked again: a new vote starts with no pick
        if m.vote is not None and vote is not None and vote[0] == m.vote[0]:
            st.session_state[vote[0]] = None
            st.session_state.get(REFUSED, {}).pop(vote[0], None)  # and no refusal from the last vote
        m.vote = vote
    if session is not None:
        bell().listen(session, ringing.Tab(m.code, m.follow, m.seen, m.vote, st.session_state[WAITING]))
        st.session_state[LISTENING] = True


@functools.cache
def bell() -> ringing.Bell:
    """The process's bell, on the process's store."""
    return ringing.Bell(store())
