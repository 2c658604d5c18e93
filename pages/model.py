"""Inside a model: a real GPT's attention, computed by the book's own classes, every head's role
measured live, and the model's next token, one step at a time."""

import streamlit as st

from attention.i18n import tr
from ui.model import caches as models
from ui.model import explain, groups, lab, lens, picker, reading, roles, today, views
from ui.model.url import keep_url, sync_url
from ui.router import use_router
from ui.widgets import page_title, show_notes

use_router()
sync_url()

page_title(
    tr("Inside a model"),
    tr(
        "A real model's attention, computed by the book's chapter-4 GPTModel or its bonus Llama, Qwen3 "
        "and Gemma 3 code."
    ),
    help=tr(
        "Its blocks are the very MultiHeadAttention of chapter 3. What its patterns can mean depends on "
        "what it learned: see the line under the model's name."
    ),
)
show_notes(st.session_state.pop("_model_notes", []))

# --- read the controls: the model, the sentence, the view and head -----------------------------
source, model, info = picker.model_picker()
text, ids, tokens = picker.sentence_input(info, model.cfg["context_length"])

# --- run the model on the sentence: every head's weights and the next-token logits -------------
view = models.view(source, model, ids, tokens)
groups.tokens_caption(info, view)
reading.start_note(info, ids)
shown, layer, head = views.view_controls(model.cfg, len(tokens))

# --- draw the chosen view (All heads and Token view: per token, per character or per word) ------
by = groups.grouping(info) if shown in ("grid", "tokens") else "tokens"
seen = groups.grouped(view, by, info)
groups.grouped_note(seen, by, len(tokens))
if shown == "grid":
    views.all_heads(seen, layer, head, model.kv_heads)
elif shown == "head":
    views.one_head(source, model, ids, tokens, layer, head)
elif shown == "tokens":
    views.token_lines(seen, seen.tokens, layer, head)
elif shown == "roles":
    roles.head_roles(source, model, info, text)
elif shown == "next":
    views.next_token(view, info, tokens)
    reading.token_loss(view, info)
elif shown == "lab":
    lab.knockout_view(source, model, info, ids, tokens)
elif shown == "map":
    lab.importance_view(source, model, info, ids, tokens)
elif shown == "lens":
    lens.lens_view(source, model, info, ids, tokens)
elif shown == "explain":
    explain.explain_view(source, model, info, ids, tokens)
elif shown == "today":
    today.today_view(source, model, info, ids, tokens)
else:
    views.share(source, text, view, layer, head)

keep_url(source, text)
