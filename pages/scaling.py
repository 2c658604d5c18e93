"""Scaling: time and peak memory of one forward pass and one trace as the token count grows."""

import pandas as pd
import streamlit as st

from attention import bench
from attention.slots import SWEEPS
from ui import scaling
from ui.router import use_router
from ui.slots import wait_for
from ui.widgets import plural

use_router()

st.title("Scaling")
st.markdown(
    "How one forward pass and one trace grow with the number of tokens T. Attention builds a T × T "
    "matrix per head, so time and memory should grow as T² once T is large."
)
scaling.device_note()
params = scaling.sweep_controls()
key = scaling.sweep_key(params)
done = scaling.kept(key)
if not (params["variants"] and params["devices"] and params["modes"]):
    st.warning("Pick at least one variant, one device and one measure.")
    st.stop()
run, stop, _ = st.columns([1, 1, 4])
start = run.button("Run sweep", type="primary", key="scaling_run", disabled=done is not None)
partial = st.session_state.get("scaling_partial")
mine = st.session_state.setdefault("scaling_mine", set())  # the sweeps this session ran

if done is not None:
    if key in mine:
        st.caption("Your sweep; it is kept on this server, so the same settings show it to everyone at once.")
    else:
        st.caption(
            "Measured earlier on this server by another session with these settings (kept for everyone)."
        )
    scaling.show(pd.DataFrame(done, columns=bench.SCALING_COLUMNS))
elif start:
    stop.button("Stop", key="scaling_stop")  # a click reruns, which ends the sweep (or the wait)
    ticket, _ = wait_for(SWEEPS, st.session_state.setdefault("_held_scaling", {}), "sweep")
    rows: list[dict] = []
    st.session_state["scaling_partial"] = (key, rows)  # kept if Stop interrupts the run
    try:
        error = scaling.run_sweep(params, rows, ticket.ask)
    finally:
        ticket.release()
    if error:
        st.error(error)
    else:
        scaling.keep(key, rows)
        mine.add(key)
        st.session_state.pop("scaling_partial", None)
        st.rerun()  # draw the finished sweep once, with the Run button disabled
elif partial and partial[0] == key and partial[1]:
    st.warning(f"Stopped after {plural(len(partial[1]), 'measurement')}; these are the ones that finished.")
    scaling.show(pd.DataFrame(partial[1], columns=bench.SCALING_COLUMNS))
else:
    st.caption("Press Run: the sweep runs in a process of its own, with a progress bar; Stop ends it.")
