"""A fresh server's first visit: the page's frame and a progress line at once, then the page.

Streamlit runs nothing of app.py until the first browser connects, and app.py's imports (torch,
plotly, pandas, the app's own modules) took ~2-3 s of that first run on a 2-core machine, while the
visitor looked at a blank white page (measured: the title at 2.7-3.4 s after the page's address
answered, docs/benchmarks.md: Cold start). So app.py calls gate() before any heavy import: the first
visit draws the app's name and a progress line in words, a thread of its own imports the heavy
modules, the script thread polls it and moves the bar (Streamlit elements are written from the
script thread only), then st.rerun() draws the real page. Every later rerun pays one attribute read.

Why not warm up when the server starts, before anyone visits: `streamlit run app.py` (what Streamlit
Community Cloud runs) executes no code of the app until a session starts, and no config option or
.streamlit file runs any. Streamlit 1.67's st.App(script, lifespan=...) has a startup hook, but it
makes app.py an ASGI module and moves the script to another file: another launch mode for the
deploys, AppTest, the benchmarks and ui/router.py. Not done; the first visitor waits, with words.
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
import threading

import streamlit as st

from attention.i18n import N_, tr
from ui.internals import plotly_chunk

# What app.py and the default page (the Explorer) import, heaviest first, in steps the bar shows:
# (words, share of the bar, modules). A module missing here only makes the first visit slower
# (app.py imports it after the gate); tests/test_coldstart.py checks app.py's imports are all here.
STEPS = (
    (N_("Starting up: loading PyTorch, which computes every step of attention…"), 0.6, ("torch",)),
    (N_("Starting up: loading the charts and tables…"), 0.15, ("plotly.graph_objects", "pandas")),
    (
        N_("Starting up: loading the app's pages…"),
        0.25,
        (
            "ui.chrome",
            "ui.classroom.browser",
            "ui.classroom.membership",
            "ui.url",
            "ui.widgets",
            "ui.explorer.controls",
            "ui.explorer.views",
        ),
    ),
)
MODULES = tuple(name for _, _, names in STEPS for name in names)
POLL = 0.1  # seconds between looks at the warm-up: the bar moves ten times a second at most
# The frame shows its words as markdown first; the bar and the plotly prefetch follow a
# poll later. Their code is a chunk the browser fetches when the first one arrives (from this server,
# slow while it loads torch), and the browser draws nothing of the page's body until it has come:
# 0.3-0.6 s of the frame's 0.5-0.8 s, Chromium on 2 cores. Markdown's code comes with the page.


class WarmUp:
    """The heavy imports, once per process, on a thread of their own."""

    def __init__(self) -> None:
        self.step = 0  # the step under way; len(STEPS) when done (written by the thread only)
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread, unless some session already did."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="warm-up", daemon=True)
                self._thread.start()

    def started(self) -> bool:
        return self._thread is not None

    def _run(self) -> None:
        # A failed import ends the warm-up (its traceback in the server's log); app.py's own import
        # then raises it again, where Streamlit shows it to the visitor.
        try:
            for i, (_, _, names) in enumerate(STEPS):
                self.step = i
                for name in names:
                    importlib.import_module(name)
        finally:
            self.step = len(STEPS)
            self.done.set()


WARM = WarmUp()


def gate() -> None:
    """app.py's first call after choosing the language: returns at once once the heavy modules are
    loaded; before that, draws the frame and the progress, waits for the warm-up, and reruns."""
    if WARM.done.is_set():
        return  # every rerun after the first visit: this line only
    if not WARM.started() and all(name in sys.modules for name in MODULES):
        WARM.done.set()  # imported already (a test process, say): nothing to wait for
        return
    with st.sidebar:
        st.markdown(heading())  # what app.py draws first there: it stays in place after the rerun
    line = st.empty()
    line.markdown(tr(STEPS[0][0]))  # words only at first: see the note under POLL
    st.caption(tr("Only the first visit after the server starts waits for this."))
    WARM.start()  # only now: while torch loads, this process answers everything slowly (the GIL)
    shown = None  # the first poll puts the bar in the words' place
    while not WARM.done.wait(POLL):
        if (step := WARM.step) != shown and step < len(STEPS):
            if shown is None and (script := _fetch_plotly()):
                st.html(script, unsafe_allow_javascript=True)
            shown = step
            line.progress(sum(share for _, share, _ in STEPS[:step]), text=tr(STEPS[step][0]))
    line.progress(1.0, text=tr("Starting up: drawing the page…"))
    st.rerun()


def heading() -> str:
    """The sidebar's first element: the app's name and what it is (one element: each is a message
    to every browser on every rerun)."""
    return (
        "### Attention Explorer\n:small[:gray["
        + tr('Chapter 3 of "Build a Large Language Model (From Scratch)", every step computed live.')
        + "]]"
    )


@functools.cache
def _fetch_plotly() -> str:
    """A script that has the browser fetch and run the frontend's plotly chunk now, while the server
    loads: the page's first chart would fetch it only once drawn (~2 s in Chromium on 2 cores). The
    same address as the frontend's own import (beside its index.js), so the browser runs it once."""
    chunk = plotly_chunk()
    if chunk is None:
        return ""  # another Streamlit's build: the chart fetches it itself, as before
    return (
        "<script>(() => { const index = document.querySelector('script[src*=\"/static/js/index.\"]');"
        f" if (index) import(new URL({json.dumps(chunk)}, index.src).href).catch(() => {{}}); }})();"
        "</script>"
    )
