"""Explorer vs a one-heatmap reference app, in real headless Chromium, in one run.

    .venv/bin/python -m tests.bench.explorer_update [--tokens 8 64 256] [--repeats 5]

For each T it opens the Explorer (MultiHeadAttention, H = 12) and the reference app
(tests/bench/reference_app.py: one T x T plotly heatmap), changes the seed control, and
measures the time until the changed heatmap is drawn, and the bytes the server sent over the
websocket for that update. Bytes per heatmap cell = bytes sent / cells of every heatmap on the
page. Targets (issue 3): Explorer <= 1.5x the reference's update time at T = 8 and 64; <= 4
bytes per heatmap cell.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from urllib.parse import urlencode

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, free_port, start_streamlit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FIRST_ROW_SUM = """() => { const d = document.querySelector('.js-plotly-plot');
    if (!d || !d.calcdata) return null;
    const z = d.calcdata[0][0].z; return z ? Array.from(z[0]).join(',') : null; }"""
HEATMAP_CELLS = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .reduce((n, d) => n + (d.calcdata || [])
        .filter(c => c[0] && c[0].trace && c[0].trace.type === 'heatmap')
        .reduce((m, c) => m + c[0].z.length * c[0].z[0].length, 0), 0)"""
IDLE = '[data-test-script-state="notRunning"]'


def explorer_query(tokens: int, seed: int) -> str:
    return urlencode(
        {
            "text": " ".join(f"w{i}" for i in range(tokens)),
            "embedding": "random",
            "d_in": 16,
            "variant": "mha",
            "d_out": 48,
            "heads": 12,
            "seed": seed,
        }
    )


def measure(browser, url: str, repeats: int) -> dict:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    received: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(len(payload))))
    page.goto(url)
    page.wait_for_selector(IDLE, timeout=120_000)
    page.wait_for_function(FIRST_ROW_SUM, timeout=120_000)
    seed_box = page.locator('input[aria-label="seed"]')
    times, sizes = [], []
    for i in range(repeats + 1):  # the first update warms caches and is not counted
        before = page.evaluate(FIRST_ROW_SUM)
        received.clear()
        start = time.perf_counter()
        seed_box.fill(str(1000 + i))
        seed_box.press("Enter")
        page.wait_for_function(
            f"(b) => {{ const s = ({FIRST_ROW_SUM})(); return s && s !== b; }}", arg=before, timeout=120_000
        )
        page.wait_for_selector(IDLE, timeout=120_000)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        elapsed = time.perf_counter() - start
        if i:
            times.append(elapsed)
            sizes.append(sum(received))
    cells = page.evaluate(HEATMAP_CELLS)
    context.close()
    return {"ms": statistics.median(times) * 1e3, "bytes": statistics.median(sizes), "cells": cells}


def main(argv: list[str] | None = None) -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokens", type=int, nargs="+", default=[8, 64, 256])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    ports = free_port(), free_port()
    servers = [
        start_streamlit(ROOT / "app.py", ports[0]),
        start_streamlit(HERE / "reference_app.py", ports[1]),
    ]
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for tokens in args.tokens:
                ours = measure(
                    browser, f"http://127.0.0.1:{ports[0]}/?{explorer_query(tokens, 1)}", args.repeats
                )
                ref = measure(browser, f"http://127.0.0.1:{ports[1]}/?tokens={tokens}", args.repeats)
                rows.append((tokens, ours, ref))
            browser.close()
    finally:
        for s in servers:
            s.terminate()
    print("Seed change -> updated heatmap, headless Chromium, median of", args.repeats, "updates; H = 12")
    print(
        f"{'T':>4} {'explorer ms':>12} {'reference ms':>13} {'ratio':>6} {'explorer bytes':>15} "
        f"{'heatmap cells':>14} {'bytes/cell':>11} {'ref bytes/cell':>15}"
    )
    for tokens, ours, ref in rows:
        print(
            f"{tokens:>4} {ours['ms']:>12.0f} {ref['ms']:>13.0f} {ours['ms'] / ref['ms']:>6.2f} "
            f"{ours['bytes']:>15,.0f} {ours['cells']:>14,} {ours['bytes'] / ours['cells']:>11.2f} "
            f"{ref['bytes'] / ref['cells']:>15.2f}"
        )
    print("targets: ratio <= 1.5 at T = 8 and 64; bytes/cell <= 4")


if __name__ == "__main__":
    main()
