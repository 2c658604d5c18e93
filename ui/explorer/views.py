"""The Explorer's body, a keyed st.fragment: the sentence and the example, notes, the summary, then
the chosen view (Steps, All heads, Vectors, Query focus, Tokens, Share) with its controls.

    explorer_body()               a keyed fragment: the sentence, the example, notes, then these two
    summary(config, trace)        the line in words, what the weights are
    chosen_view(config, trace)    the view controls, the view, the URL
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention.chapter3 import AttentionTrace
from attention.chapter3.trace import STEPS
from attention.devices import resolve_device
from attention.explorer import ExplorerConfig
from attention.explorer.query_params import ALL_STEPS
from attention.explorer.snippet import pytorch_script
from attention.figures import explorer as figures
from attention.figures import export
from attention.figures.layout import token_labels
from ui.cache import cached_figure, cached_trace
from ui.explorer.controls import (
    BODY,
    EMBEDDING_LABELS,
    explorer_config,
    explorer_url,
    sentence_row,
    write_url,
)
from ui.explorer.view_controls import explorer_view
from ui.url import link_query, share_link
from ui.widgets import (
    chart,
    chart_width,
    copy_link_button,
    device_caption,
    literal,
    number_table,
    plural,
    projected,
    show_notes,
)

MAX_TABLE_CELLS = 20_000  # numbers in a table on the page; larger ones are offered as CSV


def summary(config: ExplorerConfig, trace: AttentionTrace) -> None:
    """Plain words in the line, the jargon in its tooltip; then what the weights are."""
    tokens, width = trace.tokens, trace.output.shape[-1]
    has_heads = config.has("heads")
    parts = [f"**{trace.module}**", plural(len(tokens), "token")]
    parts += [plural(trace.num_heads, "head")] if has_heads else []
    parts += [plural(trace.kv_groups, "key/value head")] if trace.kv_groups is not None else []
    parts += [f"window {trace.window}"] if trace.window is not None else []
    parts += ["RoPE"] if trace.rope else []
    parts += [f"tiles of {plural(trace.tile_size, 'key')}"] if trace.tile_size is not None else []
    parts += ["generated one token at a time"] if config.variant == "kv_cache" else []
    jargon = (
        f"x {figures.shape_text(trace, 'x')} → output {figures.shape_text(trace, 'output')}: B = 1 sentence, "
        f"T = {len(tokens)} tokens, d_out = {width}"
        + (f", H = {trace.num_heads} heads of head_dim = {trace.queries.shape[-1]}" if has_heads else "")
        + f". {config.tokenizer} tokenizer, {config.embedding} embedding, seed {config.seed}. "
        f"Computed in {trace.seconds * 1e3:.2f} ms on {device_caption(config.device)}."
    )
    if config.spec.trainable:
        weights_note = (
            f"W_query, W_key, W_value are random (seed {config.seed}), not trained: these patterns mean "
            "nothing yet. For trained heads, see Watch it learn."
        )
        if config.variant == "kv_cache":
            weights_note += (
                " Generated one token at a time: each step computed one row of scores against the keys "
                "cached so far; the cells after it were never computed (blank in scores)."
            )
        if trace.tile_size is not None:
            weights_note += (
                " The tile changes the order of the work and how much is held at once, not the numbers: "
                "the T × T matrices here are the tiles side by side (Modern attention, question 5)."
            )
    else:
        weights_note = "No trainable weights here: the scores are dot products of the embeddings themselves."
    # One element for the line and the note: every element is a message to every browser on every
    # rerun (columns, a caption, the Copy link frame and a link here were ~8% of an Explorer change
    # rerun's CPU, py-spy). Watch it learn is in the page links; Copy link in the Share view.
    line = " · ".join(parts + [f"output {len(tokens)} × {width}"])
    st.markdown(f"{line}  \n:small[:gray[{weights_note}]]", help=jargon)
    if reason := resolve_device(config.device).reason:
        st.caption(reason)


@st.fragment(key=BODY)
def explorer_body() -> None:
    """The sentence and the example, notes, the summary and the chosen view: a keyed fragment. Its
    own controls rerun only this, and so do most knobs in the sidebar (ui/controls._sync): lighter
    reruns for a lecture hall. It reads the knobs' state itself: a fragment's own rerun would
    replay the arguments of the last page run."""
    sentence_row()
    config, notes = explorer_config()
    show_notes(notes)
    trace = cached_trace(config)
    summary(config, trace)
    chosen_view(config, trace)


def chosen_view(config: ExplorerConfig, trace: AttentionTrace) -> None:
    """The chosen view and its controls."""
    shown = explorer_view(trace)
    view, head = shown["view"], shown["head"]
    # Only the chosen view is built and sent: the browser's drawing of charts, not the math, is
    # what a rerun waits for (benchmarks/explorer_update.py, benchmarks/long_text.py).
    if view == "steps":
        steps_view(config, trace, shown)
    elif view == "heads":
        heads_view(trace)
    elif view == "vectors":
        vectors_view(trace, head)
    elif view == "query":
        query_view(trace, head, shown["query"])
    elif view == "tokens":
        tokens_view(config, trace)
    else:
        share_view(config, trace, shown)
    write_url(config, shown["shown"])


def steps_view(config: ExplorerConfig, trace: AttentionTrace, shown: dict) -> None:
    """One step of one head, or every step it went through two a row, then what marks them."""
    options = {"numbers": shown["numbers"], "fitted": shown["fitted"]}
    chosen = trace.step_names() if shown["step"] == ALL_STEPS else [shown["step"]]
    texts, head = trace.tokens.texts, shown["head"]
    projector = bool(st.session_state.get("projector"))

    def step_chart(step: str, width: int, key: str) -> None:
        """Built once per trace and settings, for every session that shows it (ui/cache.py)."""
        fig = cached_figure(
            trace,
            ("step", step, head, width, projector, *options.values()),
            lambda: projected(
                figures.step_figure(
                    texts, figures.step_panels(trace, head, [step])[0], width_px=width, **options
                )
            ),
        )
        chart(fig, key=key, ready=True)

    if len(chosen) == 1:
        step_chart(chosen[0], chart_width(960), "step_chart")
    else:  # two a row; Streamlit stacks columns on a narrow screen (a phone)
        for row in range(0, len(chosen), 2):
            for column, step in zip(st.columns(2), chosen[row : row + 2], strict=False):
                with column:
                    step_chart(step, chart_width(470), f"step_{step}")
    st.caption("\n\n".join(_steps_captions(config, trace, shown, chosen)))  # one element, its paragraphs


def _steps_captions(
    config: ExplorerConfig, trace: AttentionTrace, shown: dict, drawn: list[str]
) -> list[str]:
    """How the steps follow one another and what marks them; how they are drawn; what is off."""
    steps, marks = trace.step_names(), []
    if trace.mask is not None:
        marks.append("Hatched cells are masked (−inf).")
    if trace.dropout_mask is not None:
        marks.append("✕ marks weights dropout removed.")
    marks.append("Rows are queries (the token that looks); columns are keys (the one looked at).")
    chain = " → ".join(STEPS[name].arrow for name in steps)
    captions = [(f"Each step feeds the next: {chain}. " if len(steps) > 1 else "") + " ".join(marks)]
    shown_as = []
    if not shown["numbers"]:
        shown_as.append(
            "Numbers in the cells are off for this size: hover a cell for its value, or switch them on."
        )
    if shown["fitted"] and any(STEPS[name].kind == "weights" for name in drawn):
        shown_as.append(
            "Weights are coloured from their smallest to their 99th percentile (the largest 1% saturate)."
        )
    if shown_as:
        captions.append(" ".join(shown_as))
    if trace.mask is None and config.has("causal"):
        captions.append("No causal mask: every query sees every key (masked_scores = scaled_scores).")
    if trace.dropout_mask is None and config.has("dropout"):
        captions.append("No dropout in this run: set dropout p above 0 and switch train mode on.")
    return captions


def heads_view(trace: AttentionTrace) -> None:
    st.caption(
        f"weights {figures.shape_text(trace, 'weights')}: every head, colour only. "
        "Dark = 0, yellow = 1. Pick a head in another view for its exact numbers."
    )
    titles = None
    if trace.kv_groups is not None:  # grouped-query: which key/value head each query head reads
        size = trace.num_heads // trace.kv_groups
        titles = [f"head {h} · kv {h // size}" for h in range(trace.num_heads)]
    chart(figures.heads_grid(trace.weights[0].numpy(), titles), key="heads_grid")


def vectors_view(trace: AttentionTrace, head: int) -> None:
    """x and the output, then the head's queries, keys, values and context: two a row."""
    labels = token_labels(trace.tokens.texts)
    of_head = f", head {head}" if trace.num_heads > 1 else ""
    matrices = [
        (trace.x[0], f"x (embeddings) {figures.shape_text(trace, 'x')}", "x"),
        (trace.output[0], f"output {figures.shape_text(trace, 'output')}", "output"),
    ]
    matrices += [
        (getattr(trace, n)[0, head], f"{n}{of_head} of {figures.shape_text(trace, n)}", n)
        for n in ("queries", "keys", "values", "context")
    ]
    for row in range(0, len(matrices), 2):
        for column, (matrix, title, name) in zip(st.columns(2), matrices[row : row + 2], strict=True):
            with column:
                chart(figures.vectors_heatmap(matrix, labels, title), key=f"vec_{name}")


