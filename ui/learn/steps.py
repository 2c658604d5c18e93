"""The Learn page's steps, one function each: the step's formula, its question, and once the
learner has predicted (or asked to see), the live numbers that answer it. Every number comes from
attention.lessons.chapter3 or the engine's trace."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from attention.figures.explorer import StepPanel, shape_text, step_figure, vectors_heatmap
from attention.figures.layout import SEQUENTIAL, token_labels
from attention.lessons import chapter3 as lesson
from ui.cache import cached_trace
from ui.learn.controls import D_OUTS, HEADS, PS, Lesson
from ui.widgets import chart, literal, predict

WIDE = 900  # px a full-width matrix is drawn at
HALF = WIDE // 2


@st.cache_data(show_spinner=False)
def scaling_table() -> pd.DataFrame:
    """The √d_k demo draws ~6 M random numbers; it depends on nothing the learner sets."""
    return pd.DataFrame(lesson.scaling_demo())


def matrix(page: Lesson, z, name: str, title: str, subtitle: str, *, key: str, width: int = WIDE, **marks):
    """A (T, T) matrix as a heatmap with its numbers in the cells, rows queries, columns keys;
    `marks`: StepPanel's mask and scale."""
    panel = StepPanel(name, z, title, subtitle, **marks)
    chart(step_figure(page.tokens, panel, numbers=True, width_px=width), key=key)


def two_matrices(page: Lesson, left: tuple, right: tuple, **marks) -> None:
    """Two matrices side by side: each (z, name, title, subtitle, key)."""
    for column, (z, name, title, subtitle, key) in zip(st.columns(2), (left, right), strict=True):
        with column:
            matrix(page, z, name, title, subtitle, key=key, width=HALF, **marks)


def tokens_to_embeddings(page: Lesson) -> None:
    """Step 1: the blog's vocabulary, each token's id, and the embedding matrix x."""
    trace, info = page.trace, page.config.tokens
    st.markdown("Raschka's blog recipe: split into words, sort the unique words, a word's id is its place.")
    st.latex(
        r"\text{vocabulary} = \mathrm{sorted}(\mathrm{set}(\text{words})),\quad x^{(i)} = E[\mathrm{id}_i]"
    )
    st.code(f"vocabulary = {info.vocabulary}", language=None, wrap_lines=True)
    st.dataframe(pd.DataFrame({"token": info.texts, "id": info.ids}), width="content")
    T, vocab, d_in = len(page.tokens), len(info.vocab), page.config.d_in
    if predict(
        "check_ids",
        "How many rows does the embedding matrix x have?",
        [f"{T}: one per token", f"{vocab}: one per vocabulary word", f"{d_in}: one per embedding dimension"],
        f"{T}: one per token",
        "One row per token (position), not per vocabulary entry: repeated words repeat their row.",
        page.everything,
    ):
        seed = page.config.seed
        source = f"nn.Embedding({vocab}, 3), seed {seed}" if page.own else "the book's fixed vectors"
        st.markdown(f"**x** {shape_text(trace, 'x')} — {source}")
        title = f"x {shape_text(trace, 'x')}"
        figure = vectors_heatmap(trace.x[0], token_labels(page.tokens), title, numbers=True, width_px=HALF)
        chart(figure, key="learn_x")


def query_picker(page: Lesson) -> int:
    """The query token the worked sums are for (kept within the sentence)."""
    st.session_state["learn_query"] = min(st.session_state["learn_query"], len(page.tokens) - 1)
    return st.selectbox(
        "Query token", range(len(page.tokens)), format_func=page.labels.__getitem__, key="learn_query"
    )


