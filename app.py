"""Attention Explorer: the router. Page config and the shared chrome live here, once."""

import streamlit as st

st.set_page_config(page_title="Attention Explorer", page_icon="🔍", layout="wide")

PAGES = [
    st.Page("pages/explorer.py", title="Explorer", icon="🔍", default=True),
    st.Page("pages/learn.py", title="Learn step by step", icon="📖"),
    st.Page("pages/compare.py", title="Compare", icon="⚖️"),
    st.Page("pages/scaling.py", title="Scaling", icon="📈"),
]
# Our own links: Streamlit's automatic menu would also list every file in pages/ (ui.py is
# not a page) for a moment before st.navigation takes over. config.toml turns that menu off.
page = st.navigation(PAGES, position="hidden")

with st.sidebar:
    st.markdown("### 🔍 Attention Explorer")
    for p in PAGES:
        st.page_link(p)
    st.caption(
        'Chapter 3 of "Build a Large Language Model (From Scratch)", every step computed live. '
        "Rows are queries (the token that looks); columns are keys (the token looked at)."
    )

page.run()
