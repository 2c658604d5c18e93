"""The Class page: join a class, or start one and show its code, its join link and a QR code large
enough for the back row; the teacher's link; who has joined; the answers as CSV; close."""

from __future__ import annotations

import base64
import html
import io
from urllib.parse import urlencode

import segno
import streamlit as st

from attention import i18n, settings
from attention.classroom import ClassError, to_csv
from attention.classroom.rules import NICKNAME_CHARS as NICKNAME
from attention.i18n import tr
from ui import language
from ui.classroom import address, browser, membership
from ui.classroom.membership import Member, enter, leave, member
from ui.widgets import literal

JOINED_POLL = 2.0  # seconds between the teacher's looks at how many have joined
# Classes one browser, and one address, may start per hour (Limits.starts_window): a teacher
# starts one or two; a school behind one address, a few dozen; a visitor in a loop, no more.
STARTS_PER_BROWSER, STARTS_PER_ADDRESS = 5, 30


def join_link(code: str, secret: str | None = None) -> str:
    """The address students' phones open with ?class= (and the teacher's secret). No language:
    each phone opens in its own."""
    base, _ = address.join_base()
    query = {"class": code} | ({"teacher": secret} if secret else {})
    return f"{base}/?{urlencode(query)}"


def starters() -> dict[str, int]:
    """Whom a new class counts against: this browser (browser.identity: a reload is the same
    browser) and its address, each with how many it may start per hour."""
    return {
        "browser:" + browser.identity(): STARTS_PER_BROWSER,
        membership.caller(): STARTS_PER_ADDRESS,
    }


