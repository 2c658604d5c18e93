"""Inside a model's head roles: every head's role score (previous token, duplicate, induction...),
measured live on probes or lines of text, with one click to each role's best head and the heads as
good as it, the top heads, and what is published for GPT-2 small. The scores come from
ui.model.caches' caches; the heatmaps from attention.figures.model."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention.figures import model as figures
from attention.i18n import N_, tr, tr_n
from attention.model import catalog, sentence
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from attention.model.lab import CLEAR_ROLE
from attention.model.roles import PUBLISHED, ROLES, ranked
from ui.model import caches as models
from ui.model.url import label
from ui.widgets import HALF_PX, chart, keep_choice, literal


def _open(layer: int, head: int, text: str, role: str, score: float) -> None:
    """One click: the head, on a sentence where its role shows, its weights first (the page scrolled
    to the top) with the pattern its role makes said in words (views.role_words)."""
    st.session_state.update(
        m_layer=layer, m_head=head, m_view="head", m_text=text, m_query=None, m_appended=[]
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
    name = tr(figures.ROLE_NAMES[role])
    if best["score"] < CLEAR_ROLE:
        st.caption(
            # TRANSLATORS: {role} is a head's role as the page names it (previous-token, induction, duplicate,
            # first)
            tr(
                "No head of this model has a clear {role} role (best: {head} at {score:.2f}).",
                role=name,
                head=best["head"],
                score=best["score"],
            )
        )
        return
    st.button(
        # TRANSLATORS: {role} is a head's role as the page names it (previous-token, induction, duplicate,
        # first)
        tr("Open the best {role} head ({head})", role=name, head=best["head"]),
        key=f"m_open_{role}",
        on_click=_open,
        args=(best["layer"], best["index"], example, role, best["score"]),
        width="stretch",
    )
    near = [f"{r['head']} ({r['score']:.2f})" for r in heads[1:] if best["score"] - r["score"] <= NEAR_BEST]
    if near:
        st.caption(
            tr_n(
                "{heads} scores within {near} of {best} ({score:.2f}): it does the same job. Which one comes "
                "first changes with the random probes.",
                "{heads} score within {near} of {best} ({score:.2f}): they do the same job. Which one comes "
                "first changes with the random probes.",
                len(near),
                heads=", ".join(near),
                near=NEAR_BEST,
                best=best["head"],
                score=best["score"],
            )
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
        # TRANSLATORS: "Watch it learn" is the title of the app's training page
        return tr(
            "When this model was trained, its recipe measured its heads on other text ({on}): "
            "previous-token head {previous} scored {p:.2f}, and induction head {induction} scored {i:.2f}. "
            "Watch it learn's replay ends on the same numbers.",
            on=literal(catalog.recorded(str(done["on"]))),
            previous=literal(str(previous)),
            p=float(p),
            induction=literal(str(induction)),
            i=float(i),
        )
    except (KeyError, TypeError, ValueError):
        return ""


MEASURED_ON_TEXT = N_(
    "Each head's role is measured on {count} well-known lines of English (Shakespeare, Carroll, Dickens), "
    "each placed after <|endoftext|>. For the duplicate and induction roles, each line's first 12, 18 or "
    "24 tokens are said twice."
)
MEASURED = N_(
    "Each head's role is measured on test sequences of random tokens: a start token, a random prefix, L "
    "random tokens, then the same L tokens again. L and the prefix vary, so a head that always looks a "
    "fixed distance back does not pass as an induction head."
)


def head_roles(source: str, model: GPTModel, info: ModelInfo, text: str) -> None:
    """Every head's role score with one click to its best head, the top heads, what is published."""
    probes = models.probes_for(info)
    if not info.symbols:  # GPT-2's vocabulary: lines of text too
        st.session_state.setdefault("m_probes", probes)
        keep_choice("m_probes", probes)
        probes = st.segmented_control(
            tr("Measured on"), list(models.PROBES), key="m_probes", format_func=label(models.PROBES)
        )
    scores = models.roles(source, model, info, probes)
    recorded = recorded_heads(info)
    st.markdown(
        " ".join(
            [
                tr(MEASURED_ON_TEXT, count=len(sentence.NATURAL_LINES)) if probes == "text" else tr(MEASURED),
                tr(
                    "A score is the attention a head puts on the keys its role expects, averaged over the "
                    "queries. A score of 1 means the head always looks exactly there."
                ),
                *([recorded] if recorded else []),
            ]
        )
    )
    repeated = sentence.example(info)
    for row in (list(ROLES)[:2], list(ROLES)[2:]):
        for column, role in zip(st.columns(2), row, strict=True):
            with column:
                chart(
                    figures.role_heatmap(scores[role], role, tr(ROLES[role])),
                    key=f"m_role_{role}",
                    width=HALF_PX,
                )
                example = repeated if role in ("induction", "duplicate") else text
                _best_head(scores, role, example)
    top_heads(scores)
    if info.is_gpt2_small:
        st.info(
            tr(
                "Published for GPT-2 small: induction heads {induction}; previous-token heads {previous} "
                "(Olsson et al. 2022; Wang et al. 2022). Compare them with the top heads measured above.",
                induction=", ".join(PUBLISHED["induction"]),
                previous=", ".join(PUBLISHED["previous"]),
            )
        )


def top_heads(scores: dict) -> None:
    """Each role's top three heads, a row each: the role (in words), the head, its score."""
    top = pd.DataFrame(ranked(scores, top=3))[["role", "head", "score"]]
    top["role"] = [tr(figures.ROLE_NAMES[role]) for role in top["role"]]
    # the table's headers as the reader reads them: the columns keep their names until here
    top.columns = [tr("role"), tr("head"), tr("score")]
    st.dataframe(  # every row, no inner scroll: 35 px a row and the header
        top.style.format({top.columns[2]: "{:.3f}"}),
        hide_index=True,
        width="content",
        height=35 * (len(top) + 1) + 3,
    )
