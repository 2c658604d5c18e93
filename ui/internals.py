"""The one seam onto library internals: the only module of the app that imports or touches a private
(or undocumented) name of Streamlit, asyncio or plotly. Each use sits behind a small named function
or class that says what it relies on and why no public API does; tests/test_internals.py holds a
canary per name, which fails naming the installed version when an upgrade changes it.

    serves_pages_directory()   Streamlit: no run has called st.navigation yet (ui/router.py)
    self_pipe(), patch_self_pipe(...)
                               asyncio: how other threads wake a selector event loop (ui/wakeups.py)
    FrozenFigure               plotly: a figure that is only its JSON, never validated (ui/cache.py)
    read_config_without_lock()  Streamlit: config.get_option without its process-wide lock (ui/chrome.py)
    filtered_state_by_key()    Streamlit: a widget asks session state about its own key only (ui/chrome.py)
    small_messages_uncompressed()
                               websockets: permessage-deflate compresses only messages worth it (ui/chrome.py)
    theme_once_per_config()    Streamlit: a run's new_session message copies a theme made once (ui/chrome.py)
    plotly_chunk()             Streamlit: its frontend's script that draws plotly charts (ui/coldstart.py)
    this_session(), rerun_session(id), session_alive(id)
                               Streamlit: a session rerun from another thread, as run-on-save does
                               (ui/classroom/bell.py)
    this_connection(), connection_now(id)
                               Streamlit: the browser connection a session's run sends to, and the
                               one it has now (ui/chrome.py, ui/classroom/bell.py)
"""

from __future__ import annotations

import asyncio.selector_events as selector_events
import functools
import json
import secrets
import sys
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path

import plotly.io as pio
import streamlit
from plotly.basedatatypes import BaseFigure
from streamlit import config as streamlit_config
from streamlit.runtime import Runtime, app_session
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.state.common import is_element_id
from streamlit.runtime.state.safe_session_state import SafeSessionState
from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX as INTERNAL_PREFIX
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Opcode

# --- Streamlit: the old (v1) pages/ folder ---------------------------------------------------------


def serves_pages_directory() -> bool:
    """Whether Streamlit still serves this process's pages/ folder the old (v1) way: no run has
    called st.navigation yet. Relies on the class attribute PagesManager.uses_pages_directory
    (streamlit.runtime.pages_manager, not public API): None before any run looked, True while a
    pages/ folder is served as pages, False once st.navigation ran. No public API says which way a
    page is served, and ui/router.py must know before it draws anything."""
    return bool(PagesManager.uses_pages_directory)


# --- Streamlit: the frontend's plotly chunk ---------------------------------------------------------


@functools.cache
def plotly_chunk() -> str | None:
    """The file name of the script Streamlit's frontend fetches when the page shows its first plotly
    chart (4.7 MB; fetching and running it took ~2 s of a first page load in Chromium on 2 cores),
    or None. Relies on the frontend's build: its lazily loaded chunks, named after the element, in
    the package's static/static/js/ (PlotlyChart.<hash>.js), served at static/js/ beside index.js.
    No public API names it; ui/coldstart.py has the browser fetch it while the server loads."""
    found = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    return found[0].name if len(found) == 1 else None


# --- Streamlit: config reads without a lock ---------------------------------------------------------

_GET_OPTION = streamlit_config.get_option  # Streamlit's own, captured at import


def _get_option(key: str):
    options = streamlit_config._config_options  # replaced whole when the config is parsed, never edited
    option = options.get(key) if options is not None else None
    return option.value if option is not None else _GET_OPTION(key)


def read_config_without_lock() -> None:
    """Process-wide: streamlit.config.get_option reads the parsed options without taking
    config._config_lock (private), a process-wide RLock. Every element a run sends reads an option
    under it (forward_msg_cache.populate_hash_if_needed): with dozens of runs at once (a class's
    followers switching page together) the threads convoy on that lock, each run ~6x its CPU
    (py-spy: 83% of samples waiting in get_option; 124 against ~20 ms a Learn page). Reading the
    dict needs no lock: a parse assigns a new dict (config._config_options); before the first
    parse, or for an unknown key, Streamlit's own get_option answers. Callers that look it up as
    config.get_option at call time (Streamlit's modules do) get this one. Only over Streamlit's own:
    AppTest swaps in a mock of its own for its runs (global.appTest), which must answer."""
    if streamlit_config.get_option is _GET_OPTION:
        streamlit_config.get_option = _get_option


