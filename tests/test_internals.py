"""ui/internals.py: one canary per private name of a library the app relies on, each failing with the
installed version and where to look when an upgrade changes it; and no other module touching one."""

import ast
import asyncio.selector_events as selector_events
import inspect
import json
import sys
from importlib.metadata import version
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import plotly.tools
import pytest
import streamlit.elements.plotly_chart as streamlit_plotly
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from ui import internals

ROOT = Path(__file__).resolve().parents[1]
PYTHON = f"python {sys.version.split()[0]}"
STREAMLIT, PLOTLY = f"streamlit {version('streamlit')}", f"plotly {version('plotly')}"
SEE = "see ui/internals.py"


def test_streamlit_pages_manager_says_whether_pages_are_served_the_old_way():
    assert "uses_pages_directory" in vars(PagesManager), (
        f"{STREAMLIT}: PagesManager no longer has uses_pages_directory; {SEE} (serves_pages_directory)"
    )
    value = PagesManager.uses_pages_directory
    assert value is None or isinstance(value, bool), (
        f"{STREAMLIT}: PagesManager.uses_pages_directory is {value!r}, not None or a bool; {SEE}"
    )


@pytest.mark.parametrize(("owner", "name"), [("BaseSelectorEventLoop", "_write_to_self")])
def test_asyncio_wakes_a_selector_loop_through_write_to_self(owner, name):
    assert name in vars(selector_events.BaseSelectorEventLoop), (
        f"{PYTHON}: asyncio's {owner} no longer defines {name}; {SEE} (self_pipe)"
    )
    source = inspect.getsource(internals.SELECTOR_LOOP.call_soon_threadsafe)
    assert "self._write_to_self()" in source, (
        f"{PYTHON}: asyncio's call_soon_threadsafe no longer calls {name}; {SEE} (self_pipe)"
    )


def test_asyncio_reads_the_self_pipe_through_process_self_data():
    write, process = internals.self_pipe()
    classes = [cls.__name__ for cls in process]
    expected = ["BaseSelectorEventLoop"] + (["_UnixSelectorEventLoop"] if sys.platform != "win32" else [])
    assert classes == expected, f"{PYTHON}: asyncio's loops defining _process_self_data are {classes}; {SEE}"
    reader = inspect.getsource(internals.SELECTOR_LOOP._read_from_self)
    assert "self._process_self_data(" in reader, (
        f"{PYTHON}: asyncio's _read_from_self no longer calls _process_self_data; {SEE} (self_pipe)"
    )
    assert write.__name__ == "_write_to_self"  # the original, not ui/wakeups.py's wrapper


def test_plotly_takes_a_base_figure_as_validated_and_calls_only_its_to_dict():
    fig = go.Figure(go.Heatmap(z=[[1.0, 2.0], [3.0, 4.0]]), layout={"title": {"text": "weights"}})
    frozen = internals.FrozenFigure(fig)
    handed = plotly.tools.return_figure_from_figure_or_data(frozen, validate_figure=True)
    assert handed is frozen.to_dict(), (
        f"{PLOTLY}: return_figure_from_figure_or_data no longer hands over a BaseFigure's to_dict() "
        f"as it is; {SEE} (FrozenFigure)"
    )
    assert json.loads(pio.to_json(handed, validate=False)) == json.loads(pio.to_json(fig, validate=False))


def test_streamlit_draws_a_figure_through_plotlys_return_figure_from_figure_or_data():
    source = inspect.getsource(streamlit_plotly)
    assert "return_figure_from_figure_or_data(" in source, (
        f"{STREAMLIT}: st.plotly_chart no longer goes through plotly's return_figure_from_figure_or_data; "
        f"{SEE} (FrozenFigure)"
    )


def _draw_frozen_and_plain():
    import plotly.graph_objects as go
    import streamlit as st

    from ui.internals import FrozenFigure

    fig = go.Figure(go.Heatmap(z=[[1.0, 2.0], [3.0, 4.0]]))
    st.plotly_chart(FrozenFigure(fig), key="frozen")
    st.plotly_chart(fig, key="plain")


