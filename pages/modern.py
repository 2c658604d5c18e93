"""Modern attention: what Llama 3, Qwen3, Gemma and Mistral change in chapter 3's attention, five
questions asked before they are answered with live numbers from the learner's sentence."""

import streamlit as st

from ui import modern
from ui.router import use_router
from ui.widgets import page_title, show_notes

use_router()

page_title(
    "Modern attention",
    "Chapter 3 ends with GPT-2's multi-head attention (2019). Today's models change it in five ways, each "
    "in the book's bonus code. Predict, then check: every number is computed live on your sentence, "
    "with 8 query heads of width 4 and a seeded embedding of width 32.",
)
config, notes, everything = modern.sentence()
show_notes(notes)

st.header("1 · What does the KV cache save?")
modern.kv_cache(config, everything)

st.header("2 · What do 8 query heads sharing 2 key/value heads look like?")
modern.grouped(config, everything)

st.header("3 · What does a window of 4 do to the mask?")
modern.window(config, everything)

st.header("4 · Why does RoPE make attention depend only on distance?")
modern.rope(config, everything)

st.header("5 · How can FlashAttention give the same answer without the T × T matrix?")
modern.online(config, everything)
