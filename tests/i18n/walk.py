"""Open every page (and the Explorer's every view) in one language, for the prose tests."""

from __future__ import annotations

from attention import i18n
from tests.app.conftest import session

PAGES = ("explorer", "learn", "languages", "modern", "compare", "scaling", "train", "model")
EXPLORER_VIEWS = ("steps", "heads", "vectors", "query", "tokens", "share")


def opened(page: str, lang: str, **params: str):
    """A fresh session on `page` in `lang` (AppTest: run, exceptions left for the caller). This
    thread speaks `lang` too: AppTest reads a widget's value back through its format_func here,
    not on the script's thread (tests/i18n/conftest.py puts English back)."""
    i18n.use(lang)
    at = session(120, lang=lang, **params).run()
    if page != "explorer":
        at.switch_page(f"pages/{page}.py")
        at.run()
    return at


def views(page: str, lang: str):
    """(name, AppTest) for each view of `page` a reader can open without typing."""
    if page == "explorer":
        for view in EXPLORER_VIEWS:
            yield f"explorer/{view}", opened(page, lang, view=view)
    else:
        yield page, opened(page, lang)
