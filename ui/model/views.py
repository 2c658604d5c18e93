"""Inside a model's controls and views: the model picker, the sentence, which view and head, and
one function per view (all heads, one head, token view, next token, share & export; head roles:
roles.py).
The numbers come from ui.model.caches' caches; the figures and exports from attention.figures.model."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from attention.errors import ConfigError
from attention.figures import explorer as steps
from attention.figures import model as figures
from attention.figures.layout import scale_text, token_labels
from attention.model import catalog, lab, sentence
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from attention.model.sentence import SentenceView
from ui.model import caches as models
from ui.model.url import TEMPERATURES, VIEWS, layer_head, remember_view, share_link, view_name
from ui.widgets import PROJECTOR_SCALE, chart, chart_width, keep_choice, literal, narrow, show_notes

COPY_MODEL = (
    "This model learned to copy repeated stretches of tokens, not language: its heads show where a "
    "repeat is, not grammar."
)


def meaning(info: ModelInfo) -> str:
    """What the model learned and what its attention patterns can and cannot mean, for a student;
    built from config.json's attention_explorer.trained_on."""
    trained_on = info.trained_on.lower()
    if "repeat" in trained_on or "copy" in trained_on:
        return COPY_MODEL
    if not trained_on and catalog.is_hub(info.source):
        return (
            "This model learned language from web text: its heads can follow grammar and meaning, "
            "though one head's pattern is a clue to what it does, not proof."
        )
    if trained_on:
        return (
            f"This model learned from {literal(info.trained_on)}: its heads show what that taught it, "
            "nothing more."
        )
    return "What this model was trained on is not recorded: read its patterns with care."


def _label(source: str) -> str:
    """The picker's label for a source that is not in the catalogue but was opened."""
    return f"{source} from the hub" if catalog.is_hub(source) else f"Local: {source}"


OPENED = "_m_opened"  # the model this session last opened: where a pick that cannot be opened goes back


def _cannot_open(label: str, error: ConfigError, instead: str) -> None:
    """For a student: what happened and what is shown instead; the details folded away."""
    why = str(error).split(". ")[0].rstrip(".")
    st.error(literal(f"Could not open {label[:100]}: {why[:300]}. Showing {instead} instead."))
    with st.expander("Details for the administrator"):
        st.text(str(error))


def _fallback(failed: str) -> tuple[str, str]:
    """Where a model that cannot be opened goes back to, and its words: the model the student had
    open, else the page's default model (else the copy model, if the default is what failed)."""
    had = st.session_state.get(OPENED)
    if had is not None and had != failed:
        return had, "the model you had open"
    default = catalog.default()
    return (default, "the default model") if default != failed else (catalog.BUNDLED, "the copy model")


def _open(source: str, choices: dict[str, str]) -> tuple[str, GPTModel, ModelInfo]:
    """The model for `source`; one that cannot be opened is said so once, and the model the
    student had open (else the default) is opened instead, named in the message."""
    s = st.session_state
    try:
        model, info = models.model(source)
    except ConfigError as error:
        back, whose = _fallback(source)
        try:
            model, info = models.model(back)
        except ConfigError:  # the model it had is gone (a run this server no longer keeps)
            back, whose = catalog.BUNDLED, "the copy model"
            model, info = models.model(back)
        name = choices.get(back, _label(back)).split(" (")[0]  # "Shakespeare: has read 36 plays"
        _cannot_open(choices.get(source, source), error, f"“{name}”, {whose},")
        source = s["m_source"] = back  # no second try (and message) on the next rerun
        s["m_path"] = ""
    s[OPENED] = source
    return source, model, info


def model_picker() -> tuple[str, GPTModel, ModelInfo]:
    """The model list (and, unless the server lists its models only, a folder box): the source
    opened, its model and what it is. A source that cannot be opened is said so once, and the
    picker shows the model drawn instead (_open)."""
    s = st.session_state
    choices = catalog.choices(models.own_runs())
    listed_only = catalog.listed_only()  # a class server can turn the folder box off (docs/classroom.md)
    path = "" if listed_only else str(s.get("m_path") or "").strip()
    # opened before the picker is drawn, so that the picker shows what is drawn
    source, model, info = _open(path or s["m_source"], choices)
    if s["m_source"] not in choices:  # a folder or repo from the URL, opened
        choices[s["m_source"]] = _label(s["m_source"])
    left, right = (st, None) if listed_only else st.columns([3, 2])
    left.selectbox(
        "Model",
        list(choices),
        key="m_source",
        format_func=choices.get,
        help="The Shakespeare and copy models work offline; hub models download once when picked.",
    )
    if listed_only:
        st.caption(  # docs/classroom.md: who may open what
            "This server opens the models listed here only. On your own machine, `streamlit run app.py "
            "--server.address localhost` opens any folder or hub repo."
        )
    else:
        right.text_input(
            "…or a folder on this server",
            key="m_path",
            placeholder="/path/with/config.json",
            help="config.json + model.safetensors in GPT-2's layout (Hugging Face's save_pretrained).",
        )
    cfg = model.cfg
    st.caption(  # what it was trained on in full under the "?": the line below says what it learned
        f"**{literal(info.name)}**: {cfg['n_layers']} layers × {cfg['n_heads']} heads, d = {cfg['emb_dim']}, "
        f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters, "
        f"context {cfg['context_length']} tokens.",
        help=f"Trained on {literal(info.trained_on)}." if info.trained_on else None,
    )
    st.caption(meaning(info))
    return source, model, info


