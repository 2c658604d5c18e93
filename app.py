"""Attention Explorer: the router. Page config and the shared chrome live here, once."""

from pathlib import Path

import streamlit as st

from attention.devices import configure_torch_threads

st.set_page_config(page_title="Attention Explorer", page_icon="🔍", layout="wide")
PROJECTOR_CSS = "<style>" + (Path(__file__).parent / "assets" / "projector.css").read_text() + "</style>"

PAGES = [
    st.Page("pages/explorer.py", title="Explorer", icon="🔍", default=True),
    st.Page("pages/learn.py", title="Learn step by step", icon="📖"),
    st.Page("pages/compare.py", title="Compare", icon="⚖️"),
    st.Page("pages/scaling.py", title="Scaling", icon="📈"),
    st.Page("pages/train.py", title="Watch it learn", icon="🎓"),
]
# Our own links in the sidebar below (config.toml turns Streamlit's automatic menu off, which
# would list the files in pages/ for a moment before st.navigation takes over).
page = st.navigation(PAGES, position="hidden")
# Once per server process: torch's thread pool is process-wide, one thread per computation lets
# 30 students' reruns run side by side (attention.devices.configure_torch_threads).
configure_torch_threads()
# A page keeps heavy per-session state (a model being trained) under "_held_<its url>": leaving
# the page drops it, so a student wandering off frees the memory.
for key in [k for k in st.session_state if k.startswith("_held_") and k != f"_held_{page.url_path}"]:
    del st.session_state[key]

with st.sidebar:
    st.markdown("### 🔍 Attention Explorer")
    for p in PAGES:
        st.page_link(p)
    st.caption(
        'Chapter 3 of "Build a Large Language Model (From Scratch)", every step computed live. '
        "Rows are queries (the token that looks); columns are keys (the token looked at)."
    )
    st.toggle(
        "Projector: large text, high contrast", key="projector", help="For the back row of a lecture hall."
    )
if st.session_state.get("projector"):
    st.html(PROJECTOR_CSS)

page.run()
