"""Inside a model's head roles: every head's role score (previous token, duplicate, induction...),
measured live on probes or lines of text, with one click to each role's best head and the heads as
good as it, the top heads, and what is published for GPT-2 small. The scores come from
ui.model.caches' caches; the heatmaps from attention.figures.model."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention.figures import model as figures
from attention.model import sentence
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from attention.model.lab import CLEAR_ROLE
from attention.model.roles import PUBLISHED, ROLES, ranked
from ui.model import caches as models
from ui.model.url import VIEWS
from ui.widgets import chart, keep_choice, literal


def _open(layer: int, head: int, text: str, role: str, score: float) -> None:
    """One click: the head, on a sentence where its role shows, its weights first (the page scrolled
    to the top) with the pattern its role makes said in words (views.role_words)."""
    st.session_state.update(
        m_layer=layer, m_head=head, m_view=VIEWS["head"], m_text=text, m_query=None, m_appended=[]
    )
    s = st.session_state  # the words hold for this model, sentence and head only (views._opened_for)
    opened = (s.get("m_source"), text, layer, head, role, score)
    s.update(m_step="weights", _m_opened_for=opened, _m_to_top=True)


# Heads within this much of a role's best do the same job: which one comes first changes with the
# random probes (the bundled model's four layer-1 heads score 0.93-0.97 on induction).
NEAR_BEST = 0.05


def _best_head(scores: dict, role: str, example: str) -> None:
    """The role's best head: a button that opens it, the heads as good as it, or why there is none
    (Watch it learn measures a run's heads on these same probes, so it names the same best head)."""
    heads = [r for r in ranked(scores, top=scores[role].size) if r["role"] == role]
    best = heads[0]
    if best["score"] < CLEAR_ROLE:
        st.caption(
            f"No head of this model has a clear {role} role (best: {best['head']} at {best['score']:.2f})."
        )
        return
    st.button(
        f"Open the best {role} head ({best['head']})",
        key=f"m_open_{role}",
        on_click=_open,
        args=(best["layer"], best["index"], example, role, best["score"]),
        width="stretch",
    )
    near = [f"{r['head']} ({r['score']:.2f})" for r in heads[1:] if best["score"] - r["score"] <= NEAR_BEST]
    if near:
        st.caption(
            f"{', '.join(near)} {'score' if len(near) > 1 else 'scores'} within {NEAR_BEST} of "
            f"{best['head']} ({best['score']:.2f}): {'they do' if len(near) > 1 else 'it does'} the same "
            "job. Which one comes first changes with the random probes."
        )


def recorded_heads(info: ModelInfo) -> str:
    """What the model's own recipe measured, named with what it was measured on: other text gives
    other scores, so both say what they are."""
    done = info.extra.get("measured")
    try:  # a folder's config.json is anyone's text: words only from what reads as our record
        (previous, p), (induction, i) = (
            done["heads"]["start"]["previous"],
            done["heads"]["start"]["induction"],
        )
        return (
            f" Its recipe measured its heads on other text — {literal(str(done['on']))}: previous-token head "
            f"{literal(str(previous))} at {float(p):.2f}, induction head {literal(str(induction))} at "
            f"{float(i):.2f} (Watch it learn's replay ends on the same numbers)."
        )
    except (KeyError, TypeError, ValueError):
        return ""


def head_roles(source: str, model: GPTModel, info: ModelInfo, text: str) -> None:
    """Every head's role score with one click to its best head, the top heads, what is published."""
    probes = models.probes_for(info)
    if not info.symbols:  # GPT-2's vocabulary: lines of text too
        st.session_state.setdefault("m_probes", probes)
        keep_choice("m_probes", probes)
        probes = st.segmented_control(
            "Measured on", list(models.PROBES), key="m_probes", format_func=models.PROBES.get
        )
    scores = models.roles(source, model, info, probes)
    st.markdown(
        (
            f"Each head's role, measured on {len(sentence.NATURAL_LINES)} well-known lines of English "
            "(Shakespeare, Carroll, Dickens), each after <|endoftext|> as it is; for duplicate and "
            "induction, its first 12, 18 or 24 tokens said twice."
            if probes == "text"
            else "Each head's role, measured on probe sequences of random tokens (a start token, a random "
            "prefix, L random tokens, the same L again; L and the prefix vary, so looking a fixed distance "
            "back does not pass as induction)."
        )
        + " A score is the attention a head puts on the keys its role expects, averaged over the queries: "
        "1 = always exactly there." + recorded_heads(info)
    )
    repeated = sentence.example(info)
    for row in (list(ROLES)[:2], list(ROLES)[2:]):
        for column, role in zip(st.columns(2), row, strict=True):
            with column:
                chart(figures.role_heatmap(scores[role], role, ROLES[role]), key=f"m_role_{role}")
                example = repeated if role in ("induction", "duplicate") else text
                _best_head(scores, role, example)
    top = pd.DataFrame(ranked(scores, top=3))
    st.dataframe(  # every row, no inner scroll: 35 px a row and the header
        top[["role", "head", "score"]].style.format({"score": "{:.3f}"}),
        hide_index=True,
        width="content",
        height=35 * (len(top) + 1) + 3,
    )
    if info.is_gpt2_small:
        st.info(
            "Published for GPT-2 small: induction heads "
            + ", ".join(PUBLISHED["induction"])
            + "; previous-token heads "
            + ", ".join(PUBLISHED["previous"])
            + " (Olsson et al. 2022; Wang et al. 2022). Compare them with the measured tops above."
        )
