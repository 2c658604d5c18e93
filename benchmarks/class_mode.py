"""Class mode under a whole class: every student counted once (a reload included), the teacher's
live count, a class that survives its store's restart, a view the teacher sends reaching every
follower. Figures, not pass/fail.

    /work/main/.venv/bin/python -m benchmarks.class_mode [--students 200] [--followers 100] [--store all]

Each topology is a fresh server: `sqlite` (one Streamlit process, a SQLite file of its own),
`replicas` (2 behind nginx, deploy/replicas.py, sticky by a cookie per browser, sharing ONE
SQLite file), `redis` (one process, a private redis-server on a Unix socket, its data kept in an
append-only file fsynced at every write, so that a restart loses nothing). Sessions speak
Streamlit's websocket protocol (tests/session_client.py) as browser tabs do: each `run_every`
fragment a page announces is rerun on its own 1 s timer, one request at a time per tab, and the
runs the server starts by itself (the class's bell) are read as they come.

Answers: the teacher's tab opens /learn?class=CODE&teacher=SECRET (the run exchanges the secret
for a seat and stops, as the page reloads without it), runs /learn?class=CODE again (its session
holds the seat) and clicks "Ask the class" (the button `check_ids_ask`, a trigger sent through
the protocol as a browser sends a click): the class is asked `check_ids` with the options and the
view the teacher's page shows (checked: the store's vote holds the options the teacher's tab was
shown). --students then open /learn?class=CODE over SPREAD s; each reads its student token from
the address the server writes (`&student=`), picks an option THINK s after its page arrived
(student n: option n mod 3, sent as its shown text: the question's pills, where a press
answers) and waits for "Answer recorded". Every
RELOAD-th student (n mod 5 == 4) reloads once after its pick: its tab is closed and a new one
opens with the address the server wrote (class and student token), which must be the same
student (no new join), and picks the next option; the store must count its last pick only.
On `redis`, the redis-server is stopped once half the class has answered, kept down DOWN s and
started again on the same socket: a student whose join or pick was refused meanwhile (the page
says "Class mode is unavailable…") waits the backoff the page names, reruns the page, and picks
again until "Answer recorded" (a refused pick is cleared on the page, so the same option can be
pressed again).

Reported: join (page load) p95; the recorded picks' reruns p50/p95; first join -> last answer
(the reloading students' second picks included) and -> the last first pick; the store's tally
against each student's last pick ("exact": joined == answered == n, every option's count);
reloads done, re-joins that made a new student (must be 0) and "counted once"; on redis, the
outage (stop -> answering PING again) and the students who had to retry; seconds from the last
student's first recorded pick (the moment N of N had answered) until the teacher's page showed
"**N of N**". Follow: --followers open the Explorer with ?class=CODE; the teacher sends
learn?sentence=1 (store.send_view); per follower, seconds until its tab was on that page (its
first message), and until it was drawn.

The issue's targets: first join -> last answer <= 10 s, answer p95 <= 1 s, teacher <= 2 s after
the last answer, follow p95 <= 2 s. "server busy": the server processes' CPU seconds per second
(1.0 = one core); the load generator's own CPU is printed too (on 2 cores it competes with the
server). Exit status 1 for an error (an exception element, a failed run, a dropped session, a
pick never recorded), a miscount, or a reload that made a new student. Timings depend on the
machine and what else runs on it: say so beside a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from unittest import mock
from urllib.parse import parse_qs

import redis

from attention.classroom import open_store
from benchmarks.classroom import _p95, cpu_seconds
from deploy.local import ROOT, start_streamlit
from tests.session_client import Session, Stats
from ui.classroom.membership import FIRST_WAIT
from ui.widgets import literal

SPREAD = 3.0  # seconds over which a class's sessions open their link
THINK = (1.0, 3.0)  # seconds a student reads the question before picking
QUESTION = "check_ids"  # the Learn page's first predict-first question (pills: a press records it)
ASK = f"{QUESTION}_ask"  # the teacher's "Ask the class" button under it (ui/classroom/questions.py)
RELOAD = 5  # every RELOAD-th student reloads its page once after its pick
DOWN = 2.0  # seconds the private redis-server stays stopped when restarted
RECORDED = "Answer recorded"
BACKOFF = re.compile(r"tries again by itself in (\d+) second")  # ui/classroom/membership.unreachable's
OFFLINE = "cannot be reached right now"  # a held question while the store is out of reach
COUNT = re.compile(r"\*\*(\d+) of (\d+)\*\*")  # the teacher's "**N of M** students have answered"
WAIT = 30.0  # seconds to wait for the teacher's count, or for followers to switch
TOPOLOGIES = {
    "sqlite": "one process, SQLite store",
    "replicas": "2 replicas behind nginx, one shared SQLite file",
    "redis": "one process, Redis store (private redis-server, Unix socket)",
}


class Tab(Session):
    """One browser tab: a Session whose run_every fragments rerun on their timers (the teacher's
    page has two), and which reads the runs the server starts by itself (a student's page woken
    by the class's bell, ui/classroom/bell.py) whenever it is not running one of its own."""

    reruns = 0  # timer reruns sent, all tabs
    woken = 0  # runs the server started, all tabs

    def __init__(self, url: str, stats: Stats, cookie: str | None, page_name: str = ""):
        super().__init__(url, stats, cookie, page_name)
        self.listen, self.lock, self.ticks = self._heard, asyncio.Lock(), {}
        self.counts, self.switched, self.ready, self.alerts = [], None, None, []
        self.texts: list[str] = []  # every alert's and markdown's text, in the order drawn
        self.restart = self.closing = self.in_class = False
        self.reader: asyncio.Task | None = None

    async def __aenter__(self):
        await super().__aenter__()
        self.reader = asyncio.create_task(self._read_pushed())
        return self

    async def __aexit__(self, *exc) -> None:
        self.closing = True
        tasks = [*self.ticks.values(), self.reader]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await super().__aexit__(*exc)

    async def _read_pushed(self) -> None:
        """As the browser: a run the server starts is drawn whenever it comes (between this tab's
        own runs: the lock, first come first served, keeps one run at a time on the socket)."""
        while not self.closing:
            try:
                async with self.lock:
                    if await self.pushed(0.02):
                        Tab.woken += 1
                        self._timers()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a dropped connection: the report counts it
                if not self.closing:
                    self.stats.errors.append(f"pushed run: {type(error).__name__}: {error}")
                return
            await asyncio.sleep(0)

    def _heard(self, fwd, now: float) -> None:
        kind = fwd.WhichOneof("type")
        if kind == "new_session" and not fwd.metadata.run.fragment_ids:
            self.restart = True  # a whole page's run: the browser clears its timers, then sets new ones
        elif kind == "navigation":
            pages = {p.page_script_hash: p.url_pathname for p in fwd.navigation.app_pages}
            path = pages.get(fwd.navigation.page_script_hash, "")
            if path == "learn" and "sentence=1" in self.query and self.switched is None:
                self.switched = now
        elif kind == "script_finished" and self.switched and self.ready is None:
            if fwd.script_finished != fwd.FINISHED_EARLY_FOR_RERUN:
                self.ready = now
        elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
            element = fwd.delta.new_element
            if element.WhichOneof("type") in ("markdown", "alert"):
                self.texts.append(getattr(element, element.WhichOneof("type")).body)
            if element.WhichOneof("type") == "markdown" and (found := COUNT.search(element.markdown.body)):
                self.counts.append((now, int(found[1]), int(found[2])))
            elif element.WhichOneof("type") == "markdown" and element.markdown.body.startswith("**Class "):
                self.in_class = True
            elif element.WhichOneof("type") == "alert":
                self.alerts.append(element.alert.body)

    async def join(self, query: str) -> float:
        """The page load of a class's link; a page that did not join (its sidebar does not say
        "**Class …** · student") is an error, with what the page said."""
        seconds = await self.run(query=query)
        if not self.in_class and "teacher=" not in query:
            raise RuntimeError(f"not in the class after {query}: {self.alerts[-3:]}")
        return seconds

    async def run(self, **rerun) -> float:
        async with self.lock:
            seconds, _ = await self.rerun(**rerun)
        self._timers()
        return seconds

    def _timers(self) -> None:
        """As the browser: a timer per announced fragment, all set afresh after a page's run."""
        if self.closing:
            return
        for fragment, task in list(self.ticks.items()):
            if self.restart or fragment not in self.timers:
                task.cancel()
                del self.ticks[fragment]
        self.restart = False
        for fragment, seconds in self.timers.items():
            if fragment not in self.ticks:
                self.ticks[fragment] = asyncio.create_task(self._tick(fragment, seconds))

    async def _tick(self, fragment: str, seconds: float) -> None:
        """setInterval's ticks; those that fall due while the tab waits for a run are one run
        (the server keeps one request per fragment in its queue)."""
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:
            due += seconds
            await asyncio.sleep(max(0.0, due - loop.time()))
            try:
                async with self.lock:
                    if fragment not in self.timers or self.closing:
                        return
                    Tab.reruns += 1
                    await self.rerun(fragment=fragment, auto=True)
            except Exception as error:  # a dropped connection: the report counts it
                if not self.closing:
                    self.stats.errors.append(f"timer: {type(error).__name__}: {error}")
                return
            self._timers()  # no await since the run: no other run has started
            if loop.time() - due > seconds:  # a tick fell due meanwhile: it runs at once
                due = loop.time() - seconds


def busy(pids: list[int], since: tuple[float, float] | None = None):
    """Now (CPU seconds of `pids`, wall); with `since`, their CPU seconds per wall second since."""
    now = sum(map(cpu_seconds, pids)), time.perf_counter()
    return now if since is None else (now[0] - since[0]) / (now[1] - since[1])


async def until(done, seconds: float = WAIT) -> None:
    """Until done() is true, or for `seconds` at most."""
    deadline = time.perf_counter() + seconds
    while not done() and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)


