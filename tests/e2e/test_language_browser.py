"""The interface's language in a real browser: the browser's own language picks it, ?lang= and
the picker change it, every page link keeps it; Korean, Japanese and Cyrillic text is drawn with
real glyphs (no missing-glyph boxes) in the page and in the charts."""

import re

import pytest

from tests.e2e.conftest import script_done, skip, wait_idle

pytestmark = pytest.mark.e2e

# Draws `text` in `font` and compares each character with a character no font has (a private-use
# code point): the same pixels mean the browser drew its missing-glyph box.
MISSING_GLYPHS = """([text, font]) => {
  const c = document.createElement('canvas'); c.width = 40; c.height = 40;
  const g = c.getContext('2d'); g.font = font;
  const pixels = (ch) => { g.clearRect(0, 0, 40, 40); g.fillText(ch, 4, 30);
                           return g.getImageData(0, 0, 40, 40).data.join(','); };
  const box = pixels('\\u{10FFFD}');
  return [...new Set([...text].filter(ch => ch.trim()))].filter(ch => pixels(ch) === box);
}"""


def picker_value(page) -> str:
    return page.locator(".st-key-lang input").input_value()


def test_the_browsers_language_chooses_korean(browser, server):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="ko-KR")
    page = context.new_page()
    try:
        page.goto(server)
        wait_idle(page)
        assert "한국어" in picker_value(page)
        assert "lang=ko" in page.url  # a link copied from here opens in Korean for anyone
    finally:
        context.close()


def test_a_link_asks_for_ukrainian_and_every_page_link_keeps_it(page, server):
    page.goto(server + "/?lang=uk")
    wait_idle(page)
    assert "Українська" in picker_value(page)
    links = page.locator('[data-testid="stSidebar"] a[data-testid="stPageLink-NavLink"]')
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs and all("lang=uk" in h for h in hrefs), hrefs
    links.nth(1).click()  # Learn
    page.wait_for_url(re.compile(r"/learn"))
    script_done(page)
    assert "lang=uk" in page.url and "/learn" in page.url


@pytest.mark.parametrize("lang, sample", [("ko", "당 1/2"), ("ja", "の+旅 1/3"), ("uk", "Т 1/2")])
def test_no_missing_glyph_boxes_in_the_page_or_its_charts(page, server, lang, sample):
    page.goto(f"{server}/languages?lang={lang}")
    script_done(page)
    skip(page, "languages_predict")  # the chart, without predicting
    page.wait_for_selector(".js-plotly-plot")
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert sample in text
    body_font = page.evaluate("() => getComputedStyle(document.body).font")
    chart_font = page.evaluate(
        "() => { const t = document.querySelector('.js-plotly-plot .gtitle');"
        " const s = getComputedStyle(t); return s.fontSize + ' ' + s.fontFamily; }"
    )
    for font in (body_font, chart_font):
        assert page.evaluate(MISSING_GLYPHS, ["\U000f0000", font]) == ["\U000f0000"]  # the check sees a box
        missing = page.evaluate(MISSING_GLYPHS, [text, font])
        assert not missing, f"{lang}: drawn as boxes in {font!r}: {missing[:20]}"
