"""How well the model reads the student's sentence: its loss on each token, and, for a language
model, what a leading <|endoftext|> is (GPT-2 began every document after it)."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from attention.figures import lab as lab_figures
from attention.i18n import N_, tr
from attention.model import sentence
from attention.model.catalog import ModelInfo
from attention.model.lab import repeat_positions
from attention.model.sentence import SentenceView
from ui.widgets import chart, chart_width

START_NOTE = N_(
    "Your sentence starts with **<|endoftext|>** (token 50256), GPT-2's end-of-text token. GPT-2 read its "
    "training text as documents joined into one stream, with this token between them. Every document "
    "therefore began right after this token, so to a GPT-2-style model it means *a new text starts here*. "
    "TransformerLens, a library for inspecting models, puts the token before every text by default. The "
    "Shakespeare model learned the same way (each scene follows the token). It also reads text without the "
    "token, just as you type it."
)


def start_note(info: ModelInfo, ids: list[int]) -> None:
    """For a language model, a note when the sentence begins with <|endoftext|>."""
    if info.reads_language and not info.tokenizer_file and sentence.starts_a_document(ids):
        st.info(tr(START_NOTE))


LOSS_WORDS = N_(
    "Mean loss on this sentence: {mean:.2f} nats per token (the first token has none: nothing comes before "
    "it). A uniform guess over the whole vocabulary (size: {vocabulary:,}) costs {uniform:.2f}. Lower is "
    "better: e^−loss is the probability the model gave the right token."
)
LOSS_WORDS_UNIGRAM = N_(
    "Mean loss on this sentence: {mean:.2f} nats per token (the first token has none: nothing comes before "
    "it). A uniform guess over the whole vocabulary (size: {vocabulary:,}) costs {uniform:.2f}; word counts "
    "of its training text (a unigram model) cost {unigram:.2f} on held-out text. Lower is better: e^−loss is "
    "the probability the model gave the right token."
)


def token_loss(view: SentenceView, info: ModelInfo) -> None:
    """The loss on each token of the sentence (−log p(token | the tokens before it)), with what a
    uniform guess and, where the model's card has one, a unigram model of its training text cost."""
    if len(view.ids) < 2:
        return
    chart(
        lab_figures.loss_figure(
            view.tokens, {"sentence": view.losses}, repeat_positions(view.ids), chart_width(1100)
        ),
        key="m_reading_loss",
    )
    mean = float(np.nanmean(view.losses))
    uniform = math.log(len(view.next_logits))
    unigram = info.extra.get("baselines", {}).get("unigram")
    # a model card's number (a folder's config.json may hold anything)
    words = LOSS_WORDS_UNIGRAM if isinstance(unigram, int | float) else LOSS_WORDS
    st.caption(tr(words, mean=mean, vocabulary=len(view.next_logits), uniform=uniform, unigram=unigram))