def qr_code(text: str, caption: str) -> str:
    """The join link as a QR code: an image with its caption as alt text (st.image has none) and
    under it, drawn 360 px wide (less on a phone). An SVG in a data: address (st.html's sanitizer
    drops inline SVG; an <img> with a data: source it keeps)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", border=2, xmldecl=False)
    source = "data:image/svg+xml;base64," + base64.b64encode(out.getvalue()).decode()
    said = html.escape(caption)
    image = f"<img src='{source}' alt='{said}'>"
    return f"<figure class='class-qr'>{image}<figcaption>{said}</figcaption></figure>"


def page() -> None:
    st.title(tr("Class mode"))
    st.markdown(
        tr(
            "The whole class predicts, the teacher sees the spread of answers, the class discusses, and "
            "then the teacher reveals the answer. Students join with the code or the QR code. After that, "
            "each predict-first question on Learn, Modern attention and What your language costs is "
            "answered for the class. Its answer stays hidden until the teacher reveals it."
        )
    )
    m = member()
    if m is None:
        outside()
    elif m.teacher:
        teacher_board(m)
    else:
        student_card(m)


def outside() -> None:
    left, right = st.columns(2, gap="large")
    with left.form("class_join", border=True):
        st.header(tr("Join a class"))
        code = st.text_input(tr("Code"), max_chars=16, placeholder="K7QX-M2P9R", key="class_join_code")
        nickname = st.text_input(
            tr("Nickname (optional)"),
            max_chars=NICKNAME,
            help=tr("Shown to your teacher only if they export it."),
        )
        if st.form_submit_button(tr("Join"), type="primary"):
            if not code.strip():
                st.error(tr("Type the code your teacher shows, for example K7QX-M2P9R."))
            else:
                try:
                    enter(code, nickname=nickname)
                    st.rerun()
                except ClassError as error:
                    st.error(literal(str(error)))
    with right.container(border=True):
        st.header(tr("Start a class"))
        st.caption(
            tr(
                "For the teacher: you get a code for the class and a teacher's link that only you hold. A "
                "class lasts {hours:g} hours. A class that nobody joins ends after an hour.",
                hours=membership.store().limits.hours,
            )
        )
        needs_key = bool(settings.teacher_key())
        key = None
        if needs_key:
            key = st.text_input(
                tr("Teacher key"),
                type="password",
                key="class_teacher_key",
                help=tr(
                    "This server asks for a key before a class can be started. The server's administrator "
                    "has the key."
                ),
            )
        if st.button(tr("Start a class"), type="primary", key="class_start"):
            try:
                code, secret = membership.store().new_class(starters=starters(), key=key)
                membership.exchange(code, secret)
            except ClassError as error:
                st.error(literal(str(error)))


def teacher_board(m: Member) -> None:
    link = join_link(m.shown_code)
    _, warning = address.join_base()
    if warning:
        st.warning(literal(warning), icon=":material/wifi_off:")
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.markdown(tr("Join at the address below, or scan the code:"))
        st.markdown(f"<div class='class-code'>{m.shown_code}</div>", unsafe_allow_html=True)
        st.code(link, language=None, wrap_lines=True)
        joined()
    with right:
        st.html(qr_code(link, tr("Scan to join class {code}", code=m.shown_code)))
    if st.session_state.get("projector"):  # the secret is never on the projected screen
        st.caption(tr("The teacher's link is hidden in Projector mode."))
    else:
        with st.expander(tr("The teacher's link (keep it to yourself)"), icon=":material/key:"):
            st.caption(
                tr(
                    "This link makes any browser the teacher of this class, able to reveal, ask again, "
                    "send your view and export. Do not project it. This browser stays the teacher when you "
                    "reload. To teach from another browser, open the link there."
                )
            )
            st.code(join_link(m.shown_code, m.secret_link or m.secret), language=None, wrap_lines=True)
    export(m)
    close(m)


def close(m: Member) -> None:
    """Close the class, after a second click: its answers are deleted for good."""
    if not st.toggle(tr("I want to close this class"), key="class_close_ask"):
        return
    st.warning(
        tr("Closing deletes the class and every answer in it. Download the answers first if you need them.")
    )
    if st.button(tr("Close the class now"), key="class_close", type="primary"):
        try:
            membership.store().close(m.code, m.secret)
        except ClassError as error:
            st.warning(literal(str(error)))
            return
        leave()
        browser.forget(m.code)  # the teacher's seat: the class is gone
        membership.say(tr("Class {code} is closed, and its answers are deleted.", code=m.shown_code))
        st.rerun()


@language.fragment(run_every=JOINED_POLL)
def joined() -> None:
    m = member()
    if m is None:
        return
    try:
        n = membership.store().joined(m.code)
    except ClassError as error:
        st.warning(literal(str(error)))
        return
    st.metric(tr("Students in the class"), n)


def export(m: Member) -> None:
    with st.container(border=True):
        st.markdown(
            tr(
                "**The class's answers**: every question, with the number of answers per option and "
                "each vote."
            )
        )
        names = st.checkbox(tr("Include nicknames"), key="class_nicknames")
        st.download_button(
            tr("Download as CSV"),
            lambda: _csv(m, names, i18n.language()),  # built when clicked: the answers up to then
            file_name=f"class-{m.shown_code}.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
        )


def _csv(m: Member, names: bool, language: str) -> str:
    i18n.use(language)  # built outside the page's run: a message in it speaks the page's language
    try:
        return to_csv(membership.store().export(m.code, m.secret, nicknames=names), nicknames=names)
    except ClassError as error:
        return f"error\n{error}\n"  # a download has no page to say it on


def student_card(m: Member) -> None:
    st.success(tr("You are in class **{code}**.", code=m.shown_code), icon=":material/groups:")
    st.markdown(
        tr(
            "Answer the predict-first questions on Learn, Modern attention and What your language costs: "
            "your answer is recorded for the class, and the answer is shown when your teacher reveals it. "
            "While **Follow the teacher** is on, your page switches to what your teacher sends."
        )
    )
    with st.form("class_nickname"):
        nickname = st.text_input(tr("Nickname (optional)"), value=m.nickname, max_chars=NICKNAME)
        if st.form_submit_button(tr("Save")):
            try:
                membership.store().join(m.code, m.student, nickname, caller=membership.caller())
                m.nickname = nickname
            except ClassError as error:
                st.error(literal(str(error)))
    st.button(tr("Leave the class"), key="class_leave_page", on_click=language.callback(leave))
