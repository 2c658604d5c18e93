"""A class student's page, woken when the class changes: the view the teacher sends (while the
student follows), a question the page holds revealed, a new vote on the class's question.

One thread per process looks at each class this process's students are in, every BELL seconds,
and reruns only the sessions whose page must change (the whole page, as Streamlit's run-on-save
does: ui/internals.rerun_session). A student who waits costs the server nothing. Before, each
student's tab had a run_every fragment: a rerun every second for every open tab, ~4-6 ms of CPU
each, most of a core for 200 students, which left too little to switch 100 followers' pages
within 2 s (benchmarks/class_mode.py, docs/benchmarks.md#class-mode).

Without a server (AppTest) nothing rings: the page's own run looks (membership.watch)."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

from attention.classroom import ClassError, Store, View
from ui import internals

BELL = 0.25  # seconds between the process's looks at its classes


@dataclass
class Tab:
    """What a student's page showed at its last run: the bell rings when the class has moved on."""

    code: str
    follow: bool
    seen: int  # the teacher's view version this page follows
    vote: tuple[str, int] | None  # the class's question and round, as this page saw them
    waiting: set[str] = field(default_factory=set)  # the questions the page holds (filled as it draws)


def vote(store: Store, code: str) -> tuple[str, int] | None:
    """The question the class is on and its round (None before the teacher asks one)."""
    asked = store.current_question(code)
    current = store.tally(code, asked).current if asked else None
    return (asked, current.number) if current else None


def due(tab: Tab, view: View, now_voting: tuple[str, int] | None, revealed: set[str]) -> bool:
    """Whether the page must change: a newer view to follow, a new vote, a held question revealed."""
    return (tab.follow and view.version > tab.seen) or now_voting != tab.vote or bool(tab.waiting & revealed)


class Bell:
    """The process's bell: listen() after a student's page run, ring() once a round."""

    def __init__(self, store: Store, rerun=internals.rerun_session, alive=internals.session_alive):
        self.store, self.rerun, self.alive = store, rerun, alive
        self.tabs: dict[str, Tab] = {}  # Streamlit session id -> its page's last run
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def listen(self, session: str, tab: Tab) -> None:
        with self.lock:
            self.tabs[session] = tab
            if self.thread is None:
                self.thread = threading.Thread(target=self._loop, name="class-bell", daemon=True)
                self.thread.start()

    def forget(self, session: str) -> None:
        with self.lock:
            self.tabs.pop(session, None)

    def _loop(self) -> None:
        while True:
            time.sleep(BELL)
            try:
                self.ring()
            except Exception:  # noqa: BLE001 - a store that fails now may answer next round
                continue

    def ring(self) -> list[str]:
        """One round: every class looked at once; the sessions rerun (forgotten until their run
        listens again); the sessions gone, forgotten. Returns those rerun."""
        with self.lock:
            tabs = dict(self.tabs)
        classes: dict[str, list[tuple[str, Tab]]] = defaultdict(list)
        for session, tab in tabs.items():
            classes[tab.code].append((session, tab))
        rung = []
        for code, members in classes.items():
            rung += self._ring_class(code, members)
        for session in rung:
            self.forget(session)
            self.rerun(session)
        for session in tabs.keys() - set(rung):
            if not self.alive(session):
                self.forget(session)
        return rung

    def _ring_class(self, code: str, members: list[tuple[str, Tab]]) -> list[str]:
        held: set[str] = set()
        for _, tab in members:
            held |= tab.waiting  # one C-level copy: a page still drawing may add to it meanwhile
        try:
            view, now_voting = self.store.view(code), vote(self.store, code)
            revealed = self.store.revealed_among(code, held) if held else set()
        except ClassError:  # the class ended: each page says so and leaves it
            return [session for session, _ in members]
        return [session for session, tab in members if due(tab, view, now_voting, revealed)]
