"""The Learn page's steps, one function each: the step's formula, its question, and once the
learner has predicted (or asked to see), the live numbers that answer it. Every number comes from
attention.lessons.chapter3 or the engine's trace."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from attention import i18n
from attention.figures.explorer import StepPanel, shape_text, step_figure, vectors_heatmap
from attention.figures.layout import token_labels
from attention.i18n import tr, tr_n
from attention.lessons import chapter3 as lesson
from ui.cache import LEARN_PER_TRACE, cached, cached_figure, cached_trace
from ui.classroom.questions import predict
from ui.learn.controls import D_OUTS, HEADS, Lesson
from ui.widgets import (
    chart,
    chart_width,
    code_block,
    decimals,
    formulas,
    formulas_markdown,
    literal,
    markdown_table,
    projected,
    row,
    side_by_side,
)

WIDE = 900  # px a full-width matrix is drawn at
HALF = WIDE // 2
KNOB_PX = 220  # a menu of small numbers, its label whole in every language


@st.cache_data(show_spinner=False)
def scaling_table() -> pd.DataFrame:
    """The √d_k demo draws ~6 M random numbers; it depends on nothing the learner sets."""
    return pd.DataFrame(lesson.scaling_demo())


def matrix(page: Lesson, z, name: str, title: str, subtitle: str, *, key: str, width: int = WIDE, **marks):
    """A (T, T) matrix as a heatmap with its numbers in the cells, rows queries, columns keys;
    `marks`: StepPanel's mask and scale. Built once per matrix, texts and width for every session
    that shows it (ui/cache.py): a class loading Learn at once builds each one once."""
    panel, width = StepPanel(name, z, title, subtitle, **marks), chart_width(width)  # a phone's: 360 px
    arrays = [np.ascontiguousarray(a) for a in (z, marks.get("mask")) if a is not None]
    drawn = hashlib.blake2b(b"".join(a.tobytes() + str(a.shape).encode() for a in arrays)).digest()
    projector = bool(st.session_state.get("projector"))
    fig = cached_figure(
        page.trace,
        ("learn", name, title, subtitle, width, projector, str(marks.get("scale")), drawn),
        lambda: projected(step_figure(page.tokens, panel, numbers=True, width_px=width), width),
        most=LEARN_PER_TRACE,
    )
    chart(fig, key=key, ready=True)


def two_matrices(page: Lesson, left: tuple, right: tuple, **marks) -> None:
    """Two matrices side by side: each (z, name, title, subtitle, key)."""
    with row(pair=left[-1]):
        for z, name, title, subtitle, key in (left, right):
            matrix(page, z, name, title, subtitle, key=key, width=HALF, **marks)


def tokens_to_embeddings(page: Lesson, heading: str) -> None:
    """Step 1, under its `heading`: the blog's vocabulary, each token's id, and the embedding matrix x."""
    trace, info = page.trace, page.config.tokens
    recipe = tr(
        "Raschka's blog recipe: split the text into words and sort the unique words. Each word's id is "
        "its place in that sorted list."
    )
    above = formulas_markdown(
        r"\text{vocabulary} = \mathrm{sorted}(\mathrm{set}(\text{words})),",
        r"x^{(i)} = E[\mathrm{id}_i]",
        heading=heading,
        lead=recipe,
    )
    # TRANSLATORS: a table's column header: the token's text
    table = lambda: markdown_table(pd.DataFrame({tr("token"): info.texts, "id": info.ids}), None)  # noqa: E731
    ids = cached(trace, ("ids",), table, LEARN_PER_TRACE)  # once per sentence: pandas costs
    # title, formulas, the vocabulary and the ids: one element (each is a message on every load)
    vocabulary = code_block(f"vocabulary = {info.vocabulary}")
    st.markdown(f"{above}\n\n{vocabulary}\n\n{ids}", unsafe_allow_html=True)  # ids: escaped
    T, vocab, d_in = len(page.tokens), len(info.vocab), page.config.d_in
    options = {  # the choices by what they say; the first is right
        "token": tr("{n}: one per token", n=T),
        "vocabulary": tr("{n}: one per vocabulary word", n=vocab),
        "dimension": tr("{n}: one per embedding dimension", n=d_in),
    }
    if predict(
        "check_ids",
        tr("How many rows does the embedding matrix x have?"),
        list(options.values()),
        options["token"],
        tr(
            "There is one row per token position, not one per word in the vocabulary, so a repeated word "
            "gets its row again."
        ),
        page.everything,
        view=page.view,
    ):
        seed = page.config.seed
        if page.own:
            source = tr("nn.Embedding({vocab}, 3), seed {seed}", vocab=vocab, seed=seed)
        else:
            source = tr("the book's fixed vectors")
        st.markdown(f"**x** {shape_text(trace, 'x')} — {source}")
        title = f"x {shape_text(trace, 'x')}"
        figure = vectors_heatmap(trace.x[0], token_labels(page.tokens), title, numbers=True, width_px=HALF)
        chart(figure, key="learn_x")


def query_picker(page: Lesson) -> int:
    """The query token the worked sums are for (kept within the sentence)."""
    st.session_state["learn_query"] = min(st.session_state["learn_query"], len(page.tokens) - 1)
    return st.selectbox(
        tr("Query token"), range(len(page.tokens)), format_func=page.labels.__getitem__, key="learn_query"
    )


def simplified_attention(page: Lesson, heading: str) -> int:
    """Step 2, under its `heading`: section 3.3's dot products, softmax and weighted sum for one
    query (picked under the formulas), then all; returns the query."""
    formulas(
        r"\omega_{qj} = x^{(q)} \cdot x^{(j)},",
        r"\alpha_{qj} = \frac{e^{\omega_{qj}}}{\sum_k e^{\omega_{qk}}},",
        r"z^{(q)} = \sum_j \alpha_{qj}\, x^{(j)}",
        heading=heading,
    )
    query = query_picker(page)
    _worked(page, query)
    return query


def _worked(page: Lesson, query: int) -> None:
    """Step 2's question about `query`, then its sums once answered."""
    labels, work = page.labels, lesson.worked_query(page.config, query)
    if not predict(
        "check_top",
        tr("Before looking: which key will “{token}” attend to most?", token=literal(page.tokens[query])),
        labels,
        labels[work.top_key],
        tr("The softmax keeps the order of the scores, so the largest dot product gets the largest weight."),
        page.everything,
        view=page.view,
    ):
        return
    rows = [
        {
            # TRANSLATORS: a table's column header: the key token (attention's query, key, value)
            tr("key"): labels[j],
            "ω = x(q)·x(j)": f"{work.dot_terms[j]} = {lesson.fmt(work.scores[j])}",
            "exp(ω)": lesson.fmt(work.exps[j]),
            "α = exp(ω)/Σ": lesson.fmt(work.weights[j]),
        }
        for j in range(len(labels))
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.markdown(
        tr(
            "Σ exp(ω) = **{total}**. Each α is its exp(ω) divided by this total, so the α values add up to "
            "1.",
            total=lesson.fmt(work.exp_sum),
        )
    )
    st.markdown(
        f"z({query}) = " + " + ".join(f"{lesson.fmt(w, 4)}·x({j})" for j, w in enumerate(work.weights))
    )
    st.code("context = [" + ", ".join(lesson.fmt(v) for v in work.context) + "]", language=None)
    if not page.own and page.source.startswith("Hello shiny sun") and query == 1:
        st.info(
            tr(
                "The book's hand-worked example prints [0.3992, 0.3858, 0.8610] because it rounds each "
                "term to 4 decimals before adding. Exact float32 arithmetic gives the values above."
            )
        )
    simple = lesson.simplified_matrices(page.config)
    two_matrices(
        page,
        (simple["scores"], "scores", tr("ω = x · xᵀ, every query"), tr("scores (T, T)"), "learn_omega"),
        (
            simple["weights"],
            "weights",
            tr("α = softmax(ω), row by row"),
            tr("weights (T, T): rows sum to 1"),
            "learn_alpha",
        ),
    )


def trainable_weights(page: Lesson, query: int, heading: str) -> None:
    """Step 3, under its `heading`: SelfAttention_v1's three matrices, the projections, ω and α,
    then why √d_k."""
    trace, most = page.trace, LEARN_PER_TRACE
    above = formulas_markdown(
        r"q^{(i)} = x^{(i)} W_q,\quad k^{(i)} = x^{(i)} W_k,",
        r"v^{(i)} = x^{(i)} W_v,\quad \omega = q k^\top,",
        r"\alpha = \mathrm{softmax}\!\left(\omega / \sqrt{d_k}\right)",
        heading=heading,
    )
    # the tables: made once per sentence and seed (pandas on every load was ~10% of Learn's: py-spy)
    weights, qkv = (
        cached(trace, ("W",), lambda: _weights(page), most),
        cached(trace, ("qkv",), lambda: _qkv(page), most),
    )
    side_by_side(weights, qkv, above=above)  # under the title and formulas, one element
    two_matrices(
        page,
        (
            trace.scores[0, 0].numpy(),
            "scores",
            tr("ω = queries · keysᵀ"),
            tr("scores {shape}", shape=shape_text(trace, "scores")),
            "learn_qk",
        ),
        (
            trace.weights[0, 0].numpy(),
            "weights",
            "α = softmax(ω / √d_k)",
            tr("weights: d_k = 2, divided by √2 ≈ {divisor:.4g}", divisor=trace.divisor),
            "learn_qk_weights",
        ),
    )
    scores = ", ".join(lesson.fmt(v) for v in trace.scores[0, 0, query].tolist())
    why_scale(
        page,
        tr("Row {query} (“{token}”) of ω: {row}", query=query, token=literal(page.tokens[query]), row=scores),
    )


def _weights(page: Lesson) -> list[str]:
    """SelfAttention_v1's three matrices (d_in=3, d_out=2, seeded) as tables."""
    weights = lesson.trainable_weights(page.config)
    return [
        f"**{name}** {tuple(w.shape)}\n\n" + markdown_table(pd.DataFrame(w)) for name, w in weights.items()
    ]


def _qkv(page: Lesson) -> list[str]:
    """The first head's queries, keys and values as tables, a row per token."""
    tables = []
    for name in ("queries", "keys", "values"):
        rows = pd.DataFrame(getattr(page.trace, name)[0, 0].numpy(), index=page.labels)
        tables.append(
            f"**{name}** {shape_text(page.trace, name)}\n\n" + markdown_table(rows, corner=tr("token"))
        )
    return tables


def why_scale(page: Lesson, before: str) -> None:
    """Step 3's question: why the scores are divided by √d_k, answered by the random-vector demo;
    under the words `before` it (one element with them)."""
    why = tr(
        "Take random queries and keys with variance 1. Their dot products spread out as much as √d_k. "
        "Without scaling, one weight then takes almost everything: the softmax saturates and its "
        "gradients vanish."
    )
    title = tr("Why divide by √d_k?")  # (a tr() inside an f-string is not extracted)
    st.markdown(f"{before}\n\n### {title}\n\n{why}")  # one element (formulas)
    options = {  # the choices by what they say; the first is right
        "one": tr("goes toward 1"),
        "eighth": tr("stays near 1/8"),
        "zero": tr("goes toward 0"),
    }
    if predict(
        "check_scale",
        tr("d_k grows from 2 to 2048. The unscaled softmax's largest weight…"),
        list(options.values()),
        options["one"],
        tr("When the scores spread out as much as √d_k, exp() of the largest score dwarfs all the others."),
        page.everything,
        view=page.view,
    ):
        columns = {name: tr(name) for name in lesson.SCALING_COLUMNS}  # headers in the reader's words
        places = dict(zip(columns.values(), (2, 3, 3), strict=True))
        st.dataframe(**decimals(scaling_table().rename(columns=columns), places), hide_index=True)


def multi_head(page: Lesson, heading: str) -> None:
    """Step 6, under its `heading`: the wrapper against split heads, the transpose's shapes, each
    head's weights."""
    T = len(page.tokens)
    formulas(
        r"\mathrm{head}_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{d_{head}}} + M\right) V_h,",
        r"\mathrm{MultiHead}(x) = [\mathrm{head}_1, \dots, \mathrm{head}_H]\, W_{out}",
        heading=heading,
    )
    knobs = row()
    # TRANSLATORS: a menu's label: the number of attention heads
    heads = knobs.selectbox(tr("heads"), HEADS, key="learn_heads", width=KNOB_PX)
    d_out = knobs.selectbox(tr("d_out (total)"), D_OUTS, key="learn_d_out", width=KNOB_PX)
    head_dim = d_out // heads
    st.markdown(
        # TRANSLATORS: the English text uses "heads" for every count, one included
        tr_n(
            "**Wrapper** (3.6.1): {heads} separate CausalAttention heads of width d_out each, concatenated → "
            "output width {heads} × d_out. **Split heads** (3.6.2): one projection of width {d_out}, split "
            "into {heads} heads of head_dim = {d_out} / {heads} = {head_dim}, then out_proj.",
            "**Wrapper** (3.6.1): {heads} separate CausalAttention heads of width d_out each, concatenated → "
            "output width {heads} × d_out. **Split heads** (3.6.2): one projection of width {d_out}, split "
            "into {heads} heads of head_dim = {d_out} / {heads} = {head_dim}, then out_proj.",
            heads,
            heads=heads,
            d_out=d_out,
            head_dim=head_dim,
        )
    )
    # Named axes keep the question fair when two sizes happen to be equal (6 tokens, head_dim 6).
    before = f"(b, num_tokens, num_heads, head_dim) = (1, {T}, {heads}, {head_dim})"
    after = [
        f"(b, num_heads, num_tokens, head_dim) = (1, {heads}, {T}, {head_dim})",
        f"(b, num_tokens, head_dim, num_heads) = (1, {T}, {head_dim}, {heads})",
        f"(b, head_dim, num_heads, num_tokens) = (1, {head_dim}, {heads}, {T})",
    ]
    if predict(
        "check_transpose",
        tr("keys has shape {before}. After keys.transpose(1, 2)?", before=before),
        after,
        after[0],
        tr(
            "After the transpose, the heads axis sits where a batch axis would: each head computes its own "
            "attention, independently of the others."
        ),
        page.everything,
        view=page.view,
    ):
        # TRANSLATORS: two column headers: a line of MultiHeadAttention.forward, and its tensor's shape
        columns = [tr("step"), tr("shape")]
        st.table(pd.DataFrame(lesson.multihead_shapes(1, T, 3, d_out, heads), columns=columns))
        each_head(page, d_out, heads)


def each_head(page: Lesson, d_out: int, heads: int) -> None:
    """Step 6's answer, drawn: MultiHeadAttention's weights, one heatmap per head, two a row."""
    seed, head_dim = page.config.seed, d_out // heads
    multi = cached_trace(replace(page.config, variant="mha", d_out=d_out, heads=heads))
    st.markdown(
        # TRANSLATORS: the English text uses "heads" for every count, one included
        tr_n(
            "**Each head's weights** (MultiHeadAttention, d_out = {d_out}, {heads} heads, seed {seed}):",
            "**Each head's weights** (MultiHeadAttention, d_out = {d_out}, {heads} heads, seed {seed}):",
            heads,
            d_out=d_out,
            heads=heads,
            seed=seed,
        )
    )
    future = multi.mask.numpy()
    per_row = 2 if heads > 1 else 1  # two a row: each wide enough for its numbers
    for first in range(0, heads, per_row):
        for column, h in zip(st.columns(per_row), range(first, min(first + per_row, heads)), strict=False):
            with column:
                matrix(
                    page,
                    multi.weights[0, h].numpy(),
                    "weights",
                    # TRANSLATORS: a chart's title: attention head number h
                    tr("head {h}", h=h),
                    f"head_dim {head_dim}",
                    mask=future,
                    width=WIDE // per_row,
                    key=f"learn_head_{h}",
                )


def exercises() -> None:
    """Exercises 3.2 and 3.3, answered with the book's classes: one element, its words made once
    per language (the same on every load)."""
    st.markdown(_exercise_text(i18n.language()))


@functools.cache
def _exercise_text(language: str) -> str:  # tr() reads the session's language: the key says which
    ex32 = lesson.exercise_3_2()
    ex32_text = tr(
        "**Exercise 3.2:** the wrapper with d_out = 1 per head and 2 heads gives context vectors of "
        "width **{width}**. Their shape is {shape}, and the first row is [{row}].",
        width=ex32.shape[-1],
        shape=tuple(ex32.shape),
        row=", ".join(f"{v:.4f}" for v in ex32[0, 0].tolist()),
    )
    ex33_text = tr_n(
        "**Exercise 3.3:** MultiHeadAttention(d_in = d_out = 768, 12 heads, qkv_bias=False) has "
        "**{count:,}** parameter: 3 × 768 × 768 for W_query, W_key, W_value plus "
        "768 × 768 + 768 for out_proj.",
        "**Exercise 3.3:** MultiHeadAttention(d_in = d_out = 768, 12 heads, qkv_bias=False) has "
        "**{count:,}** parameters: 3 × 768 × 768 for W_query, W_key, W_value plus "
        "768 × 768 + 768 for out_proj.",
        lesson.parameter_count(),
        count=lesson.parameter_count(),
    )
    return f"{ex32_text}\n\n{ex33_text}"
