"""Scaling: time and peak memory of one forward pass and one trace as the token count grows."""

import json
import subprocess
from collections import OrderedDict
from pathlib import Path

import pandas as pd
import streamlit as st

from attention import bench
from attention.devices import available_devices, device_name
from attention.figures.scaling import scaling_figure
from attention.slots import SWEEPS
from ui.router import use_router
from ui.slots import wait_for
from ui.widgets import chart, plural

use_router()

ROOT = Path(__file__).resolve().parents[1]
TOKENS = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
# The largest attention matrix (B·H·T²·4 bytes) a sweep may build per device. A forward holds ~4
# of them at its peak and a trace ~5, in a child process beside the server: on the CPU this keeps
# the child under ~400 MB (a shared server's RAM); a GPU has its own memory.
MAX_ATTENTION_BYTES = {"cpu": 64 * 2**20, "cuda": 2 * 2**30, "mps": 256 * 2**20}
KEPT_SWEEPS = 16


@st.cache_resource
def _shared() -> dict:
    """Process-wide: finished sweeps, for every session (one sweep at a time: attention.slots)."""
    return {"results": OrderedDict()}


def sweep(params: dict, rows: list[dict], heartbeat) -> str | None:
    """Run the sweep in a child process, appending rows as they come; an error message or None.
    `heartbeat()` is called with each row: it keeps the sweep's slot (attention.slots drops a
    ticket silent for its lease). A rerun (the Stop button, or leaving the page) interrupts this
    at the next Streamlit call; `finally` then kills the child, which frees everything it held."""
    total = len(
        bench.scaling_points(params["tokens"], params["variants"], params["devices"], params["modes"])
    )
    bar = st.progress(0.0, text=f"Starting the sweep: {total} measurements…")
    child = subprocess.Popen(
        bench.command(params), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        for line in child.stdout:
            row = json.loads(line)
            rows.append(row)
            heartbeat()
            bar.progress(
                len(rows) / total,
                text=f"{len(rows)}/{total}: T = {row['tokens']}, {row['module']} {row['mode']} on "
                f"{row['device']}: {row['ms']:.3g} ms",
            )
        if child.wait() != 0:
            return (
                "The sweep stopped with an error: " + (child.stderr.read().strip().splitlines() or ["?"])[-1]
            )
        return None
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        bar.empty()


def _number(value) -> str:
    """Table cells: 3 significant digits; a missing value (no previous length, no memory
    measurement) is a dash, never "None" or "nan"."""
    if isinstance(value, str):
        return value
    if value is None or pd.isna(value):
        return "—"
    return f"{value:,}" if float(value).is_integer() and abs(value) >= 1 else f"{value:.3g}"


def show(frame: pd.DataFrame) -> None:
    left, right = st.columns(2)
    with left:
        chart(scaling_figure(frame, "ms"), key="scaling_time")
    with right:
        if frame["peak_bytes"].notna().any():
            chart(scaling_figure(frame, "peak_bytes"), key="scaling_memory")
        else:
            st.info("Peak memory needs Linux's /proc (CPU) or CUDA; not measured here.")
    longest = frame[frame["tokens"] == frame["tokens"].max()]
    for _, row in longest[longest["peak_bytes"].notna()].iterrows():
        st.markdown(
            f"- T = {row['tokens']}: **{row['module']} · {row['mode']}** on {row['device']} peaked at "
            f"{row['peak_bytes'] / 2**20:.3g} MiB = {row['peak_bytes'] / row['attention_bytes']:.3g} × "
            f"the attention matrix B·H·T²·4 = {row['attention_bytes'] / 2**20:.3g} MiB"
        )
    st.caption(
        "Time exponent: the slope of log(ms) against log(T) from the previous length; 2 means the "
        "O(T²) attention matrix dominates, below 2 the fixed costs and the O(T·d²) projections still do. "
        "Above 2 is noise or a cache effect: when the matrices outgrow a CPU cache, one doubling costs "
        "more than four times as much, and other work on the server can slow one measurement; read the "
        "trend, not one step. The first length of a line has no exponent (—). CPU peak memory is the RSS "
        "high-water mark of the sweep's own process (pages of 4 KiB)."
    )
    table = bench.scaling_summary(frame)
    table["variant"] = table["variant"].map(lambda key: bench.IMPLEMENTATIONS[key].short)
    st.dataframe(table.style.format(_number), hide_index=True, width="stretch")
    st.download_button(
        "Download the measurements (CSV)",
        frame.to_csv(index=False),
        "scaling.csv",
        "text/csv",
        key="scaling_csv",
    )


st.title("Scaling")
st.markdown(
    "How one forward pass and one trace grow with the number of tokens T. Attention builds a T × T "
    "matrix per head, so time and memory should grow as T² once T is large."
)
present = available_devices()
if "cuda" not in present:
    st.info(
        "No CUDA GPU on this server: the sweep runs on the CPU" + (" and MPS." if "mps" in present else ".")
    )
else:
    st.caption("GPU: " + device_name("cuda") + ". GPU timings synchronise and warm up first.")

variants = st.multiselect(
    "Variants", list(bench.IMPLEMENTATIONS), list(bench.DEFAULT_SCALING_VARIANTS), key="scaling_variants",
    format_func=lambda v: bench.IMPLEMENTATIONS[v].short,
)  # fmt: skip
c2, c3, c4, c5, c6 = st.columns([2, 1, 1, 2, 1])
devices = c2.multiselect("Devices", present, present, key="scaling_devices", format_func=device_name)
d = c3.selectbox("d = d_in = d_out", [16, 64, 256, 768], index=1, key="scaling_d")
heads = c4.selectbox("heads", [h for h in (1, 2, 4, 8, 12, 16) if d % h == 0], index=2, key="scaling_heads")
modes = c5.multiselect("Measure", ["forward", "trace"], ["forward", "trace"], key="scaling_modes")
causal = c6.checkbox("causal mask", True, key="scaling_causal")
limit = min(MAX_ATTENTION_BYTES.get(dev, MAX_ATTENTION_BYTES["cpu"]) for dev in devices or ["cpu"])
allowed = [t for t in TOKENS if heads * t * t * 4 <= limit]
longest = st.select_slider(
    "Longest T", allowed, value=min(1024, allowed[-1]), key="scaling_longest",
    help="Capped so that one attention matrix stays under "
    f"{limit / 2**20:.0f} MiB on the slowest selected device, with {heads} heads.",
)  # fmt: skip
params = {
    "tokens": [t for t in allowed if t <= longest],
    "variants": variants,
    "devices": devices,
    "modes": modes,
    "d": int(d),
    "heads": int(heads),
    "causal": causal,
}
key = json.dumps(params, sort_keys=True)
shared = _shared()
done = shared["results"].get(key)

if not (variants and devices and modes):
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
    show(pd.DataFrame(done, columns=bench.SCALING_COLUMNS))
elif start:
    stop.button("Stop", key="scaling_stop")  # a click reruns, which ends the sweep (or the wait)
    ticket, _ = wait_for(SWEEPS, st.session_state.setdefault("_held_scaling", {}), "sweep")
    rows: list[dict] = []
    st.session_state["scaling_partial"] = (key, rows)  # kept if Stop interrupts the run
    try:
        error = sweep(params, rows, ticket.ask)
    finally:
        ticket.release()
    if error:
        st.error(error)
    else:
        shared["results"][key] = rows
        mine.add(key)
        while len(shared["results"]) > KEPT_SWEEPS:
            shared["results"].popitem(last=False)
        st.session_state.pop("scaling_partial", None)
        st.rerun()  # draw the finished sweep once, with the Run button disabled
elif partial and partial[0] == key and partial[1]:
    st.warning(f"Stopped after {plural(len(partial[1]), 'measurement')}; these are the ones that finished.")
    show(pd.DataFrame(partial[1], columns=bench.SCALING_COLUMNS))
else:
    st.caption("Press Run: the sweep runs in a process of its own, with a progress bar; Stop ends it.")
