"""Attention Explorer: the router. Page config and the shared chrome live here, once."""

import streamlit as st

st.set_page_config(page_title="Attention Explorer", page_icon="🔍", layout="wide")

page = st.navigation([st.Page("pages/explorer.py", title="Explorer", icon="🔍", default=True)])

with st.sidebar:
    st.markdown("### 🔍 Attention Explorer")
    st.caption(
        'Chapter 3 of "Build a Large Language Model (From Scratch)", every step computed live. '
        "Rows are queries (the token that looks); columns are keys (the token looked at)."
    )

page.run()
