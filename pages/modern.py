"""Modern attention: what Llama 3, Qwen3, Gemma and Mistral change in chapter 3's attention, five
questions asked before they are answered with live numbers from the learner's sentence."""

import streamlit as st

from attention.i18n import tr
from ui import modern
from ui.router import use_router
from ui.widgets import page_title, show_notes

use_router()
modern.sync_url()

page_title(
    tr("Modern attention"),
    tr(
        "Chapter 3 ends with GPT-2's multi-head attention (2019). Today's models change this attention in "
        "five ways, and the book's bonus code covers each one. Predict, then check: every number is "
        "computed live on your sentence, with 8 query heads of width 4 and a seeded embedding of width 32."
    ),
)
config, notes, everything = modern.sentence()
show_notes(notes)

st.header(tr("1 · What does the KV cache save?"))
st.markdown(
    tr(
        "When a model generates text, it produces one token at a time, and each new token attends to every "
        "token before it. Without a cache, the model recomputes every query, key and value of the whole "
        "sentence at each step. A **KV cache** (the book's `ch04/03_kv-cache`) stores the keys and values "
        "already computed. With it, the model computes only the new token's query, key and value, and adds "
        "**one row** of scores."
    )
)
modern.kv_cache(config, everything)

st.header(tr("2 · What do 8 query heads sharing 2 key/value heads look like?"))
# TRANSLATORS: on this page heads is 8 and groups is 2
st.markdown(
    tr(
        "Llama 3, Qwen3, Gemma and Mistral give their query heads (**{heads}** here) only a few key/value "
        "heads (**{groups}**). This is grouped-query attention (the book's `llama3.py`): neighbouring query "
        "heads share one key projection and one value projection. With one group it is multi-query "
        "attention; with as many groups as heads it is chapter 3's multi-head attention.",
        heads=config.heads,
        groups=config.kv_groups,
    )
)
modern.grouped(config, everything)

st.header(tr("3 · What does a window of 4 do to the mask?"))
st.markdown(
    tr(
        "Mistral and Gemma let a query see only the last few tokens, **a sliding window** (the book's "
        "`ch04/06_swa`). The mask is the causal mask cut to a band along the diagonal, and the KV cache "
        "can drop the older keys."
    )
)
modern.window(config, everything)

st.header(tr("4 · Why does RoPE make attention depend only on distance?"))
st.markdown(
    tr(
        "GPT-2 adds a learned vector for each position to each token (chapter 2). Llama, Qwen and Gemma "
        "instead **rotate** each query and key by an angle proportional to its position. This is RoPE, "
        "rotary position embedding (the book's `compute_rope_params` and `apply_rope`). The score of two "
        "rotated vectors depends on the *difference* of their angles."
    )
)
modern.rope(config, everything)

st.header(tr("5 · How can FlashAttention give the same answer without the T × T matrix?"))
st.markdown(
    tr(
        "FlashAttention never holds the whole T × T matrix. It reads the keys one **tile** (a block of "
        "keys) at a time. For each query it keeps three running values: the largest score so far **m**, "
        "the sum of exp(score − m) so far **l**, and the output so far. At the end, output / l is exactly "
        "softmax · values."
    )
)
modern.online(config, everything)
modern.keep_url()
