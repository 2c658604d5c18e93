"""A classroom on one server: N students open the Explorer at once and change settings.

    .venv/bin/python -m benchmarks.classroom [--sessions 30] [--reruns 4] [--browsers 2]
    .venv/bin/python -m benchmarks.classroom --url ws://127.0.0.1:8080   # against a running server

It starts `streamlit run app.py` (and then the one-heatmap reference app, benchmarks/
reference_app.py, for comparison) on loopback, and drives N sessions through Streamlit's own
websocket protocol (ws://HOST/_stcore/stream, subprotocol "streamlit"): a BackMsg rerun_script
per page load or widget change, then ForwardMsgs until script_finished. Thirty Chromium pages on
two cores would measure the browsers, not the server; `--browsers` real Chromium pages load the
page during the load, for what only a browser shows (time to the first drawn heatmap, no
dialogs, no errors).

Each session loads the page with the default settings, then makes `--reruns` changes, as a
student does: another example sentence, heads, dropout in train mode, a new seed (each to a value
other than the one shown: a browser sends nothing for a value that did not change).
Reported: p50/p95 latency of those reruns, errors (an exception element, a failed run, a
dropped connection), server CPU seconds per rerun (from /proc, the server's own process), the
server's peak RSS, and whether sessions that asked for the same settings got the same numbers.
Targets at N = 30 x 4 on this 2-core machine: 0 errors, p95 <= 2.5 s, <= 100 ms CPU per rerun,
peak RSS <= 1.5 GB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from attention.settings import current
from deploy.local import ROOT, start_streamlit
from tests.chromium import launch
from tests.session_client import Session, Stats

REFERENCE = Path(__file__).resolve().parent / "reference_app.py"
SENTENCES = ["Your journey starts with one step", "Hello shiny sun", "Life is short eat dessert first"]
TICKS = os.sysconf("SC_CLK_TCK")


async def student(
    url: str, n: int, reruns: int, stats: Stats, think: float, reference: bool, cookie=None, query: str = ""
):
    rng = random.Random(n)
    try:
        async with Session(url, stats, cookie) as s:
            seconds, _ = await s.rerun(query=query)  # a link's address: ?lang=uk
            stats.loads.append(seconds)
            history = []  # the changes so far: sessions with the same history have the same settings
            # A browser sends a change only when a value changes: each one here is to a new value.
            shown = {"w_text": SENTENCES[0], "w_heads": 2, "w_seed": 123, "w_train": False}  # as it opens
            for i in range(reruns):
                await asyncio.sleep(rng.uniform(0, 2 * think))
                if reference:
                    change = {"seed": rng.randrange(10**6)}
                else:
                    others = [t for t in SENTENCES if t != shown["w_text"]]
                    change = [
                        {"w_text": others[(n + i) % len(others)]},
                        {"w_heads": 3 - shown["w_heads"]},  # 2 <-> 1
                        {"w_train": not shown["w_train"], "w_dropout": 0.1},
                        {"w_seed": rng.choice([v for v in (123, 7, 42) if v != shown["w_seed"]])},
                    ][i % 4]
                    shown |= change
                history.append(sorted(change.items()))
                seconds, digest = await s.rerun(changes=change)
                stats.latencies.append(seconds)
                if not reference:
                    stats.numbers.setdefault(repr(history), []).append(digest)
    except Exception as error:  # a dropped connection or a timeout is an error the report counts
        stats.errors.append(f"session {n}: {type(error).__name__}: {error}")


@dataclass
class Player:
    """One student's Play on Watch it learn: seconds from the click to the first drawn step, and
    to the finished run; whether the run waited in line first."""

    started: float
    finished: float
    waited: bool


async def player(url: str, n: int, stats: Stats, players: list, cookie=None):
    try:
        async with Session(url, stats, cookie, page_name="train") as s:
            seconds, _ = await s.rerun()
            stats.loads.append(seconds)
            click = time.perf_counter()
            await s.rerun(changes={"tr_play": True})  # returns when the run has finished and redrawn
            if "finished" not in s.marks:
                stats.errors.append(f"player {n}: no 'Finished' after Play")
                return
            players.append(
                Player(
                    s.marks.get("training", float("nan")) - click,
                    s.marks["finished"] - click,
                    "waiting" in s.marks,
                )
            )
    except Exception as error:
        stats.errors.append(f"player {n}: {type(error).__name__}: {error}")


MODEL_SENTENCES = [
    "The cat sat on the mat. The cat sat on the mat.",
    "One two three four five. One two three four five.",
    "Students learn attention in class. Students learn attention in class.",
]


async def model_viewer(url: str, n: int, reruns: int, stats: Stats, think: float, source: str, cookie=None):
    """A student on Inside a model: a new sentence (the text box), another head (a link's query)."""
    rng = random.Random(n)
    model = f"model={quote(source)}&" if source else ""
    try:
        async with Session(url, stats, cookie, page_name="model") as s:
            seconds, _ = await s.rerun(query=model.rstrip("&"))
            stats.loads.append(seconds)
            for i in range(reruns):
                await asyncio.sleep(rng.uniform(0, 2 * think))
                if i % 2 == 0:
                    seconds, _ = await s.rerun(changes={"m_text": MODEL_SENTENCES[(n + i) % 3]})
                else:
                    layer, head = rng.randrange(2), rng.randrange(4)
                    text = quote(MODEL_SENTENCES[n % 3])
                    seconds, _ = await s.rerun(
                        query=f"{model}text={text}&view=head&layer={layer}&head={head}"
                    )
                stats.latencies.append(seconds)
    except Exception as error:
        stats.errors.append(f"session {n}: {type(error).__name__}: {error}")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def memory(pid: int, field: str = "VmHWM") -> int:
    """Bytes of a process's memory from /proc: VmHWM, the peak RSS; VmRSS, the RSS now."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    return 0


def browsers(url: str, count: int, results: list) -> None:
    """`count` real Chromium pages open the Explorer while the load runs (in this thread)."""
    from playwright.sync_api import sync_playwright

    http = url.replace("ws://", "http://")
    with sync_playwright() as p:
        browser = launch(p)
        for _ in range(count):
            page = browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda d, seen=dialogs: (seen.append(d.message), d.dismiss()))
            start = time.perf_counter()
            try:
                page.goto(http)
                page.wait_for_selector(".js-plotly-plot .heatmaplayer", timeout=120_000)
                errors = page.locator('[data-testid="stException"]').count()
                results.append((time.perf_counter() - start, errors, dialogs))
            except Exception as error:
                results.append((float("nan"), 1, [repr(error)]))
            page.close()
        browser.close()


def measure(url: str, pids: list[int], args, reference: bool, cookies: bool = False, query: str = "") -> dict:
    stats = Stats()
    shown: list = []
    players: list[Player] = []
    mix = "explore" if reference else args.mix
    watcher = None
    rss_before = max(memory(pid, "VmRSS") for pid in pids) if pids else None
    if args.browsers and mix == "explore" and not reference:
        watcher = threading.Thread(target=browsers, args=(url, args.browsers, shown))
        watcher.start()
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    start = time.perf_counter()

    async def everyone():
        # What nginx's $request_id gives a new browser: 32 random hex digits. Counters ("s0",
        # "s1", ...) are a poor stand-in: nginx hashes the cookie with CRC32, which is linear, so
        # keys that differ in a few bits can all land on one replica's arc of the ring.
        routes = [secrets.token_hex(16) for _ in range(args.sessions)]
        cookie = (lambda n: routes[n]) if cookies else (lambda n: None)
        if mix == "model":
            runs = [
                model_viewer(url, n, args.reruns, stats, args.think, args.model, cookie(n))
                for n in range(args.sessions)
            ]
        else:
            runs = [
                student(url, n, args.reruns, stats, args.think, reference, cookie(n), query)
                for n in range(args.sessions)
            ]
        if mix == "play":  # as many again press Play at once
            runs += [player(url, n, stats, players, cookie(n)) for n in range(args.sessions)]
        await asyncio.gather(*runs)

    asyncio.run(everyone())
    wall = time.perf_counter() - start
    if watcher:
        watcher.join()
    runs = len(stats.latencies) + len(stats.loads)
    lat = sorted(stats.latencies)
    return {
        "sessions": args.sessions,
        "reruns": len(lat),
        "errors": stats.errors,
        "wall": wall,
        "p50": statistics.median(lat) if lat else float("nan"),
        "p95": _p95(lat),
        "load_p95": _p95(stats.loads),
        "cpu_per_rerun": (sum(map(cpu_seconds, pids)) - cpu_before) / runs if pids and runs else None,
        "peak_rss": max(memory(pid) for pid in pids) if pids else None,
        "received": stats.received,
        "narrowed": stats.narrowed,
        "replicas": stats.replicas,
        "consistent": all(len(set(d)) == 1 for d in stats.numbers.values()),
        "shared_settings": sum(1 for d in stats.numbers.values() if len(d) > 1),
        "browsers": shown,
        "players": players,
        "mix": mix,
        "rss_before": rss_before,
    }


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)] if ordered else float("nan")


def report(name: str, r: dict) -> None:
    cpu = f"{r['cpu_per_rerun'] * 1e3:.1f} ms" if r["cpu_per_rerun"] is not None else "n/a (remote)"
    rss = f"{r['peak_rss'] / 2**20:.0f} MiB" if r["peak_rss"] else "n/a (remote)"
    print(f"== {name}: {r['sessions']} sessions, {r['reruns']} setting changes in {r['wall']:.1f} s")
    p50, p95, load = r["p50"], r["p95"], r["load_p95"]
    print(f"   change rerun latency p50 {p50:.2f} s, p95 {p95:.2f} s; first load p95 {load:.2f} s")
    print(
        f"   errors {len(r['errors'])}; server CPU per rerun {cpu}; server peak RSS {rss}; "
        f"{r['received'] / 2**20:.1f} MiB of ForwardMsgs"
    )
    if r["narrowed"]:
        print(f"   {r['narrowed']} of the {r['reruns']} changes reran only the page's body")
    if r["replicas"]:
        print(f"   sessions per replica (nginx X-Replica): {r['replicas']}")
    if r["shared_settings"]:
        print(
            f"   same settings, same numbers in every session: {r['consistent']} "
            f"({r['shared_settings']} settings shared by several sessions)"
        )
    if r["players"]:
        started, finished = [p.started for p in r["players"]], [p.finished for p in r["players"]]
        waited = sum(p.waited for p in r["players"])
        print(
            f"   {len(r['players'])} Play clicks finished, {waited} waited in line first; Play to first "
            f"step p50 {statistics.median(started):.1f} s, max {max(started):.1f} s; to finished p50 "
            f"{statistics.median(finished):.1f} s, max {max(finished):.1f} s"
        )
    if r["rss_before"] and r["peak_rss"]:
        before, peak = r["rss_before"] / 2**20, r["peak_rss"] / 2**20
        print(
            f"   RSS before the load {before:.0f} MiB (warmed up), peak during it {peak:.0f} MiB: "
            f"+{peak - before:.0f} MiB"
        )
    for seconds, errors, dialogs in r["browsers"]:
        print(
            f"   Chromium page during the load: first heatmap drawn after {seconds:.1f} s, "
            f"{errors} error elements, dialogs {dialogs}"
        )
    for error in r["errors"][:5]:
        print(f"   ! {error}")


def serve(script: Path) -> tuple[subprocess.Popen, str]:
    proc, url = start_streamlit(script)
    return proc, url.replace("http://", "ws://")


def warm(url: str, cookie: str | None = None, args=None) -> None:
    """One session first: the first run of a fresh server imports the app (seconds of CPU that
    belong to start-up, not to the class), and for the model mix loads the model."""
    asyncio.run(student(url, 0, 1, Stats(), 0.0, False, cookie))
    if args is not None and args.mix == "model":
        asyncio.run(model_viewer(url, 0, 2, Stats(), 0.0, args.model, cookie))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--reruns", type=int, default=4, help="setting changes per session")
    parser.add_argument("--think", type=float, default=0.25, help="mean pause between changes, s")
    parser.add_argument("--browsers", type=int, default=2, help="real Chromium pages during the load")
    parser.add_argument("--url", help="an already running app (ws://host:port); no server stats")
    parser.add_argument("--pids", default="", help="with --url: server process ids, for CPU and RSS")
    parser.add_argument("--cookies", action="store_true", help="send a per-session cookie (sticky routing)")
    parser.add_argument("--replicas", type=int, default=0, help="start replicas behind nginx, load them")
    parser.add_argument("--no-reference", dest="reference", action="store_false")
    mixes = "explore: N change the Explorer's knobs; play: N press Play at once, N others explore; model: "
    parser.add_argument(
        "--mix", choices=("explore", "play", "model"), default="explore", help=mixes + "N on Inside a model"
    )
    parser.add_argument("--model", default="", help="model mix: the model's source (default: the page's own)")
    parser.add_argument(
        "--lang",
        default="",
        help="explore mix: the Explorer in this language too (?lang=uk), on its own server",
    )
    args = parser.parse_args(argv)
    results = {}
    if args.url:
        warm(args.url, args=args)
        pids = [int(p) for p in args.pids.split(",") if p]
        results["Explorer"] = measure(args.url, pids, args, reference=False, cookies=args.cookies)
    elif args.replicas:
        from deploy.replicas import Replicas

        with Replicas(args.replicas) as r:
            url = r.url.replace("http://", "ws://")
            for _ in range(args.replicas * 2):
                warm(url, cookie=f"warm{_}")  # first runs of every replica import the app
            name = f"Explorer, {args.replicas} replicas behind nginx"
            results[name] = measure(url, r.pids, args, reference=False, cookies=True)
    else:
        page = {"explore": "Explorer", "play": "Watch it learn + Explorer", "model": "Inside a model"}
        targets = [(page[args.mix], ROOT / "app.py", False, "")]
        if args.lang and args.mix == "explore":
            targets.append((f"Explorer ?lang={args.lang}", ROOT / "app.py", False, f"lang={args.lang}"))
        if args.reference:
            targets.append(("reference page (one heatmap)", REFERENCE, True, ""))
        for name, script, reference, query in targets:
            proc, url = serve(script)
            try:
                warm(url, args=None if reference else args)  # a fresh server's first runs import the app
                results[name] = measure(url, [proc.pid], args, reference, query=query)
            finally:
                proc.terminate()
                proc.wait(timeout=30)
    threads = current().torch_threads or "1 (default)"
    print(f"ATTENTION_TORCH_THREADS={threads}; {os.cpu_count()} cores; think time {args.think} s")
    for name, r in results.items():
        report(name, r)
    explorer = next(iter(results.values()))
    yardstick = results.get("reference page (one heatmap)")  # the same load: the explore mix's yardstick
    if args.mix == "explore" and yardstick and explorer["cpu_per_rerun"] and yardstick["cpu_per_rerun"]:
        ratio = explorer["cpu_per_rerun"] / yardstick["cpu_per_rerun"]
        print(f"== server CPU per rerun: {ratio:.2f}x the reference page's, this run")
    translated = results.get(f"Explorer ?lang={args.lang}")
    if translated and explorer["cpu_per_rerun"] and translated["cpu_per_rerun"]:
        ratio = translated["cpu_per_rerun"] / explorer["cpu_per_rerun"]
        print(f"== server CPU per rerun in ?lang={args.lang}: {ratio:.2f}x English's, this run")
    ok = all(not r["errors"] and r["consistent"] for r in results.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