# --- Streamlit: a widget's look at session state ------------------------------------------------


class _FilteredByKey(Mapping):
    """SessionState.filtered_state (the user's keys and their values, widgets' included), answered
    one key at a time. st.radio, st.selectbox, st.number_input and st.text_input each take the
    whole of it to ask about their own key (`key in state and state[key] is None`): a dict of every
    key, each value read and presented, per widget, every run (py-spy: ~4% of a Learn page load,
    12 such widgets against a session's ~100 keys). A user key's value is what filtered_state
    holds for it (SessionState.__getitem__ by user key: the same lookup and presenter). Left out
    as Streamlit leaves them out: element ids, and an internal key ($$STREAMLIT_INTERNAL_KEY...)
    unless a widget was given it as its key (Streamlit tests the widget's id, not its key).
    Iterating builds the whole dict, as before."""

    def __init__(self, safe):  # a SafeSessionState
        self._safe = safe

    def __getitem__(self, key: str):
        if not isinstance(key, str) or is_element_id(key):
            raise KeyError(key)
        with self._safe._lock:
            state = self._safe._state
            if key.startswith(INTERNAL_PREFIX) and state._key_id_mapper.get_id_from_key(key) is None:
                raise KeyError(key)
            return state[key]

    def _whole(self) -> dict:
        with self._safe._lock:
            return self._safe._state.filtered_state

    def __iter__(self):
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())

    def __repr__(self) -> str:
        return repr(self._whole())


def filtered_state_by_key() -> None:
    """Process-wide: SafeSessionState.filtered_state (a property, streamlit.runtime.state, not
    public API) answers Streamlit's elements (the modules under streamlit.elements, where the
    widgets read it: they ask one key) with a mapping that reads one key when asked
    (_FilteredByKey); every other reader (st.session_state.to_dict(), its str(), st.json, AppTest)
    still gets Streamlit's dict. The caller is the frame that reads the property."""
    if not isinstance(SafeSessionState.__dict__.get("filtered_state"), _ByKey):
        SafeSessionState.filtered_state = _ByKey(_filtered_state)


def _filtered_state(safe):
    if sys._getframe(1).f_globals.get("__name__", "").startswith("streamlit.elements."):
        return _FilteredByKey(safe)
    with safe._lock:
        return safe._state.filtered_state


class _ByKey(property):
    """The patched property (a subclass, so a second call sees it is in place)."""


# --- Streamlit: the theme in a run's new_session message --------------------------------------------

_POPULATE_THEME = app_session._populate_theme_msg  # Streamlit's own, captured at import
_THEMES: dict[str, tuple[bool, bytes]] = {}  # section -> (set at all, the message), for _THEMES_OF
_THEMES_OF: list = [None]  # the parsed options (config._config_options) _THEMES was made from


def _populate_theme(msg, section: str = "theme") -> None:
    options = streamlit_config._config_options
    if options is None:  # before the first parse: nothing to keep
        _POPULATE_THEME(msg, section)
        return
    if _THEMES_OF[0] is not options:  # a new parse (config.toml edited): made again
        _THEMES.clear()
        _THEMES_OF[0] = options
    if section not in _THEMES:
        # made as a child (every section is a CustomThemeConfig), so whether Streamlit touched it
        # (present in its parent) is read, not guessed: it leaves a section with nothing set absent
        holder = type(msg)()
        _POPULATE_THEME(holder.light, section)
        _THEMES[section] = (holder.HasField("light"), holder.light.SerializeToString())
    touched, made = _THEMES[section]
    if touched:  # (MergeFromString marks msg present in its parent, even when `made` is empty)
        msg.MergeFromString(made)


def theme_once_per_config() -> None:
    """Process-wide: the theme in the new_session message that starts every whole-page run (a page
    load, a follower's switch, any rerun that is not a fragment's) is made once per parse of the
    config and copied after that. Streamlit's app_session._populate_theme_msg (private) makes each
    of its six sections ([theme], [theme.light], ... [theme.dark.sidebar]) from
    config.get_options_for_section, which walks every config option under the config's lock:
    0.53 ms a run against 0.006 ms for the copy (timeit), ~1.5% of a Learn load (py-spy --gil:
    without --gil py-spy also samples a thread waiting for the interpreter, and read 10%). The
    options are read at a parse only (a parse assigns a new config._config_options; the theme's options cannot
    be set at run time: st.set_option takes client.* only), so the copy is keyed on that dict.
    Looked up by name at call time (AppSession._create_new_session_message calls the module's
    global), so patching the module's name is enough."""
    if app_session._populate_theme_msg is _POPULATE_THEME:
        app_session._populate_theme_msg = _populate_theme