def test_streamlit_sends_a_frozen_figure_as_it_sends_the_figure():
    at = AppTest.from_function(_draw_frozen_and_plain, default_timeout=30).run()
    assert not at.exception
    frozen, plain = (json.loads(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert frozen == plain, f"{STREAMLIT}, {PLOTLY}: a FrozenFigure no longer draws as its figure; {SEE}"


# --- only internals.py touches them ------------------------------------------------------------

LIBRARIES = ("streamlit", "asyncio", "plotly")
# Modules of theirs not meant for apps (Streamlit's public API is `streamlit` and its documented modules)
INNER = ("streamlit.runtime", "asyncio.selector_events", "asyncio.unix_events", "asyncio.base_events")


def _private(dotted: str) -> bool:
    return dotted.startswith(INNER) or any(part.startswith("_") for part in dotted.split("."))


def private_uses(path: Path) -> list[str]:
    """The private names of LIBRARIES that `path` imports or reaches as an attribute of a module it
    imported: a module not meant for apps (INNER), a name with a leading "_"."""
    found, bound = [], {}
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in LIBRARIES:
                    top = alias.name.split(".")[0]
                    bound[alias.asname or top] = alias.name if alias.asname else top
                    found += [alias.name] if _private(alias.name) else []
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in LIBRARIES:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found += [node.module] if _private(node.module) else [n for n in names if _private(n)]
            bound |= {alias.asname or alias.name: n for alias, n in zip(node.names, names, strict=True)}
    attributes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)]
    found += [
        f"{bound[n.value.id]}.{n.attr}"
        for n in attributes
        if n.value.id in bound and n.attr.startswith("_") and not n.attr.startswith("__")
    ]
    return found


