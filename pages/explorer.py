"""Explorer: type a sentence, turn the knobs, see every step of attention as heatmaps."""

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from attention.figures import explorer as figures
from attention.figures import export
from attention.figures.layout import token_labels
from attention.query_params import to_query_params
from attention.snippet import pytorch_script
from ui.cache import cached_trace
from ui.controls import explorer_controls
from ui.router import use_router
from ui.widgets import chart, device_caption, literal, show_notes

use_router()

st.title("Attention Explorer")
config, notes = explorer_controls()
show_notes(notes)
trace = cached_trace(config)
tokens = trace.tokens
labels = [f"{i}: {t}" for i, t in enumerate(tokens.texts)]

# --- summary ---------------------------------------------------------------------------------
# One line of text, not four metric widgets: every element costs the browser time per rerun.
st.markdown(
    f"**{trace.module}** · T = {len(tokens)} tokens · H = {trace.num_heads} heads · "
    f"output {figures.shape_text(trace, 'output')} · computed in {trace.seconds * 1e3:.2f} ms on "
    f"{device_caption(config.device)}"
)
st.caption(
    f"{config.tokenizer} tokenizer · {config.embedding} embedding · seed {config.seed}. "
    "Rows are queries (the token that looks); columns are keys (the token looked at)."
)

head = 0
if trace.num_heads > 1:
    head = st.radio(
        "Head shown in detail",
        range(trace.num_heads),
        horizontal=True,
        key="head",
        format_func=lambda h: f"head {h}",
    )

# Only the chosen view is built and sent: the browser's drawing of charts, not the math, is
# what a rerun waits for (tests/bench/explorer_update.py).
VIEWS = ["Steps", "All heads", "Vectors", "Query focus", "Tokens", "Share, code & downloads"]
view = (
    st.segmented_control("View", VIEWS, key="view", default="Steps", label_visibility="collapsed") or "Steps"
)

if view == "Steps":
    steps = figures.available_steps(trace)
    shown = st.segmented_control(
        "Step", [*steps, "all"], key="step", default="weights",
        format_func=lambda n: "all steps side by side" if n == "all" else n,
    )  # fmt: skip
    st.caption(
        f"Head {head}. Each step feeds the next: scores → ÷√d_k → mask → softmax → dropout. "
        "Hatched cells are masked (−inf); ✕ marks weights dropout removed."
    )
    chosen = [shown] if shown in steps else None if shown == "all" else ["weights"]
    chart(figures.steps_figure(trace, head, chosen), key="steps")
    if trace.mask is None:
        st.caption("No causal mask: every query sees every key (masked_scores = scaled_scores).")
    if trace.dropout_mask is None:
        st.caption("No dropout in this run (p = 0, eval mode, or a variant without dropout).")

elif view == "All heads":
    st.caption(
        f"weights {figures.shape_text(trace, 'weights')}: every head, colour only. "
        "Pick a head above for its exact numbers."
    )
    chart(figures.heads_grid(trace.weights[0].numpy()), key="heads_grid")

elif view == "Vectors":
    left, right = st.columns(2)
    with left:
        chart(
            figures.vectors_heatmap(
                trace.x[0], token_labels(tokens.texts), f"x (embeddings) {figures.shape_text(trace, 'x')}"
            ),
            key="vec_x",
        )
    with right:
        chart(
            figures.vectors_heatmap(
                trace.output[0], token_labels(tokens.texts), f"output {figures.shape_text(trace, 'output')}"
            ),
            key="vec_out",
        )
    for i, name in enumerate(("queries", "keys", "values", "context")):
        with left if i % 2 == 0 else right:
            title = f"{name}, head {head} of {figures.shape_text(trace, name)}"
            chart(
                figures.vectors_heatmap(getattr(trace, name)[0, head], token_labels(tokens.texts), title),
                key=f"vec_{name}",
            )

elif view == "Query focus":
    query = st.selectbox(
        "Query token",
        range(len(tokens)),
        format_func=labels.__getitem__,
        key="query",
        index=min(1, len(tokens) - 1),
    )
    masked = None if trace.mask is None else trace.mask[query].numpy()
    bar = figures.query_bar(tokens.texts, trace.dropped_weights[0, head, query].numpy(), masked, query)
    chart(bar, key="query_bar")
    st.markdown(f"**Context vector of query {query} = Σ weight × value vector** (head {head})")
    summed = export.weighted_sum_frame(trace, head, query)
    if summed.size <= 20_000:
        st.dataframe(summed.style.format("{:.4f}"), width="stretch")
    else:
        st.caption("Too large to tabulate here; download the values and weights as CSV below.")

elif view == "Tokens":
    st.dataframe(
        pd.DataFrame({"position": range(len(tokens)), "token": tokens.texts, "id": tokens.ids}),
        hide_index=True,
        width="content",
    )
    st.caption(
        f"Vocabulary ({len(tokens.vocab)} entries, sorted; id = index): "
        + literal(", ".join(tokens.vocab[:50]))
        + (" …" if len(tokens.vocab) > 50 else "")
    )
    st.markdown(f"**Embedding matrix x** {figures.shape_text(trace, 'x')}, source: {config.embedding}")
    x_frame = export.matrix_frame(trace, "x")
    if x_frame.size <= 20_000:
        st.dataframe(x_frame.style.format("{:.4f}"), width="stretch")
    else:
        st.caption("Too large to tabulate here; see the Vectors tab or download x as CSV.")

else:
    st.markdown(
        "**Share.** The address bar holds every setting; this link reproduces the view exactly "
        "(same numbers, same dropout mask):"
    )
    st.code("?" + urlencode(to_query_params(config)), language=None, wrap_lines=True)
    with st.expander("PyTorch code that reproduces these numbers", expanded=False):
        st.code(pytorch_script(config), language="python")
    st.markdown("**Downloads** (CSV with tokens as row and column labels; PNG from each chart's camera icon)")
    c1, c2, c3 = st.columns([2, 1, 1])
    name = c1.selectbox("Matrix", [n for n in trace.TENSORS if getattr(trace, n) is not None], key="csv_name")
    per_head = getattr(trace, name).dim() == 4
    csv_head = c2.number_input(
        "head", 0, trace.num_heads - 1, value=head, key="csv_head", disabled=not per_head
    )
    c3.download_button(
        "CSV",
        lambda: export.matrix_frame(trace, name, head=csv_head if per_head else None).to_csv(),
        file_name=f"{name}{f'_head{csv_head}' if per_head else ''}.csv",
        mime="text/csv",
        on_click="ignore",
    )
    whole = export.trace_numbers(trace) <= export.JSON_MAX_NUMBERS  # else one head, to spare the server
    st.download_button(
        "Whole trace (JSON)" if whole else f"Trace of head {head} (JSON; the whole trace is too large)",
        lambda: export.trace_json(trace, None if whole else head),
        file_name="trace.json" if whole else f"trace_head{head}.json",
        mime="application/json",
        on_click="ignore",
    )