def _new_sentence() -> None:
    """A new sentence starts without the tokens appended to the last one."""
    st.session_state.update(m_appended=[], m_query=None)


def sentence_input(info: ModelInfo, context_length: int) -> tuple[str, list[int], tuple[str, ...]]:
    """The sentence box: (the text, its token ids with the appended ones, their display texts).
    Appended tokens that cannot be used are dropped (the sentence stays); a sentence that cannot
    be used is said so and the example sentence is shown."""
    s = st.session_state
    text = st.text_input(
        "Sentence",
        key="m_text",
        help="Press Enter to apply. A repeated phrase shows induction heads.",
        on_change=_new_sentence,
    )
    try:
        if s["m_appended"]:  # too many from a link, say, or another model's ids
            try:
                return text, *sentence.encode(info, text, context_length, s["m_appended"])
            except ConfigError as error:
                s["m_appended"] = []
                st.warning(literal(f"{error} Showing the sentence without the appended tokens."))
        return text, *sentence.encode(info, text, context_length)
    except ConfigError as error:
        st.warning(literal(f"{error} Showing the example sentence instead."))
        return text, *sentence.encode(info, sentence.example(info), context_length)


def tokens_caption(tokens: tuple[str, ...]) -> None:
    """The sentence as the model's tokens (the first 60)."""
    st.caption(
        "Tokens as the model sees them (· is a space): "
        + literal(" ".join(tokens[:60]))
        + (" …" if len(tokens) > 60 else "")
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
    keep_choice("m_view", VIEWS["grid"])
    st.segmented_control("View", list(VIEWS.values()), key="m_view", label_visibility="collapsed")
    shown = view_name()
    remember_view(shown)
    if shown in HEAD_VIEWS:
        c1, c2, c3 = st.columns([1, 1, 3], vertical_alignment="bottom")
        c1.selectbox("Layer", range(cfg["n_layers"]), key="m_layer")
        c2.selectbox("Head", range(cfg["n_heads"]), key="m_head")
        if shown == "head":
            keep_choice("m_step", "weights")  # on a phone in a row of its own, where its options wrap
            (st if narrow() else c3).segmented_control("Step", MODEL_STEPS, key="m_step")
    return shown, s["m_layer"], s["m_head"]


def _open_clicked() -> None:
    """A click on a thumbnail of the grid (its click target's customdata: layer, head) opens
    that head in One head."""
    points = st.session_state["m_grid"].selection.points
    if points:
        layer, head = points[0]["customdata"]
        st.session_state.update(m_layer=int(layer), m_head=int(head), m_view=VIEWS["head"])


def all_heads(view: SentenceView, layer: int, head: int) -> None:
    """Every head's weights as thumbnails, the chosen head framed; a click opens a head."""
    blocks = len(view.tokens) > figures.THUMB_CELLS
    st.caption(
        "Every head's weights on your sentence: rows are queries (the token looking), columns keys (the "
        "token looked at); colour from dark purple (weight 0) to yellow (weight 1)"
        + (", each cell the largest weight in its block of tokens" if blocks else "")
        + ". Heads are named “layer.head” as in the literature; the chosen one is framed. "
        "**Click a head to open it.**"
    )
    width = chart_width(900)
    fig = figures.model_grid(view.weights, (layer, head), view.tokens, clickable=True, width_px=width)
    if st.session_state.get("projector"):
        scale_text(fig, PROJECTOR_SCALE, color="#000000")
    st.plotly_chart(  # no toolbar: on a phone it stands over the heads' titles, and a grid needs none
        fig,
        key="m_grid",
        on_select=_open_clicked,
        selection_mode="points",
        config={"displayModeBar": False},
    )


QKV = (
    "Each token's row of numbers, in this head: its **query** is what it looks for, its **key** what it "
    "offers to be found by, its **value** what it passes on when it is looked at. scores = queries @ keysᵀ "
    "(each query against every key), then ÷ √head_dim, later keys masked (a GPT reads left to right), "
    "weights = softmax row by row, context = weights "
    "@ values. Shapes (batch, heads, tokens, head_dim); one head's (tokens, head_dim) is drawn."
)


def role_words(role: str, head: str, score: float, ids: Sequence[int]) -> str:
    """What a head opened for its role should show in its weights (rows queries, columns keys), in
    words, with the repeat's length L read from the sentence."""
    period = lab.repeat_period(ids)
    opened = f"Head {head} was opened as this model's best {role} head (score {score:.2f}). Look for "
    if role == "previous":
        return opened + "a stripe just below the diagonal: each token looks at the token right before it."
    if role == "first":
        return opened + "a bright first column: every token puts its weight on the first token."
    repeat = "the sentence repeats a stretch of tokens" + (
        f", each {period} tokens after its copy" if period else ""
    )
    if role == "duplicate":
        where = f"{period} below the diagonal" if period else "L below the diagonal"
        return (
            opened + f"a stripe {where} on the second copy ({repeat}): each token looks at its earlier copy."
        )
    where = f"{period - 1} below the diagonal (L − 1)" if period else "L − 1 below the diagonal"
    return opened + (
        f"a stripe {where} on the second copy ({repeat}): each token looks at the token that followed its "
        "earlier copy. The first copy has nothing to copy yet, so its rows look elsewhere."
    )


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
    st.caption(QKV)
    labels = token_labels(tokens)
    for column, name in zip(st.columns(3), ("queries", "keys", "values"), strict=True):
        with column:
            title = f"{name}, head {layer}.{head} {steps.shape_text(trace, name)}"
            chart(
                steps.vectors_heatmap(getattr(trace, name)[0, head], labels, title, width_px=320),
                key=f"m_{name}",
            )


def first_query(ids: Sequence[int], appended: int) -> int:
    """The token the Token view opens on: the newest appended one; else, in a repeated phrase, the
    middle of its second copy (where an induction head looks back at the earlier copy); else the last."""
    repeats = lab.repeat_positions(ids)
    return len(ids) - 1 if appended or not repeats else repeats[len(repeats) // 2]


def token_lines(view: SentenceView, tokens: tuple[str, ...], layer: int, head: int) -> None:
    """Where one token looks, BertViz's head view: one head, or every head of the layer."""
    s = st.session_state
    if s["m_query"] is None or s["m_query"] >= len(tokens):
        s["m_query"] = first_query(view.ids, len(s["m_appended"]))
    labels = [f"{i}: {t}" for i, t in enumerate(tokens)]
    q1, q2 = st.columns([2, 3], vertical_alignment="bottom")
    query = q1.selectbox("Token", range(len(tokens)), key="m_query", format_func=labels.__getitem__)
    every = q2.toggle("All heads of the layer", key="m_all_heads")
    shown_heads = list(range(view.weights.shape[1])) if every else [head]
    st.caption(
        f"Layer {layer}: where “{literal(tokens[query])}” looks. Thicker, darker lines carry more weight"
        + ("; each head has its colour, its lines a little apart from the others'." if every else ".")
        + " In the second copy of a repeated phrase, an induction head looks at the token that followed "
        "this token's earlier copy."
    )
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
        "Temperature",
        TEMPERATURES,
        key="m_temperature",
        help="Divides the logits before the softmax: below 1 sharpens, above 1 flattens.",
    )
    candidates = sentence.next_tokens(view.next_logits, info, temperature)
    chart(figures.next_token_bars(candidates, temperature), key="m_next")
    best_id, best_text, _ = candidates[0]
    model, _ = models.model(info.source)  # loaded already: the model drawn
    limit = min(sentence.MAX_TOKENS, model.cfg["context_length"])
    room = limit - len(tokens)
    st.button(
        f"Append “{literal(best_text)}” and step",
        key="m_append",
        on_click=_append,
        args=(best_id, len(s["m_appended"]) + room),
        type="primary",
        disabled=room <= 0,
        help="Adds the most likely token to the sentence: then see in Token view where the new token looks.",
    )
    if room <= 0:
        st.caption(
            f"The sentence has {len(tokens)} tokens, as many as this page shows ({limit}): nothing more can "
            "be appended. Clear the appended tokens or shorten the sentence to go on."
        )
    if s["m_appended"]:
        shown = " ".join(tokens[-len(s["m_appended"]) :])
        st.caption(f"Appended so far: {literal(shown)}. Token view shows where the newest token looks.")
        st.button(
            "Clear the appended tokens", key="m_clear", on_click=lambda: s.update(m_appended=[], m_query=None)
        )
    st.caption("Generating token by token: each new token attends to everything before it (Token view).")


def share(source: str, text: str, view: SentenceView, layer: int, head: int) -> None:
    """The link to this view, every head's weights as JSON and the chosen head's as CSV."""
    st.markdown("**Share.** This link opens the model, sentence, view, layer and head you were looking at:")
    st.code(share_link(source, text), language=None, wrap_lines=True)
    st.download_button(
        "Every head's weights (JSON)",
        lambda: figures.weights_json(source, view.tokens, view.ids, view.weights),
        file_name="weights.json",
        mime="application/json",
        on_click="ignore",
    )
    st.download_button(
        f"Head {layer}.{head}'s weights (CSV)",
        lambda: figures.head_csv(view.weights, view.tokens, layer, head),
        file_name=f"weights_{layer}.{head}.csv",
        mime="text/csv",
        on_click="ignore",
    )
