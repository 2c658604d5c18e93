"""A class student's page, woken when the class changes: the view the teacher sends (while the
student follows), a question the page holds revealed, a new vote on the class's question.

One thread per process looks at each class this process's students are in, every BELL seconds,
and reruns only the sessions whose page must change (the whole page, as Streamlit's run-on-save
does: ui/internals.rerun_session). A student who waits costs the server nothing but a look per
round (a phone asleep: two dictionary look-ups, until Streamlit drops its session). Before, each
student's tab had a run_every fragment: a rerun every second for every open tab, ~4-6 ms of CPU
each, most of a core for 200 students, which left too little to switch 100 followers' pages
within 2 s (benchmarks/class_mode.py, docs/benchmarks.md#class-mode).

Without a server (AppTest) nothing rings: the page's own run looks (membership.watch)."""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

from attention.classroom import ClassError, Store, View, Vote
from ui import internals

BELL = 0.25  # seconds between the process's looks at its classes
SWEEP = 60.0  # seconds between sweeps of the store (expired classes, ended lock-outs)
LOG_EVERY = 60.0  # seconds between log lines about the same failure
log = logging.getLogger("attention.classroom.bell")


class Recent:
    """What the store said about a class, shared by this process's sessions for up to BELL
    seconds: a page run reads the class's view, vote and reveals (ringing 100 pages at once is
    100 runs reading the same rows), and the bell writes what it has just read before it rings,
    so a page it wakes sees what woke it."""

    def __init__(self, seconds: float = BELL):
        self.seconds, self.lock, self.kept = seconds, threading.Lock(), {}
        self.making: dict[tuple, threading.Lock] = {}  # a key being read: the other runs wait for it

    def _fresh(self, key: tuple):
        hit = self.kept.get(key)
        return hit if hit is not None and time.monotonic() - hit[0] < self.seconds else None

    def get(self, key: tuple, fetch):
        """fetch()'s value, read once for every run asking within `seconds` (100 followers' pages
        asking at once wait for the first one's read, not each read it). A store that failed is
        not asked again by each waiting page in turn: its error is kept as a value would be (with
        Redis down, the 30th page waited for 29 timeouts)."""
        with self.lock:
            if (hit := self._fresh(key)) is not None:
                return _given(hit[1])
            making = self.making.setdefault(key, threading.Lock())
        with making:
            try:
                with self.lock:
                    if (hit := self._fresh(key)) is not None:
                        return _given(hit[1])
                try:
                    value = fetch()
                except ClassError as error:
                    if error.kind == "store":
                        self.put(key, error)
                    raise  # a class that ended: not kept
                self.put(key, value)
                return value
            finally:
                with self.lock:
                    self.making.pop(key, None)

    def put(self, key: tuple, value) -> None:
        with self.lock:
            if len(self.kept) > 10_000:  # classes come and go: start afresh rather than grow
                self.kept.clear()
            self.kept[key] = (time.monotonic(), value)


def _given(kept):
    """A kept value, or the store's failure raised again."""
    if isinstance(kept, ClassError):
        raise kept
    return kept


recent = Recent()


def shared(key: tuple, fetch):
    """fetch(), or what this process read of it in the last BELL seconds, on a server; without
    one (AppTest) there is no bell to keep it fresh: the store, always."""
    return recent.get(key, fetch) if internals.this_session() is not None else fetch()


@dataclass
class Tab:
    """What a student's page showed at its last run: the bell rings when the class has moved on."""

    code: str
    follow: bool
    seen: int  # the teacher's view version this page follows
    vote: tuple[str, int] | None  # the class's question and round, as this page saw them
    waiting: set[str] = field(default_factory=set)  # the questions the page holds (filled as it draws)
    retry: float | None = None  # the page could not reach the store: rerun once it answers, from this time
    connection: str | None = None  # the browser connection the run drew on (internals.this_connection)


def voting(vote: Vote | None) -> tuple[str, int] | None:
    """The question the class is on and its round (None before the teacher asks one)."""
    return (vote.question, vote.round) if vote is not None else None


def due(tab: Tab, view: View, now_voting: tuple[str, int] | None, revealed: set[str]) -> bool:
    """Whether the page must change: a newer view to follow, a new vote, a held question revealed,
    or the store answering again after the page could not reach it (its wait over)."""
    back = tab.retry is not None and time.monotonic() >= tab.retry
    return (
        (tab.follow and view.version > tab.seen)
        or now_voting != tab.vote
        or bool(tab.waiting & revealed)
        or back
    )


