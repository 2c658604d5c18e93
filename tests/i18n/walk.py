"""Open every page (the Explorer's every view, and Inside a model's "page/view" ones) in one
language, for the prose tests."""

from __future__ import annotations

from attention import i18n
from tests.app.conftest import session, skip

PAGES = ("explorer", "learn", "languages", "modern", "compare", "scaling", "train", "model")
PAGES += ("model/lens", "model/explain")  # Inside a model's views that explain a prediction: page/view
EXPLORER_VIEWS = ("steps", "heads", "vectors", "query", "tokens", "share")


def opened(page: str, lang: str, **params: str):
    """A fresh session on `page` in `lang` (AppTest: run, exceptions left for the caller). This
    thread speaks `lang` too: AppTest reads a widget's value back through its format_func here,
    not on the script's thread (tests/i18n/conftest.py puts English back)."""
    i18n.use(lang)
    name, _, view = page.partition("/")
    at = session(120, lang=lang, **params).run()
    if name != "explorer":
        at.switch_page(f"pages/{name}.py")
        if view:
            at.query_params["view"] = view
        at.run()
    if view == "explain":  # past the predict-first questions: the table and the words under it too
        for key in ("m_predict_attention", "m_predict_removal"):
            at = skip(at, key)
    return at


def views(page: str, lang: str):
    """(name, AppTest) for each view of `page` a reader can open without typing."""
    if page == "explorer":
        for view in EXPLORER_VIEWS:
            yield f"explorer/{view}", opened(page, lang, view=view)
    else:
        yield page, opened(page, lang)
