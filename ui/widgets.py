"""Widgets the pages share: charts, notes on corrected settings, user text made safe, self-checks."""

from __future__ import annotations

import re

import streamlit as st

from attention.devices import resolve_device
from attention.figures.layout import scale_text

_MARKUP = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def literal(text: str) -> str:
    """User text made safe for Streamlit's markdown (labels, captions, messages): every ASCII
    punctuation mark backslash-escaped (CommonMark allows it), so **bold**, [x](javascript:…),
    <img …>, $latex$ and :red[colour] directives all show as the characters typed."""
    return _MARKUP.sub(r"\\\1", text)


def show_notes(notes: list[str]) -> None:
    """Corrections, as text (never HTML): what was wrong and what is shown instead."""
    if notes:
        st.warning("**Some settings could not be used as given; the page shows the closest valid view.**")
        for note in notes:
            st.text("• " + note)


def device_caption(device: str) -> str:
    """The device that ran, in words, with the reason for any fallback."""
    choice = resolve_device(device)
    return choice.name + (f" ({choice.reason})" if choice.reason else "")


PROJECTOR_SCALE = 1.4  # text in charts in projector mode (the sidebar toggle)


def chart(fig, key: str) -> None:
    """A plotly chart with its PNG download (the modebar camera) kept; in projector mode, with
    every text in it 1.4 times larger."""
    if st.session_state.get("projector"):
        scale_text(fig, PROJECTOR_SCALE, color="#000000")
    st.plotly_chart(
        fig, key=key, config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
    )


def self_check(key: str, question: str, options: list[str], answer: str, why: str) -> str | None:
    """A prediction before the reveal: immediate feedback once the learner picks an option."""
    picked = st.radio(f"Predict: {question}", options, index=None, key=key, format_func=literal)
    if picked is not None:
        if picked == answer:
            st.success(f"Right: {literal(answer)}. {why}")
        else:
            st.error(f"Not quite: the answer is {literal(answer)}. {why}")
    return picked
