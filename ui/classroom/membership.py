"""Which class this session is in: `?class=CODE` in any link joins it, `&teacher=SECRET` makes the
session its teacher (the secret leaves the address at once: a projected address bar must not show
it). The sidebar says which class and how to leave; a student who follows sees their page switch
to the view the teacher sends, within a second or two (a fragment that polls the store)."""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import streamlit as st

from attention.classroom import ClassError, Store, open_store
from attention.classroom.codes import canonical, shown
from attention.i18n import tr
from ui import url
from ui.slots import session_id

KEY, CODE = "_class", url.CLASS_KEY  # the membership; the class's code (ui/url.py keeps it in links)
POLL = 1.0  # seconds between a follower's looks at the teacher's view


@dataclass
class Member:
    code: str  # canonical (K7QXM2P9R)
    student: str  # this session's id in the class
    secret: str | None = None  # the teacher's; None for a student
    nickname: str = ""
    follow: bool = True
    seen: int = 0  # the teacher's view version this session has followed
    question_state: tuple | None = None  # (question, round, revealed) of the class's question, as last drawn

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
    """Whom wrong codes are counted against: the visitor's address where the server sees one."""
    return str(st.context.ip_address or session_id())


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


@st.fragment(run_every=POLL)
def poll(pages: dict) -> None:
    """A student's look at the class, every POLL seconds: a view the teacher sent (when following)
    switches the page; the question the class is on revealed, or asked again, reruns the page (a
    new vote starts with no pick). One fragment a page: a lecture hall's reruns stay light."""
    m = member()
    if m is None or m.teacher:
        return
    try:
        view, asked = store().view(m.code), store().current_question(m.code)
        current = store().tally(m.code, asked).current if asked else None
    except ClassError as error:
        leave()
        st.session_state["_class_message"] = str(error)
        st.rerun(scope="app")
    if m.follow and view.version > m.seen and view.page in pages:
        m.seen = view.version
        st.switch_page(pages[view.page], query_params=view.params | url.link_params({}))
    m.seen = max(m.seen, view.version)
    state = (asked, current.number, current.revealed) if current else None
    if m.question_state != state:
        if m.question_state and state and m.question_state[:2] != state[:2]:
            st.session_state[asked] = None  # asked again: a new vote, no pick yet
        m.question_state = state
        st.rerun(scope="app")
