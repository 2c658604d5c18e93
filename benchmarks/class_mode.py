"""Class mode under a whole class: every answer counted once, the teacher's live count, a view
the teacher sends reaching every follower. Figures, not pass/fail.

    .venv/bin/python -m benchmarks.class_mode [--students 200] [--followers 100] [--store all]

Each topology is a fresh server: `sqlite` (one Streamlit process, a SQLite file of its own),
`replicas` (2 behind nginx, deploy/replicas.py, sticky by a cookie per session, sharing ONE
SQLite file), `redis` (one process, a private redis-server on a Unix socket). Sessions speak
Streamlit's websocket protocol (tests/session_client.py) as browser tabs do: each `run_every`
fragment a page announces is rerun on its own 1 s timer, one request at a time per tab.

Answers: the teacher opens Learn with its link and asks `check_ids` (store.ask); --students open
/learn?class=CODE over SPREAD s and pick an option 1-3 s later (student n: option n mod 3, sent
as its shown text). Reported: join (page load) p95; the pick's rerun p50/p95; first join -> last
answer; the store's tally against what was sent ("exact": every answer counted once, per option);
seconds from the last answer until the teacher's page showed "**N of N**". Follow: --followers
open the Explorer with ?class=CODE; the teacher sends learn?sentence=1 (store.send_view); per
follower, seconds until its tab was on that page (its first message), and until it was drawn.

The issue's targets: first join -> last answer <= 10 s, answer p95 <= 1 s, teacher <= 2 s after
the last answer, follow p95 <= 2 s. "server busy": the server processes' CPU seconds per second
(1.0 = one core); the load generator's own CPU is printed too (on 2 cores it competes with the
server). Exit status 1 only for an error (an exception element, a failed run, a dropped session)
or a miscount. Timings depend on the machine and what else runs on it: say so beside a figure.
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
from pathlib import Path
from unittest import mock

from attention.classroom import open_store
from benchmarks.classroom import _p95, cpu_seconds
from deploy.local import ROOT, start_streamlit
from tests.session_client import Session, Stats

SPREAD = 3.0  # seconds over which a class's sessions open their link
THINK = (1.0, 3.0)  # seconds a student reads the question before picking
QUESTION = "check_ids"  # the Learn page's first predict-first question (a radio)
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


async def answers(url: str, pids: list[int], n: int, cookie) -> dict:
    store = open_store()
    code, secret = store.new_class()
    store.ask(code, secret, QUESTION)
    stats, sent, loads, latencies, joins, answered = Stats(), {}, [], [], [], []
    done = asyncio.Event()

    async def student(i: int) -> None:
        await asyncio.sleep(SPREAD * i / n)
        try:
            async with Tab(url, stats, cookie(), "learn") as tab:
                joins.append(time.perf_counter())
                loads.append(await tab.join(f"class={code}"))
                await asyncio.sleep(random.Random(i).uniform(*THINK))
                options = tab.options[QUESTION]
                pick = i % len(options)
                clicked = time.perf_counter()
                await tab.run(changes={QUESTION: options[pick]})
                if not tab.alerts or not tab.alerts[-1].startswith("Answer recorded"):
                    raise RuntimeError(f"the pick was not recorded: {tab.alerts[-1:]}")
                answered.append(time.perf_counter())
                latencies.append(answered[-1] - clicked)
                sent[str(pick)] = sent.get(str(pick), 0) + 1
                await done.wait()  # the tab stays open, its timers ticking, until the teacher has seen all
        except Exception as error:
            stats.errors.append(f"student {i}: {type(error).__name__}: {error}")

    async with Tab(url, stats, cookie(), "learn") as teacher:
        await teacher.run(query=f"class={code}&teacher={secret}")
        start = busy(pids)
        students = asyncio.gather(*(student(i) for i in range(n)))
        await until(lambda: len(answered) + len(stats.errors) >= n or students.done(), 3600)
        load, last = busy(pids, start), max(answered, default=float("nan"))
        await until(lambda: any(c[1] >= n for c in teacher.counts))
        seen = next((t for t, got, _ in teacher.counts if got >= n), float("nan"))
        done.set()
        await students
    tally = store.tally(code, QUESTION, secret)
    current = tally.current
    counts = dict(current.counts) if current else {}
    exact = bool(current) and current.answered == n == sum(counts.values()) and counts == sent
    return dict(
        stats=stats, loads=loads, latencies=latencies, exact=exact, counts=counts, sent=sent, busy=load,
        answered=current.answered if current else 0, joined=tally.joined, seen=seen - last,
        window=last - min(joins, default=float("nan")), shown=(teacher.counts or [(0, "never")])[-1][1:],
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


def report(name: str, a: dict, f: dict, n: int, client: float) -> list[str]:
    errors = a["stats"].errors + f["stats"].errors
    counts = ", ".join(f"option {k}: {v}" for k, v in sorted(a["counts"].items()))
    exact = "exact" if a["exact"] else f"MISCOUNT (sent {a['sent']})"
    shown = " of ".join(map(str, a["shown"]))
    ms = lambda v: f"p50 {statistics.median(v or [float('nan')]):.2f} s, p95 {_p95(v):.2f} s"  # noqa: E731
    lines = [
        f"answers: {n} students; join (page load) p95 {_p95(a['loads']):.2f} s; "
        f"answer rerun {ms(a['latencies'])}",
        f"first join -> last answer {a['window']:.1f} s; server busy {a['busy']:.2f} s CPU per s",
        f"store: {a['answered']} answered of {a['joined']} joined ({counts}); "
        f"sent {sum(a['sent'].values())}: {exact}",
        f"teacher's page showed {n} answers {a['seen']:.2f} s after the last answer (last shown: {shown})",
        f"follow: {len(f['switched'])} of {f['n']} followers switched to learn?sentence=1, "
        f"{ms(f['switched'])}; page drawn {ms(f['drawn'])}; server busy {f['busy']:.2f} s CPU per s",
        f"errors {len(errors)}; {Tab.reruns} timer reruns, {Tab.woken} runs the server started; "
        f"this load generator: {client:.2f} s CPU per s",
        *(f"! {error}" for error in errors[:5]),
    ]
    print(f"== {name}", *lines, sep="\n   ")
    return errors


@contextlib.contextmanager
def redis_server(folder: Path):
    """A private redis-server (tests/run.sh's settings): a Unix socket, nothing saved; a child of
    this process rather than a daemon, so it is stopped however the run ends."""
    sock = folder / "redis.sock"
    proc = subprocess.Popen(
        ["/usr/bin/redis-server", "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700",
         "--save", "", "--appendonly", "no", "--dir", str(folder), "--logfile", str(folder / "redis.log")]
    )  # fmt: skip
    try:
        while not sock.exists() and proc.poll() is None:
            time.sleep(0.1)
        yield f"unix://{sock}?db=0"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@contextlib.contextmanager
def topology(kind: str, folder: Path):
    """A fresh server: (its ws:// URL, the server pids, whether sessions need a sticky cookie)."""
    with contextlib.ExitStack() as stack:
        store = (
            stack.enter_context(redis_server(folder)) if kind == "redis" else f"sqlite://{folder}/c.sqlite3"
        )
        stack.enter_context(mock.patch.dict(os.environ, ATTENTION_CLASS_STORE=store))  # servers inherit it
        if kind == "replicas":
            from deploy.replicas import Replicas

            r = stack.enter_context(Replicas(2))
            yield r.url.replace("http://", "ws://"), r.pids, True
            return
        proc, url = start_streamlit(ROOT / "app.py")
        stack.callback(proc.wait, timeout=30)
        stack.callback(proc.terminate)
        yield url.replace("http://", "ws://"), [proc.pid], False


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
    print(f"{os.cpu_count()} cores; sessions open over {SPREAD:g} s; a student picks {THINK} s after loading")
    failed = False
    for kind in kinds:
        with (
            tempfile.TemporaryDirectory(prefix="class-mode-") as folder,
            topology(kind, Path(folder)) as (url, pids, sticky),
        ):
            cookie = (lambda: secrets.token_hex(16)) if sticky else (lambda: None)
            asyncio.run(warm(url, sticky))
            Tab.reruns, Tab.woken, own = 0, 0, (time.process_time(), time.perf_counter())
            a = asyncio.run(answers(url, pids, args.students, cookie))
            f = asyncio.run(follow(url, pids, args.followers, cookie))
            client = (time.process_time() - own[0]) / (time.perf_counter() - own[1])
            errors = report(f"{kind}: {TOPOLOGIES[kind]}", a, f, args.students, client)
            failed |= bool(errors) or not a["exact"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
