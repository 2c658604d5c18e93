"""Scaling's controls, its sweep run with a progress bar, the sweeps kept for every session, and
the charts and table of one sweep.

    params = sweep_controls()            # tokens, variants, devices, modes, d, heads, causal
    kept(key) / keep(key, rows)          # finished sweeps, process-wide (one sweep runs at a time)
    error = run_sweep(params, rows, heartbeat)
    show(frame)
"""

from __future__ import annotations

import json
from collections import OrderedDict

import pandas as pd
import streamlit as st

from attention import bench
from attention.devices import available_devices, device_name
from attention.figures.scaling import scaling_figure
from attention.i18n import N_, number, tr, tr_n
from attention.slots import SWEEPS
from ui.slots import wait_for
from ui.widgets import HALF_PX, chart

KEPT_SWEEPS = 16


@st.cache_resource
def _kept() -> OrderedDict:
    """Process-wide: finished sweeps by their settings, for every session (attention.slots lets
    one sweep run at a time)."""
    return OrderedDict()


def sweep_key(params: dict) -> str:
    """A sweep's settings as one string: what it is kept under."""
    return json.dumps(params, sort_keys=True)


def kept(key: str) -> list[dict] | None:
    """The rows of a finished sweep with these settings, if this server has one: a copy, since
    every session reads the one kept."""
    rows = _kept().get(key)
    return None if rows is None else [dict(row) for row in rows]


def keep(key: str, rows: list[dict]) -> None:
    """Keep a finished sweep for everyone (a copy: the caller's list stays its own); the oldest
    goes beyond KEPT_SWEEPS."""
    store = _kept()
    store[key] = tuple(dict(row) for row in rows)
    while len(store) > KEPT_SWEEPS:
        store.popitem(last=False)


def device_note() -> None:
    present = available_devices()
    if "cuda" not in present and "mps" in present:
        st.info(tr("No CUDA GPU on this server: the sweep runs on the CPU and MPS."))
    elif "cuda" not in present:
        st.info(tr("No CUDA GPU on this server: the sweep runs on the CPU."))
    else:
        st.caption(tr("GPU: {name}. GPU timings synchronise and warm up first.", name=device_name("cuda")))


def sweep_controls() -> dict:
    """The sweep's settings: variants, devices, d, heads, what to measure, the mask, and the
    longest length, capped so that one attention matrix fits the most limited device."""
    present = available_devices()
    variants = st.multiselect(
        tr("Variants"),
        list(bench.IMPLEMENTATIONS),
        list(bench.DEFAULT_SCALING_VARIANTS),
        key="scaling_variants",
        format_func=lambda v: bench.IMPLEMENTATIONS[v].shown("short"),
    )
    c2, c3, c4, c5, c6 = st.columns([2, 1, 1, 2, 1])
    # labels made here, once: device_name counts torch's threads, which differ between threads (a
    # widget's value read in another thread would no longer match its label)
    names = {device: device_name(device) for device in present}
    devices = c2.multiselect(tr("Devices"), present, present, key="scaling_devices", format_func=names.get)
    d = c3.selectbox("d = d_in = d_out", [16, 64, 256, 768], index=1, key="scaling_d")
    heads = c4.selectbox(
        # TRANSLATORS: the number of attention heads
        tr("heads"),
        [h for h in (1, 2, 4, 8, 12, 16) if d % h == 0],
        index=2,
        key="scaling_heads",
    )
    # TRANSLATORS: what to measure: `forward` and `trace`, two methods' names
    modes = c5.multiselect(tr("Measure"), ["forward", "trace"], ["forward", "trace"], key="scaling_modes")
    causal = c6.checkbox(tr("causal mask"), True, key="scaling_causal")
    allowed, limit_mib = bench.allowed_tokens(devices, heads), bench.attention_limit(devices) / 2**20
    longest = st.select_slider(
        tr("Longest T"),
        allowed,
        value=min(1024, allowed[-1]),
        key="scaling_longest",
        help=tr_n(
            "Capped so that one attention matrix stays under {limit:.0f} MiB on the slowest selected device, "
            "with {heads} head.",
            "Capped so that one attention matrix stays under {limit:.0f} MiB on the slowest selected device, "
            "with {heads} heads.",
            heads,
            limit=limit_mib,
            heads=heads,
        ),
    )
    return {
        "tokens": [t for t in allowed if t <= longest],
        "variants": variants,
        "devices": devices,
        "modes": modes,
        "d": int(d),
        "heads": int(heads),
        "causal": causal,
    }


