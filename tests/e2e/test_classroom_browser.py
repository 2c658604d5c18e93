"""What only a browser shows: a hostile link runs no script and the server stays up (projector
mode on screen: test_first_minute_browser.py)."""

import urllib.request
from urllib.parse import urlencode

from tests.e2e.conftest import wait_idle

HOSTILE = [
    ("text", "<img src=x onerror=alert(1)> <script>alert(2)</script> **bold** [x](javascript:alert(3)) $x$"),
    ("tokenizer", "words_punct"),
    ("embedding", "random"),
    ("heads", "abc"),
    ("heads", "7"),
    ("dropout", "nan"),
    ("variant", "<svg onload=alert(4)>"),
    ("device", "cuda<b>"),
    ("seed", "-1"),
    ("d_out", "1e309"),
    ("<i>evil</i>", "1"),
]


def test_a_hostile_link_shows_notes_and_runs_nothing(server, page):
    page.goto(f"{server}/?{urlencode(HOSTILE)}")
    wait_idle(page)
    page.get_by_text("Some settings could not be used as given").wait_for(timeout=30_000)
    assert page.dialogs == []  # no alert() ran
    assert page.locator('img[src="x"], svg[onload], [data-testid="stMain"] script').count() == 0
    assert page.locator("i", has_text="evil").count() == 0  # tags in names stay text
    assert page.get_by_text("evil").count() == 0  # an unknown name is ignored, not echoed
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_text("Tokens", exact=True).click()
    page.get_by_text("Vocabulary (").wait_for(timeout=30_000)  # the Tokens view has no heatmap
    assert "**bold**" in page.get_by_role("textbox", name="Sentence").input_value()  # characters, as typed
    assert page.locator('[data-testid="stMain"] strong', has_text="bold").count() == 0
    assert page.dialogs == []
    with urllib.request.urlopen(f"{server}/_stcore/health", timeout=10) as r:
        assert r.status == 200  # still serving