def student_token(query: str) -> str | None:
    """The student token in an address the server wrote (`&student=`)."""
    return (parse_qs(query).get("student") or [None])[0]


def backoff(texts: list[str]) -> float | None:
    """While the page says the class is out of reach (the message at its top, or a held question's
    "cannot be reached right now"), the seconds it waits before trying again; None once it does
    not. A pick refused then keeps its refusal under the question until a pick is recorded: not
    a sign that the store is still out of reach."""
    waits = [float(found[1]) for text in texts if (found := BACKOFF.search(text))]
    if waits:
        return max(waits)
    return FIRST_WAIT if any(OFFLINE in text for text in texts) else None


async def enter(tab: Tab, query: str, deadline: float) -> tuple[float, int]:
    """The page load of a class's link, loaded again after the wait the page names while the
    class's store is out of reach: (seconds of the first load, loads again). A page that did not
    join for another reason (its sidebar does not say "**Class …** · student") is an error."""
    first, again = None, 0
    while True:
        since = len(tab.texts)
        seconds = await tab.run(query=query)
        first = seconds if first is None else first
        if tab.in_class:
            return first, again
        wait = backoff(tab.texts[since:])
        if wait is None or time.perf_counter() > deadline:
            raise RuntimeError(f"not in the class after {query}: {tab.alerts[-3:]}")
        again += 1
        await asyncio.sleep(wait + 0.1)