def module_name(variant: str) -> str:
    """A measured row's module, by its variant's key, in the reader's language."""
    return bench.IMPLEMENTATIONS[variant].shown("label")


def run_sweep(params: dict, rows: list[dict], heartbeat) -> str | None:
    """Run the sweep in a child process, appending rows as they come; an error message or None.
    `heartbeat()` is called with each row: it keeps the sweep's slot (attention.slots drops a
    ticket silent for its lease). A rerun (the Stop button, or leaving the page) interrupts this
    at the next Streamlit call; leaving the `with` then kills the child, which frees all it held."""
    bar = st.empty()
    try:
        with bench.SweepProcess(params) as sweep:
            total = sweep.total
            starting = tr_n(
                "Starting the sweep: {n} measurement…",
                "Starting the sweep: {n} measurements…",
                total,
                n=total,
            )
            bar.progress(0.0, text=starting)
            for row in sweep:
                rows.append(row)
                heartbeat()
                done = tr(
                    "{done}/{total}: T = {tokens}, {module} {mode} on {device}: {ms:.3g} ms",
                    done=len(rows),
                    total=total,
                    tokens=row["tokens"],
                    module=module_name(row["variant"]),
                    mode=row["mode"],
                    device=row["device"],
                    ms=row["ms"],
                )
                bar.progress(len(rows) / total, text=done)
        return (
            # TRANSLATORS: {error} is the error as the program wrote it, often in English
            None if sweep.error is None else tr("The sweep stopped with an error: {error}", error=sweep.error)
        )
    finally:
        bar.empty()


def _number(value) -> str:
    """Table cells: 3 significant digits; a missing value (no previous length, no memory
    measurement) is a dash, never "None" or "nan"."""
    if isinstance(value, str):
        return value
    if value is None or pd.isna(value):
        return "—"
    return number(value) if float(value).is_integer() and abs(value) >= 1 else f"{value:.3g}"


def peak_text(peak_bytes: float, attention_bytes: float, device: str) -> tuple[str, str]:
    """A peak in MiB and as a multiple of the attention matrix, as the table shows them: a peak
    measured as 0 is below the measurement's resolution, shown as "< that" (never 0)."""
    floor = bench.PEAK_RESOLUTION.get(device)  # the smallest rise the measurement sees, in bytes
    if peak_bytes == 0 and floor:
        return f"< {floor / 2**20:.2g}", f"< {floor / attention_bytes:.3g}"
    return _number(peak_bytes / 2**20), _number(peak_bytes / attention_bytes)