def app_modules() -> list[Path]:
    return [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py"))]


def test_streamlit_reads_config_options_from_a_dict_that_a_parse_replaces():
    """read_config_without_lock: get_option's lock guards config._config_options, a dict of
    ConfigOption by key; every element a run sends reads one through config.get_option."""
    import streamlit.config as config
    import streamlit.runtime.forward_msg_cache as forward_msg_cache

    config.get_option("global.minCachedMessageSize")  # parsed by now
    options = getattr(config, "_config_options", None)
    assert isinstance(options, dict), f"{STREAMLIT}: config._config_options is not a dict; {SEE}"
    assert hasattr(config, "_config_lock"), f"{STREAMLIT}: no config._config_lock; {SEE}"
    assert "config.get_option(" in inspect.getsource(forward_msg_cache), f"{STREAMLIT}: {SEE}"
    before = {key: config.get_option(key) for key in options}
    original = config.get_option
    try:
        internals.read_config_without_lock()
        assert config.get_option is not original
        assert {key: config.get_option(key) for key in options} == before  # the same answers
        with pytest.raises(RuntimeError):
            config.get_option("no.suchOption")  # Streamlit's own message for an unknown key
    finally:
        config.get_option = original


def test_streamlit_reruns_a_session_with_its_client_state_on_its_event_loop():
    """rerun_session: Runtime.instance()._session_mgr's get_active_session_info(id).session, an
    AppSession with _client_state (a ClientState), _event_loop and request_rerun(client_state);
    session_alive: its get_session_info(id), which finds a disconnected session kept too."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    assert hasattr(WebsocketSessionManager, "get_active_session_info"), f"{STREAMLIT}: {SEE}"
    # session_alive: a disconnected session kept for its browser is found by get_session_info
    kept = inspect.getsource(WebsocketSessionManager.get_session_info)
    assert "self._session_storage.get(session_id)" in kept, f"{STREAMLIT}: {SEE}"
    for moves in (WebsocketSessionManager.disconnect_session, WebsocketSessionManager._resume_stored_session):
        assert "with self._storage_lock:" in inspect.getsource(moves), f"{STREAMLIT}: {SEE}"
    source = inspect.getsource(AppSession)
    names = ("self._client_state = ", "self._event_loop = ", "self._scriptrunner = ")
    names += ("def request_rerun(self, client_state",)
    for name in names:
        assert name in source, f"{STREAMLIT}: AppSession has no {name!r}; {SEE}"
    assert {"fragment_id", "is_auto_rerun"} <= {f.name for f in ClientState.DESCRIPTOR.fields}
    assert internals.this_session() is None and internals.rerun_session("nobody") is False  # no server
    assert internals.session_alive("nobody") is False


def test_a_rerun_is_made_on_the_event_loop_only_if_still_wanted_then(monkeypatch):
    """rerun_session's closure, on the session's event loop: nothing when wanted() says no (a run
    that ended meanwhile left the class), busy() while a run of its own goes on, else the last
    finished run's page as a whole-page rerun."""
    from types import SimpleNamespace

    from streamlit.proto.ClientState_pb2 import ClientState

    made, busy = [], []
    loop = SimpleNamespace(call_soon_threadsafe=lambda f: f())
    last = ClientState(query_string="class=K7QX", fragment_id="f1", is_auto_rerun=True)
    session = SimpleNamespace(
        _scriptrunner=None, _client_state=last, _event_loop=loop, request_rerun=made.append
    )
    monkeypatch.setattr(internals, "_active", lambda session_id: SimpleNamespace(session=session))
    assert internals.rerun_session("s", busy=lambda: busy.append(1), wanted=lambda: False) is True
    assert made == [] and busy == []
    session._scriptrunner = object()
    internals.rerun_session("s", busy=lambda: busy.append(1))
    assert made == [] and busy == [1]
    session._scriptrunner = None
    internals.rerun_session("s", busy=lambda: busy.append(1))
    assert [(m.query_string, m.fragment_id, m.is_auto_rerun) for m in made] == [("class=K7QX", "", False)]


def test_streamlit_gives_a_sessions_connection_by_its_id():
    """this_connection: Runtime.get_client(session_id), its SessionClient (one per websocket: a
    reconnect makes a new one, tests/e2e/test_setup_resent.py)."""
    from streamlit.runtime import Runtime

    assert list(inspect.signature(Runtime.get_client).parameters) == ["self", "session_id"], (
        f"{STREAMLIT}: Runtime.get_client(session_id) changed; {SEE} (this_connection)"
    )
    assert internals.this_connection() is None  # no server
    assert internals.connection_now("s") is None


def test_streamlit_frontend_draws_plotly_charts_with_one_lazily_loaded_chunk():
    """plotly_chunk: one static/static/js/PlotlyChart.<hash>.js in the package, beside index.js."""
    chunk = internals.plotly_chunk()
    assert chunk is not None, f"{STREAMLIT}: no single static/js/PlotlyChart.*.js; {SEE} (plotly_chunk)"
    js = Path(streamlit_plotly.__file__).parents[1] / "static" / "static" / "js"
    assert (js / chunk).stat().st_size > 1_000_000 and list(js.glob("index.*.js")), f"{STREAMLIT}: {SEE}"


def test_no_module_but_internals_touches_a_private_name():
    touching = {
        str(path.relative_to(ROOT)): uses
        for path in app_modules()
        if path.name != "internals.py" and (uses := private_uses(path))
    }
    assert touching == {}


def test_the_check_finds_a_private_use(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "import streamlit as st\nfrom streamlit.runtime.pages_manager import PagesManager\n"
        "import asyncio.selector_events as s\nfrom plotly.io import _json\nst._main\n"
        "import plotly.io as pio\npio.to_json\nst.session_state\n"
    )
    assert set(private_uses(module)) == {
        "asyncio.selector_events",
        "streamlit.runtime.pages_manager",
        "plotly.io._json",
        "streamlit._main",
    }
    assert private_uses(ROOT / "ui" / "internals.py")  # the seam itself does


def _widgets_and_state():
    import streamlit as st

    st.session_state.setdefault("plain", 1)
    st.session_state.setdefault("empty", None)
    st.session_state.setdefault("$$STREAMLIT_INTERNAL_KEY_plain", 2)  # internal: left out
    st.radio("r", ["a", "b"], index=None, key="picked")
    st.radio("i", ["x"], key="$$STREAMLIT_INTERNAL_KEY_mine")  # a widget's own key: kept
    st.selectbox("s", ["x", "y"], index=1, key="chosen")
    st.number_input("n", value=3, key="num")
    st.text_input("t", key="typed")
    st.checkbox("a keyless widget")


def test_streamlit_widgets_ask_filtered_state_about_their_own_key_only():
    """filtered_state_by_key: the widgets (in streamlit.elements) that read
    SafeSessionState.filtered_state ask `key in it` and `it[key]`; the by-key mapping they get
    answers every key as the whole dict does (user keys, widgets' keys, element ids and internal
    keys left out as Streamlit leaves them), and iterates and prints as it. Every other reader
    still gets Streamlit's dict (st.session_state.to_dict() is a dict)."""
    import streamlit.elements.widgets.radio as radio
    from streamlit.runtime.state.safe_session_state import SafeSessionState
    from streamlit.runtime.state.session_state import SessionState

    assert isinstance(SafeSessionState.__dict__.get("filtered_state"), property), f"{STREAMLIT}: {SEE}"
    assert isinstance(SessionState.__dict__.get("filtered_state"), property), f"{STREAMLIT}: {SEE}"
    assert "key in session_state and session_state[key]" in inspect.getsource(radio), f"{STREAMLIT}: {SEE}"
    original = SafeSessionState.__dict__["filtered_state"]
    at = AppTest.from_function(_widgets_and_state)
    try:
        internals.filtered_state_by_key()
        at.run()
        assert not at.exception
        safe = at.session_state._state
        whole = safe._state.filtered_state  # Streamlit's own dict
        assert {"plain", "empty", "picked", "chosen", "num", "typed", "$$STREAMLIT_INTERNAL_KEY_mine"} <= set(
            whole
        )
        assert "$$STREAMLIT_INTERNAL_KEY_plain" not in whole
        assert type(safe.filtered_state) is dict and safe.filtered_state == whole  # read from here
        element = {"__name__": "streamlit.elements.widgets.fake", "safe": safe}
        exec("by_key = safe.filtered_state", element)  # read from an element's module
        by_key = element["by_key"]
        assert not isinstance(by_key, dict)
        for key in safe._state._keys() | set(whole) | {"absent", 7, "$$STREAMLIT_INTERNAL_KEY_plain"}:
            assert (key in by_key) == (key in whole), key
            if key in whole:
                assert by_key[key] == whole[key], key
        assert dict(by_key) == whole and len(by_key) == len(whole) and repr(by_key) == repr(whole)
        assert by_key["picked"] is None and by_key["chosen"] == "y" and by_key["num"] == 3
    finally:
        SafeSessionState.filtered_state = original


def test_uvicorn_deflates_streamlits_websocket_through_websockets_per_message_deflate():
    """small_messages_uncompressed: Streamlit serves its websocket with uvicorn's websockets
    (sans-I/O) protocol, which compresses every frame it sends through PerMessageDeflate.encode."""
    import uvicorn.protocols.websockets.websockets_sansio_impl as sansio
    from streamlit.web.server.starlette import starlette_server
    from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory

    where = f"{STREAMLIT}, uvicorn {version('uvicorn')}, websockets {version('websockets')}: {SEE}"
    assert "websockets-sansio" in inspect.getsource(starlette_server), where
    assert sansio.ServerPerMessageDeflateFactory is ServerPerMessageDeflateFactory, where
    assert list(inspect.signature(PerMessageDeflate.encode).parameters) == ["self", "frame"], where


def test_small_messages_go_uncompressed_and_both_ends_stay_in_step(monkeypatch):
    """A message under SMALL_MESSAGE bytes leaves with RSV1 unset (not compressed); larger ones
    are compressed as before, and the other end, keeping its window across messages (context
    takeover), decodes every one of a mixed sequence to what was sent."""
    from websockets.extensions.permessage_deflate import PerMessageDeflate
    from websockets.frames import Frame, Opcode

    monkeypatch.setattr(PerMessageDeflate, "encode", PerMessageDeflate.encode)  # restored after
    internals.small_messages_uncompressed()
    assert PerMessageDeflate.encode is not internals._ENCODE
    internals.small_messages_uncompressed()  # a second call wraps nothing twice
    assert PerMessageDeflate.encode is internals._encode
    # both ends keep their window across messages (no_context_takeover False), as a browser's does
    server = PerMessageDeflate(False, False, 12, 12)
    client = PerMessageDeflate(False, False, 12, 12)
    heatmap = json.dumps({"z": list(range(2000))}).encode()  # compresses well
    sent = [b'{"markdown": "a"}', heatmap, b"x" * 1023, heatmap[::-1], b"y" * 1024, b"", heatmap]
    for data in sent:
        frame = server.encode(Frame(Opcode.BINARY, data))
        assert frame.rsv1 == (len(data) >= internals.SMALL_MESSAGE), len(data)
        if frame.rsv1:
            assert len(frame.data) < len(data)
        assert client.decode(frame).data == data
    ping = Frame(Opcode.PING, b"")
    assert server.encode(ping) is ping  # control frames: never compressed, as before


def test_streamlit_makes_a_runs_theme_through_populate_theme_msg_by_its_module_name():
    """theme_once_per_config: AppSession._create_new_session_message fills each theme section by
    calling the module's global _populate_theme_msg (looked up at call time)."""
    from streamlit.runtime import app_session

    where = f"{STREAMLIT}: {SEE} (theme_once_per_config)"
    assert callable(getattr(app_session, "_populate_theme_msg", None)), where
    made = inspect.getsource(app_session.AppSession._create_new_session_message)
    assert made.count("_populate_theme_msg(") == 6, where


@pytest.mark.parametrize(
    "theme",
    [
        {},  # nothing set: every section absent, as Streamlit leaves it
        {"theme.base": "light"},  # set to the default value: present, and empty on the wire
        {"theme.fontFaces": [], "theme.sidebar.paddingTop": 0},  # set, yet nothing Streamlit sends
        {"theme.base": "light", "theme.primaryColor": "#1f5fbf", "theme.baseFontSize": 16},  # the app's
        {"theme.base": "dark", "theme.font": "serif", "theme.sidebar.backgroundColor": "#101010"},
        {"theme.dark.primaryColor": "#ff0000", "theme.light.sidebar.textColor": "#000000"},
    ],
)
def test_the_theme_made_once_is_the_theme_streamlit_makes(monkeypatch, theme):
    """Every section, sent as the patch sends it (a copy of the first one made), byte for byte what
    Streamlit's own function makes, presence in the parent included; a new parse makes it again."""
    import streamlit.config as config
    from streamlit.proto.NewSession_pb2 import NewSession
    from streamlit.runtime import app_session

    config.get_option("theme.base")  # parsed by now
    option = type(config._config_options["theme.base"])  # ConfigOption
    options = {
        k: option(k, description="", default_val=None) if k.startswith("theme.") else v
        for k, v in config._config_options.items()
    }
    options |= {key: option(key, description="", default_val=value) for key, value in theme.items()}
    monkeypatch.setattr(config, "_config_options", options)
    sections = [
        "theme",
        "theme.light",
        "theme.dark",
        "theme.sidebar",
        "theme.light.sidebar",
        "theme.dark.sidebar",
    ]

    def made(populate) -> bytes:
        msg = NewSession()
        fields = {
            "theme": msg.custom_theme,
            "theme.light": msg.custom_theme.light,
            "theme.dark": msg.custom_theme.dark,
            "theme.sidebar": msg.custom_theme.sidebar,
            "theme.light.sidebar": msg.custom_theme.light.sidebar,
            "theme.dark.sidebar": msg.custom_theme.dark.sidebar,
        }
        for section in sections:
            populate(fields[section], section)
        return msg.SerializeToString()

    monkeypatch.setattr(app_session, "_populate_theme_msg", app_session._populate_theme_msg)  # restored after
    internals.theme_once_per_config()
    assert app_session._populate_theme_msg is internals._populate_theme
    expected = made(internals._POPULATE_THEME)
    assert made(internals._populate_theme) == expected  # made, then copied
    assert made(internals._populate_theme) == expected
    monkeypatch.setattr(config, "_config_options", dict(config._config_options))  # a new parse
    key = "theme.dark.sidebar.primaryColor"
    monkeypatch.setitem(config._config_options, key, option(key, description="", default_val="#00ff00"))
    assert made(internals._populate_theme) == made(internals._POPULATE_THEME) != expected
