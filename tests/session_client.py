"""A client of Streamlit's own websocket protocol: one student's tab, without a browser.

    async with Session("ws://127.0.0.1:8501", stats) as s:   # ws://HOST/_stcore/stream
        seconds, digest = await s.rerun(query="text=...")     # a page load: BackMsg rerun_script
        await s.rerun(changes={"heads": 4})                   # a widget change, as a browser sends it

A rerun sends a BackMsg whose rerun_script carries the URL parameters and every widget's value,
then reads ForwardMsgs until script_finished; Stats collects what every session saw (latencies,
errors, bytes, the replicas behind nginx). Used by the browser-free tests (tests/e2e) and by the
classroom load test (benchmarks/classroom.py imports it from here: tests never import benchmarks).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds per change rerun
    loads: list[float] = field(default_factory=list)  # seconds per first page load
    errors: list[str] = field(default_factory=list)
    numbers: dict[str, list[str]] = field(default_factory=dict)  # settings -> digests of the charts sent
    received: int = 0  # bytes of ForwardMsgs
    narrowed: int = 0  # runs that ended as one fragment's: the Explorer's body alone
    replicas: dict[str, int] = field(default_factory=dict)  # replica address -> sessions (behind nginx)


class Session:
    """One student's tab, speaking Streamlit's websocket protocol."""

    def __init__(
        self, url: str, stats: Stats, cookie: str | None = None, page_name: str = "", resume: str = ""
    ):
        """`resume`: a session's id (session_id of an earlier Session), to reconnect to it as a
        browser does after its connection dropped (a phone that slept)."""
        self.url, self.stats, self.cookie, self.resume = url, stats, cookie, resume
        self.session_id = ""  # the server's id of this session, from its first run
        self.widgets: dict[str, tuple[str, str]] = {}  # user key or label -> (widget id, kind)
        self.states: dict[str, object] = {}  # widget id -> WidgetState, as the browser keeps them
        self.query, self.page, self.page_name = "", "", page_name
        self.marks: dict[str, float] = {}  # first time a kind of message arrived (MARKS)
        self.homes: dict[str, str] = {}  # widget id -> the fragment that drew it ("": the page)
        self.options: dict[str, list[str]] = {}  # a radio's or selectbox's options, as shown
        # run_every fragments (auto_rerun): fragment id -> seconds; a browser reruns each on a timer
        self.timers: dict[str, float] = {}
        self.listen = None  # optional: called with (ForwardMsg, perf_counter) for every message read

    async def __aenter__(self):
        headers = {"Cookie": f"stroute={self.cookie}"} if self.cookie else None
        self.ws = await websockets.connect(
            f"{self.url}/_stcore/stream",
            # the browser's: the protocol, its XSRF token, the session it reconnects to
            subprotocols=["streamlit", "no-xsrf", self.resume] if self.resume else ["streamlit"],
            max_size=2**26,
            additional_headers=headers,
            open_timeout=60,
        )
        replica = self.ws.response.headers.get("X-Replica")  # set by deploy/nginx.conf
        if replica:
            self.stats.replicas[replica] = self.stats.replicas.get(replica, 0) + 1
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    async def rerun(
        self,
        query: str = "",
        changes: dict[str, object] | None = None,
        fragment: str = "",
        auto: bool = False,
    ) -> tuple[float, str]:
        """One script run: the page load (query) or a widget change, of the whole page or of one
        fragment (its id; `auto`: a run_every fragment's timer, as the browser marks it). Returns
        (seconds, digest of the charts' data sent); self.drawn lists (element kind, fragment id) of
        what the run sent."""
        homes = {self.homes.get(self.widgets[name][0], "") for name in changes or {}}
        if not fragment and len(homes) == 1:  # as a browser: a widget in a fragment reruns that
            fragment = homes.pop()
        msg = BackMsg()
        msg.rerun_script.fragment_id = fragment
        msg.rerun_script.is_auto_rerun = auto
        self.drawn: list[tuple[str, str]] = []
        self.query = query or self.query  # the browser sends its address bar, which the app rewrites
        msg.rerun_script.query_string = self.query
        # As a browser (Streamlit's sendRerunBackMsg): the page the server last ran, by its hash;
        # before any (a page load), the page named by its URL path. A hash matters: a fragment's
        # run has no page of its own, and its st.rerun(scope="app") reruns the page it was sent.
        if self.page:
            msg.rerun_script.page_script_hash = self.page
        elif self.page_name:  # another page than the first
            msg.rerun_script.page_name = self.page_name
        for name, value in (changes or {}).items():
            widget_id, kind = self.widgets[name]
            state = msg.rerun_script.widget_states.widgets.add()
            state.id = widget_id
            if kind == "strs":  # pills: the option pressed, as it is shown
                state.string_array_value.data.extend([value] if isinstance(value, str) else value)
            else:
                setattr(
                    state,
                    {
                        "bool": "bool_value",
                        "int": "int_value",
                        "float": "double_value",
                        "str": "string_value",
                        "trigger": "trigger_value",
                    }[kind],
                    value,
                )
            if kind != "trigger":  # a click is sent once; a value stays
                self.states[widget_id] = state
        for widget_id, state in self.states.items():  # the browser sends every widget's value
            if widget_id not in {s.id for s in msg.rerun_script.widget_states.widgets}:
                msg.rerun_script.widget_states.widgets.add().CopyFrom(state)
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        return await self._read_run(start)

    async def pushed(self, seconds: float) -> bool:
        """Waits up to `seconds` for a run the server started by itself (a class's page woken by
        ui/classroom/bell.py) and reads it whole, as rerun reads its own: whether one came."""
        try:
            first = await asyncio.wait_for(self.ws.recv(), timeout=seconds)  # cancelling recv loses nothing
        except TimeoutError:
            return False
        fwd = ForwardMsg()
        fwd.ParseFromString(first)
        if fwd.WhichOneof("type") != "new_session":  # what trails a run (its status), not a run
            self.stats.received += len(first)
            return False
        self.drawn = []
        await self._read_run(time.perf_counter(), first)
        return True

    async def _read_run(self, start: float, first: bytes | None = None) -> tuple[float, str]:
        """The messages of one run until it finishes: (seconds since `start`, digest of the charts)."""
        digest = hashlib.sha256()
        while True:
            raw = first if first is not None else await asyncio.wait_for(self.ws.recv(), timeout=120)
            first = None
            self.stats.received += len(raw)
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            kind = fwd.WhichOneof("type")
            if self.listen:
                self.listen(fwd, time.perf_counter())
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                self.drawn.append((fwd.delta.new_element.WhichOneof("type"), fwd.delta.fragment_id))
                self._element(fwd.delta.new_element, digest, fwd.delta.fragment_id)
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "navigation":  # st.navigation's page: the one a browser names from now on
                self.page = fwd.navigation.page_script_hash
            elif kind == "new_session":
                self.page = fwd.new_session.page_script_hash
                self.session_id = fwd.new_session.initialize.session_id
                if not fwd.metadata.run.fragment_ids:  # a whole page's run: it announces its timers
                    self.timers.clear()
            elif kind == "auto_rerun":
                self.timers[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "stop_auto_rerun":
                for gone in fwd.stop_auto_rerun.fragment_ids:
                    self.timers.pop(gone, None)
            elif kind == "script_finished":
                if fwd.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue  # st.rerun(): the server runs the page again by itself
                # A page rerun may end as a fragment's (a knob's callback narrows it to the page's
                # body: st.rerun with a fragment key, ui/controls._sync), and a fragment's rerun
                # as the page's (its callback widens it: the sidebar must change too).
                done = {ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, ForwardMsg.FINISHED_SUCCESSFULLY}
                if fwd.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                    self.stats.narrowed += 1
                if fwd.script_finished not in done:
                    self.stats.errors.append(f"script_finished={fwd.script_finished}")
                return time.perf_counter() - start, digest.hexdigest()

    def _element(self, element, digest, fragment: str) -> None:
        kind = element.WhichOneof("type")
        text = {"progress": lambda: element.progress.text, "alert": lambda: element.alert.body}.get(kind)
        for mark, (element_kind, start) in MARKS.items():
            if kind == element_kind and mark not in self.marks and text().startswith(start):
                self.marks[mark] = time.perf_counter()
        if kind == "button" and element.button.id:
            self.widgets[element.button.id.rsplit("-", 1)[-1]] = (element.button.id, "trigger")
            self.homes[element.button.id] = fragment
            return
        if kind == "exception":
            self.stats.errors.append(
                f"exception: {element.exception.type}: {element.exception.message[:200]}"
            )
        elif kind == "plotly_chart":
            digest.update(element.plotly_chart.spec.encode())
        widget = getattr(element, kind, None)
        widget_id = getattr(widget, "id", "")
        if not widget_id or kind not in WIDGETS:
            return
        self.homes[widget_id] = fragment
        # text by its value; a selectbox, radio or pills by the option it shows, as the browser sends it
        text = ("text_area", "text_input", "selectbox", "radio")
        value_kind = "str" if kind in text else "bool" if kind == "checkbox" else None
        if kind == "number_input":
            value_kind = "int" if widget.data_type == widget.INT else "float"
        if kind == "button_group":
            value_kind = "strs"
        if value_kind:
            name = widget_id.rsplit("-", 1)[-1] if widget_id.count("-") >= 2 else widget.label
            self.widgets[name] = (widget_id, value_kind)
            if kind in ("selectbox", "radio"):  # what the browser sends: an option as it is shown
                self.options[name] = list(widget.options)
            elif kind == "button_group":
                self.options[name] = [o.content for o in widget.options]
            self.widgets.setdefault(widget.label, (widget_id, value_kind))
        # Like the browser: a widget keeps the value it has, unless the server sets one.
        if widget.set_value or widget_id not in self.states:
            state = _shown_state(kind, widget)
            if state is not None:
                self.states[widget_id] = state
            elif widget.set_value:  # set to nothing (a radio's or selectbox's None): no value sent
                self.states.pop(widget_id, None)


MARKS = {  # what a student sees, by element kind and the start of its text
    "waiting": ("alert", "Waiting:"),  # queued for a training slot
    "training": ("progress", "step "),  # the run's first drawn step
    "finished": ("alert", "Finished"),
}
WIDGETS = ("selectbox", "radio", "button_group", "checkbox", "text_area", "text_input", "number_input")


def _shown_state(kind: str, widget) -> WidgetState | None:
    """The WidgetState a browser would send for a widget as the server drew it."""
    state = WidgetState(id=widget.id)
    if kind in ("selectbox", "radio"):
        if widget.set_value:  # no raw_value: set to None (the browser's null)
            if not widget.HasField("raw_value"):
                return None
            state.string_value = widget.raw_value
        elif widget.HasField("default") and widget.options:
            state.string_value = widget.options[widget.default]
        else:
            return None
    elif kind == "button_group":
        chosen = (
            widget.raw_values if widget.set_value else [widget.options[i].content for i in widget.default]
        )
        state.string_array_value.data.extend(chosen)
    elif kind == "checkbox":
        state.bool_value = widget.value if widget.set_value else widget.default
    elif kind in ("text_area", "text_input"):
        state.string_value = widget.value if widget.set_value else widget.default
    elif kind == "number_input":
        value = widget.value if widget.set_value else widget.default
        if widget.data_type == widget.INT:
            state.int_value = int(value)
        else:
            state.double_value = value
    else:
        return None
    return state
