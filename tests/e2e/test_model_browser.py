"""Inside a model, in headless Chromium: the bundled model's head roles, one click to its
induction head on a repeated sentence, the head's steps drawn; a screenshot to look at."""

import re

from tests.e2e.conftest import ARTIFACTS, script_done, trace_names


def test_open_the_induction_head_from_the_roles(server, page):
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{server}/model")
    script_done(page)
    page.get_by_text("Tokens as the model sees them").wait_for(timeout=60_000)
    page.get_by_text("Head roles", exact=True).first.click()
    button = page.get_by_role("button", name=re.compile(r"Open the best induction head \(\d+\.\d+\)"))
    button.wait_for(timeout=120_000)
    head = re.search(r"\((\d+)\.(\d+)\)", button.inner_text()).groups()
    button.click()
    script_done(page)
    page.get_by_text(f"queries, head {head[0]}.{head[1]}").first.wait_for(timeout=60_000)
    page.wait_for_function(
        f"() => location.search.includes('head={head[1]}') && location.search.includes('view=head')"
    )
    names = trace_names(page)
    assert "weights" in names
    assert page.get_by_text("Traceback").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1366, "height": 2000})
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / "model_induction_head.png"))
