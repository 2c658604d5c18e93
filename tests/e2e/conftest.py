"""Real-browser fixtures: the app under `streamlit run`, and Debian's headless Chromium; reading
what plotly drew."""

import concurrent.futures
from pathlib import Path

import pytest
from playwright.sync_api import expect

from deploy.local import ROOT, start_streamlit
from tests.chromium import CHROMIUM, IDLE, launch

ARTIFACTS = ROOT / "artifacts"


@pytest.fixture(scope="session")
def server():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (tests/run.sh does it)")
    proc, url = start_streamlit(ROOT / "app.py")
    yield url
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    dialogs = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.dialogs = dialogs
    yield pg
    context.close()


def script_done(page, timeout: float = 60_000) -> None:
    """Wait until the page's script run has finished."""
    page.wait_for_selector(IDLE, timeout=timeout)


def choose(question, index: int = 0) -> None:
    """Press option `index` of a predict-first question (a locator of its key's container: pills,
    a radio group to the browser) once it can be answered: a class question is held until the page
    has the teacher's vote, which a busy server may still be reading. The press answers. A question
    still held after 30 s fails saying what the page showed."""
    option = answerable(question).nth(index)
    option.click()
    expect(option).to_be_checked()


def answerable(question):
    """A predict-first question's options (radios to the browser), once it can be answered; a
    question still held after 30 s fails saying what the page showed."""
    options = question.get_by_role("radio")
    try:
        expect(options.first).to_be_enabled(timeout=30_000)
    except AssertionError as error:
        shown = question.page.locator('[data-testid="stMain"]').inner_text()[:2000]
        raise AssertionError(f"the question is still held; the page shows:\n{shown}") from error
    return options


def charts_drawn(page, n: int, timeout: float = 120_000) -> None:
    """Wait until at least `n` plotly charts have drawn their first frame."""
    page.wait_for_function(
        "(n) => [...document.querySelectorAll('.js-plotly-plot')]"
        ".filter(d => d.querySelector('.main-svg')).length >= n",
        arg=n,
        timeout=timeout,
    )


def skip(page, key: str) -> None:
    """Past a predict-first question without predicting: its last option (Show me without
    predicting)."""
    choose(page.locator(f".st-key-{key}"), -1)


def reveal(page, key: str, charts: int) -> None:
    """Past a predict-first question without predicting, then wait for its charts (counted over
    the page). Right after a click the rerun may not have started yet, so "the script is idle"
    alone can be read before the part is drawn."""
    skip(page, key)
    charts_drawn(page, charts)
    script_done(page, timeout=120_000)


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until the script has finished and the charts are drawn."""
    script_done(page, timeout)
    page.wait_for_selector(".js-plotly-plot .heatmaplayer", timeout=timeout)
    page.wait_for_timeout(300)


CHART_WITH = """(name) => [...document.querySelectorAll('.js-plotly-plot')].find(
    d => (d.data || []).some(t => t.name === name))"""


def chart_data(page, name: str) -> list | None:
    """The z values plotly drew for the heatmap trace called `name` (a step: scores, weights...)."""
    return page.evaluate(
        f"""(name) => {{ const d = ({CHART_WITH})(name); if (!d) return null;
            const i = d.data.findIndex(t => t.name === name && t.type === 'heatmap');
            return d.calcdata[i][0].z.map(row => Array.from(row)); }}""",
        name,
    )


def trace_names(page) -> list[str]:
    """The names of every trace in every chart on the page."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')]
            .flatMap(d => (d.data || []).map(t => t.name))"""
    )


def type_sentence(page, text: str, key: str) -> None:
    """Type `text` into the Sentence box, submit it with `key` ("Enter", "Control+Enter") and wait
    until a chart's axis shows the text's second word (the charts were redrawn for it)."""
    box = page.get_by_role("textbox", name="Sentence")
    box.fill(text)
    box.press(key)
    ticks = "[...document.querySelectorAll('.js-plotly-plot .ytick text')]"
    page.wait_for_function(f"(word) => {ticks}.some(e => e.textContent == word)", arg=text.split()[1])


def in_thread(fn, *args, **kwargs):
    """Run fn in a thread of its own: Playwright's sync API keeps an event loop running in this
    one, and a websocket client needs asyncio.run."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args, **kwargs).result()