# --- websockets: which messages permessage-deflate compresses -------------------------------------

SMALL_MESSAGE = 1024  # bytes: a message below this is sent as it is
_ENCODE = PerMessageDeflate.encode  # the library's own, captured at import


def _encode(self, frame):
    if frame.fin and frame.opcode in (Opcode.TEXT, Opcode.BINARY) and len(frame.data) < SMALL_MESSAGE:
        return frame  # a whole message in one frame, RSV1 unset: "not compressed" (RFC 7692, 6.1)
    return _ENCODE(self, frame)


def small_messages_uncompressed() -> None:
    """Process-wide: the websocket's permessage-deflate (server.enableWebsocketCompression, on for
    the heatmaps' base64 data) leaves a message under SMALL_MESSAGE bytes uncompressed. A page load
    sends ~45-70 messages, most of them one element of 150-600 bytes; deflating each was 15% of an
    Explorer link's load (py-spy), to save ~100 bytes a message (benchmarks/page_load.py, the
    bytes measured in docs/benchmarks.md). RFC 7692 lets a sender leave any message uncompressed
    (RSV1 unset), and a browser must read one (every browser test runs through this); both ends'
    compression windows hold only the messages that were compressed, so skipping one keeps them in
    step. The encoder is websockets.extensions.permessage_deflate.PerMessageDeflate.encode, which
    uvicorn's websockets-sansio protocol calls for every frame it sends (Streamlit 1.67's server:
    Starlette on uvicorn)."""
    if PerMessageDeflate.encode is _ENCODE:
        PerMessageDeflate.encode = _encode


# --- Streamlit: a session rerun by the server -------------------------------------------------------


