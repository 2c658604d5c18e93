"""Which language this session reads: `?lang=` in the address, else the sidebar's picker, else the
browser's language (st.context.locale), else English. Chosen at the top of every rerun
(attention.i18n.use): every tr() on this session's thread speaks it, and no other session's."""

from __future__ import annotations

import functools

import streamlit as st

from attention import i18n
from attention.i18n import LANGUAGES, tr

KEY = "lang"  # the picker's widget key, and the URL's parameter


def browsers() -> str:
    """The language the browser asks for, where we have it (else English)."""
    return i18n.match(st.context.locale) or i18n.DEFAULT


def choose() -> str | None:
    """Set this rerun's language; returns a message when the address asked for one we lack."""
    s = st.session_state
    asked = st.query_params.get(KEY)
    refused = None
    if asked is not None and asked != s.get("_lang_url"):  # a link or an edited address asks
        s["_lang_url"] = asked
        if asked in LANGUAGES or asked == i18n.PSEUDO:
            s[KEY] = asked
        else:
            refused = asked
    if s.get(KEY) not in LANGUAGES and s.get(KEY) != i18n.PSEUDO:
        s[KEY] = browsers()
    s[KEY] = s[KEY]  # keep the picker's value on pages that do not draw it
    i18n.use(s[KEY])
    if refused is not None:
        return tr(
            "The address asks for the language “{asked}”, which this app does not have; it shows {name}. "
            "It has: {codes}.",
            asked=refused[:16],
            name=LANGUAGES.get(s[KEY], s[KEY]),
            codes=", ".join(LANGUAGES),
        )
    return None


def fragment(func=None, **options):
    """st.fragment, speaking the session's language: a fragment's own rerun (a widget in it, its
    timer) runs none of the page before it, so not choose(), and may run on a new thread, whose
    language would be English (found in Chromium: a class's held question and the teacher's
    panel answered a Ukrainian page in English)."""

    def wrap(body):
        @functools.wraps(body)
        def speaking(*args, **kwargs):
            i18n.use(st.session_state.get(KEY, i18n.DEFAULT))
            return body(*args, **kwargs)

        return st.fragment(speaking, **options)

    return wrap(func) if func is not None else wrap


def callback(func):
    """A widget's callback, speaking the session's language: Streamlit runs callbacks on the run's
    new thread before app.py chooses the language, so every tr() in one would say English."""

    @functools.wraps(func)
    def speaking(*args, **kwargs):
        i18n.use(st.session_state.get(KEY, i18n.DEFAULT))
        return func(*args, **kwargs)

    return speaking


def in_links() -> dict[str, str]:
    """What every link and the address carry: the language, unless it is the one a browser
    would pick anyway (English in an English browser)."""
    code = i18n.language()
    return {} if code == browsers() == i18n.DEFAULT else {KEY: code}


def picker() -> None:
    """The sidebar's language menu, each language in its own name."""
    codes = list(LANGUAGES) + ([i18n.PSEUDO] if i18n.language() == i18n.PSEUDO else [])
    # the word in English too: a visitor who cannot read the page's language can still find it;
    # no icon in the label: a screen reader reads an icon's code ("material/translate") as words
    label = tr("Language")
    st.selectbox(
        label if label == "Language" else f"{label} · Language",
        codes,
        format_func=lambda code: LANGUAGES.get(code, code),
        key=KEY,
        on_change=_picked,
    )


def _picked() -> None:
    # the address still holds the language before: not a request (the page writes the new one)
    st.session_state["_lang_url"] = st.query_params.get(KEY)
