"""What one page load costs the server: CPU seconds per first load of a page, tabs opened one after
another on a warm server, against the one-heatmap reference page in the same run. Figures, not
pass/fail.

    .venv/bin/python -m benchmarks.page_load [--pages learn explorer] [--loads 60] [--query "lang=uk"]

A class joining, or 100 followers switching at once, is this cost times the class: one
Streamlit process uses one core (benchmarks/class_mode.py measures the class itself). One tab
stays open throughout: when the last session of a server closes, Streamlit drops the pages it
compiled, and every load would compile app.py and the page again (not what a class sees).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from benchmarks.classroom import REFERENCE, cpu_seconds
from deploy.local import ROOT, start_streamlit
from tests.session_client import Session, Stats


async def loads(url: str, page: str, query: str, n: int, pid: int) -> tuple[float, float, list[str]]:
    """(server CPU ms per load, wall ms per load, errors) over n loads, after 3 to warm up."""
    stats = Stats()
    async with Session(url, stats, page_name=page) as keeper:  # the tab that stays (module doc)
        await keeper.rerun(query)
        for _ in range(3):
            async with Session(url, stats, page_name=page) as tab:
                await tab.rerun(query)
        cpu, wall = cpu_seconds(pid), time.perf_counter()
        for _ in range(n):
            async with Session(url, stats, page_name=page) as tab:
                await tab.rerun(query)
        cpu, wall = cpu_seconds(pid) - cpu, time.perf_counter() - wall
    return 1000 * cpu / n, 1000 * wall / n, stats.errors


def measure(script, pages: list[str], query: str, n: int) -> dict[str, tuple]:
    proc, url = start_streamlit(script)
    try:
        url = url.replace("http://", "ws://")
        return {page: asyncio.run(loads(url, page, query, n, proc.pid)) for page in pages}
    finally:
        proc.kill()
        proc.wait()


REFERENCE_NAME = "reference page (one heatmap)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", nargs="+", default=["learn", "explorer"], help="URL paths")
    parser.add_argument("--loads", type=int, default=60)
    parser.add_argument("--query", default="", help="the address's query, e.g. lang=uk or class=CODE")
    args = parser.parse_args(argv)
    pages = ["" if p == "explorer" else p for p in args.pages]
    results = measure(ROOT / "app.py", pages, args.query, args.loads)
    results[REFERENCE_NAME] = measure(REFERENCE, [""], "", args.loads)[""]
    reference = results[REFERENCE_NAME][0]
    print(f"{args.loads} loads per page, one after another, one tab kept open; query {args.query!r}")
    for page, (cpu, wall, errors) in results.items():
        ratio = "" if page == REFERENCE_NAME else f" ({cpu / reference:.1f}x the reference's)"
        name = page or "explorer"
        print(f"   {name}: {cpu:.1f} ms server CPU per load{ratio}, {wall:.1f} ms wall; errors {len(errors)}")
    return 1 if any(r[2] for r in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
