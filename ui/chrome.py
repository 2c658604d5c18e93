"""The app's chrome, built once: its style sheets per server process, its pages per session. app.py runs
on every rerun; building these there cost ~20% of a rerun's CPU under a classroom's load
(st.Page resolves and stats its file; the CSS was read from disk): py-spy, benchmarks/classroom.py."""

from __future__ import annotations

import copy
import functools
import gc
import hashlib
import json
import re
import time

import streamlit as st

from attention import i18n, settings
from attention.devices import configure_torch_threads
from attention.i18n import N_, tr
from attention.settings import ASSETS
from ui import internals, wakeups


def _css(name: str) -> str:
    """A style sheet as it is sent: its comments and line breaks out (it travels in page loads:
    hashed, compressed and sent per browser; the files keep their comments)."""
    text = re.sub(r"/\*.*?\*/", "", (ASSETS / name).read_text(), flags=re.DOTALL)
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


# app.css comes once per session, language and connection, with the accessibility script
# (page_setup), and stays on the page; projector.css comes on each run while projector mode is
# on, as an element of its own, so that it is gone from the run that turns the mode off
APP_CSS, PROJECTOR_CSS = _css("app.css"), "<style>" + _css("projector.css") + "</style>"
# static/a11y.js, served by Streamlit (server.enableStaticServing) at app/static/ under the app's
# base address, found from Streamlit's own index.js (BASE/static/js/index.*.js), not from the
# address bar (/learn/ or a base path without its last slash would miss it); versioned by its
# content, so a browser's cached copy is never an older one
# content, so a browser's cached copy is never an older one. static/wake.js (a class student's
# page back from a long sleep) comes the same way.
SCRIPTS = [
    f"../../app/static/{name}?v=" + hashlib.blake2b(path.read_bytes(), digest_size=6).hexdigest()
    for name, path in ((n, ASSETS.parent / "static" / n) for n in ("a11y.js", "wake.js"))
]


@functools.cache
def per_process() -> int:
    """Once per server process: torch's thread pool is process-wide, and one thread per computation
    lets 30 students' reruns run side by side; the event loop that sends every element to the
    browsers wakes once per batch of messages (ui/wakeups.py); reading Streamlit's config takes no
    process-wide lock (ui/internals.py: runs at once convoyed on it); a widget asks session state
    about its own key, not every key (ui/internals.py); the websocket deflates only messages of
    1 KB or more (ui/internals.py: most of a page load's are one small element); the theme every
    whole-page run sends is made once per config (ui/internals.py: 0.53 ms a run). (A module's
    function, not one defined in app.py under st.cache_resource: app.py runs on every rerun, and so
    would the decorator, which reads the function's source: 7% of a first page load.)

    And the objects alive now (torch, plotly, Streamlit: ~400,000) leave the garbage collector's
    sight: its occasional full pass walked all of them, ~130 ms of one core in the middle of some
    student's rerun, several times a minute under a classroom's load (py-spy: one widget "costing"
    10x its siblings). They live as long as the process; what reruns make is collected as before.

    And this process is a server on Streamlit's server.address: who can reach it decides what a
    visitor may open (attention.settings.REACH, listed_only)."""
    settings.REACH.serve(st.get_option("server.address"))
    wakeups.coalesce()
    internals.read_config_without_lock()
    internals.filtered_state_by_key()
    internals.small_messages_uncompressed()
    internals.theme_once_per_config()
    gc.collect()
    gc.freeze()
    return configure_torch_threads()


def per_rerun() -> None:
    """Every rerun: a visitor who came through a proxy or a tunnel makes a loopback server one that
    others can reach, for good (attention.settings.REACH)."""
    settings.REACH.visited(st.context.headers)


def page_setup() -> None:
    """What the page keeps for the whole session, sent once per session, language and connection
    as the sidebar's last element: the page's language, every chart named and its numbers a click
    away (static/a11y.js), and the app's style sheet. The element's script adds both to the page
    outside Streamlit's elements, so they outlive the element (gone from the next rerun on).
    The style sheet was an element of its own in every whole-page run, 3 KB each time
    (benchmarks/compare_commits.py). The browser fetches the accessibility script once, from
    its cache after that. An element that comes and goes at the end moves no other element (one
    earlier would have every element after it redrawn on the next rerun).

    When it counts as sent: Streamlit drops a session's unsent messages when its next whole-page
    run starts (a click, a class's bell), whether the run that queued them ended or was cut short; and what a
    closed connection had not yet carried (a phone that slept) is gone. So a whole-page run sends
    it again unless the last one went to this same connection, in this language, at least
    SENT_WITHIN ago. Runs in a row within it (a page playing a training, clicked every quarter
    second) keep the first sending's time: it goes again for SENT_WITHIN, not forever. A browser
    that reconnects reruns its page at least when it had not seen its last run end (Streamlit's
    frontend), which is the case when the setup was lost with the connection; otherwise the setup
    goes again with the next whole-page run, needed or not."""
    code, s, now = i18n.language(), st.session_state, time.monotonic()
    connection = internals.this_connection()  # None under AppTest
    sent = s.get("_setup")  # (language, first sending, connection) of the last one sent
    since = now
    if sent is not None and sent[0] == code and sent[2] == connection:
        if now - sent[1] >= SENT_WITHIN:
            return  # it went out
        since = sent[1]
    st.html(_setup_tags(code), unsafe_allow_javascript=True)
    s["_setup"] = (code, since, connection)


