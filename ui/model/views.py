"""Inside a model's views: which view and head, and one function per view (all heads, one head,
token view, next token, share & export; the model picker and the sentence: picker.py; head roles:
roles.py).
The numbers come from ui.model.caches' caches; the figures and exports from attention.figures.model."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from attention.figures import explorer as steps
from attention.figures import model as figures
from attention.figures.layout import scale_text, token_labels
from attention.i18n import N_, tr, tr_n
from attention.model import lab, sentence
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from attention.model.sentence import SentenceView
from ui.model import caches as models
from ui.model.url import TEMPERATURES, VIEWS, label, layer_head, remember_view, share_link, view_name
from ui.widgets import (
    PROJECTOR_SCALE,
    THIRD_PX,
    chart,
    chart_width,
    keep_choice,
    literal,
    named,
    narrow,
    show_notes,
)

HEAD_VIEWS = ("grid", "head", "tokens")  # the views that show the chosen layer and head
MODEL_STEPS = ["scores", "scaled_scores", "masked_scores", "weights"]  # a GPT's in eval: causal, no dropout


def view_controls(cfg: dict, tokens: int) -> tuple[str, int, int]:
    """The view's tabs, then the layer and head where the view shows them (and One head's step
    beside them, so that its chart starts higher): (the view's URL name, layer, head), each kept
    within the model; the query token within the sentence's `tokens`."""
    s = st.session_state
    show_notes(layer_head(cfg))  # a layer or head from the URL, checked against this model
    s["m_layer"], s["m_head"] = min(s["m_layer"], cfg["n_layers"] - 1), min(s["m_head"], cfg["n_heads"] - 1)
    if s["m_query"] is not None and s["m_query"] >= tokens:  # a shorter sentence: the Token view picks anew
        s["m_query"] = None
    keep_choice("m_view", "grid")
    st.segmented_control(
        tr("View"), list(VIEWS), key="m_view", format_func=label(VIEWS), label_visibility="collapsed"
    )
    shown = view_name()
    remember_view(shown)
    if shown in HEAD_VIEWS:
        c1, c2, c3 = st.columns([1, 1, 3], vertical_alignment="bottom")
        c1.selectbox(tr("Layer"), range(cfg["n_layers"]), key="m_layer")
        c2.selectbox(tr("Head"), range(cfg["n_heads"]), key="m_head")
        if shown == "head":
            keep_choice("m_step", "weights")  # on a phone in a row of its own, where its options wrap
            (st if narrow() else c3).segmented_control(tr("Step"), MODEL_STEPS, key="m_step", wrap=True)
    return shown, s["m_layer"], s["m_head"]


def _open_clicked() -> None:
    """A click on a thumbnail of the grid (its click target's customdata: layer, head) opens
    that head in One head."""
    points = st.session_state["m_grid"].selection.points
    if points:
        layer, head = points[0]["customdata"]
        st.session_state.update(m_layer=int(layer), m_head=int(head), m_view="head")


GRID = N_(
    "The map shows every head's weights on your sentence. Rows are queries (the token looking) and columns "
    "are keys (the token looked at). The colour runs from dark purple (weight 0) to yellow (weight 1). "
    "Heads are named “layer.head” as in the literature, and the chosen head is framed. **Click a head to "
    "open it.**"
)
GRID_BLOCKS = N_(
    "The map shows every head's weights on your sentence. Rows are queries (the token looking) and columns "
    "are keys (the token looked at). The colour runs from dark purple (weight 0) to yellow (weight 1), and "
    "each cell shows the largest weight in its block of tokens. Heads are named “layer.head” as in the "
    "literature, and the chosen head is framed. **Click a head to open it.**"
)


def all_heads(view: SentenceView, layer: int, head: int, kv_heads: Sequence[int] = ()) -> None:
    """Every head's weights as thumbnails, the chosen head framed; a click opens a head. Query
    heads that share a key/value head (grouped-query attention) sit together, a line between groups."""
    blocks = len(view.tokens) > figures.THUMB_CELLS
    st.caption(tr(GRID_BLOCKS if blocks else GRID))
    shared = len(kv_heads) > len(set(kv_heads)) > 0
    if shared:
        st.caption(kv_groups_words(kv_heads))
    width = chart_width(900)
    fig = figures.model_grid(
        view.weights,
        (layer, head),
        view.tokens,
        clickable=True,
        width_px=width,
        kv_heads=kv_heads if shared else (),
    )
    if st.session_state.get("projector"):
        scale_text(fig, PROJECTOR_SCALE, color="#000000")
    st.plotly_chart(  # no toolbar: on a phone it stands over the heads' titles, and a grid needs none
        named(fig),
        key="m_grid",
        on_select=_open_clicked,
        selection_mode="points",
        config={"displayModeBar": False},
    )


def kv_groups_words(kv_heads: Sequence[int]) -> str:
    """ "Heads 0–3 read key/value head 0, ..." for a model whose query heads share keys and values."""
    groups = len(set(kv_heads))
    members = [[h for h, g in enumerate(kv_heads) if g == group] for group in range(groups)]
    spans = [
        tr("heads {first}–{last} share key/value head {group}", first=m[0], last=m[-1], group=g)
        for g, m in enumerate(members)
    ]
    if groups == 1:
        return tr(
            "Multi-query attention: all {heads} of this model's query heads share one key/value head. Each "
            "head compares its own query with the same keys, and all of them pass on the same values.",
            heads=len(kv_heads),
        )
    return tr_n(
        "Grouped-query attention: this model's {heads} query heads share {groups} key/value head ({spans}). "
        "Heads of one group compare their own queries with the same keys and pass on the same values; a "
        "dotted line separates the groups.",
        "Grouped-query attention: this model's {heads} query heads share {groups} key/value heads ({spans}). "
        "Heads of one group compare their own queries with the same keys and pass on the same values; a "
        "dotted line separates the groups.",
        groups,
        heads=len(kv_heads),
        groups=groups,
        spans="; ".join(spans),
    )


QKV = N_(
    "Each token's row of numbers, in this head: its **query** is what it looks for, its **key** is what it "
    "offers to be found by, and its **value** is what it passes on when it is looked at. The head computes "
    "scores = queries @ keysᵀ (each query against every key) and divides them by √head_dim. It masks the "
    "later keys, because a GPT reads left to right. Then weights = softmax row by row, and context = "
    "weights @ values. The shapes are (batch, heads, tokens, head_dim); the chart draws one head's "
    "(tokens, head_dim)."
)


# What a head opened for its role should show, by role and whether the sentence's repeat has a
# length (its period)
ROLE_WORDS = {
    ("previous", False): N_(
        "Head {head} was opened as this model's best previous-token head (score {score:.2f}). Look for a "
        "stripe just below the diagonal: each token looks at the token right before it."
    ),
    ("first", False): N_(
        "Head {head} was opened as this model's best first head (score {score:.2f}). Look for a bright "
        "first column: every token puts its weight on the first token."
    ),
    ("duplicate", True): N_(
        "Head {head} was opened as this model's best duplicate head (score {score:.2f}). The sentence "
        "repeats a stretch of tokens, each one as far after its first copy as the stretch is long "
        "({period}). On the second copy, look for a stripe that far below the diagonal: each token looks at "
        "its earlier copy."
    ),
    ("duplicate", False): N_(
        "Head {head} was opened as this model's best duplicate head (score {score:.2f}). The sentence "
        "repeats a stretch of L tokens. On the second copy, look for a stripe L below the diagonal: each "
        "token looks at its earlier copy."
    ),
    ("induction", True): N_(
        "Head {head} was opened as this model's best induction head (score {score:.2f}). The sentence "
        "repeats a stretch of L tokens (L = {period}), each one L tokens after its first copy. On the second "
        "copy, look for a stripe {shift} below the diagonal (L − 1): each token looks at the token that "
        "followed its earlier copy. The first copy has nothing to copy yet, so its rows look elsewhere."
    ),
    ("induction", False): N_(
        "Head {head} was opened as this model's best induction head (score {score:.2f}). The sentence "
        "repeats a stretch of L tokens. On the second copy, look for a stripe L − 1 below the diagonal: "
        "each token looks at the token that followed its earlier copy. The first copy has nothing to copy "
        "yet, so its rows look elsewhere."
    ),
}


def role_words(role: str, head: str, score: float, ids: Sequence[int]) -> str:
    """What a head opened for its role should show in its weights (rows queries, columns keys), in
    words, with the repeat's length L read from the sentence."""
    period = lab.repeat_period(ids)
    repeats = role in ("duplicate", "induction") and bool(period)
    words = ROLE_WORDS[role if role in ("previous", "first", "duplicate") else "induction", repeats]
    return tr(words, head=head, score=score, period=period, shift=(period or 1) - 1)


TO_TOP = (
    "<script>for (const e of parent.document.querySelectorAll('*')) if (e.scrollTop) e.scrollTop = 0;"
    "</script>"
)


def _opened_for(ids: Sequence[int], layer: int, head: int) -> None:
    """After a role's "Open the best … head": back to the top of the page (the click was far down
    the roles), and the pattern to look for, while that head is the one shown."""
    s = st.session_state
    if s.pop("_m_to_top", False):
        st.iframe(TO_TOP, height=1)  # our own static script (no user text): scrolls the page up
    opened = s.get("_m_opened_for")
    if opened and opened[:4] == (s.get("m_source"), s.get("m_text"), layer, head):
        st.info(role_words(opened[4], f"{layer}.{head}", opened[5], ids))


def one_head(
    source: str, model: GPTModel, ids: list[int], tokens: tuple[str, ...], layer: int, head: int
) -> None:
    """One head's step (the one picked beside the layer and head), then its queries, keys, values."""
    _opened_for(ids, layer, head)
    trace = models.layer(source, model, ids, layer)
    picked = st.session_state["m_step"]
    picked = picked if picked in trace.step_names() else "weights"  # MODEL_STEPS are a GPT's steps
    panel = steps.step_panels(trace, head, [picked], head_name=f"{layer}.{head}")[0]
    chart(figures.head_figure(tokens, panel, width_px=chart_width(960)), key="m_step_chart")
    st.caption(tr(QKV))
    labels = token_labels(tokens)
    for column, name in zip(st.columns(3), ("queries", "keys", "values"), strict=True):
        with column:
            # TRANSLATORS: a chart's title: {name} is the book's variable (queries, keys, values)
            title = tr(
                "{name}, head {head} {shape}",
                name=name,
                head=f"{layer}.{head}",
                shape=steps.shape_text(trace, name),
            )
            chart(
                steps.vectors_heatmap(getattr(trace, name)[0, head], labels, title, width_px=320),
                key=f"m_{name}",
                width=THIRD_PX,
            )


def first_query(ids: Sequence[int], appended: int) -> int:
    """The token the Token view opens on: the newest appended one; else, in a repeated phrase, the
    middle of its second copy (where an induction head looks back at the earlier copy); else the last."""
    repeats = lab.repeat_positions(ids)
    return len(ids) - 1 if appended or not repeats else repeats[len(repeats) // 2]


LINES = N_(
    "Layer {layer}: where “{token}” looks. Thicker, darker lines carry more weight. In the second copy "
    "of a repeated phrase, an induction head looks at the token that followed this token's earlier copy."
)
LINES_EVERY = N_(
    "Layer {layer}: where “{token}” looks. Thicker, darker lines carry more weight. Each head has its own "
    "colour, and its lines are drawn a little apart from the other heads' lines. In the second copy of a "
    "repeated phrase, an induction head looks at the token that followed this token's earlier copy."
)


def token_lines(view: SentenceView, tokens: tuple[str, ...], layer: int, head: int) -> None:
    """Where one token looks, BertViz's head view: one head, or every head of the layer."""
    s = st.session_state
    if s["m_query"] is None or s["m_query"] >= len(tokens):
        s["m_query"] = first_query(view.ids, len(s["m_appended"]))
    labels = [f"{i}: {t}" for i, t in enumerate(tokens)]
    q1, q2 = st.columns([2, 3], vertical_alignment="bottom")
    query = q1.selectbox(tr("Token"), range(len(tokens)), key="m_query", format_func=labels.__getitem__)
    every = q2.toggle(tr("All heads of the layer"), key="m_all_heads")
    shown_heads = list(range(view.weights.shape[1])) if every else [head]
    st.caption(tr(LINES_EVERY if every else LINES, layer=layer, token=literal(tokens[query])))
    chart(figures.token_view(list(tokens), view.weights[layer], query, shown_heads), key="m_token_view")


def _append(token: int, most: int) -> None:
    """Appends `token`, unless `most` tokens are appended already (the button is disabled then, but
    a double click's second click may still come)."""
    s = st.session_state
    if len(s["m_appended"]) < most:
        s["m_appended"], s["m_query"] = [*s["m_appended"], token], None


def next_token(view: SentenceView, info: ModelInfo, tokens: tuple[str, ...]) -> None:
    """The most likely next tokens at a temperature, and a button that appends the likeliest (while
    the sentence is below the page's token limit: never past it, to the example sentence)."""
    s = st.session_state
    temperature = st.select_slider(
        tr("Temperature"),
        TEMPERATURES,
        key="m_temperature",
        help=tr(
            "Divides the logits (the scores before the softmax) by this number. Below 1 makes the choice "
            "sharper; above 1 makes it flatter."
        ),
    )
    candidates = sentence.next_tokens(view.next_logits, info, temperature)
    chart(figures.next_token_bars(candidates, temperature), key="m_next")
    best_id, best_text, _ = candidates[0]
    model, _ = models.model(info.source)  # loaded already: the model drawn
    limit = min(sentence.MAX_TOKENS, model.cfg["context_length"])
    room = limit - len(tokens)
    st.button(
        tr("Append “{token}” and step", token=literal(best_text)),
        key="m_append",
        on_click=_append,
        args=(best_id, len(s["m_appended"]) + room),
        type="primary",
        disabled=room <= 0,
        help=tr(
            "Adds the most likely token to the sentence. Then Token view shows where the new token looks."
        ),
    )
    if room <= 0:
        st.caption(
            tr(
                "The sentence already has as many tokens as this page shows ({limit}), so no more can be "
                "appended. To go on, clear the appended tokens or shorten the sentence.",
                limit=limit,
            )
        )
    if s["m_appended"]:
        shown = " ".join(tokens[-len(s["m_appended"]) :])
        st.caption(
            tr(
                "Tokens appended so far: {tokens}. Token view shows where the newest token looks.",
                tokens=literal(shown),
            )
        )
        st.button(
            tr("Clear the appended tokens"),
            key="m_clear",
            on_click=lambda: s.update(m_appended=[], m_query=None),
        )
    st.caption(
        tr(
            "The model generates token by token: each new token attends to every token before it (see Token "
            "view)."
        )
    )


def share(source: str, text: str, view: SentenceView, layer: int, head: int) -> None:
    """The link to this view, every head's weights as JSON and the chosen head's as CSV."""
    st.markdown(
        tr("**Share.** This link opens the model, sentence, view, layer and head you were looking at:")
    )
    st.code(share_link(source, text), language=None, wrap_lines=True)
    st.download_button(
        tr("Every head's weights (JSON)"),
        lambda: figures.weights_json(source, view.tokens, view.ids, view.weights),
        file_name="weights.json",
        mime="application/json",
        on_click="ignore",
    )
    st.download_button(
        tr("Head {head}'s weights (CSV)", head=f"{layer}.{head}"),
        lambda: figures.head_csv(view.weights, view.tokens, layer, head),
        file_name=f"weights_{layer}.{head}.csv",
        mime="text/csv",
        on_click="ignore",
    )
