"""axe-core (its default rules: WCAG 2.1 A and AA, and best practices; axe-playwright-python)
over the app's pages as a browser draws them: every page, Learn with everything shown, Projector
mode, the teacher's board and a class student's box. Shared by the browser test
(tests/e2e/test_a11y_browser.py: English and Ukrainian at 1366 x 768) and the full table
(`python -m tests.e2e.axe`: every language at 1366 x 768 and a phone's 390 x 844),
docs/testing.md#accessibility."""

from __future__ import annotations

import argparse
import collections
import tempfile
from pathlib import Path

from attention.classroom import SQLiteStore
from attention.i18n import LANGUAGES
from tests.chromium import IDLE

# name -> the path and query it opens (CLASS: a class's code, TEACHER: its teacher's secret)
VIEWS = {
    "Explorer": "/",
    "Learn": "/learn",
    "Learn (everything shown)": "/learn?everything=1",
    "What your language costs": "/languages",
    "Modern attention": "/modern",
    "Compare": "/compare",
    "Scaling": "/scaling",
    "Watch it learn": "/train",
    "Inside a model": "/model",
    "Class mode": "/classroom",
    "Explorer (Projector mode)": "/?projector=1",
    "the teacher's board": "/classroom?class=CLASS&teacher=TEACHER",
    "a student's class box": "/learn?class=CLASS",
}
SIZES = {"1366x768": {"width": 1366, "height": 768}, "390x844": {"width": 390, "height": 844}}
PHONE_AGENT = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36"
BLOCKING = ("critical", "serious")  # the bar; moderate and minor ones are listed too


def store_path() -> Path:
    return Path(tempfile.mkdtemp(prefix="axe-classes-")) / "classes.sqlite3"


def address(view: str, lang: str, code: str, secret: str) -> str:
    path = VIEWS[view].replace("CLASS", code).replace("TEACHER", secret)
    return path + ("&" if "?" in path else "?") + f"lang={lang}"


def audit(page, url: str, view: str, lang: str, code: str, secret: str) -> list[dict]:
    """axe's violations on `view` once its script has finished and its charts have drawn:
    [{id, impact, nodes: [css selector, …], help}]."""
    from axe_playwright_python.sync_playwright import Axe

    page.goto(url + address(view, lang, code, secret))
    settled(page)
    if "everything" in VIEWS[view]:  # the switch, not the address, shows it all
        page.locator(".st-key-learn_everything label").click()
        page.wait_for_timeout(500)
        settled(page)
    quiet(page)  # the a11y script names what drew last on its next frame
    page.wait_for_selector(IDLE, timeout=120_000)
    result = Axe().run(page)  # every rule: WCAG 2.1 A and AA, and best practices
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "nodes": [" ".join(map(str, n["target"])) for n in v["nodes"]],
            "help": v["help"],
        }
        for v in result.response["violations"]
    ]


def settled(page, timeout: float = 120_000) -> None:
    """Until the script run has finished, the a11y script has run and every chart has drawn. The
    script run ends before the browser has fetched plotly's code and static/a11y.js: on a busy
    machine (CI, 2 cores, two test workers) a page read 1.8 s after its load had no chart drawn and
    the language not yet set (seen in CI, reproduced here under load)."""
    page.wait_for_selector(IDLE, timeout=timeout)
    page.wait_for_function(
        "() => window.__aeA11y?.installed && [...document.querySelectorAll('.stPlotlyChart')]"
        ".every(c => c.querySelector('.js-plotly-plot .main-svg'))",
        timeout=timeout,
    )


def quiet(page, ms: int = 400, most: int = 3000) -> None:
    """Until the page has not changed for `ms` (a MutationObserver's view; `most` ms at most: a class
    page's fragments redraw every second), then two animation frames: the a11y script applies its
    names on the frame after a change. In place of a fixed 1.5 s (39 s of the axe tests' 26 audits)."""
    page.evaluate(
        """([ms, most]) => new Promise(done => {
            const finish = () => {
                observer.disconnect();
                requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
            };
            let timer = setTimeout(finish, ms);
            const observer = new MutationObserver(() => {
                clearTimeout(timer);
                timer = setTimeout(finish, ms);
            });
            const everything = {subtree: true, childList: true, attributes: true, characterData: true};
            observer.observe(document, everything);
            setTimeout(() => { clearTimeout(timer); finish(); }, most);
        })""",
        [ms, most],
    )


def context(browser, size: str):
    agent = {"user_agent": PHONE_AGENT} if size == "390x844" else {}
    return browser.new_context(viewport=SIZES[size], **agent)


def main() -> None:
    from playwright.sync_api import sync_playwright

    from deploy.local import ROOT, start_streamlit
    from tests.chromium import launch

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--views", default=",".join(VIEWS), help="comma-separated names of VIEWS")
    args = parser.parse_args()
    path = store_path()
    store = SQLiteStore(path)
    code, secret = store.new_class()
    proc, url = start_streamlit(ROOT / "app.py", env={"ATTENTION_CLASS_STORE": f"sqlite://{path}"})
    table = collections.defaultdict(dict)
    try:
        with sync_playwright() as p:
            browser = launch(p)
            for size in args.sizes.split(","):
                for lang in args.languages.split(","):
                    ctx = context(browser, size)
                    page = ctx.new_page()
                    for view in args.views.split(","):
                        found = audit(page, url, view, lang, code, secret)
                        table[(view, size)][lang] = found
                        for v in found:
                            print(
                                f"  {view} {lang} {size}: {v['id']} ({v['impact']}) {v['nodes'][:3]}",
                                flush=True,
                            )
                    ctx.close()
            browser.close()
    finally:
        proc.terminate()
    langs = args.languages.split(",")
    print("\n| page | size | " + " | ".join(langs) + " |\n| --- | --- |" + " --- |" * len(langs))
    for (view, size), by_lang in table.items():
        cells = []
        for lang in langs:
            count = collections.Counter(v["impact"] for v in by_lang[lang] for _ in v["nodes"])
            blocking = sum(count[i] for i in BLOCKING)
            other = sum(count.values()) - blocking
            cells.append(f"{blocking} / {other}")
        print(f"| {view} | {size} | " + " | ".join(cells) + " |")
    print("\n(critical and serious / moderate and minor: nodes with a violation)")


if __name__ == "__main__":
    main()