async def choose(tab: Tab, pick: int, latencies: list[float], delays: list[float], deadline: float) -> int:
    """Picks the option at `pick` until the page says "Answer recorded" (the recorded pick's rerun
    seconds go to `latencies`; after a refusal, the seconds from the first click to the recorded
    one to `delays`); returns how many picks the page refused first. A refusal while the store is
    out of reach: wait as long as the page says, rerun the page (a student's page has no timer),
    and pick again (a refused pick is cleared on the page)."""
    refused, began = 0, time.perf_counter()
    while True:
        since, clicked = len(tab.texts), time.perf_counter()
        await tab.run(changes={QUESTION: tab.options[QUESTION][pick]})
        said = tab.texts[since:]
        if any(t.startswith(RECORDED) for t in said) and backoff(said) is None:
            latencies.append(time.perf_counter() - clicked)
            if refused:
                delays.append(time.perf_counter() - began)
            return refused
        wait = backoff(said)
        if wait is None and not said:  # nothing drawn: a held question the page showed disabled (out
            wait = FIRST_WAIT  # of reach a moment ago), which a browser would not have let be clicked
        if wait is None or time.perf_counter() > deadline:
            raise RuntimeError(f"the pick was not recorded: {tab.alerts[since:][-2:]}")
        refused += 1
        while wait is not None:  # the page, until it reaches the class again
            if time.perf_counter() > deadline:
                raise RuntimeError(f"the page never reached the class again: {tab.alerts[-2:]}")
            await asyncio.sleep(wait + 0.1)
            since = len(tab.texts)
            await tab.run()
            wait = backoff(tab.texts[since:])


