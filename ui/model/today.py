"""Inside a model's "Today's attention": what real modern models show, measured on the student's
sentence, each part predict-first: attention sinks (weight on the first token, with and without the
start token), grouped-query attention in real weights (which heads share keys and values, how alike
they look, the KV cache per token) and sliding-window layers and RoPE (weight and score by distance).
Numbers from attention.model.today, charts from attention.figures.today."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from attention.figures import today as figures
from attention.i18n import N_, number, tr, tr_n
from attention.model import today
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from ui.classroom.questions import predict
from ui.model import caches as models
from ui.model.explain import asked_afresh
from ui.model.url import question_view
from ui.widgets import chart, number_table

QUESTIONS = ("m_today_sink", "m_today_groups", "m_today_window")

SINKS = N_(
    "Softmax must hand out all of a row's weight, so a head that finds nothing worth reading still gives "
    "its weight away. Trained models learn to park this weight on the first token, which every query can "
    "see: an **attention sink**. The first token's value vector is small, so the weight parked there "
    "changes little. StreamingLLM (Xiao et al., 2023) found that a sliding KV cache breaks down once the "
    "first tokens fall out of it, so StreamingLLM keeps their keys for good. gpt-oss instead gives every "
    "head a learned sink: one extra logit (a score before the softmax) in the softmax's denominator, "
    "which takes weight and passes on nothing."
)
GROUPS = N_(
    "In grouped-query attention each key/value head serves a group of query heads, so the model stores one "
    "key and one value per group, not per head. A model generating text keeps every earlier token's keys "
    "and values in its **KV cache**. Fewer key/value heads therefore mean a smaller cache, and longer "
    "texts fit in the same memory. The heads of a group still ask their own questions, because their "
    "queries differ."
)
BANDS = N_(
    "In a sliding-window layer a query sees only the last few keys. Its weights form a band along the "
    "diagonal, and past the window the line below drops to nothing. Full layers in between still reach the "
    "whole text. RoPE (rotary position embedding) turns each query and key by an angle that grows with its "
    "position. A score then depends on how far apart the two tokens are, not on where they sit. The second "
    "chart shows the mean score by distance."
)
BANDS_GPT = N_(
    "This model's layers all see the whole text. The model has no RoPE: it adds a position embedding to "
    "each token before the first layer. How a score depends on distance is therefore whatever the model "
    "learned."
)
SHARES = (N_("Less than 10%"), N_("Between 10% and 50%"), N_("More than half"))


def today_view(
    source: str, model: GPTModel, info: ModelInfo, ids: list[int], tokens: tuple[str, ...]
) -> None:
    """Three parts, each a question first, then its chart, its numbers and what they mean."""
    asked_afresh((source, tuple(ids)), QUESTIONS, prefix="m_today_")
    if len(ids) < 3:  # one query after the first at most: nothing to average, nothing to compare
        st.info(tr("Today's attention needs a sentence of at least 3 tokens. Type a longer one."))
        return
    measured = models.today_of(source, model, info, ids)
    asked = question_view(source, "today")
    st.subheader(tr("Attention sinks"))
    if _sink_question(measured.sinks, asked):
        sinks_part(measured.sinks)
    st.subheader(tr("Heads that share keys and values"))
    if _groups_question(measured.likeness, asked):
        groups_part(measured)
    st.subheader(tr("Sliding windows and RoPE"))
    if _window_question(measured.distances, len(ids), asked):
        bands_part(measured.distances, info.layout != "gpt2")


def _sink_question(sinks: today.Sinks, view: dict[str, str]) -> bool:
    share = float(sinks.by_layer()[1][-1])
    answer = tr(SHARES[0] if share < 0.1 else SHARES[1] if share <= 0.5 else SHARES[2])
    why = tr(
        "The last layer puts {share:.0%} of an average query's weight on the start token. Without the "
        "start token, it puts {typed:.0%} on your sentence's own first token.",
        share=share,
        typed=float(sinks.by_layer()[0][-1]),
    )
    question = tr(
        "Put the start token in front of your sentence. In the last layer, what share of its weight will "
        "an average query put on that one token?"
    )
    return predict(
        "m_today_sink", question, [tr(o) for o in SHARES], answer, why, everything=False, view=view
    )


def sinks_part(sinks: today.Sinks) -> None:
    typed, started = sinks.by_layer()
    chart(figures.sinks_figure(sinks), key="m_today_sinks")
    frame = pd.DataFrame(
        {tr("Layer"): range(len(typed)), tr("As typed"): typed, tr("After the start token"): started}
    )
    number_table(frame, key="m_today_sinks_table", digits={tr("As typed"): 4, tr("After the start token"): 4})
    st.markdown(tr(SINKS))


def _groups_question(likeness: today.Likeness, view: dict[str, str]) -> bool:
    alone, one = np.isnan(likeness.same_group).all(), np.isnan(likeness.other_groups).all()
    if alone or one:  # every head its own (GPT-2), or all share one (multi-query): nothing to compare
        st.caption(
            tr("Every head of this model has its own keys and values, so there are no groups to compare.")
            if alone
            else tr(
                "All of this model's query heads share one key/value head, so there are no groups to compare."
            )
        )
        return True
    same, other = float(np.nanmean(likeness.same_group)), float(np.nanmean(likeness.other_groups))
    yes, no = tr("Yes, more alike"), tr("No, no more alike than the others")
    why = tr(
        "Averaged over the layers, two heads of one group score {same:.2f}, and two heads of different "
        "groups score {other:.2f}. A score of 1 would mean the same weights.",
        same=same,
        other=other,
    )
    question = tr(
        "Query heads of one group read the same keys and values. Will their weights look more alike than "
        "the weights of heads from different groups?"
    )
    return predict(
        "m_today_groups", question, [yes, no], yes if same > other else no, why, everything=False, view=view
    )


def groups_part(measured: today.Today) -> None:
    likeness, cache = measured.likeness, measured.cache
    if not np.isnan(likeness.same_group).all():
        chart(figures.likeness_figure(likeness), key="m_today_alike")
        st.caption(
            tr(
                "Two heads' weights on your sentence are compared as two long lists of numbers (cosine "
                "similarity): 1 means the same pattern, 0 means nothing in common. Each bar is the mean "
                "over every pair of heads in that layer."
            )
        )
    this = tr("this model")
    rows = [(name, today.cache_bytes(*shape)) for name, shape in today.KNOWN_MODELS.items()]
    rows.append((this, cache.per_token))
    chart(figures.cache_figure(rows, this), key="m_today_cache")
    st.caption(
        tr(
            "This model: 2 (a key and a value) × layers ({layers}) × key/value heads ({kv}) × numbers per "
            "head ({dim}) × bytes per number ({size}) = {total} B per token. The other models are "
            "counted as they are usually served, with 2 bytes per number.",
            layers=cache.layers,
            kv=cache.kv_heads,
            dim=cache.head_dim,
            size=cache.bytes_per_number,
            total=number(cache.per_token),
        )
    )
    if cache.held is not None:
        st.caption(
            tr(
                "Read through a real KV cache, your sentence leaves {held} B in it. A cache that kept "
                "every token in every layer would hold {full} B. Sliding-window layers keep only their last "
                "tokens.",
                held=number(cache.held),
                full=number(cache.full),
            )
        )
    frame = pd.DataFrame(
        {tr("Model"): [name for name, _ in rows], tr("Bytes per token"): [b for _, b in rows]}
    )
    number_table(frame, key="m_today_cache_table", digits={tr("Bytes per token"): 0})
    st.markdown(tr(GROUPS))


def _window_question(distances: today.Distances, tokens: int, view: dict[str, str]) -> bool:
    sliding = [layer for layer, window in enumerate(distances.windows) if window]
    full = [layer for layer, window in enumerate(distances.windows) if not window]
    if not sliding or not full:
        st.caption(tr("Every layer of this model sees the whole text; no layer has a sliding window."))
        return True
    if tokens <= min(w for w in distances.windows if w):  # Gemma 3 270M's 512: no band to see
        st.caption(
            tr_n(
                "This model's sliding layers see the last {window} token, and your sentence fits inside "
                "that window. Here they read it just as the full layers do.",
                "This model's sliding layers see the last {window} tokens, and your sentence fits inside "
                "that window. Here they read it just as the full layers do.",
                min(w for w in distances.windows if w),
                window=min(w for w in distances.windows if w),
            )
        )
        return True
    far, near = float(distances.mean_distance[full].mean()), float(distances.mean_distance[sliding].mean())
    options = [
        tr("The full-attention layers"),
        tr("The sliding-window layers"),
        tr("Neither: about the same"),
    ]
    answer = options[0] if far > 1.2 * near else options[1] if near > 1.2 * far else options[2]
    why = tr(
        "On your sentence, a full layer reads from {far:.1f} tokens back on average, and a sliding layer "
        "from {near:.1f}.",
        far=far,
        near=near,
    )
    question = tr("Which layers will read from farther back on average?")
    return predict("m_today_window", question, options, answer, why, everything=False, view=view)


def bands_part(distances: today.Distances, rope: bool) -> None:
    chart(figures.distance_figure(distances), key="m_today_bands")
    st.caption(
        tr(
            "Each line is one layer. It shows the mean weight a query puts on the key that many tokens "
            "back, averaged over every query and head (log scale; a sliding layer's line stops at its "
            "window). The chart below shows the mean score (similarity ÷ √head_dim) by distance, before "
            "the mask and the softmax."
        )
    )
    chart(figures.score_figure(distances), key="m_today_scores")
    shown = [d for d in (0, 1, 2, 4, 8, 16, 32, 64) if d < distances.weight.shape[1]]
    columns = {
        tr(
            "layer {layer} ({kind})", layer=layer, kind=tr("window {window}", window=w) if w else tr("full")
        ): [
            *distances.weight[layer, shown],
            distances.mean_distance[layer],
        ]
        for layer, w in enumerate(distances.windows)
    }  # a row per distance, a column per layer: a deep model's layers swipe on a phone
    rows = [tr("weight {d} back", d=d) for d in shown] + [tr("mean distance")]
    frame = pd.DataFrame({tr("Tokens back"): rows, **columns})
    number_table(frame, key="m_today_bands_table")
    st.markdown(tr(BANDS) if rope else tr(BANDS_GPT))
