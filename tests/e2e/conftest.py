"""Real-browser fixtures: the app under `streamlit run`, and Debian's headless Chromium."""

from pathlib import Path

import pytest

from deploy.local import ROOT, start_streamlit
from tests.chromium import CHROMIUM, CHROMIUM_ARGS

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
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
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


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until the script has finished and the charts are drawn."""
    page.wait_for_selector('[data-test-script-state="notRunning"]', timeout=timeout)
    page.wait_for_selector(".js-plotly-plot .heatmaplayer", timeout=timeout)
    page.wait_for_timeout(300)
