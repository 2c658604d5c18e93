"""What a follower's switch costs the server: N students follow on the Explorer of one warm server
(SQLite store), the teacher sends Learn's view; the server CPU per follower and the seconds until
the last one's Learn page is drawn. Figures, not pass/fail.

    .venv/bin/python -m benchmarks.class_follow [--followers 40]

The students join one after another, then Learn's sent view is drawn once by another tab (a class
has seen it before: its trace and figures are cached), so the figure is the switch alone; the
whole class at once (joining, answering, following) is benchmarks/class_mode.py.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from unittest import mock

from attention.classroom import open_store
from benchmarks.class_mode import Tab
from benchmarks.classroom import cpu_seconds
from deploy.local import start_streamlit
from tests.session_client import Stats

VIEW = ("learn", {"sentence": "1"})


async def follow(url: str, pid: int, n: int) -> tuple[float, float, list[str]]:
    """(server CPU ms per follower, seconds until the last one's Learn was drawn, errors)."""
    cpu, times, seconds, errors = await follow_times(url, pid, n)
    return cpu, seconds, errors


async def follow_times(url: str, pid: int, n: int) -> tuple[float, list[float], float, list[str]]:
    """follow(), with each follower's seconds from the send to its Learn page drawn (those drawn
    before the 120 s cut-off): benchmarks/compare_commits.py reports their p50 and p95."""
    store = open_store()
    code, secret = store.new_class()
    stats, tabs = Stats(), [Tab(url, Stats(), None) for _ in range(n)]
    for tab in tabs:
        await tab.__aenter__()
        await tab.join(f"class={code}")
    async with Tab(url, stats, None, VIEW[0]) as warm:
        await warm.run(query="sentence=1")
    await asyncio.sleep(2)
    cpu, start = cpu_seconds(pid), time.perf_counter()
    store.send_view(code, secret, *VIEW)
    while sum(t.ready is not None for t in tabs) < n and time.perf_counter() - start < 120:
        await asyncio.sleep(0.02)
    cpu, seconds = cpu_seconds(pid) - cpu, time.perf_counter() - start
    for tab in tabs:
        await tab.__aexit__()
    times = sorted(t.ready - start for t in tabs if t.ready is not None)
    return 1000 * cpu / n, times, seconds, stats.errors + [e for t in tabs for e in t.stats.errors]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--followers", type=int, default=40)
    n = parser.parse_args(argv).followers
    with (
        tempfile.TemporaryDirectory() as folder,
        mock.patch.dict(os.environ, ATTENTION_CLASS_STORE=f"sqlite://{folder}/c.sqlite3"),
    ):  # the server inherits it
        proc, url = start_streamlit()
        try:
            cpu, seconds, errors = asyncio.run(follow(url.replace("http://", "ws://"), proc.pid, n))
        finally:
            proc.kill()
            proc.wait()
    print(f"{n} followers: {cpu:.1f} ms server CPU each, the last drawn {seconds:.2f} s after the send;")
    print(f"   errors {len(errors)}", *errors[:5], sep="\n   ")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