async def teach(tab: Tab, store, code: str, secret: str) -> list[str]:
    """The teacher: the link with the secret (its run takes a seat and stops, as the page reloads
    without it), the page again without it, then the click on "Ask the class". Returns the
    options the teacher's page showed (as the question shows them: ui/widgets.literal), which the
    class's vote must hold."""
    await tab.run(query=f"class={code}&teacher={secret}")
    # The browser opens /learn?class=CODE again (location.replace): here the same session, which
    # holds the seat, runs the page named by its path (the stopped run resolved no page).
    tab.page = ""
    await tab.run(query=f"class={code}")
    if ASK not in tab.widgets:
        raise RuntimeError(f"no 'Ask the class' ({ASK}) on the teacher's page: {tab.alerts[-3:]}")
    await tab.run(changes={ASK: True})
    shown, vote = tab.options.get(QUESTION), store.vote(code)
    if vote is None or vote.question != QUESTION or [literal(o) for o in vote.options] != shown:
        raise RuntimeError(f"the click did not ask {QUESTION} with the shown options: {vote}, {shown}")
    return shown


async def answers(url: str, pids: list[int], n: int, cookie, restart=None) -> dict:
    store = open_store()
    code, secret = store.new_class()
    stats, loads, latencies, joins = Stats(), [], [], []
    last: dict[int, int] = {}  # student -> the option it picked last, as recorded
    answered: dict[int, float] = {}  # student -> when its last pick was recorded
    firsts: list[float] = []  # when each student's first pick was recorded
    over: list[int] = []  # the students whose last pick was recorded
    failed: list[int] = []  # the students who stopped at an error
    r = {
        "reloads": 0,
        "new": 0,
        "joins again": 0,
        "picks again": 0,
        "retried": set(),
        "outage": None,
        "delays": [],
    }
    done = asyncio.Event()
    deadline = time.perf_counter() + 600

    async def student(i: int) -> None:
        await asyncio.sleep(SPREAD * i / n)
        picks = [i % 3] + ([(i % 3 + 1) % 3] if i % RELOAD == RELOAD - 1 else [])
        query, token, browser = f"class={code}", None, cookie()  # a reload keeps the browser's cookies
        try:
            for k, pick in enumerate(picks):
                async with Tab(url, stats, browser, "learn") as tab:
                    if k == 0:
                        joins.append(time.perf_counter())
                    seconds, again = await enter(tab, query, deadline)
                    if k == 0:
                        loads.append(seconds)
                    now = student_token(tab.query)
                    if now is None:
                        raise RuntimeError(f"no student token in the address the server wrote: {tab.query}")
                    token = token or now
                    r["new"] += now != token  # a reload that joined as someone else
                    if tab.options.get(QUESTION) != asked:
                        raise RuntimeError(f"options {tab.options.get(QUESTION)}, the teacher's {asked}")
                    await asyncio.sleep(random.Random(i * 10 + k).uniform(*THINK))
                    refused = await choose(tab, pick, latencies, r["delays"], deadline)
                    r["joins again"] += again
                    r["picks again"] += refused
                    if again or refused:
                        r["retried"].add(i)
                    last[i], answered[i] = pick, time.perf_counter()
                    if k == 0:
                        firsts.append(answered[i])
                    if k < len(picks) - 1:  # the reload: this tab closes, a new one opens its address
                        r["reloads"] += 1
                        query = tab.query
                        continue
                    over.append(i)
                    await done.wait()  # the tab stays open, timers ticking, until the teacher has seen all
        except Exception as error:
            stats.errors.append(f"student {i}: {type(error).__name__}: {error}")
            failed.append(i)

    async def restarting() -> None:
        await until(lambda: len(firsts) >= n // 2 or len(failed) >= n, 3600)
        r["at"] = len(answered)
        r["outage"] = await asyncio.to_thread(restart)

    async with Tab(url, stats, cookie(), "learn") as teacher:
        asked = await teach(teacher, store, code, secret)
        start = busy(pids)
        restarter = asyncio.create_task(restarting()) if restart else None
        students = asyncio.gather(*(student(i) for i in range(n)))
        await until(lambda: len(over) + len(failed) >= n or students.done(), 3600)
        load, end = busy(pids, start), max(answered.values(), default=float("nan"))
        await until(lambda: any(c[1] >= n for c in teacher.counts))
        seen = next((t for t, got, _ in teacher.counts if got >= n), float("nan"))
        done.set()
        await students
        if restarter:
            await restarter
    tally = store.tally(code, QUESTION, secret)
    current = tally.current
    counts = dict(current.counts) if current else {}
    sent, first = dict(Counter(last.values())), min(joins, default=float("nan"))
    exact = bool(current) and current.answered == n == tally.joined == sum(counts.values()) and counts == sent
    return dict(
        stats=stats, loads=loads, latencies=latencies, exact=exact, counts=counts, sent=sent, busy=load,
        answered=current.answered if current else 0, joined=tally.joined, r=r,
        seen=seen - max(firsts, default=float("nan")),
        window=end - first, firsts=max(firsts, default=float("nan")) - first,
        shown=(teacher.counts or [(0, "never")])[-1][1:],
    )  # fmt: skip


async def follow(url: str, pids: list[int], n: int, cookie) -> dict:
    store = open_store()
    code, secret = store.new_class()
    stats, tabs = Stats(), []

    async def follower(i: int) -> None:
        await asyncio.sleep(SPREAD * i / n)
        try:
            async with Tab(url, stats, cookie()) as tab:
                await tab.join(f"class={code}")
                tabs.append(tab)
                await finished.wait()
        except Exception as error:
            stats.errors.append(f"follower {i}: {type(error).__name__}: {error}")

    finished = asyncio.Event()
    everyone = asyncio.gather(*(follower(i) for i in range(n)))
    await until(lambda: len(tabs) + len(stats.errors) >= n or everyone.done(), 3600)
    await asyncio.sleep(3.0)  # every follower's timer ticking, as in a class that waits
    start = busy(pids)
    at = start[1]
    store.send_view(code, secret, "learn", {"sentence": "1"})
    await until(lambda: all(t.ready for t in tabs))
    load = busy(pids, start)
    finished.set()
    await everyone
    switched = [t.switched - at for t in tabs if t.switched]
    drawn = [t.ready - at for t in tabs if t.ready]
    return {"stats": stats, "switched": switched, "drawn": drawn, "busy": load, "n": n}


def restarted(r: dict, n: int) -> str:
    return (
        f"redis restarted at {r['at']} of {n} answered: out of reach {r['outage']:.2f} s (stopped, "
        f"{DOWN:g} s down, answering again); {len(r['retried'])} students retried "
        f"({r['joins again']} page loads again, {r['picks again']} picks refused first; a refused "
        f"pick recorded {max(r['delays'], default=float('nan')):.1f} s after its first click at most)"
    )


def report(name: str, a: dict, f: dict, n: int, client: float) -> list[str]:
    errors = a["stats"].errors + f["stats"].errors
    counts = ", ".join(f"option {k}: {v}" for k, v in sorted(a["counts"].items()))
    exact = "exact" if a["exact"] else f"MISCOUNT (last picks {dict(sorted(a['sent'].items()))})"
    r = a["r"]
    once = a["exact"] and r["new"] == 0
    shown = " of ".join(map(str, a["shown"]))
    ms = lambda v: f"p50 {statistics.median(v or [float('nan')]):.2f} s, p95 {_p95(v):.2f} s"  # noqa: E731
    lines = [
        f"answers: {n} students; join (page load) p95 {_p95(a['loads']):.2f} s; "
        f"answer rerun {ms(a['latencies'])}",
        f"first join -> last answer {a['window']:.1f} s (last first pick {a['firsts']:.1f} s); "
        f"server busy {a['busy']:.2f} s CPU per s",
        f"store: {a['answered']} answered of {a['joined']} joined ({counts}); "
        f"last picks {sum(a['sent'].values())}: {exact}",
        f"reloads {r['reloads']} (tab closed after its pick, the address the server wrote opened anew); "
        f"re-joins that made a new student {r['new']}; counted once: {'yes' if once else 'NO'}",
        *([restarted(r, n)] if r["outage"] is not None else []),
        f"teacher's page showed {n} answers {a['seen']:.2f} s after the last student's first answer "
        f"(last shown: {shown})",
        f"follow: {len(f['switched'])} of {f['n']} followers switched to learn?sentence=1, "
        f"{ms(f['switched'])}; page drawn {ms(f['drawn'])}; server busy {f['busy']:.2f} s CPU per s",
        f"errors {len(errors)}; {Tab.reruns} timer reruns, {Tab.woken} runs the server started; "
        f"this load generator: {client:.2f} s CPU per s",
        *(f"! {error}" for error in errors[:5]),
    ]
    print(f"== {name}", *lines, sep="\n   ")
    return errors


class RedisServer:
    """A private redis-server on a Unix socket, its data in an append-only file fsynced at every
    write (a restart keeps every class); a child of this process rather than a daemon, so it is
    stopped however the run ends."""

    def __init__(self, folder: Path):
        self.folder, self.sock, self.proc = folder, folder / "redis.sock", None
        self.url = f"unix://{self.sock}?db=0"

    def start(self) -> None:
        """Started, and answering PING (not while it loads its file)."""
        self.proc = subprocess.Popen(
            ["/usr/bin/redis-server", "--port", "0", "--unixsocket", str(self.sock),
             "--unixsocketperm", "700", "--save", "", "--appendonly", "yes", "--appendfsync", "always",
             "--dir", str(self.folder),
             "--logfile", str(self.folder / "redis.log")]
        )  # fmt: skip
        client, deadline = redis.Redis(unix_socket_path=str(self.sock)), time.perf_counter() + 30
        try:
            while True:
                if self.proc.poll() is not None or time.perf_counter() > deadline:
                    raise RuntimeError(f"redis-server did not start: see {self.folder / 'redis.log'}")
                with contextlib.suppress(redis.RedisError):
                    if client.ping():
                        return
                time.sleep(0.02)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: Redis fsyncs its file and exits
            self.proc.wait(timeout=30)

    def restart(self) -> float:
        """Stopped, kept down DOWN s, started again on the same socket: seconds out of reach."""
        began = time.perf_counter()
        self.stop()
        time.sleep(DOWN)
        self.start()
        return time.perf_counter() - began


@contextlib.contextmanager
def topology(kind: str, folder: Path):
    """A fresh server: (its ws:// URL, the server pids, whether sessions need a sticky cookie,
    what restarts its store mid-class: None but for Redis)."""
    with contextlib.ExitStack() as stack:
        restart, store = None, f"sqlite://{folder}/c.sqlite3"
        if kind == "redis":
            server = RedisServer(folder)
            stack.callback(server.stop)
            server.start()
            restart, store = server.restart, server.url
        stack.enter_context(mock.patch.dict(os.environ, ATTENTION_CLASS_STORE=store))  # servers inherit it
        if kind == "replicas":
            from deploy.replicas import Replicas

            r = stack.enter_context(Replicas(2))
            yield r.url.replace("http://", "ws://"), r.pids, True, None
            return
        proc, url = start_streamlit(ROOT / "app.py")
        stack.callback(proc.wait, timeout=30)
        stack.callback(proc.terminate)
        yield url.replace("http://", "ws://"), [proc.pid], False, restart


async def warm(url: str, sticky: bool) -> None:
    """A fresh server's first runs import the app: the Explorer and Learn, on every replica."""
    for _ in range(4 if sticky else 1):
        cookie = secrets.token_hex(16) if sticky else None
        for page in ("", "learn"):
            async with Session(url, Stats(), cookie, page) as s:
                await s.rerun()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--followers", type=int, default=100)
    parser.add_argument("--store", choices=("sqlite", "replicas", "redis", "all"), default="all")
    args = parser.parse_args(argv)
    kinds = list(TOPOLOGIES) if args.store == "all" else [args.store]
    print(
        f"{os.cpu_count()} cores; sessions open over {SPREAD:g} s; a student picks {THINK} s after loading; "
        f"every {RELOAD}th student reloads once after its pick"
    )
    failed = False
    for kind in kinds:
        with (
            tempfile.TemporaryDirectory(prefix="class-mode-") as folder,
            topology(kind, Path(folder)) as (url, pids, sticky, restart),
        ):
            cookie = (lambda: secrets.token_hex(16)) if sticky else (lambda: None)
            asyncio.run(warm(url, sticky))
            Tab.reruns, Tab.woken, own = 0, 0, (time.process_time(), time.perf_counter())
            a = asyncio.run(answers(url, pids, args.students, cookie, restart))
            f = asyncio.run(follow(url, pids, args.followers, cookie))
            client = (time.process_time() - own[0]) / (time.perf_counter() - own[1])
            errors = report(f"{kind}: {TOPOLOGIES[kind]}", a, f, args.students, client)
            failed |= bool(errors) or not a["exact"] or a["r"]["new"] > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
