"""Explorer: type a sentence, turn the knobs, see every step of attention as heatmaps."""

import streamlit as st

from ui.cache import cached_trace
from ui.controls import explorer_controls
from ui.explorer_views import chosen_view, summary
from ui.router import use_router
from ui.widgets import show_notes

use_router()

st.title("Attention Explorer")
st.caption(
    "Type a sentence, turn the knobs in the sidebar, and see every step of attention with its exact numbers."
)
config, notes = explorer_controls()
show_notes(notes)
trace = cached_trace(config)
summary(config, trace)
chosen_view(config, trace)
