"""What a class keeps in the browser, beyond one tab's session: a cookie per class naming this
browser's role in it (a student's token, or a teacher's seat), and the address rewritten without
a new history entry.

A Streamlit session is a tab: a reload, a second tab or a phone asleep past
server.disconnectedSessionTTL starts a new one with empty state. A student's token also rides in
the address (ui/url.py), which a reload or a copied address keeps; the cookie adds a QR code
scanned again, or the join link opened in a new tab. A teacher's seat lives only here: the
teacher's address is projected, so it carries no secret.

st.context.cookies reads what the browser sent when the tab connected. Writing takes a line of
JavaScript (st.html with unsafe_allow_javascript runs in the page itself, not in a frame); every
value written is one this module made (a canonical code, a token of [A-Za-z0-9_-]), never a
visitor's text. Without a browser (AppTest) nothing runs and the address and session state carry
what is needed.
"""

from __future__ import annotations

import json
import re
import secrets

import streamlit as st

PREFIX = "attention_class_"  # + the class's canonical code
BROWSER = "attention_browser"  # this browser's own id: whom the classes it starts count against
BROWSER_DAYS = 30
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")  # what secrets.token_urlsafe makes
ROLES = {"s": "student", "t": "teacher"}
PENDING = "_class_browser"  # lines of JavaScript this run owes the browser


def cookie(code: str) -> tuple[str, str] | None:
    """(role, token) this browser holds for the class `code` (canonical), or None. A cookie that
    is not one we wrote is ignored."""
    try:
        value = st.context.cookies.get(PREFIX + code, "")
    except Exception:  # noqa: BLE001 - no browser context (a bare script): nothing remembered
        return None
    role, _, token = str(value).partition(".")
    return (ROLES[role], token) if role in ROLES and TOKEN.fullmatch(token) else None


def identity() -> str:
    """This browser's id, the same through reloads and tabs once its cookie is set (a new one is
    drawn and kept for BROWSER_DAYS). A browser that refuses cookies is a tab: the address's
    limit still holds for it."""
    s = st.session_state
    if "_browser" not in s:
        try:
            sent = str(st.context.cookies.get(BROWSER, ""))
        except Exception:  # noqa: BLE001 - no browser context (a bare script)
            sent = ""
        s["_browser"] = sent if TOKEN.fullmatch(sent) else secrets.token_urlsafe(16)
        if s["_browser"] != sent:
            _set_cookie(BROWSER, s["_browser"], BROWSER_DAYS * 86400)
    return s["_browser"]


def remember(code: str, role: str, token: str, seconds: float) -> None:
    """Keep (role, token) for `code` in this browser for `seconds` (the class's lifetime)."""
    value = {"student": "s", "teacher": "t"}[role] + "." + token
    if TOKEN.fullmatch(token) and cookie(code) != (role, token):
        _set_cookie(PREFIX + code, value, seconds)


def _set_cookie(name: str, value: str, seconds: float) -> None:
    _owe(
        f"document.cookie = {json.dumps(name)} + '=' + {json.dumps(value)}"
        f" + '; Path=/; Max-Age={int(seconds)}; SameSite=Lax'"
        " + (location.protocol === 'https:' ? '; Secure' : '');"
    )


def forget(code: str) -> None:
    """This browser no longer holds a role in `code`."""
    _set_cookie(PREFIX + code, "", 0)


def reload_without(param: str) -> None:
    """Open this address again without `param`, replacing the current history entry: the address
    that held it is gone from Back, history and the address bar's suggestions."""
    _owe(
        f"const u = new URL(location.href); u.searchParams.delete({json.dumps(param)});"
        " location.replace(u.toString());"
    )


def reload_in(seconds: float) -> None:
    """Open this address again after `seconds` (the store did not answer: try again then)."""
    _owe(f"setTimeout(() => location.reload(), {int(seconds * 1000)});")


def _owe(line: str) -> None:
    st.session_state.setdefault(PENDING, []).append(line)


def send() -> None:
    """Run what this run owes the browser, once (at the end of app.py's chrome)."""
    lines = st.session_state.pop(PENDING, None)
    if lines:
        st.html("<script>" + "\n".join(lines) + "</script>", unsafe_allow_javascript=True, width=1)
