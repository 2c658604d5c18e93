"""The address bar. Every page writes its parameters at most once per run (each write that changes
the URL is a new browser-history entry), with `projector=1` added while projector mode is on.

A URL a page did not write itself is the learner's request (Back or Forward, an edited address,
a shared link): the pages that keep their view in the URL reload from it. A page whose view is at
its defaults leaves the URL bare, so opening the app adds no history entry of its own.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

APP_PARAMS = ("projector",)  # written for every page, read by app.py


def read() -> dict[str, tuple[str, ...]]:
    """The page's own query parameters as the browser has them (app-wide ones left out)."""
    return {k: tuple(st.query_params.get_all(k)) for k in st.query_params if k not in APP_PARAMS}


def write(params: dict[str, str]) -> None:
    """Make the URL hold `params` (plus projector=1), if it does not already."""
    full = params | ({"projector": "1"} if st.session_state.get("projector") else {})
    if {k: tuple(st.query_params.get_all(k)) for k in st.query_params} != {k: (v,) for k, v in full.items()}:
        st.query_params.from_dict(full)


def as_read(params: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """`params` as read() will return them once written."""
    return {k: (v,) for k, v in params.items()}


def link_params(params: dict[str, str]) -> dict[str, str]:
    """Query parameters for a link to a page whose view is `params`."""
    return params | ({"projector": "1"} if st.session_state.get("projector") else {})


def share_link(params: dict[str, str]) -> str:
    """This page's full address with `params` (and projector=1 while it is on)."""
    query = urlencode(link_params(params))
    return (st.context.url or "") + (f"?{query}" if query else "")
