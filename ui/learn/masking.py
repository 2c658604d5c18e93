"""The Learn page's steps 4 and 5, what happens to the attention weights after the softmax: the
causal mask the book's two ways, then dropout, each behind its predict-first question."""

from __future__ import annotations

import streamlit as st

from attention.figures.layout import SEQUENTIAL
from attention.i18n import tr, tr_n
from attention.lessons import chapter3 as lesson
from ui.classroom.questions import predict
from ui.learn.controls import PS, Lesson
from ui.learn.steps import matrix, two_matrices
from ui.widgets import formulas


def causal_mask(page: Lesson, heading: str) -> None:
    """Step 4, under its `heading`: the book's two ways to mask the future, side by side, and how
    far apart they are."""
    T = len(page.tokens)
    formulas(
        r"\text{A: } \alpha' = \frac{\alpha \odot \mathrm{tril}}{\sum (\alpha \odot \mathrm{tril})}",
        r"\text{B: } \alpha = \mathrm{softmax}(\omega + M),",
        r"M_{ij} = -\infty \text{ for } j > i",
        heading=heading,
    )
    if not predict(
        "check_mask",
        tr("With the causal mask, what weight does the first token give the last one?"),
        ["0", "1 / T", tr("it depends on the scores")],
        "0",
        tr("Everything above the diagonal is exactly 0."),
        page.everything,
        view=page.view,
    ):
        return
    two = lesson.causal_two_ways(page.config)
    future = (two["masked_scores"] == float("-inf")).numpy()
    matrix(
        page,
        future.astype(float),
        "mask",
        tr("The mask: 1 where a query may not look (a later key)"),
        tr("mask ({T}, {T}), True above the diagonal", T=T),
        scale=SEQUENTIAL,
        key="learn_mask",
    )
    two_matrices(
        page,
        (
            two["renormalised"].numpy(),
            "weights",
            tr("A: multiply by tril, renormalise"),
            tr("the book's first way"),
            "learn_tril",
        ),
        (
            two["minus_inf"].numpy(),
            "weights",
            tr("B: −inf before the softmax"),
            tr("CausalAttention's way"),
            "learn_minus_inf",
        ),
        mask=future,
    )
    diff = (two["renormalised"] - two["minus_inf"]).abs().max().item()
    st.markdown(
        tr(
            "Largest difference: **{diff:.1e}** (float rounding). Way B is preferred: it needs one softmax "
            "instead of softmax, multiply, sum and divide, and masked keys never receive probability that "
            "has to be taken away again. The model never sees the future at all, rather than seeing it and "
            "erasing it.",
            diff=diff,
        )
    )


def dropout(page: Lesson, heading: str) -> None:
    """Step 5, under its `heading`: one draw of the dropout mask, training against evaluation, and
    the rows' average."""
    formulas(
        r"\tilde\alpha_{ij} = \frac{\alpha_{ij}\, m_{ij}}{1-p},",
        r"m_{ij} \sim \mathrm{Bernoulli}(1-p)",
        heading=heading,
    )
    if not predict(
        "check_dropout",
        tr("p = 0.5. A kept weight of 0.2 becomes…"),
        ["0.1", "0.2", "0.4"],
        "0.4",
        tr("Each kept weight is divided by 1 − p = 0.5, so on average a row still adds up to 1."),
        page.everything,
        view=page.view,
    ):
        return
    # TRANSLATORS: a slider's label: the dropout rate p
    p = st.select_slider(tr("dropout p"), PS, key="learn_p")
    if p == 0:
        st.info(tr("p = 0: nothing is dropped."))
        return
    dropout_draw(page, p)


def dropout_draw(page: Lesson, p: float) -> None:
    """Step 5's answer, drawn: one draw's mask, the training and evaluation weights, the rows'
    average over many draws."""
    T = len(page.tokens)
    drop = lesson.dropout_demo(page.config, p)
    one = drop["trace"]
    future, keep = one.mask.numpy(), one.dropout_mask[0, 0].numpy()
    matrix(
        page,
        keep.astype(float),
        "mask",
        tr("m: 1 = kept, 0 = dropped"),
        tr("dropout mask ({T}, {T}), p = {p}", T=T, p=p),
        scale=SEQUENTIAL,
        key="learn_keep",
    )
    two_matrices(
        page,
        (
            one.dropped_weights[0, 0].numpy(),
            "dropped_weights",
            tr("train: α·m/(1−p), kept ×{factor:.3g}", factor=1 / (1 - p)),
            "dropped_weights",
            "learn_train",
        ),
        (
            drop["eval"].dropped_weights[0, 0].numpy(),
            "weights",
            tr("eval: no dropout"),
            "weights",
            "learn_eval",
        ),
        mask=future,
    )
    sums = ", ".join(f"{v:.3f}" for v in drop["mean_row_sums"].tolist())
    draws = drop["draws"]
    st.markdown(
        tr_n(
            "One draw's rows no longer sum to 1; averaged over {draws:,} draw they do: **{sums}**.",
            "One draw's rows no longer sum to 1; averaged over {draws:,} draws they do: **{sums}**.",
            draws,
            draws=draws,
            sums=sums,
        )
    )
