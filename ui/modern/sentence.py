"""Modern attention's sentence: the learner's text and seed, kept in the page's address (a class's
question asked on the teacher's sentence opens it on every phone), as the config every section
computes on."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from attention.explorer import ExplorerConfig
from attention.explorer.config import MAX_SEED
from attention.explorer.query_params import from_values
from attention.i18n import tr, tr_n
from attention.lessons.chapter3 import first_tokens
from ui import url
from ui.widgets import reset_predictions

MAX_TOKENS = 16  # heatmaps with every number readable
# 8 query heads of width 4 (RoPE needs an even width), 2 key/value heads: Llama 3's shape, small
SETTINGS = {"embedding": "random", "d_in": 32, "d_out": 32, "heads": 8, "kv_groups": 2, "seed": 123}
DEFAULT_TEXT = "the cat sat on the mat because the cat was tired"
DEFAULTS = {"modern_text": DEFAULT_TEXT, "modern_seed": SETTINGS["seed"]}
WIDGETS = list(DEFAULTS)  # kept across runs by url.sync, the sentence first


def load_url(raw: dict[str, tuple[str, ...]]) -> None:
    """The address's sentence and seed into the widgets (url.sync's `load`): a class's question
    asked on the teacher's sentence opens it on every phone."""
    s = st.session_state
    s.update(DEFAULTS)
    if raw.get("text"):
        s["modern_text"] = str(raw["text"][-1])[:500]
    seed = raw.get("seed", ("",))[-1]
    if seed.isdigit() and int(seed) <= MAX_SEED:
        s["modern_seed"] = int(seed)
    _reset()


def url_params() -> dict[str, str]:
    """The sentence and seed as URL parameters, those at their defaults left out."""
    s = st.session_state
    return {k[len("modern_") :]: str(s[k]) for k, default in DEFAULTS.items() if s[k] != default}


def question_view() -> dict[str, str]:
    """What the page's questions are computed from, every value written out."""
    return {"text": str(st.session_state["modern_text"]), "seed": str(st.session_state["modern_seed"])}


def sync_url() -> None:
    url.sync("modern", WIDGETS, load_url)


def keep_url() -> None:
    url.keep("modern", url_params())


def sentence() -> tuple[ExplorerConfig, list[str], bool]:
    """The learner's sentence as a GroupedQueryAttention config (its first MAX_TOKENS tokens; the
    example sentence for one of a single token: a cache, a window and tiles need two), notes on
    anything repaired, and whether every answer shows without predicting."""
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    text = left.text_input(
        tr("Your sentence"), key="modern_text", on_change=_reset, help=tr("Press Enter to apply.")
    )
    # TRANSLATORS: the random seed (a number that fixes the random weights)
    seed = right.number_input(tr("seed"), 0, MAX_SEED, key="modern_seed", on_change=_reset)
    everything = st.toggle(tr("Show every answer without predicting"), key="modern_everything")
    config, notes = from_values(SETTINGS | {"variant": "gqa", "text": text, "seed": seed})
    if config.embedding != "random":  # an unusable sentence was repaired to the book's, vectors and all
        config = replace(config, embedding="random", d_in=SETTINGS["d_in"], matrix=None)
    if len(config.tokens) < 2:
        notes.append(
            tr(
                "{text} is one token; this page needs two or more. Used the example sentence instead.",
                text=repr(text),
            )
        )
        config = replace(config, text=DEFAULT_TEXT)
    short = first_tokens(config, MAX_TOKENS)
    if short is not config:
        n = len(config.tokens)
        st.info(
            tr_n(
                "Your sentence has {n} token; this page uses its first {limit}.",
                "Your sentence has {n} tokens; this page uses its first {limit}.",
                n,
                n=n,
                limit=MAX_TOKENS,
            )
        )
    return short, notes, everything


def _reset() -> None:
    reset_predictions("modern_check_")