def simplified_attention(page: Lesson, query: int) -> None:
    """Step 2: section 3.3's dot products, softmax and weighted sum for one query, then all."""
    labels, work = page.labels, lesson.worked_query(page.config, query)
    st.latex(
        r"\omega_{qj} = x^{(q)} \cdot x^{(j)}, \qquad "
        r"\alpha_{qj} = \frac{e^{\omega_{qj}}}{\sum_k e^{\omega_{qk}}},"
        r"\qquad z^{(q)} = \sum_j \alpha_{qj}\, x^{(j)}"
    )
    if not predict(
        "check_top",
        f"Before looking: which key will “{literal(page.tokens[query])}” attend to most?",
        labels,
        labels[work.top_key],
        "The largest dot product wins after the softmax, which keeps the order.",
        page.everything,
    ):
        return
    rows = [
        {
            "key": labels[j],
            "ω = x(q)·x(j)": f"{work.dot_terms[j]} = {lesson.fmt(work.scores[j])}",
            "exp(ω)": lesson.fmt(work.exps[j]),
            "α = exp(ω)/Σ": lesson.fmt(work.weights[j]),
        }
        for j in range(len(labels))
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.markdown(
        f"Σ exp(ω) = **{lesson.fmt(work.exp_sum)}**; each α is exp(ω) divided by it, and the α sum to 1."
    )
    st.markdown(
        f"z({query}) = " + " + ".join(f"{lesson.fmt(w, 4)}·x({j})" for j, w in enumerate(work.weights))
    )
    st.code("context = [" + ", ".join(lesson.fmt(v) for v in work.context) + "]", language=None)
    if not page.own and page.source.startswith("Hello shiny sun") and query == 1:
        st.info(
            "The hand-worked example prints [0.3992, 0.3858, 0.8610]: it rounds each term to 4 decimals "
            "before adding. Exact float32 arithmetic gives the values above."
        )
    simple = lesson.simplified_matrices(page.config)
    two_matrices(
        page,
        (simple["scores"], "scores", "ω = x · xᵀ, every query", "scores (T, T)", "learn_omega"),
        (
            simple["weights"],
            "weights",
            "α = softmax(ω), row by row",
            "weights (T, T): rows sum to 1",
            "learn_alpha",
        ),
    )


def trainable_weights(page: Lesson, query: int) -> None:
    """Step 3: SelfAttention_v1's three matrices, the projections, ω and α, then why √d_k."""
    trace = page.trace
    weights = lesson.trainable_weights(page.config)  # SelfAttention_v1(d_in=3, d_out=2), seeded
    st.latex(
        r"q^{(i)} = x^{(i)} W_q,\quad k^{(i)} = x^{(i)} W_k,\quad v^{(i)} = x^{(i)} W_v,\qquad"
        r"\omega = q k^\top,\quad \alpha = \mathrm{softmax}\!\left(\omega / \sqrt{d_k}\right)"
    )
    for column, (name, w) in zip(st.columns(3), weights.items(), strict=True):
        column.markdown(f"**{name}** {tuple(w.shape)}")
        column.dataframe(pd.DataFrame(w).style.format("{:.4f}"), width="content")
    for column, name in zip(st.columns(3), ("queries", "keys", "values"), strict=True):
        column.markdown(f"**{name}** {shape_text(trace, name)}")
        values = pd.DataFrame(getattr(trace, name)[0, 0].numpy(), index=page.labels)
        column.dataframe(values.style.format("{:.4f}"), width="content")
    two_matrices(
        page,
        (
            trace.scores[0, 0].numpy(),
            "scores",
            "ω = queries · keysᵀ",
            f"scores {shape_text(trace, 'scores')}",
            "learn_qk",
        ),
        (
            trace.weights[0, 0].numpy(),
            "weights",
            "α = softmax(ω / √d_k)",
            f"weights: d_k = 2, divided by √2 ≈ {trace.divisor:.4g}",
            "learn_qk_weights",
        ),
    )
    st.markdown(
        f"Row {query} (“{literal(page.tokens[query])}”) of ω: "
        + ", ".join(lesson.fmt(v) for v in trace.scores[0, 0, query].tolist())
    )
    st.subheader("Why divide by √d_k?")
    st.markdown(
        "Random queries and keys with unit variance: their dot products spread like √d_k, so without scaling "
        "one weight takes almost everything (the softmax saturates and its gradients vanish)."
    )
    if predict(
        "check_scale",
        "d_k grows from 2 to 2048. The unscaled softmax's largest weight…",
        ["goes toward 1", "stays near 1/8", "goes toward 0"],
        "goes toward 1",
        "Scores of spread √d_k make exp() of the largest dwarf the rest.",
        page.everything,
    ):
        formats = {
            "score std": "{:.2f}",
            "largest weight, unscaled": "{:.3f}",
            "largest weight, scaled": "{:.3f}",
        }
        st.dataframe(scaling_table().style.format(formats), hide_index=True)


def causal_mask(page: Lesson) -> None:
    """Step 4: the book's two ways to mask the future, side by side, and how far apart they are."""
    T = len(page.tokens)
    st.latex(
        r"\text{A: } \alpha' = \frac{\alpha \odot \mathrm{tril}}{\sum (\alpha \odot \mathrm{tril})}"
        r"\qquad \text{B: } \alpha = \mathrm{softmax}(\omega + M),\ M_{ij} = -\infty \text{ for } j > i"
    )
    if not predict(
        "check_mask",
        "With the causal mask, what weight does the first token give the last one?",
        ["0", "1 / T", "it depends on the scores"],
        "0",
        "Everything above the diagonal is exactly 0.",
        page.everything,
    ):
        return
    two = lesson.causal_two_ways(page.config)
    future = (two["masked_scores"] == float("-inf")).numpy()
    matrix(
        page,
        future.astype(float),
        "mask",
        "The mask: 1 where a query may not look (a later key)",
        f"mask ({T}, {T}), True above the diagonal",
        scale=SEQUENTIAL,
        key="learn_mask",
    )
    two_matrices(
        page,
        (
            two["renormalised"].numpy(),
            "weights",
            "A: multiply by tril, renormalise",
            "the book's first way",
            "learn_tril",
        ),
        (
            two["minus_inf"].numpy(),
            "weights",
            "B: −inf before the softmax",
            "CausalAttention's way",
            "learn_minus_inf",
        ),
        mask=future,
    )
    diff = (two["renormalised"] - two["minus_inf"]).abs().max().item()
    st.markdown(
        f"Largest difference: **{diff:.1e}** (float rounding). B is preferred: one softmax instead of "
        "softmax, multiply, sum and divide, and masked keys never get probability to remove — "
        "the future is never seen, not seen-then-erased."
    )


def dropout(page: Lesson) -> None:
    """Step 5: one draw of the dropout mask, training against evaluation, and the rows' average."""
    T = len(page.tokens)
    st.latex(
        r"\tilde\alpha_{ij} = \frac{\alpha_{ij}\, m_{ij}}{1-p},\qquad m_{ij} \sim \mathrm{Bernoulli}(1-p)"
    )
    if not predict(
        "check_dropout",
        "p = 0.5. A kept weight of 0.2 becomes…",
        ["0.1", "0.2", "0.4"],
        "0.4",
        "Kept weights are divided by 1 − p = 0.5, so the expected row sum stays 1.",
        page.everything,
    ):
        return
    p = st.select_slider("dropout p", PS, key="learn_p")
    if p == 0:
        st.info("p = 0: nothing is dropped.")
        return
    drop = lesson.dropout_demo(page.config, p)
    one = drop["trace"]
    future, keep = one.mask.numpy(), one.dropout_mask[0, 0].numpy()
    matrix(
        page,
        keep.astype(float),
        "mask",
        "m: 1 = kept, 0 = dropped",
        f"dropout mask ({T}, {T}), p = {p}",
        scale=SEQUENTIAL,
        key="learn_keep",
    )
    two_matrices(
        page,
        (
            one.dropped_weights[0, 0].numpy(),
            "dropped_weights",
            f"train: α·m/(1−p), kept ×{1 / (1 - p):.3g}",
            "dropped_weights",
            "learn_train",
        ),
        (drop["eval"].dropped_weights[0, 0].numpy(), "weights", "eval: no dropout", "weights", "learn_eval"),
        mask=future,
    )
    sums = ", ".join(f"{v:.3f}" for v in drop["mean_row_sums"].tolist())
    st.markdown(
        f"One draw's rows no longer sum to 1; averaged over {drop['draws']:,} draws they do: **{sums}**."
    )


def multi_head(page: Lesson) -> None:
    """Step 6: the wrapper against split heads, the transpose's shapes, each head's weights."""
    T, seed = len(page.tokens), page.config.seed
    st.latex(
        r"\mathrm{head}_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{d_{head}}} + M\right) V_h,"
        r"\qquad "
        r"\mathrm{MultiHead}(x) = [\mathrm{head}_1, \dots, \mathrm{head}_H]\, W_{out}"
    )
    h_col, d_col = st.columns(2)
    heads = h_col.selectbox("heads", HEADS, key="learn_heads")
    d_out = d_col.selectbox("d_out (total)", D_OUTS, key="learn_d_out")
    head_dim = d_out // heads
    st.markdown(
        f"**Wrapper** (3.6.1): {heads} separate CausalAttention heads of width d_out each, concatenated → "
        f"output width {heads} × d_out. **Split heads** (3.6.2): one projection of width {d_out}, split into "
        f"{heads} heads of head_dim = {d_out} / {heads} = {head_dim}, then out_proj."
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
        f"keys has shape {before}. After keys.transpose(1, 2)?",
        after,
        after[0],
        "Heads become a batch axis, so each head attends alone.",
        page.everything,
    ):
        st.table(pd.DataFrame(lesson.multihead_shapes(1, T, 3, d_out, heads), columns=["step", "shape"]))
        multi = cached_trace(replace(page.config, variant="mha", d_out=d_out, heads=heads))
        st.markdown(
            f"**Each head's weights** (MultiHeadAttention, d_out = {d_out}, {heads} heads, seed {seed}):"
        )
        future = multi.mask.numpy()
        per_row = 2 if heads > 1 else 1  # two a row: each wide enough for its numbers
        for row in range(0, heads, per_row):
            for column, h in zip(st.columns(per_row), range(row, min(row + per_row, heads)), strict=False):
                with column:
                    matrix(
                        page,
                        multi.weights[0, h].numpy(),
                        "weights",
                        f"head {h}",
                        f"head_dim {head_dim}",
                        mask=future,
                        width=WIDE // per_row,
                        key=f"learn_head_{h}",
                    )


def exercises() -> None:
    """Exercises 3.2 and 3.3, answered with the book's classes."""
    ex32 = lesson.exercise_3_2()
    st.markdown(
        f"**Exercise 3.2:** the wrapper with d_out = 1 per head and 2 heads gives context vectors of width "
        f"**{ex32.shape[-1]}**: shape {tuple(ex32.shape)}; first row "
        f"[{', '.join(f'{v:.4f}' for v in ex32[0, 0].tolist())}]."
    )
    st.markdown(
        f"**Exercise 3.3:** MultiHeadAttention(d_in = d_out = 768, 12 heads, qkv_bias=False) has "
        f"**{lesson.parameter_count():,}** parameters: 3 × 768 × 768 for W_query, W_key, W_value plus "
        "768 × 768 + 768 for out_proj."
    )
