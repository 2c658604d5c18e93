"""The address bar. Every page writes its parameters at most once per run (each write that changes
the URL is a new browser-history entry), with `projector=1` added while projector mode is on.

A URL a page did not write itself is the learner's request (Back or Forward, an edited address,
a shared link): the pages that keep their view in the URL (OWN) reload from it. Each such page
calls sync() at its top and keep() at its end. A page whose view is at its defaults leaves the
URL bare, so opening the app adds no history entry of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlencode, urlsplit

import streamlit as st

from ui import language

CLASS_KEY = "_class_code"  # the session's class (ui/classroom/membership.py), as its links carry it
APP_PARAMS = ("projector", language.KEY, "class", "student", "teacher")  # app.py's, not a page's view
# url_path -> name: the pages whose view lives in the address
OWN = {"": "explorer", "learn": "learn", "model": "model", "modern": "modern"}


def read() -> dict[str, tuple[str, ...]]:
    """The page's own query parameters as the browser has them (app-wide ones left out)."""
    return {k: tuple(st.query_params.get_all(k)) for k in st.query_params if k not in APP_PARAMS}


def write(params: dict[str, str]) -> None:
    """Make the URL hold `params` (plus projector=1 and the language), if it does not already."""
    full = link_params(params)
    if {k: tuple(st.query_params.get_all(k)) for k in st.query_params} != {k: (v,) for k, v in full.items()}:
        st.query_params.from_dict(full)


def link_params(params: dict[str, str], shared: bool = False) -> dict[str, str]:
    """Query parameters for a link to a page whose view is `params` (in this session's language).
    This session's own links and address carry its class and its student token (a reload is the
    same student); a `shared` link carries neither: whoever opens it is not this student, and a
    view shared on a forum joins nobody to the class."""
    s = st.session_state
    in_class = {}
    if s.get(CLASS_KEY) and not shared:
        in_class = {"class": s[CLASS_KEY]}
        m = s.get("_class")  # ui/classroom/membership.Member
        if m is not None and not m.teacher:
            in_class["student"] = m.student
    return params | ({"projector": "1"} if s.get("projector") else {}) | language.in_links() | in_class


def link_query(params: dict[str, str]) -> str:
    """The query string of a link to share this page's view `params` (projector=1 while it is on;
    no class, no student token)."""
    return urlencode(link_params(params, shared=True))


def share_link(params: dict[str, str]) -> str:
    """This page's full address with `params` (and projector=1 while it is on), for anyone: no
    class, no student token."""
    query = link_query(params)
    page = st.context.url or ""
    page += "/" if page and not urlsplit(page).path else ""  # http://host/?..., as a browser shows it
    return page + (f"?{query}" if query else "")


def sync(page: str, widgets: Sequence[str], load: Callable[[dict[str, tuple[str, ...]]], None]) -> None:
    """At the top of a page that keeps its view in the URL: `load` the URL's parameters into its
    widgets on its first run in this session (`widgets[0]` not set yet) and whenever the address
    is not the one it wrote itself (Back or Forward, an edited address, a shared link). Then keep
    the widgets' values: Streamlit forgets a widget's value in any run that does not draw it."""
    s = st.session_state
    raw = read()
    if widgets[0] not in s or raw != s.get(f"_{page}_url"):
        load(raw)
        s[f"_{page}_url"] = raw
    hold(widgets)


def hold(widgets: Sequence[str]) -> None:
    """Keep these widgets' values: Streamlit forgets a widget's value in any run that does not draw it."""
    s = st.session_state
    for key in widgets:
        if key in s:
            s[key] = s[key]


def keep(page: str, params: dict[str, str], exact: dict[str, str] | None = None) -> None:
    """At the end of the page's run: write its view, and remember it as its own and as what the
    sidebar's link back to it carries; `exact`: the view with nothing left to a default that
    depends on the reader's language (what a teacher sends the class: exact_view)."""
    write(params)
    as_read = {k: (v,) for k, v in params.items()}  # what read() will return once it is written
    st.session_state[f"_{page}_url"], st.session_state[f"_{page}_link"] = as_read, params
    st.session_state[f"_{page}_exact"] = exact if exact is not None else params


def exact_view(url_path: str) -> dict[str, str] | None:
    """The view the page at `url_path` last kept, as the same view in every language (None: a
    page that keeps none)."""
    return st.session_state.get(f"_{OWN[url_path]}_exact") if url_path in OWN else None


def own_link(url_path: str) -> dict[str, str]:
    """The view a link to this page carries: its last own URL, or nothing."""
    return st.session_state.get(f"_{OWN[url_path]}_link", {}) if url_path in OWN else {}
