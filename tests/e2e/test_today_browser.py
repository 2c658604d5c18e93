"""The bundled Qwen3-layout model in headless Chromium: every Inside a model view drawn without a
traceback at 1366 x 768 and on a phone, and Today's attention's charts and tables once its three
questions are passed, nothing cut; screenshots in artifacts/ (model_qwen3_*.png) to look at."""

import re

import pytest

from tests.e2e.clipping import everything_cut
from tests.e2e.conftest import ARTIFACTS, reveal, script_done
from tests.e2e.test_nothing_cut_browser import PHONE

SIZES = {"laptop": {"width": 1366, "height": 768}, "projector": {"width": 1920, "height": 1080}}
PHONE_SIZE = {"width": 390, "height": 844}
SHOWS = {  # a line each view writes once it is drawn
    "grid": "heads 0–3 share key/value head 0",
    "head": "Each token's row of numbers",
    "tokens": "Thicker, darker lines carry more weight",
    "roles": "induction",
    "next": "Next token",
    "lab": "Each head here is a query head",
    "map": "Each head here is a query head",
    "lens": "A layer's attention bar is the sum of its heads",
    "explain": "largest weight fall on the token whose removal hurts",
}


def opened(browser, size: dict, phone: bool = False):
    context = browser.new_context(viewport=size, **({"user_agent": PHONE} if phone else {}))
    return context, context.new_page()


@pytest.mark.parametrize("phone", [False, True], ids=["laptop", "phone"])
def test_every_view_draws_on_the_bundled_qwen3_layout_model(server, browser, phone):
    context, page = opened(browser, PHONE_SIZE if phone else SIZES["laptop"], phone)
    try:
        for view, line in SHOWS.items():
            page.goto(f"{server}/model?model=shakespeare-qwen3&view={view}")
            script_done(page, timeout=120_000)
            page.get_by_text(line).first.wait_for(timeout=60_000)
            assert page.get_by_text("Traceback").count() == 0, view
            assert page.locator('[data-testid="stException"]').count() == 0, view
        ARTIFACTS.mkdir(exist_ok=True)
        page.goto(f"{server}/model?model=shakespeare-qwen3&view=grid")
        script_done(page, timeout=120_000)
        page.wait_for_selector(".js-plotly-plot .heatmaplayer", timeout=60_000)
        page.screenshot(
            path=str(ARTIFACTS / f"model_qwen3_grid_{'phone' if phone else 'laptop'}.png"), full_page=True
        )
    finally:
        context.close()


@pytest.mark.parametrize("where", ["laptop", "projector", "phone"])
def test_todays_attention_draws_every_part_after_its_questions(server, browser, where):
    phone = where == "phone"
    context, page = opened(browser, PHONE_SIZE if phone else SIZES[where], phone)
    try:
        page.goto(f"{server}/model?model=shakespeare-qwen3&view=today")
        script_done(page, timeout=120_000)
        assert page.locator(".js-plotly-plot").count() == 0  # predict first
        for key, charts in (("m_today_sink", 1), ("m_today_groups", 3), ("m_today_window", 5)):
            reveal(page, key, charts)
        page.wait_for_timeout(800)  # plotly lays its text out after the first frame
        titles = page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')].map(d => (d.layout.title || {}).text)"
        )
        titles = [" ".join(re.sub(r"<[^>]*>", " ", t).split()) for t in titles]
        assert titles == [
            "Weight on the first token, mean of each layer's heads",
            "How alike two heads' weights are (1 = the same)",
            "KV cache per token, in bytes",
            "Weight by how far back the key is",
            "Score by how far back the key is",
        ]
        assert page.locator('[data-testid="stDataFrame"]').count() == 3
        assert everything_cut(page, phone=phone) == []
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"model_qwen3_today_{where}.png"), full_page=True)
    finally:
        context.close()