def shown_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The summary table as text where a cell can be missing or below resolution: a browser shows
    a missing number as "None" whatever the Styler says, so those columns are strings ("—")."""
    table = bench.scaling_summary(frame)
    table["variant"] = table["variant"].map(lambda key: bench.IMPLEMENTATIONS[key].shown("short"))
    peaks = [
        peak_text(peak, attention, device) if pd.notna(peak) else ("—", "—")
        for peak, attention, device in zip(
            table["peak MiB"] * 2**20, table["attention MiB"] * 2**20, table["device"], strict=True
        )
    ]
    table["peak MiB"], table["peak / attention"] = [p[0] for p in peaks], [p[1] for p in peaks]
    table["time exponent"] = table["time exponent"].map(_number)
    return table


MEMORY_NOTE = N_(
    "CPU peak memory is the RSS high-water mark of the sweep's own process; it moves in pages of "
    "4 KiB, so a call that fit in memory the process already held shows as < 0.0039 MiB (one page), "
    "not 0, and is left off the log-scale chart. On CUDA the allocator's peak, in blocks of 512 bytes."
)


def show(frame: pd.DataFrame) -> None:
    """Time and memory against T, what the longest length held, the summary table, the CSV (as
    measured: its words in English)."""
    named = frame.assign(module=frame["variant"].map(module_name))
    left, right = st.columns(2)
    with left:
        chart(scaling_figure(named, "ms"), key="scaling_time", width=HALF_PX)
    with right:
        if frame["peak_bytes"].notna().any():
            chart(scaling_figure(named, "peak_bytes"), key="scaling_memory", width=HALF_PX)
        else:
            st.info(tr("Peak memory needs Linux's /proc (CPU) or CUDA; not measured here."))
    longest = named[named["tokens"] == named["tokens"].max()]
    for _, row in longest[longest["peak_bytes"].notna()].iterrows():
        peak, times = peak_text(row["peak_bytes"], row["attention_bytes"], row["device"])
        said = tr(
            "T = {tokens}: **{module} · {mode}** on {device} peaked at {peak} MiB = {times} × the attention "
            "matrix B·H·T²·4 = {size:.3g} MiB",
            tokens=row["tokens"],
            module=row["module"],
            mode=row["mode"],
            device=row["device"],
            peak=peak,
            times=times,
            size=row["attention_bytes"] / 2**20,
        )
        st.markdown(f"- {said}")
    exponent = tr(
        "Time exponent: the slope of log(ms) against log(T) from the previous length; 2 means the "
        "O(T²) attention matrix dominates, below 2 the fixed costs and the O(T·d²) projections still do. "
        "Above 2 is noise or a cache effect: when the matrices outgrow a CPU cache, one doubling costs "
        "more than four times as much, and other work on the server can slow one measurement; read the "
        "trend, not one step. The first length of a line has no exponent (—)."
    )
    st.caption(exponent + " " + tr(MEMORY_NOTE))
    table = shown_table(frame).rename(columns=tr)  # the columns' names (bench's, marked) translated
    st.dataframe(table.style.format(_number), hide_index=True, width="stretch")
    st.download_button(
        tr("Download the measurements (CSV)"),
        frame.to_csv(index=False),
        "scaling.csv",
        "text/csv",
        key="scaling_csv",
    )


def sweep(params: dict, key: str, done: list[dict] | None) -> None:
    """The Run button, then one of: the kept sweep for these settings, this session's sweep running
    (in line for a sweep slot first, Stop beside it), what a stopped sweep finished, or a hint."""
    run, stop, _ = st.columns([1, 1, 4])
    start = run.button(tr("Run sweep"), type="primary", key="scaling_run", disabled=done is not None)
    partial = st.session_state.get("scaling_partial")
    mine = st.session_state.setdefault("scaling_mine", set())  # the sweeps this session ran
    if done is not None:
        if key in mine:
            st.caption(
                tr("Your sweep; it is kept on this server, so the same settings show it to everyone at once.")
            )
        else:
            st.caption(
                tr(
                    "Measured earlier on this server by another session with these settings (kept for "
                    "everyone)."
                )
            )
        show(pd.DataFrame(done, columns=bench.SCALING_COLUMNS))
    elif start:
        stop.button(tr("Stop"), key="scaling_stop")  # a click reruns, which ends the sweep (or the wait)
        ticket, _ = wait_for(SWEEPS, st.session_state.setdefault("_held_scaling", {}), "sweep")
        rows: list[dict] = []
        st.session_state["scaling_partial"] = (key, rows)  # kept if Stop interrupts the run
        try:
            error = run_sweep(params, rows, ticket.ask)
        finally:
            ticket.release()
        if error:
            st.error(error)
            return
        keep(key, rows)
        mine.add(key)
        st.session_state.pop("scaling_partial", None)
        st.rerun()  # draw the finished sweep once, with the Run button disabled
    elif partial and partial[0] == key and partial[1]:
        n = len(partial[1])
        st.warning(
            tr_n(
                "Stopped after {n} measurement; these are the ones that finished.",
                "Stopped after {n} measurements; these are the ones that finished.",
                n,
                n=n,
            )
        )
        show(pd.DataFrame(partial[1], columns=bench.SCALING_COLUMNS))
    else:
        # TRANSLATORS: Run and Stop are the buttons "Run sweep" and "Stop"
        st.caption(
            tr("Press Run: the sweep runs in a process of its own, with a progress bar; Stop ends it.")
        )
