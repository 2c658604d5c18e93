"""Scaling: time and peak memory of one forward pass and one trace as the token count grows."""

import streamlit as st

from attention.i18n import tr
from ui import scaling
from ui.classroom import membership
from ui.router import use_router

use_router()

st.title(tr("Scaling"))
st.markdown(
    tr(
        "How one forward pass and one trace grow with the number of tokens T. Attention builds a T × T "
        "matrix per head, so time and memory should grow as T² once T is large."
    )
)
scaling.device_note()
params = scaling.sweep_controls()
key = scaling.sweep_key(params)
done = scaling.kept(key)
if not (params["variants"] and params["devices"] and params["modes"]):
    st.warning(tr("Pick at least one variant, one device and one measure."))
    membership.stop()  # the page as far as it goes: a class student has arrived
scaling.sweep(params, key, done)