def query_view(trace: AttentionTrace, head: int, query: int) -> None:
    """How one query spreads its weight over the keys, and its context as the weighted sum."""
    dropped = trace.dropout_mask is not None
    masked = None if trace.mask is None else trace.mask[query].numpy()
    weights = trace.dropped_weights[0, head, query].numpy()  # (T,): what the context sums
    bar = figures.query_bar(trace.tokens.texts, weights, masked, query, after_dropout=dropped)
    chart(bar, key="query_bar")
    weights_name = "dropped_weights" if dropped else "weights"
    st.markdown(f"**Context vector of query {query} = Σ {weights_name} × value vector** (head {head})")
    summed = export.weighted_sum_frame(trace, head, query)
    if summed.size <= MAX_TABLE_CELLS:
        number_table(summed, key="query_sum")
    else:
        st.caption("Too large to tabulate here; download the values and weights as CSV below.")


def tokens_view(config: ExplorerConfig, trace: AttentionTrace) -> None:
    """The tokens with their ids, the vocabulary, and the embedding matrix x."""
    tokens = trace.tokens
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
    source = EMBEDDING_LABELS[config.embedding]
    st.markdown(f"**Embedding matrix x** {figures.shape_text(trace, 'x')}, from {source}")
    x_frame = export.matrix_frame(trace, "x")
    if x_frame.size <= MAX_TABLE_CELLS:
        number_table(x_frame, key="x_table")
    else:
        st.caption("Too large to tabulate here; see the Vectors tab or download x as CSV.")


def share_view(config: ExplorerConfig, trace: AttentionTrace, shown: dict) -> None:
    """The link to this view, the PyTorch code that reproduces it, and the downloads."""
    view = explorer_url(config, shown["shown"] | {"view": None})
    st.markdown(
        "**Share.** The address bar holds the whole view (this tab aside); this link reproduces it "
        "exactly, and **Copy link** copies it in one click:"
    )
    copy_link_button(link_query(view))
    st.code(share_link(view), language=None, wrap_lines=True)
    with st.expander("PyTorch code that reproduces these numbers", expanded=False):
        st.code(pytorch_script(config), language="python")
    st.markdown("**Downloads** (CSV with tokens as row and column labels; PNG from each chart's camera icon)")
    downloads(trace, shown["head"])


def downloads(trace: AttentionTrace, head: int) -> None:
    """Any matrix of the trace as CSV (one head of a per-head one), and the trace as JSON."""
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