def this_session() -> str | None:
    """The Streamlit session id of the run calling it (None outside a server's run: AppTest, a
    bare script). get_script_run_ctx is exported by streamlit.runtime.scriptrunner but not
    documented; it is how Streamlit's own elements find their session."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None and _served() else None


def this_connection() -> str | None:
    """A name for the browser connection (Streamlit's SessionClient, over one websocket) that the
    calling run's messages go to; None under AppTest or while the browser is away. A reconnect (a
    phone that slept, a network that dropped) gives the same session a new one, so a new name.
    A name, not the client: session state keeps no dead websocket alive, and stays picklable; not
    its id(), which a later client can reuse. Runtime.get_client is public on Runtime, but Runtime
    is not documented."""
    session_id = this_session()
    client = Runtime.instance().get_client(session_id) if session_id is not None else None
    if client is None:
        return None
    if client not in _CONNECTIONS:  # a session's runs come one at a time: no other thread adds it
        _CONNECTIONS[client] = secrets.token_hex(8)
    return _CONNECTIONS[client]


def connection_now(session_id: str) -> str | None:
    """From any thread (the class bell's): the name this_connection() gave the connection a
    session has now; "" for one that no run of it has named yet (a browser back at an idle page);
    None for none (the browser away, the session gone, no server). Runtime.get_client says it is
    safe on any thread; the bell only reads _CONNECTIONS, which its sessions' runs write."""
    client = Runtime.instance().get_client(session_id) if _served() else None
    return None if client is None else _CONNECTIONS.get(client, "")


_CONNECTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # SessionClient -> its name


def _served() -> bool:
    """A server's runtime: AppTest installs a MagicMock(spec=Runtime) as the instance."""
    return Runtime.exists() and type(Runtime.instance()) is Runtime


def _active(session_id: str):
    """The AppSession of an active session, or None: Runtime.instance()._session_mgr (private)."""
    return Runtime.instance()._session_mgr.get_active_session_info(session_id) if _served() else None


def session_alive(session_id: str) -> bool:
    """Whether a session still exists: connected, or its connection gone and the session kept for
    its browser to come back to (Streamlit's server.disconnectedSessionTTL: a phone that slept).
    SessionManager.get_session_info looks in both (Runtime's private _session_mgr), here under the
    lock (its private _storage_lock) that Streamlit moves a session between the two with: a look
    between its two steps would find it in neither, and its store of kept sessions is not safe to
    read from another thread while it changes."""
    if not _served():
        return False
    manager = Runtime.instance()._session_mgr
    with manager._storage_lock:
        return manager.get_session_info(session_id) is not None


def rerun_session(
    session_id: str, busy: Callable[[], None] = lambda: None, wanted: Callable[[], bool] = lambda: True
) -> bool:
    """A whole-page rerun of another session, from any thread, as Streamlit's run-on-save reruns
    a session when its source changes: AppSession.request_rerun(its _client_state, private: the
    last finished run's page, address and widget values), on the runtime's event loop (AppSession's
    private _event_loop), never a fragment's (the last run may have been one). A session running a
    script of its own (AppSession's private _scriptrunner) is left to finish it, and busy() is
    called instead: a rerun would stop that run and start again from the last finished one's page,
    undoing a click on a link. wanted() is asked there first: a run that ended between the caller's
    decision and this moment may have made the rerun wrong, and then nothing is done. No public API reruns
    a session the server chooses. False when the session is not connected (gone, or its connection
    dropped: session_alive tells which)."""
    info = _active(session_id)
    if info is None:
        return False
    session = info.session

    def rerun() -> None:  # on the event loop, where the session's runs start and end
        if not wanted():
            return
        if session._scriptrunner is not None:
            busy()
            return
        state = type(session._client_state)()
        state.CopyFrom(session._client_state)
        state.fragment_id, state.is_auto_rerun = "", False
        session.request_rerun(state)

    session._event_loop.call_soon_threadsafe(rerun)
    return True


# --- asyncio: how another thread wakes a selector event loop ---------------------------------------

SELECTOR_LOOP = selector_events.BaseSelectorEventLoop


def _self_pipe_classes() -> list[type]:
    """The selector loop classes that define _process_self_data (the Unix one overrides it)."""
    classes = [SELECTOR_LOOP]
    if sys.platform != "win32":
        import asyncio.unix_events as unix_events  # raises ImportError on Windows

        classes.append(unix_events._UnixSelectorEventLoop)
    return classes


# asyncio's own, captured at import: whatever patching happens later, these are the originals
_WRITE_TO_SELF = SELECTOR_LOOP._write_to_self
_PROCESS_SELF_DATA = {cls: cls.__dict__["_process_self_data"] for cls in _self_pipe_classes()}


def self_pipe() -> tuple[Callable, dict[type, Callable]]:
    """asyncio's private self-pipe of its selector loops (Linux, macOS), as asyncio defined it:
    BaseSelectorEventLoop._write_to_self, which call_soon_threadsafe calls to wake the loop (a byte
    written to the pipe), and each class's _process_self_data (the Unix loop,
    _UnixSelectorEventLoop, overrides it), which the loop's reader, _read_from_self, looks up at
    each call with the bytes it read. No public API lets a loop skip a wake-up already pending."""
    return _WRITE_TO_SELF, dict(_PROCESS_SELF_DATA)


def patch_self_pipe(write: Callable, process: Callable[[type], Callable]) -> None:
    """Process-wide, every selector loop (one made before included): `write` becomes
    BaseSelectorEventLoop._write_to_self and `process(cls)` each class's _process_self_data. The
    reader side is patched first, so no wake-up written in between is missed."""
    for cls in _PROCESS_SELF_DATA:
        cls._process_self_data = process(cls)
    SELECTOR_LOOP._write_to_self = write


# --- plotly: a figure that is only its JSON --------------------------------------------------------


class FrozenFigure(BaseFigure):
    """A figure turned into plain JSON data once. st.plotly_chart hands any plotly figure to
    plotly.tools.return_figure_from_figure_or_data, which takes a BaseFigure as validated and calls
    only its to_dict() (a deep copy, whose arrays are then encoded to base64 on every rerun: ~6% of
    an Explorer change rerun's CPU, py-spy); this one hands over the data it was made into (the same
    JSON). Relies on nothing reading BaseFigure's private state: its own __init__ (which builds
    that state and runs the validators) is skipped. Never changed once made: the only edit plotly's
    to_json makes in place, popping each trace's "uid", finds none (the freeze already left them out)."""

    def __init__(self, fig: BaseFigure):  # BaseFigure.__init__ skipped on purpose (above)
        object.__setattr__(self, "_plain", json.loads(pio.to_json(fig, validate=False)))

    def to_dict(self) -> dict:
        return self._plain
