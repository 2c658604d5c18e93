"""Learn: the chapter's computation step by step, on the learner's own sentence, live numbers.

Predict, then see: each step asks its question before it shows the numbers that answer it.
"""

import streamlit as st

from attention.i18n import tr
from ui.cache import cached_trace
from ui.learn import masking, steps
from ui.learn.controls import Lesson, exact_params, keep_url, lesson_config, sentence_controls, sync_url
from ui.router import use_router
from ui.widgets import page_title, show_notes

use_router()
sync_url()

page_title(
    tr("Learn attention, step by step"),
    tr(
        "Predict, then check: each step asks a question before it shows the numbers that answer it. The "
        "Explorer's engine computes every number live."
    ),
)
show_notes(st.session_state.pop("_learn_notes", []))

# --- the learner's sentence: read the controls, run the engine ---------------------------------
choice, text, seed, everything = sentence_controls()
config = lesson_config(choice, text, seed)
page = Lesson(config, cached_trace(config), choice, everything, exact_params())

# --- the steps, each asking before it shows ----------------------------------------------------
# each step draws its title with its first words or formulas: one element (ui/widgets.formulas)
steps.tokens_to_embeddings(page, tr("1 · Tokens → ids → embeddings"))

query = steps.simplified_attention(page, tr("2 · Simplified self-attention for one query"))

steps.trainable_weights(page, query, tr("3 · Trainable weights: queries, keys, values"))
masking.causal_mask(page, tr("4 · Causal mask: two ways, one result"))
masking.dropout(page, tr("5 · Dropout on the attention weights"))
steps.multi_head(page, tr("6 · Multi-head attention"))
steps.exercises()

keep_url()
