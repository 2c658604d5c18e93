"""Every page's first call: make sure it runs inside app.py's router."""

from __future__ import annotations

import runpy
from pathlib import Path

import streamlit as st

from ui.internals import serves_pages_directory

APP = Path(__file__).resolve().parents[1] / "app.py"


def use_router() -> None:
    """Until some run calls st.navigation, Streamlit serves a folder called pages/ the old (v1)
    way: a fresh server's first visitor arriving at /compare would get that page alone, without
    app.py (no page config, no sidebar, no per-page cleanup), and so would everyone after until
    someone opened "/" (AppTest even starts every run that way). Run app.py here instead: its
    st.navigation switches the process over and runs this page again, inside the router, in this
    same run (a rerun would lose a button's click)."""
    if serves_pages_directory():
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()
