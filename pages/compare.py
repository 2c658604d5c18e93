"""Compare: two settings of one sentence side by side with their difference, and every variant
on one input with shared weights."""

import streamlit as st

from attention.figures import compare as figures
from attention.i18n import tr
from ui import compare
from ui.cache import cached_trace
from ui.classroom import membership
from ui.router import use_router
from ui.widgets import device_caption, show_notes

use_router()

st.title(tr("Compare"))
text = compare.sentence()
columns = dict(zip("ab", st.columns(2), strict=True))
sides = {}
for name, column in columns.items():
    with column:
        st.header(name.upper())
        config, notes = compare.side(name, text)
        show_notes(notes)
        sides[name] = (config, cached_trace(config))
(config_a, a), (config_b, b) = sides["a"], sides["b"]
st.caption(compare.input_caption(config_a))
if len(a.tokens) != len(b.tokens):  # a side's repair shortened or replaced the text
    st.error(
        tr("A and B ended up with different sentences (see the notes above); fix the sentence to compare.")
    )
    membership.stop()  # the page as far as it goes: a class student has arrived

what, head_a, head_b = compare.what_to_compare(a, b)
za, zb, why = figures.comparison_matrices(a, b, what, head_a, head_b)
compare.difference_headline(za, zb, why)
compare.difference_charts(a, b, what, (head_a, head_b), (za, zb))
st.caption(
    tr(
        "Computed on {device}. Hatched: masked; white in A − B: no change.",
        device=device_caption(config_a.device),
    )
)

st.header(tr("Every variant, one input, shared weights"))
st.markdown(
    tr(
        "Do all the book's classes, today's (grouped-query, a sliding window, the online softmax) and "
        "torch's own compute the same attention? One draw of W_query, W_key, W_value and out_proj "
        "(MultiHeadAttention's constructor, seeded) is given to every variant, each taking the slice it "
        "needs (grouped-query: one head's rows per key/value group, read by two query heads); "
        "each result is compared with the same math done in double precision (float64), "
        "softmax(Q Kᵀ / √head_dim) V per head, masked where the variant has a mask, out_proj where it has "
        "one. The input is the sentence through a seeded nn.Embedding of width d = d_in = d_out."
    )
)
d, heads, causal = compare.table_controls()
compare.show_table(
    compare.variant_table(config_a.text, config_a.tokenizer, d, heads, causal, config_a.seed), d
)
