"""Two revisions of the app, measured in one run, alternately, against the one-heatmap reference page
(issue 45, "A page load as light as it can be"). Figures, not pass/fail.

    .venv/bin/python -m benchmarks.compare_commits --base main [--head REV] [--rounds 2] [--loads 40]
        [--sessions 100] [--followers 100] [--parts page_load,links,follow]

--head defaults to this repository's working tree, uncommitted changes included; any other revision
is checked out with `git worktree add --detach` into a temporary folder, removed at the end (an
error, Ctrl-C or SIGTERM included). Both servers run on this interpreter (one venv), each from its
own tree: `streamlit run TREE/app.py` with cwd and PYTHONPATH set to TREE, so each imports its own
attention/ and ui/. The measuring code (the websocket clients, the link set, the class store that
sends the teacher's view) is this file's tree's, for both: an older base may lack it. The follow
part therefore assumes that both revisions read the class store the same way.

A round measures base, head, then the reference page; the next round head, base, reference, so a
machine's drift (others' jobs, a warming cache) does not favour one side. Parts, on one fresh
server per revision per round:
  page_load  server CPU ms per load of Learn and of a 48-token, 8-head Explorer link (one tab after
             another, benchmarks/page_load.py), and × the reference page's per load, this round;
  links      --sessions tabs at once, each opening 4 different Explorer links (32-64 tokens, 4-12
             heads, from a fixed seed: the same links for both); CPU ms per load, × the reference
             loaded the same way (?tokens=T), p50/p95 seconds of a load, errors;
  follow     --followers students on the Explorer switch to Learn when the teacher sends its view
             (benchmarks/class_follow.py); CPU ms per follower, p50/p95 seconds of a switch.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import os
import random
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple
from unittest import mock
from urllib.parse import urlencode

from attention.explorer.config import ExplorerConfig
from attention.explorer.query_params import to_query_params
from benchmarks.class_follow import follow_times
from benchmarks.classroom import REFERENCE, _p95, cpu_seconds
from benchmarks.page_load import loads
from deploy.local import ROOT, start_streamlit
from tests.session_client import Session, Stats

PARTS = ("page_load", "links", "follow")
SEED = 45  # the number: the link set is the same in every run, for every revision
LINKS_PER_SESSION = 4
WORDS = ("the", "cat", "sat", "on", "a", "mat", "while", "students", "learn", "how", "attention", "weighs")
# metric -> the reference page's metric it is divided by, in the same part and round
VERSUS = {"Learn, CPU ms/load": "CPU ms/load", "Explorer link, CPU ms/load": "CPU ms/load"}
VERSUS["CPU ms/load"] = "CPU ms/load"


class Link(NamedTuple):
    tokens: int
    heads: int
    query: str


def link(tokens: int, heads: int, rng: random.Random) -> Link:
    """An Explorer link as the app writes its address (to_query_params): a random embedding (the
    book's exists only for its two sentences), d_out a multiple of the heads (mha splits it)."""
    text = " ".join(rng.choice(WORDS) for _ in range(tokens))
    d_out = heads * rng.choice((2, 4, 8))
    config = ExplorerConfig(text=text, heads=heads, d_out=d_out, embedding="random", seed=rng.randrange(1000))
    return Link(tokens, heads, urlencode(to_query_params(config)))


def link_set(count: int, seed: int = SEED) -> list[Link]:
    rng = random.Random(seed)
    return [link(rng.randint(32, 64), rng.randint(4, 12), rng) for _ in range(count)]


def plan(sessions: int, links: list[Link]) -> list[list[Link]]:
    """Each session's links: LINKS_PER_SESSION different ones, the sessions spread over the set."""
    return [
        [links[(s * LINKS_PER_SESSION + k) % len(links)] for k in range(LINKS_PER_SESSION)]
        for s in range(sessions)
    ]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def describe(repo: Path, rev: str | None) -> str:
    """A revision's short hash; the working tree (rev None) is "working tree" when it has changes."""
    short = git(repo, "rev-parse", "--short", rev or "HEAD")
    if rev is None and git(repo, "status", "--porcelain"):
        return f"working tree (on {short})"
    return short


@contextlib.contextmanager
def worktree(repo: Path, rev: str):
    """A detached checkout of `rev` in a temporary folder, removed on the way out whatever happens:
    the repository's own working tree (someone's uncommitted work) is never touched."""
    folder = Path(tempfile.mkdtemp(prefix="compare-commits-"))
    tree = folder / "tree"
    try:
        git(repo, "worktree", "add", "--detach", "--quiet", str(tree), rev)
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=repo, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=repo, capture_output=True)


