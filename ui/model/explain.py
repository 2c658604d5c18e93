"""Inside a model's "Which explanation?": which tokens made the model predict what it did, by raw
attention, rollout, flow and gradient × input, each scored against the ground truth (what removing
the token does). Two predict-first questions, then the chosen position's table, chart and paragraph.
The numbers come from attention.model.explain through ui.model.caches; the words under them are
explain.summary's and this module's, written from those numbers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from attention.figures import explain as figures
from attention.i18n import N_, tr, tr_n
from attention.model.catalog import ModelInfo
from attention.model.explain import FLOW_MAX_TOKENS, NAMES, Explanation, summary, undecided
from attention.model.gpt import GPTModel
from ui.classroom.questions import predict
from ui.model import caches as models
from ui.model.lens import position_control, shown_text, text_scale
from ui.model.url import BASELINES, label, question_view
from ui.widgets import MAIN_PX, chart, chart_width, keep_choice, literal, number_table, reset_predictions

INTRO = N_(
    "Explanation tools say which tokens mattered by using attention maps, attention rollout (attention "
    "multiplied through all the layers) or gradients, and they often disagree. Here each tool is checked "
    "against a test you can trust: remove a token (replace its embedding, keep its position) and measure "
    "how far the log-probability of the prediction falls."
)
SAME = N_(
    "Both name “{token}”: the last layer's attention gives it {weight:.2f} of its weight, and removing it "
    "lowers the log-probability of “{target}” by {drop:.2f}. Over all the tokens the two rank alike with "
    "Spearman ρ = {rho}."
)
OTHER = N_(
    "The last layer's attention puts most weight on “{attended}” ({weight:.2f}), but removing “{ablated}” "
    "hurts most (the log-probability of “{target}” falls by {drop:.2f}; removing “{attended}”: by "
    "{other:.2f}). Over all the tokens the two rank alike with Spearman ρ = {rho}."
)
METHODS_NOTE = N_(
    "Each method's scores are on its own scale; the chart divides each row by its largest |score| so that "
    "the rows can be compared. The row Spearman ρ (last, or first in a long table) is each method's rank "
    "correlation with the ablation. A rank correlation compares only the order of the tokens: 1 = the same "
    "order, 0 = unrelated. It is nan (undefined) when there is one token, or when a method gives every "
    "token the same score."
)


def rho_text(rho: float) -> str:
    return "—" if np.isnan(rho) else f"{rho:.2f}"


def _no_question(e: Explanation, why: tuple[str, list[int]], tokens: Sequence[str], target: str) -> None:
    """Said instead of the two questions when removing tokens names no single answer (a tie, or no
    removal that matters): a student is not graded on a coin toss."""
    kind, (first, *rest) = why
    drops = e.scores["ablation"]
    if kind == "tie":
        said = tr(
            "No question this time: removing “{a}” and removing “{b}” lower the log-probability of "
            "“{target}” almost equally ({drop_a:.2f} and {drop_b:.2f}). There is no single right answer "
            "to predict. The numbers are below.",
            a=literal(tokens[first]),
            b=literal(tokens[rest[0]]),
            target=literal(target),
            drop_a=drops[first],
            drop_b=drops[rest[0]],
        )
    else:
        said = tr(
            "No question this time: removing any one token lowers the log-probability of “{target}” by "
            "{drop:.2f} at most. That is too little to tell the tokens apart. The numbers are below.",
            target=literal(target),
            drop=drops[first],
        )
    st.info(said)


def _attention_question(e: Explanation, tokens: Sequence[str], target: str, view: dict[str, str]) -> bool:
    """Will the last layer's attention name the token whose removal hurts most? (the last position)"""
    attention, truth = e.scores["attention"], e.scores["ablation"]
    attended, ablated = int(np.argmax(attention)), int(np.argmax(truth))
    yes, no = tr("Yes, the same token"), tr("No, another token")
    values = {"weight": attention[attended], "drop": truth[ablated], "target": literal(target)}
    values["rho"] = rho_text(e.correlations["attention"])
    if attended == ablated:
        why = tr(SAME, token=literal(tokens[ablated]), **values)
    else:
        why = tr(
            OTHER,
            attended=literal(tokens[attended]),
            ablated=literal(tokens[ablated]),
            other=truth[attended],
            **values,
        )
    question = tr(
        "Take the prediction after the last token, “{token}”. Average the last layer's attention over its "
        "heads. Will its largest weight fall on the token whose removal hurts that prediction most?",
        token=literal(tokens[-1]),
    )
    answer = yes if attended == ablated else no
    return predict("m_predict_attention", question, [yes, no], answer, why, everything=False, view=view)