class Bell:
    """The process's bell: listen() after a student's page run, ring() once a round."""

    def __init__(
        self,
        store: Store,
        rerun=internals.rerun_session,
        alive=internals.session_alive,
        connection=internals.connection_now,
    ):
        self.store, self.rerun, self.alive, self.connection = store, rerun, alive, connection
        self.tabs: dict[str, Tab] = {}  # Streamlit session id -> its page's last run, looked at each round
        # what each session's page last told the bell: the tab it listened with, gone once it left
        # the class. A session rung while busy is looked at again with this, not with what the round
        # saw: a run that left meanwhile (its class ended) must not be rung again, which would rerun
        # its page past the run that said why.
        self.said: dict[str, Tab] = {}
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.swept = time.monotonic()
        self.logged: dict[str, float] = {}  # a failure's kind -> when it was last logged

    def listen(self, session: str, tab: Tab) -> None:
        with self.lock:
            self.tabs[session] = self.said[session] = tab
        self.start()

    def start(self) -> None:
        """The bell's thread, once per process: from a process's first class on, it also sweeps
        the store (expired and closed classes leave the disk within a minute)."""
        with self.lock:
            if self.thread is None:
                self.thread = threading.Thread(target=self._loop, name="class-bell", daemon=True)
                self.thread.start()

    def forget(self, session: str) -> None:
        """A session whose page left the class, or that is gone: never rung again."""
        with self.lock:
            self.tabs.pop(session, None)
            self.said.pop(session, None)

    def _rung(self, session: str, tab: Tab) -> None:
        """Not looked at until its page's run listens again, unless a run listened while the round
        looked (its newer tab is kept)."""
        with self.lock:
            if self.tabs.get(session) is tab:
                del self.tabs[session]

    def _again(self, session: str) -> None:
        """A session busy with a run of its own when rung, or asleep: looked at again next round,
        with what its page last said (a run that listened meanwhile: its page as it is now; one
        that left the class: nothing to look at)."""
        with self.lock:
            if (tab := self.said.get(session)) is not None:
                self.tabs.setdefault(session, tab)

    def _loop(self) -> None:
        while True:
            time.sleep(BELL)
            try:
                self.ring()
                if time.monotonic() - self.swept > SWEEP:  # expired classes leave the disk
                    self.swept = time.monotonic()
                    self.store.purge()
            except Exception as error:  # noqa: BLE001 - a store that fails now may answer next round
                self.trouble("round", error)

    def trouble(self, what: str, error: BaseException) -> None:
        """Log a failure the loop goes on after, once a minute per kind: the students it could not
        wake wait for their own next run, and the log says why."""
        now = time.monotonic()
        if now - self.logged.get(what, -LOG_EVERY) >= LOG_EVERY:
            self.logged[what] = now
            log.warning("class bell: %s failed (%s: %s); trying again", what, type(error).__name__, error)

    def ring(self) -> list[str]:
        """One round: every class looked at once; the sessions rerun (not looked at until their
        run listens again; one asleep kept until it is back); the sessions gone, forgotten. Returns
        those rung."""
        with self.lock:
            tabs, known = dict(self.tabs), list(self.said)  # every session in tabs is in said
        classes: dict[str, list[tuple[str, Tab]]] = defaultdict(list)
        for session, tab in tabs.items():
            classes[tab.code].append((session, tab))
        rung = []
        for code, members in classes.items():
            rung += self._ring_class(code, members)
        for session in rung:
            self._rung(session, tabs[session])  # its page's run listens again
            try:
                # wanted: still listening when the rerun is made (a run that ended since this
                # round looked may have left the class and said so; a rerun would draw past it)
                woken = self.rerun(
                    session, busy=lambda s=session: self._again(s), wanted=lambda s=session: s in self.said
                )
                if not woken:
                    # asleep (a phone: its connection gone, its session kept): a browser that comes
                    # back to an idle page does not rerun it, so the bell does, once it is back
                    if self.alive(session):
                        self._again(session)
                    else:
                        self.forget(session)
            except Exception as error:  # noqa: BLE001 - one session's failure never skips the others
                self._again(session)
                self.trouble("rerun", error)
        for session in set(known) - set(rung):
            if not self.alive(session):  # gone for good; one asleep is kept (session_alive)
                self.forget(session)
        return rung

    def _ring_class(self, code: str, members: list[tuple[str, Tab]]) -> list[str]:
        held: set[str] = set()
        for _, tab in members:
            held |= tab.waiting  # one C-level copy: a page still drawing may add to it meanwhile
        try:
            view, vote = self.store.view(code), self.store.vote(code)
            revealed = self.store.revealed_among(code, held) if held else set()
        except ClassError as error:
            if error.kind == "store":  # out of reach: the pages keep what they show
                self.trouble("store", error)
                return []
            return [session for session, _ in members]  # the class ended: each page says so
        now_voting = voting(vote)
        recent.put(("view", code), view)  # the pages it wakes read what it read
        recent.put(("vote", code), vote)
        for question in held:
            recent.put(("revealed", code, question), question in revealed)
        return [
            session
            for session, tab in members
            if due(tab, view, now_voting, revealed) or self._back(session, tab)
        ]

    def _back(self, session: str, tab: Tab) -> bool:
        """Its browser connected again since its page's last run. The server learns that a
        connection died only by its pings (every 30 s, 30 s to answer): a phone asleep for less
        than that was rung on a dead connection, its run drew the class's new state for nobody, and
        a browser that comes back to an idle page does not rerun it."""
        now = self.connection(session)
        return now is not None and now != tab.connection
