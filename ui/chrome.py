"""The app's chrome, built once: its style sheets per server process, its pages per session. app.py runs
on every rerun; building these there cost ~20% of a rerun's CPU under a classroom's load
(st.Page resolves and stats its file; the CSS was read from disk): py-spy, benchmarks/classroom.py."""

from __future__ import annotations

import streamlit as st

from attention.settings import ASSETS

APP_CSS = "<style>" + (ASSETS / "app.css").read_text() + "</style>"
PROJECTOR_CSS = "<style>" + (ASSETS / "projector.css").read_text() + "</style>"


def pages() -> dict[str, st.Page]:
    """url path -> st.Page, made once per session: st.navigation marks the page it runs on the
    Page object itself, so sessions cannot share them (measured: "This page cannot be called
    directly" under load), but a session's reruns run one at a time."""
    if "_pages" not in st.session_state:
        st.session_state["_pages"] = _make()
    return st.session_state["_pages"]


def _make() -> dict[str, st.Page]:
    made = [
        st.Page("pages/explorer.py", title="Explorer", icon=":material/grid_on:", default=True),
        st.Page("pages/learn.py", title="Learn step by step", icon=":material/school:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare:"),
        st.Page("pages/scaling.py", title="Scaling", icon=":material/trending_up:"),
        st.Page("pages/train.py", title="Watch it learn", icon=":material/model_training:"),
        st.Page("pages/model.py", title="Inside a model", icon=":material/neurology:"),
    ]
    return {page.url_path: page for page in made}
