"""WCAG 2.1 AA as a browser shows it (docs/testing.md#accessibility): axe-core finds nothing critical
or serious on any page in English and Ukrainian (the teacher's board and a student's class box
included); the page says its language; every chart has a name, a sentence and its numbers as a
table one click away, and its toolbar is one Tab stop (its PNG download); the Explorer's heads work
by keyboard, with a focus ring that can be seen.
(Learn's predict-first question by keyboard: test_keyboard_browser.py.)"""

import numpy as np
import pytest

from attention import i18n
from attention.classroom import SQLiteStore
from attention.i18n import tr
from deploy.local import ROOT, start_streamlit
from tests.e2e.axe import BLOCKING, VIEWS, audit
from tests.e2e.conftest import charts_drawn, script_done

# what each chart's text alternative is made of, read in the browser
CHARTS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
  const svg = gd.querySelector('svg.main-svg');
  const said = document.getElementById(svg.getAttribute('aria-describedby'));
  const host = gd.closest('[data-testid="stElementContainer"]');
  return {role: svg.getAttribute('role'), name: svg.getAttribute('aria-label'),
          summary: said ? said.textContent : null,
          button: host.querySelector('.ae-table-button')?.textContent ?? null,
          toolbar: [...gd.querySelectorAll('.modebar a, .modebar button')].map(b => b.tabIndex),
          png: [...gd.querySelectorAll('.modebar button')].find(b => b.tabIndex === 0)
                 ?.getAttribute('aria-label') ?? null};
})"""


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    """A server of its own on a class store with one class: (its URL, the class's code, its secret)."""
    path = tmp_path_factory.mktemp("axe") / "classes.sqlite3"
    code, secret = SQLiteStore(path).new_class()
    proc, url = start_streamlit(ROOT / "app.py", env={"ATTENTION_CLASS_STORE": f"sqlite://{path}"})
    yield url, code, secret
    proc.terminate()
    proc.wait(timeout=20)


@pytest.mark.parametrize("lang", ["en", "uk"])
def test_axe_finds_nothing_critical_or_serious_on_any_page(browser, room, lang):
    url, code, secret = room
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    found, unnamed, charts = {}, {}, 0
    try:
        for view in VIEWS:
            blocking = [v for v in audit(page, url, view, lang, code, secret) if v["impact"] in BLOCKING]
            if blocking:
                found[view] = blocking
            assert page.evaluate("document.documentElement.lang") == lang, view
            drawn = page.evaluate(CHARTS)  # every chart on every page: named, a sentence, a table
            charts += len(drawn)
            if bad := [c for c in drawn if not (c["role"] == "img" and c["name"] and c["button"])]:
                unnamed[view] = bad
    finally:
        context.close()
    assert found == {} and unnamed == {}
    assert charts >= 20  # Learn with everything shown alone draws more


def test_the_page_says_its_language_and_follows_the_picker(page, room):
    url = room[0]
    page.goto(f"{url}/learn?lang=pl")
    script_done(page)
    page.wait_for_function("document.documentElement.lang === 'pl'")
    assert page.evaluate("document.documentElement.dir") == "ltr"
    i18n.use("pl")
    skip = tr("Skip to main content")
    i18n.use("en")
    assert page.locator('[data-testid="stSkipToContent"]').text_content() == skip
    picker = page.get_by_role("combobox", name="Język · Language")  # its name is words, not an icon's code
    picker.click()
    page.get_by_role("option", name="日本語").click()
    page.wait_for_function("document.documentElement.lang === 'ja'", timeout=30_000)


def test_every_chart_has_a_name_a_sentence_and_its_numbers_one_click_away(page, room):
    url = room[0]
    page.goto(f"{url}/?heads=2&d_out=4")
    charts_drawn(page, 1)
    script_done(page)
    page.wait_for_function("document.querySelector('.js-plotly-plot svg.main-svg[role=img]')")
    charts = page.evaluate(CHARTS)
    assert charts and all(c["role"] == "img" and c["name"] and c["summary"] for c in charts), charts
    assert all(c["button"] == "Show the numbers as a table" for c in charts)
    # the toolbar: one Tab stop, its PNG download, a button by name
    assert all(c["toolbar"].count(0) == 1 and set(c["toolbar"]) == {0, -1} for c in charts)
    assert "6 × 6" in charts[0]["name"] and "png" in charts[0]["png"].lower()

    page.locator(".ae-table-button").first.click()
    box = page.locator(".ae-table-box").first
    box.locator("table").wait_for()
    shown = box.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    drawn = page.evaluate(
        "() => Array.from(document.querySelector('.js-plotly-plot')._fullData"
        ".find(t => t.type === 'heatmap').z, row => Array.from(row))"
    )
    z = np.array(drawn, dtype=float)
    assert len(shown) == z.shape[0] and all(len(row) == z.shape[1] + 1 for row in shown)
    for row, values in zip(shown, z, strict=True):  # each cell: the drawn number, 4 decimals
        assert row[1:] == ["" if np.isnan(v) else f"{v:.4f}" for v in values]
    assert page.locator(".ae-table-button").first.text_content() == "Hide the table"
    assert page.locator(".ae-table-button").first.get_attribute("aria-expanded") == "true"


def test_the_explorers_heads_work_by_keyboard_with_a_focus_ring_in_sight(page, room):
    """From the skip link, Tab reaches the heads in a few presses; an arrow key picks the next
    head, whose chart is named anew; the focused option wears a 3 px ring of #1f5fbf."""
    url = room[0]
    page.goto(f"{url}/?heads=4&d_out=8")
    charts_drawn(page, 1)
    script_done(page)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.testid") == "stSkipToContent"
    page.keyboard.press("Enter")
    heads = page.locator(".st-key-head input[type=radio]")
    presses = 0
    while not heads.first.evaluate("e => e === document.activeElement") and presses < 15:
        page.keyboard.press("Tab")
        presses += 1
    assert heads.first.evaluate("e => e === document.activeElement"), "15 Tab presses did not reach the heads"
    ring = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement.closest('label'));"
        " return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }"
    )
    assert ring == ["solid", "3px", "rgb(31, 95, 191)"]
    before = page.evaluate(CHARTS)[0]["name"]
    page.keyboard.press("ArrowRight")
    # While the chart is redrawn there is a moment with no svg at all: wait for a named one.
    page.wait_for_function(
        "(before) => { const name = document.querySelector('.js-plotly-plot svg.main-svg')"
        "?.getAttribute('aria-label'); return !!name && name !== before; }",
        arg=before,
        timeout=60_000,
    )
    assert heads.nth(1).is_checked()