# Seconds within which Streamlit sends what a run queued: it sends every 5 ms, later when its event
# loop is busy (a class's load: hundreds of ms).
SENT_WITHIN = 2.0


def _script_text(value) -> str:
    """`value` as JavaScript, "<" escaped: no text ends the script (and Streamlit's sanitizer
    drops a script whose text holds "<" before a letter)."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


@functools.cache
def _setup_tags(code: str) -> str:
    """The script's words, the style sheet and the script's tag, made once per language (tr()
    speaks `code` here). The style sheet goes into one <style id="ae-app-css"> (the same one again
    after a language switch) at the start of <body>: after every style Streamlit and plotly add to
    <head>, so its rules win a tie against theirs, and before the app's elements, so projector.css
    (an element) wins a tie against it, as when both came in one element. No user text is in it."""
    words = {
        "lang": code if code in i18n.LANGUAGES else i18n.DEFAULT,
        "dir": "ltr",  # every language the app has is written left to right
        "skip": tr("Skip to main content"),
        "show": tr("Show the numbers as a table"),
        "hide": tr("Hide the table"),
    }
    return (
        f"<script>window.__aeA11yConfig = {_script_text(words)}; (() => {{"
        " let sheet = document.getElementById('ae-app-css');"
        " if (!sheet) { sheet = document.createElement('style'); sheet.id = 'ae-app-css';"
        " document.body.prepend(sheet); }"
        f" const css = {_script_text(APP_CSS)}; if (sheet.textContent !== css) sheet.textContent = css;"
        " const index = document.querySelector('script[src*=\"/static/js/index.\"]');"
        # one tag each in <head> however often they come: a11y.js runs safely again and reads the
        # newest words when it runs, wake.js installs once, so an older tag has nothing left to do
        " document.querySelectorAll('script[data-ae-a11y]').forEach((old) => old.remove());"
        f" for (const src of {json.dumps(SCRIPTS)}) {{"
        " const script = document.createElement('script'); script.dataset.aeA11y = '';"
        " script.src = new URL(src, index ? index.src : document.baseURI).href;"
        f" document.head.appendChild(script); }} }})(); window.__aeWakeAfter = {_wake_after()};</script>"
    )


def _wake_after() -> int:
    """Milliseconds a class student's page hidden, its connection dropped, waits before it reloads
    itself when seen again (static/wake.js): as long as Streamlit keeps a session whose browser
    went, after which the browser comes back to a new, empty one."""
    return round(1000 * float(st.get_option("server.disconnectedSessionTTL")))


def pages() -> dict[str, st.Page]:
    """url path -> st.Page, one set per session: st.navigation marks the page it runs on the
    Page object itself, so sessions cannot share them (measured: "This page cannot be called
    directly" under load), but a session's reruns run one at a time. Copies of one set made per
    process: making a Page resolves its file on disk, 16% of a first page load's CPU (py-spy)."""
    code = i18n.language()  # titles in the session's language: a new set when it changes
    if st.session_state.get("_pages_language") != code:
        st.session_state["_pages"] = {path: copy.copy(page) for path, page in _made(code).items()}
        st.session_state["_pages_language"] = code
    return st.session_state["_pages"]


# file, title, icon; the first is the default page
PAGES = (
    ("pages/explorer.py", N_("Explorer"), ":material/grid_on:"),
    ("pages/learn.py", N_("Learn step by step"), ":material/school:"),
    ("pages/languages.py", N_("What your language costs"), ":material/translate:"),
    ("pages/modern.py", N_("Modern attention"), ":material/bolt:"),
    ("pages/compare.py", N_("Compare"), ":material/compare:"),
    ("pages/scaling.py", N_("Scaling"), ":material/trending_up:"),
    ("pages/train.py", N_("Watch it learn"), ":material/model_training:"),
    ("pages/model.py", N_("Inside a model"), ":material/neurology:"),
    ("pages/classroom.py", N_("Class mode"), ":material/groups:"),
)


@functools.cache
def _made(code: str) -> dict[str, st.Page]:
    return _make()  # tr() speaks `code` on this thread: the caller set it


def _make() -> dict[str, st.Page]:
    made = [st.Page(f, title=tr(t), icon=icon, default=i == 0) for i, (f, t, icon) in enumerate(PAGES)]
    return {page.url_path: page for page in made}
