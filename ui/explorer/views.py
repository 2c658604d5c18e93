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
from attention.chapter3.text import unspaced
from attention.chapter3.trace import STEPS
from attention.devices import resolve_device
from attention.explorer import ExplorerConfig
from attention.explorer.query_params import ALL_STEPS
from attention.explorer.snippet import pytorch_script
from attention.figures import explorer as figures
from attention.figures import export
from attention.figures.layout import token_labels
from attention.i18n import tr, tr_n
from ui import language
from ui.cache import cached_figure, cached_trace
from ui.explorer.controls import BODY, explorer_config, explorer_url, sentence_row, write_url
from ui.explorer.sidebar import EMBEDDING_LABELS
from ui.explorer.view_controls import VIEW_LABELS, explorer_view
from ui.url import link_query, share_link
from ui.widgets import (
    HALF_PX,
    chart,
    chart_width,
    copy_link_button,
    device_caption,
    literal,
    number_table,
    projected,
    show_notes,
)

MAX_TABLE_CELLS = 20_000  # numbers in a table on the page; larger ones are offered as CSV


def summary(config: ExplorerConfig, trace: AttentionTrace) -> None:
    """Plain words in the line, the jargon in its tooltip; then what the weights are."""
    tokens, width = trace.tokens, trace.output.shape[-1]
    n, heads = len(tokens), trace.num_heads
    parts = [f"**{trace.module}**", tr_n("{n} token", "{n} tokens", n, n=n)]
    parts += [tr_n("{n} head", "{n} heads", heads, n=heads)] if config.has("heads") else []
    if (groups := trace.kv_groups) is not None:
        parts.append(tr_n("{n} key/value head", "{n} key/value heads", groups, n=groups))
    parts += [tr("window {window}", window=trace.window)] if trace.window is not None else []
    parts += ["RoPE"] if trace.rope else []
    if (tile := trace.tile_size) is not None:
        parts.append(tr_n("tiles of {n} key", "tiles of {n} keys", tile, n=tile))
    parts += [tr("generated one token at a time")] if config.variant == "kv_cache" else []
    # One element for the line and the note: every element is a message to every browser on every
    # rerun (columns, a caption, the Copy link frame and a link here were ~8% of an Explorer change
    # rerun's CPU, py-spy). Watch it learn is in the page links; Copy link in the Share view.
    line = " · ".join(parts + [tr("output {tokens} × {width}", tokens=n, width=width)])
    st.markdown(f"{line}  \n:small[:gray[{_weights_note(config, trace)}]]", help=_jargon(config, trace))
    if reason := resolve_device(config.device).reason:
        st.caption(reason)


def _jargon(config: ExplorerConfig, trace: AttentionTrace) -> str:
    """The summary's tooltip: the shapes, the input's settings and the time, in the book's terms."""
    values = {
        "x_shape": figures.shape_text(trace, "x"),
        "output_shape": figures.shape_text(trace, "output"),
        "tokens": len(trace.tokens),
        "width": trace.output.shape[-1],
    }
    if config.has("heads"):
        shapes = tr(
            "x {x_shape} → output {output_shape}: B = 1 (sentences), T = {tokens} (tokens), d_out = {width}, "
            "H = {heads} (heads) of head_dim = {head_dim}.",
            heads=trace.num_heads,
            head_dim=trace.queries.shape[-1],
            **values,
        )
    else:
        shapes = tr(
            "x {x_shape} → output {output_shape}: B = 1 (sentences), T = {tokens} (tokens), d_out = {width}.",
            **values,
        )
    settings = tr(
        "{tokenizer} tokenizer, {embedding} embedding, seed {seed}.",
        tokenizer=config.tokenizer,
        embedding=config.embedding,
        seed=config.seed,
    )
    timing = tr(
        "Computed in {ms:.2f} ms on {device}.", ms=trace.seconds * 1e3, device=device_caption(config.device)
    )
    return f"{shapes} {settings} {timing}"


