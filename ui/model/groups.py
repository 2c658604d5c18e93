"""Rows and columns per token, per character or per word. GPT-2 splits a letter it rarely saw (a
Korean syllable, a Cyrillic letter) into two or three byte tokens, and an English word it rarely
saw into pieces ("un|bel|iev|able"): grouped, each character or word is one row and one column.
A query group's attention to a key group is the sum over the key group's columns, read from the
query group's last token's row (attention.model.pieces.grouped says why); rows still sum to 1."""

from __future__ import annotations

import html
from dataclasses import replace

import streamlit as st

from attention.i18n import N_, tr, tr_n
from attention.model import pieces
from attention.model.catalog import ModelInfo
from attention.model.sentence import SentenceView
from ui.widgets import keep_choice

GROUPINGS = {"tokens": N_("Per token"), "characters": N_("Per character"), "words": N_("Per word")}
BY = {"characters": "character", "words": "word"}  # -> attention.model.pieces.groups' names


def grouping(info: ModelInfo) -> str:
    """The rows-and-columns control (GPT-2's byte tokens only: a small model's tokens are words)."""
    if info.symbols:
        return "tokens"
    keep_choice("m_group", "tokens")
    st.segmented_control(
        tr("Rows and columns"),
        list(GROUPINGS),
        key="m_group",
        format_func=lambda key: tr(GROUPINGS[key]),
        help=tr(
            "Per token: exactly what the model computes. Per character: the tokens that spell one "
            "character (“한 1/2”, “한 2/2”) become one row and one column. Per word: every token of a word, "
            "including the space before it, becomes one row and one column, e.g. “un|bel|iev|able”. A "
            "group's column adds up its tokens' weights. A group's row is the row of its last token, "
            "because only that token has read the whole character or word (a GPT reads left to right). "
            "Rows still add up to 1."
        ),
    )
    return st.session_state["m_group"]


def grouped(view: SentenceView, by: str, info: ModelInfo) -> SentenceView:
    """The view with each character's (or word's) tokens as one row and one column; its ids are each
    group's last token's."""
    if by not in BY:
        return view
    members, texts = pieces.groups(info.words.token_bytes(view.ids), BY[by])
    ids = tuple(view.ids[g[-1]] for g in members)
    return replace(view, ids=ids, tokens=tuple(texts), weights=pieces.grouped(view.weights, members))


def grouped_note(view: SentenceView, by: str, tokens: int) -> None:
    if by in BY:
        st.caption(
            tr_n(
                "Groups of {tokens} token: {groups}. Each row is the row of its group's last token, and "
                "each column is the sum over its group's tokens. Choose Per token for the exact view.",
                "Groups of {tokens} tokens: {groups}. Each row is the row of its group's last token, and "
                "each column is the sum over its group's tokens. Choose Per token for the exact view.",
                tokens,
                groups=len(view.tokens),
                tokens=tokens,
            )
        )


def tokens_caption(info: ModelInfo, view: SentenceView, limit: int = 60) -> None:
    """The sentence as the model's tokens, each GPT-2 token's bytes on hover (a piece of a character
    is labelled with it: "한 1/2")."""
    labels = view.tokens
    hexes = info.words.hexes(view.ids[:limit]) if not info.symbols else [""] * limit
    shown = list(zip(labels[:limit], hexes, strict=False))
    hover = [html.escape(tr("bytes {hex}", hex=h) if h else t, quote=True) for t, h in shown]
    chips = [f'<code title="{h}">{html.escape(t)}</code>' for (t, _), h in zip(shown, hover, strict=True)]
    more = " …" if len(labels) > limit else ""
    st.markdown(
        '<div class="token-chips">'
        + html.escape(tr("Tokens as the model sees them (· is a space; hover over one for its bytes):"))
        + " "
        + " ".join(chips)
        + more
        + "</div>",
        unsafe_allow_html=True,
    )
