"""Long text at the caps, in Chromium: time from a click to the page drawn, for every view.

    .venv/bin/python -m benchmarks.long_text [--root DIR] [--tokens 250] [--heads 16] [--repeats 2]

It starts `streamlit run app.py` from --root (default: this checkout; pass a worktree of an older
commit to measure before/after in one run), opens the Explorer at 1366 x 768 with a text of
--tokens distinct words, --heads heads, d_in = d_out = 64 and dropout 0.1 in train mode (the ✕
marks too), and for each view clicks it, then clicks the seed's "+" (a change that recomputes
everything). "Drawn" is the last change to the page's main area: a MutationObserver records the
time of every change; the page counts as drawn once the script has finished and nothing has
changed for 0.8 s. Prints one row per view: seconds to open it, seconds for the seed change.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from pathlib import Path
from urllib.parse import urlencode

from deploy.local import ROOT, start_streamlit
from tests.chromium import IDLE, launch

VIEWS = ["Steps", "all steps side by side", "All heads", "Vectors", "Query focus", "Tokens"]
WATCH = """() => { window.__last = performance.now();
  new MutationObserver(() => { window.__last = performance.now(); }).observe(document.body,
    {subtree: true, childList: true, attributes: true, characterData: true}); }"""


def query(tokens: int, heads: int) -> str:
    words = " ".join(f"w{i}" for i in range(tokens))
    return urlencode(
        {
            "text": words,
            "embedding": "random",
            "d_in": 64,
            "d_out": 64,
            "heads": heads,
            "dropout": 0.1,
            "train": 1,
            "seed": 1,
            "variant": "mha",
        }
    )


def settle(page, start: float, quiet: float = 800, limit: float = 90) -> float:
    """Seconds from `start` (page clock, ms) to the last change, once the run has finished and
    the page has been quiet for `quiet` ms."""
    with contextlib.suppress(Exception):  # a fast run may have finished before we looked
        page.wait_for_selector('[data-test-script-state="running"]', timeout=2000)
    page.wait_for_selector(IDLE, timeout=limit * 1000)
    deadline = time.time() + limit
    while time.time() < deadline:
        now, last = page.evaluate("() => [performance.now(), window.__last]")
        if now - last >= quiet:
            return (last - start) / 1000
        time.sleep(0.1)
    return float("nan")


def click_and_time(page, locator) -> float:
    start = page.evaluate("() => performance.now()")
    locator.click()
    return settle(page, start)


def measure(url: str, tokens: int, heads: int, repeats: int) -> list[tuple[str, float, float]]:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(f"{url}/?{query(tokens, heads)}")
        page.evaluate(WATCH)
        settle(page, 0)
        seed_up = (
            page.locator('[data-testid="stNumberInput"]')
            .filter(has_text="seed")
            .locator('[data-testid="stNumberInputStepUp"]')
        )
        for view in VIEWS:
            opened, changed = [], []
            for _ in range(repeats):
                button = page.get_by_role("radio", name=view, exact=True)  # a segmented control's option
                opened.append(click_and_time(page, button.first))
                changed.append(click_and_time(page, seed_up))
            rows.append((view, statistics.median(opened), statistics.median(changed)))
            print(f"{view:26} open {rows[-1][1]:6.2f} s   seed change {rows[-1][2]:6.2f} s", flush=True)
        browser.close()
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py to run")
    parser.add_argument("--tokens", type=int, default=250)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    proc, url = start_streamlit(args.root / "app.py", cwd=args.root)
    try:
        print(f"# {args.root}: {args.tokens} tokens, {args.heads} heads, d 64, dropout 0.1, 1366x768")
        measure(url, args.tokens, args.heads, args.repeats)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


if __name__ == "__main__":
    main()