def _weights_note(config: ExplorerConfig, trace: AttentionTrace) -> str:
    """What the weights are: random and untrained (and how this variant computes), or none."""
    if not config.spec.trainable:
        return tr("No trainable weights here: the scores are dot products of the embeddings themselves.")
    notes = [
        tr(
            "W_query, W_key and W_value are random (seed {seed}), not trained, so these patterns mean "
            "nothing yet. For trained heads, see {page}.",
            seed=config.seed,
            page=tr("Watch it learn"),
        )
    ]
    if config.variant == "kv_cache":
        notes.append(
            tr(
                "With the KV cache, the rows are computed one token at a time. Each step computes one row "
                "of scores against the keys cached so far. The cells right of the diagonal are never "
                "computed, so they are blank in the scores."
            )
        )
    if trace.tile_size is not None:
        notes.append(
            tr(
                "The tile size changes the order of the work and how much memory is held at once, not the "
                "numbers. The T × T matrices here are the tiles placed side by side ({page}, question 5).",
                page=tr("Modern attention"),
            )
        )
    return " ".join(notes)


@language.fragment(key=BODY)
def explorer_body() -> None:
    """The sentence and the example, notes, the summary and the chosen view: a keyed fragment. Its
    own controls rerun only this, and so do most knobs in the sidebar (ui/controls._sync): lighter
    reruns for a lecture hall. It reads the knobs' state itself: a fragment's own rerun would
    replay the arguments of the last page run."""
    sentence_row()
    config, notes = explorer_config()
    show_notes(notes)
    if config.tokenizer != "chars" and unspaced(config.text):
        st.caption(
            tr(
                "Japanese and Chinese are written without spaces between words, so the words tokenizer "
                "finds no word boundaries. It splits those characters one by one instead."
            )
        )
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
                ),
                width,
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
    if len(steps) > 1:
        chain = " → ".join(STEPS[name].arrow_text() for name in steps)
        marks.append(tr("Each step feeds the next: {chain}.", chain=chain))
    if trace.mask is not None:
        marks.append(tr("Hatched cells are masked (−inf)."))
    if trace.dropout_mask is not None:
        marks.append(tr("✕ marks weights dropout removed."))
    marks.append(tr("Rows are queries (the token that looks); columns are keys (the token it looks at)."))
    captions = [" ".join(marks)]
    shown_as = []
    if not shown["numbers"]:
        shown_as.append(
            tr(
                "At this size the numbers in the cells are switched off. Hover over a cell to see its "
                "value, or switch the numbers on."
            )
        )
    if shown["fitted"] and any(STEPS[name].kind == "weights" for name in drawn):
        shown_as.append(
            tr(
                "The colours run from the smallest weight to the 99th percentile; the largest 1% all get "
                "the top colour."
            )
        )
    if shown_as:
        captions.append(" ".join(shown_as))
    if trace.mask is None and config.has("causal"):
        captions.append(tr("No causal mask: every query sees every key (masked_scores = scaled_scores)."))
    if trace.dropout_mask is None and config.has("dropout"):
        captions.append(tr("No dropout in this run: set dropout p above 0 and switch train mode on."))
    return captions