@contextlib.contextmanager
def server(script: Path, tree: Path):
    """A fresh Streamlit process for `script`, importing from `tree` (PYTHONPATH replaces any the
    caller has, which could point at the other revision)."""
    proc, url = start_streamlit(script, cwd=tree, env={"PYTHONPATH": str(tree)})
    try:
        yield url.replace("http://", "ws://"), proc.pid
    finally:
        proc.kill()
        proc.wait()


async def warm(url: str, reference: bool) -> None:
    """A fresh server's first runs import the app (start-up's CPU, not a page load's)."""
    for page in [""] if reference else ["", "learn"]:
        async with Session(url, Stats(), page_name=page) as tab:
            await tab.rerun()


async def opener(url: str, stats: Stats, queries: list[str]) -> None:
    """One student opening links one after another, each in a new tab (a page load each)."""
    try:
        for query in queries:
            async with Session(url, stats) as tab:
                seconds, _ = await tab.rerun(query)
                stats.loads.append(seconds)
    except Exception as error:  # a dropped connection or a timeout: counted, the class goes on
        stats.errors.append(f"{type(error).__name__}: {error}")


async def links_part(url: str, pid: int, plans: list[list[str]]) -> tuple[dict, int]:
    stats = Stats()
    async with Session(url, Stats()) as keeper:  # pages stay compiled (benchmarks/page_load.py)
        await keeper.rerun(plans[0][0])
        cpu = cpu_seconds(pid)
        await asyncio.gather(*(opener(url, stats, queries) for queries in plans))
        cpu = cpu_seconds(pid) - cpu
    times = stats.loads or [float("nan")]
    figures = {"CPU ms/load": 1000 * cpu / max(1, len(stats.loads))}
    figures |= {"load p50, s": statistics.median(times), "load p95, s": _p95(times)}
    return figures, len(stats.errors)


async def page_load_part(url: str, pid: int, n: int, reference: bool) -> tuple[dict, int]:
    if reference:
        cpu, _, errors = await loads(url, "", "", n, pid)
        return {"CPU ms/load": cpu}, len(errors)
    learn = await loads(url, "learn", "", n, pid)
    explorer = await loads(url, "", link(48, 8, random.Random(SEED)).query, n, pid)
    figures = {"Learn, CPU ms/load": learn[0], "Explorer link, CPU ms/load": explorer[0]}
    return figures, len(learn[2]) + len(explorer[2])


async def follow_part(url: str, pid: int, n: int) -> tuple[dict, int]:
    cpu, times, _, errors = await follow_times(url, pid, n)
    switch = times or [float("nan")]
    figures = {
        "CPU ms/follower": cpu,
        "switch p50, s": statistics.median(switch),
        "switch p95, s": _p95(switch),
    }
    return figures, len(errors) + n - len(times)  # a follower never drawn is an error too


async def measure_parts(url: str, pid: int, args, links: list[Link], reference: bool) -> dict:
    """{part: (figures, errors)} on one server."""
    await warm(url, reference)
    done = {}
    sessions = plan(args.sessions, links)
    if "page_load" in args.parts:
        done["page_load"] = await page_load_part(url, pid, args.loads, reference)
    if "links" in args.parts:  # the reference page draws a T x T heatmap for each link's T tokens
        queries = [[f"tokens={x.tokens}" if reference else x.query for x in s] for s in sessions]
        done["links"] = await links_part(url, pid, queries)
    if "follow" in args.parts and not reference:  # the reference page has no class
        done["follow"] = await follow_part(url, pid, args.followers)
    return done


def order(rounds: int) -> list[list[str]]:
    """base, head, reference; then head, base, reference: drift falls on both sides alike."""
    return [
        ["base", "head", "reference"] if r % 2 == 0 else ["head", "base", "reference"] for r in range(rounds)
    ]


