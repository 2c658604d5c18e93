"""The app's style sheet (assets/app.css) comes once per session, with the accessibility script
(ui/chrome.page_setup), and holds on every page the session opens after it, whose runs send no
style element; another language sends the script again, and the page still has one sheet."""

import re

import pytest

from tests.e2e.conftest import script_done

pytestmark = pytest.mark.e2e

STYLED = """() => ({
  sheets: document.querySelectorAll('#ae-app-css').length,
  h1: getComputedStyle(document.querySelector('[data-testid="stMain"] h1')).fontSize,
  top: getComputedStyle(document.querySelector('[data-testid="stMainBlockContainer"]')).paddingTop,
  elements: document.querySelectorAll('[data-testid="stApp"] style:not(#ae-app-css)').length,
  scripts: document.querySelectorAll('script[src*="a11y.js"]').length,
})"""
CAPTION = """() => getComputedStyle(
  document.querySelector('[data-testid="stMain"] [data-testid="stCaptionContainer"]')).color"""
# app.css: a page's title at 1.9rem (Streamlit's own: 2.75rem), the page's top padding 1.5rem (6rem)
# and one accessibility script's tag, however often the setup came (again within 2 s, a language)
AS_STYLED = {"sheets": 1, "h1": "30.4px", "top": "24px", "elements": 0, "scripts": 1}


def styled(page) -> dict:
    script_done(page)
    page.wait_for_function("document.getElementById('ae-app-css') !== null", timeout=30_000)
    page.locator('[data-testid="stMain"] h1').first.wait_for(timeout=30_000)
    return page.evaluate(STYLED)


def test_the_style_sheet_comes_once_and_holds_on_the_pages_opened_after(page, server):
    page.goto(server + "/learn")
    assert styled(page) == AS_STYLED
    for name, path in (("Explorer", r"/(\?|$)"), ("Learn step by step", r"/learn"), ("Compare", r"/compare")):
        page.locator('[data-testid="stSidebar"]').get_by_role("link", name=name, exact=True).click()
        page.wait_for_url(re.compile(path))
        assert styled(page) == AS_STYLED, name  # these runs sent no style element
    page.locator(".st-key-lang").click()
    page.get_by_role("option", name=re.compile("Українська")).click()
    page.wait_for_function("document.documentElement.lang === 'uk'", timeout=30_000)
    assert styled(page) == AS_STYLED  # the script again, in Ukrainian: the same one sheet
    # projector.css, an element of each run while it is on, wins a tie against app.css (both set
    # a caption's colour with !important; Compare has one): the sheet sits before the app's elements
    assert page.evaluate(CAPTION) == "rgb(97, 95, 92)"  # app.css: #615f5c
    page.locator(".st-key-projector label").first.click()
    page.wait_for_function(f"({CAPTION})() === 'rgb(0, 0, 0)'", timeout=30_000)  # projector.css