def heads_view(trace: AttentionTrace) -> None:
    st.caption(
        tr(
            "weights {shape}: every head, shown by colour only. Dark = 0, yellow = 1. To see a head's "
            "exact numbers, pick it in another view.",
            shape=figures.shape_text(trace, "weights"),
        )
    )
    titles = None
    if trace.kv_groups is not None:  # grouped-query: which key/value head each query head reads
        size = trace.num_heads // trace.kv_groups
        titles = [tr("head {head} · kv {group}", head=h, group=h // size) for h in range(trace.num_heads)]
    chart(figures.heads_grid(trace.weights[0].numpy(), titles), key="heads_grid")


def vectors_view(trace: AttentionTrace, head: int) -> None:
    """x and the output, then the head's queries, keys, values and context: two a row."""
    labels = token_labels(trace.tokens.texts)
    matrices = [
        (trace.x[0], tr("x (embeddings) {shape}", shape=figures.shape_text(trace, "x")), "x"),
        (trace.output[0], tr("output {shape}", shape=figures.shape_text(trace, "output")), "output"),
    ]
    for n in ("queries", "keys", "values", "context"):
        shape = figures.shape_text(trace, n)
        if trace.num_heads > 1:
            title = tr("{name}, head {head} of {shape}", name=n, head=head, shape=shape)
        else:
            title = tr("{name} of {shape}", name=n, shape=shape)
        matrices.append((getattr(trace, n)[0, head], title, n))
    for row in range(0, len(matrices), 2):
        for column, (matrix, title, name) in zip(st.columns(2), matrices[row : row + 2], strict=True):
            with column:
                chart(figures.vectors_heatmap(matrix, labels, title), key=f"vec_{name}", width=HALF_PX)


def query_view(trace: AttentionTrace, head: int, query: int) -> None:
    """How one query spreads its weight over the keys, and its context as the weighted sum."""
    dropped = trace.dropout_mask is not None
    masked = None if trace.mask is None else trace.mask[query].numpy()
    weights = trace.dropped_weights[0, head, query].numpy()  # (T,): what the context sums
    bar = figures.query_bar(trace.tokens.texts, weights, masked, query, after_dropout=dropped)
    chart(bar, key="query_bar")
    weights_name = "dropped_weights" if dropped else "weights"
    st.markdown(
        tr(
            "**Context vector of query {query} = Σ {weights} × value vector** (head {head})",
            query=query,
            weights=weights_name,
            head=head,
        )
    )
    summed = export.weighted_sum_frame(trace, head, query)
    if summed.size <= MAX_TABLE_CELLS:
        number_table(summed, key="query_sum")
    else:
        st.caption(tr("This is too large for a table here. Download the values and weights as CSV below."))


def tokens_view(config: ExplorerConfig, trace: AttentionTrace) -> None:
    """The tokens with their ids, the vocabulary, and the embedding matrix x."""
    tokens = trace.tokens
    columns = {
        # TRANSLATORS: column headers of the Tokens table: a token's position, its text, its id
        tr("position"): range(len(tokens)),
        tr("token"): tokens.texts,
        tr("id"): tokens.ids,
    }
    st.dataframe(pd.DataFrame(columns), hide_index=True, width="content")
    size = len(tokens.vocab)
    vocab = literal(", ".join(tokens.vocab[:50])) + (" …" if size > 50 else "")
    st.caption(
        # TRANSLATORS: the English text says "entries" for any count; use your language's plural forms
        tr_n(
            "Vocabulary ({n} entries, sorted; id = index): {vocab}",
            "Vocabulary ({n} entries, sorted; id = index): {vocab}",
            size,
            n=size,
            vocab=vocab,
        )
    )
    st.markdown(
        tr(
            "**Embedding matrix x** {shape}, from {source}",
            shape=figures.shape_text(trace, "x"),
            source=tr(EMBEDDING_LABELS[config.embedding]),
        )
    )
    x_frame = export.matrix_frame(trace, "x")
    if x_frame.size <= MAX_TABLE_CELLS:
        number_table(x_frame, key="x_table")
    else:
        vectors = VIEW_LABELS["vectors"]  # (not inside tr(): the catalogs would take its key)
        st.caption(
            tr(
                "This is too large for a table here. See the {tab} tab, or download x as CSV.",
                tab=tr(vectors),
            )
        )


def share_view(config: ExplorerConfig, trace: AttentionTrace, shown: dict) -> None:
    """The link to this view, the PyTorch code that reproduces it, and the downloads."""
    view = explorer_url(config, shown["shown"] | {"view": None})
    st.markdown(
        tr(
            "**Share.** The address bar holds the whole view (except which tab is open). This link "
            "reproduces the view exactly, and **{button}** copies the link in one click:",
            button=tr("Copy link"),
        )
    )
    copy_link_button(link_query(view))
    st.code(share_link(view), language=None, wrap_lines=True)
    with st.expander(tr("PyTorch code that reproduces these numbers"), expanded=False):
        st.code(pytorch_script(config), language="python")
    st.markdown(
        tr(
            "**Downloads** (CSV files label rows and columns with the tokens; for a PNG, use each chart's "
            "camera icon)"
        )
    )
    downloads(trace, shown["head"])


def downloads(trace: AttentionTrace, head: int) -> None:
    """Any matrix of the trace as CSV (one head of a per-head one), and the trace as JSON."""
    c1, c2, c3 = st.columns([2, 1, 1])
    tensors = [n for n in trace.TENSORS if getattr(trace, n) is not None]
    name = c1.selectbox(tr("Matrix"), tensors, key="csv_name")
    per_head = getattr(trace, name).dim() == 4
    csv_head = c2.number_input(
        # TRANSLATORS: which attention head's matrix to download (a number box)
        tr("head"),
        0,
        trace.num_heads - 1,
        value=head,
        key="csv_head",
        disabled=not per_head,
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
        tr("Whole trace (JSON)")
        if whole
        else tr("Trace of head {head} (JSON; the whole trace is too large)", head=head),
        lambda: export.trace_json(trace, None if whole else head),
        file_name="trace.json" if whole else f"trace_head{head}.json",
        mime="application/json",
        on_click="ignore",
    )