def run_rounds(trees: dict[str, Path], args, links: list[Link]) -> tuple[dict, dict]:
    """results[(part, metric)][who] -> one figure per round; errors[(part, who)] -> a count."""
    results: dict = {}
    errors: dict = {}
    for number, sides in enumerate(order(args.rounds), 1):
        for who in sides:
            script, tree = (REFERENCE, ROOT) if who == "reference" else (trees[who] / "app.py", trees[who])
            start = time.perf_counter()
            with server(script, tree) as (url, pid):
                done = asyncio.run(measure_parts(url, pid, args, links, who == "reference"))
            for part, (figures, count) in done.items():
                errors[(part, who)] = errors.get((part, who), 0) + count
                for metric, value in figures.items():
                    results.setdefault((part, metric), {}).setdefault(who, []).append(value)
            print(f"round {number}: {who} measured in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return results, errors


def number(metric: str, value: float) -> str:
    return f"{value:.2f}" if metric.endswith(", s") else f"{value:.1f}"


def versus(results: dict, part: str, metric: str, who: str) -> list[float] | None:
    """The figures of `who` as multiples of the reference's in the same round, where it has one."""
    reference = results.get((part, VERSUS.get(metric, "")), {}).get("reference")
    if who == "reference" or not reference:
        return None
    return [value / ref for value, ref in zip(results[(part, metric)][who], reference, strict=True)]


def table(part: str, results: dict, errors: dict, names: dict[str, str], rounds: int) -> list[str]:
    """A markdown table of one part: a row per revision and metric, a column per round."""
    heads = [f"round {r}" for r in range(1, rounds + 1)]
    lines = [f"### {part}", "", "| revision | metric | " + " | ".join(heads) + " | mean |"]
    lines.append("|---" * (len(heads) + 3) + "|")
    for who in ("base", "head", "reference"):
        for (p, metric), sides in results.items():
            if p != part or who not in sides:
                continue
            values, times = sides[who], versus(results, part, metric, who)
            cells = [number(metric, v) for v in values] + [number(metric, statistics.mean(values))]
            if times:
                cells = [
                    f"{c} ({x:.1f}×)" for c, x in zip(cells, [*times, statistics.mean(times)], strict=True)
                ]
            lines.append(f"| {who} {names[who]} | {metric} | " + " | ".join(cells) + " |")
    counts = ", ".join(f"{who} {errors[(part, who)]}" for who in names if (part, who) in errors)
    return [*lines, "", f"errors: {counts}", ""]


def ratios(results: dict) -> str:
    """head / base per metric, from the means over the rounds."""
    pairs = [
        f"{part} {metric} {statistics.mean(s['head']) / statistics.mean(s['base']):.2f}"
        for (part, metric), s in results.items()
        if s.get("base") and s.get("head") and statistics.mean(s["base"])
    ]
    return "head/base (means over the rounds): " + "; ".join(pairs)


def report(argv: list[str], args, names: dict, results: dict, errors: dict) -> str:
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"command: python -m benchmarks.compare_commits {shlex.join(argv)}",
        f"date: {date}; {os.cpu_count()} cores, load average {load} (a busy machine's figures are noisy)",
        f"base {names['base']}, head {names['head']}; rounds: {args.rounds}; ×: the reference's, same round",
        "",
    ]
    for part in args.parts:
        lines += table(part, results, errors, names, args.rounds)
    return "\n".join([*lines, ratios(results)])


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", required=True, help="a revision: main, a hash, HEAD~1")
    parser.add_argument("--head", help="a revision (default: this repository's working tree)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--loads", type=int, default=40, help="page_load: loads per page")
    parser.add_argument("--sessions", type=int, default=100, help="links: tabs at once")
    parser.add_argument("--followers", type=int, default=100, help="follow: students")
    parser.add_argument("--parts", default=",".join(PARTS), help="comma-separated: " + ",".join(PARTS))
    args = parser.parse_args(argv)
    args.parts = [p for p in args.parts.split(",") if p]
    if unknown := set(args.parts) - set(PARTS):
        parser.error(f"unknown parts {sorted(unknown)}; choose from {', '.join(PARTS)}")
    return args


def _terminated(signum, frame) -> None:
    raise KeyboardInterrupt  # so the finally blocks run: servers killed, worktrees removed


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    signal.signal(signal.SIGTERM, _terminated)
    links = link_set(16)  # 16 links, each opened by a quarter of the class: a class shares links
    names = {
        "base": describe(ROOT, args.base),
        "head": describe(ROOT, args.head),
        "reference": "(one heatmap)",
    }
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(tempfile.TemporaryDirectory(prefix="compare-commits-store-"))
        # the class store of the follow part: this process sends the view, the servers inherit it
        stack.enter_context(mock.patch.dict(os.environ, ATTENTION_CLASS_STORE=f"sqlite://{store}/c.sqlite3"))
        trees = {"base": stack.enter_context(worktree(ROOT, args.base))}
        trees["head"] = ROOT if args.head is None else stack.enter_context(worktree(ROOT, args.head))
        results, errors = run_rounds(trees, args, links)
    print(report(argv, args, names, results, errors))
    return 1 if any(errors.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