def _removal_question(e: Explanation, tokens: Sequence[str], target: str, view: dict[str, str]) -> bool:
    """Which token, removed, hurts the last prediction most? Options: the ablation's top, the
    attention's top, the last, the one before it and the first, in sentence order."""
    truth, last = e.scores["ablation"], len(tokens) - 1
    best = int(np.argmax(truth))
    picked = {best, int(np.argmax(e.scores["attention"])), last, last - 1, 0}
    options = [f"{i}: {tokens[i]}" for i in sorted(picked)[:5]]
    why = tr(
        "Removing it lowers the log-probability of “{target}” by {drop:.2f}, more than removing any other "
        "token ({baseline} in its place).",
        target=literal(target),
        drop=truth[best],
        baseline=tr(NAMES[e.baseline]),
    )
    question = tr(
        "Removing which token will hurt the prediction after “{token}” the most?", token=literal(tokens[-1])
    )
    answer = f"{best}: {tokens[best]}"
    return predict("m_predict_removal", question, options, answer, why, everything=False, view=view)


def baseline_control(where) -> str:
    """What an ablated token's embedding becomes: the mean token embedding, or zeros."""
    keep_choice("m_baseline", "mean")
    where.segmented_control(
        tr("Removed token becomes"),
        list(BASELINES),
        key="m_baseline",
        format_func=label(BASELINES),
        help=tr(
            "The ablation (removing a token to see what changes) replaces the token's embedding with the "
            "mean of all the token embeddings, or with zeros. Its position embedding is kept. Zeros can "
            "push the model into states it never saw in training; the mean is the usual, milder choice."
        ),
    )
    return st.session_state["m_baseline"]


def results(e: Explanation, tokens: Sequence[str], target: str) -> None:
    """The paragraph, the chart and the table for one explanation."""
    shown = [literal(t) for t in tokens[: e.position + 1]]
    st.markdown(summary(e, shown, literal(target)))
    st.caption(
        tr(
            "Ablation: each token's embedding is replaced by {baseline}, one token at a time. A token's "
            "score is how far the log-probability of “{target}” falls; a higher score means the token "
            "mattered more.",
            baseline=tr(NAMES[e.baseline]),
            target=literal(target),
        )
    )
    if e.scores["flow"] is None:
        st.caption(
            tr_n(
                "Attention flow is left out. It treats the attention weights as pipes between layers and "
                "computes how much can flow from each token to the prediction (a max-flow problem). That "
                "is slow, so it is only computed for up to {most} token, and this prediction's input is "
                "longer ({n}).",
                "Attention flow is left out. It treats the attention weights as pipes between layers and "
                "computes how much can flow from each token to the prediction (a max-flow problem). That "
                "is slow, so it is only computed for up to {most} tokens, and this prediction's input is "
                "longer ({n}).",
                FLOW_MAX_TOKENS,
                most=FLOW_MAX_TOKENS,
                n=e.position + 1,
            )
        )
    kept = tokens[: e.position + 1]
    chart(figures.methods_figure(kept, e.scores, chart_width(MAIN_PX), text_scale()), key="m_explain_chart")
    number_table(figures.methods_table(kept, e.scores, e.correlations), key="m_explain_table")
    st.caption(tr(METHODS_NOTE))


QUESTIONS = ("m_predict_attention", "m_predict_removal")


def asked_afresh(key: tuple, questions=QUESTIONS, prefix: str = "m_predict_") -> None:
    """A new sentence, model or baseline (`key`) is a new prediction: the questions (their keys
    start with `prefix`) are asked again, their old answers cleared (their feedback would be about
    other numbers); a reader who had answered or skipped them keeps seeing the results below."""
    s, asked_for = st.session_state, f"_{prefix}for"
    if s.get(asked_for) not in (None, key):
        engaged = any(s.get(k) is not None or s.get(f"{k}_seen") for k in questions)
        reset_predictions(prefix)
        if engaged:
            s.update({f"{k}_seen": True for k in questions})
    s[asked_for] = key


def explain_view(
    source: str, model: GPTModel, info: ModelInfo, ids: list[int], tokens: tuple[str, ...]
) -> None:
    """Predict first (on the last prediction), then any position's explanation."""
    st.caption(tr(INTRO))
    s, shown = st.session_state, shown_text(info)
    baseline = s["m_baseline"] if s["m_baseline"] in BASELINES else "mean"
    asked_afresh((source, tuple(ids), baseline))
    if len(tokens) >= 3:  # two tokens leave nothing to guess
        last = models.explanation(source, model, ids, len(ids) - 1, baseline)
        target = shown(last.target)
        asked = question_view(source, "explain")
        if (why := undecided(last)) is not None:
            _no_question(last, why, tokens, target)
        elif not _attention_question(last, tokens, target, asked) or not _removal_question(
            last, tokens, target, asked
        ):
            return
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    with left:
        position = position_control(source, ids, tokens)
    baseline = baseline_control(right)
    e = models.explanation(source, model, ids, position, baseline)
    results(e, tokens, shown(e.target))
