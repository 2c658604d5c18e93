"""Inside a model's lab: knock heads out and see what changes (the loss on each token, the next
token, every head's attention), and map every head's importance by ablation or patching. The
numbers come from attention.model.lab and interventions through ui.model.caches' caches; the words
under each result are lab.say_*'s, written from those numbers."""

from __future__ import annotations

import streamlit as st

from attention.errors import ConfigError
from attention.figures import lab as figures
from attention.figures.model import model_grid
from attention.i18n import N_, tr, tr_n
from attention.model import lab, sentence
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from attention.model.interventions import check_heads, parse_heads
from ui.model import caches as models
from ui.model.url import MAPS, METHODS, MODES, label
from ui.widgets import chart, chart_width, copy_link_button, keep_choice, literal, narrow, show_notes


def _heads_from_url(model: GPTModel) -> list[str]:
    """?ko=1.0,1.3, once per URL load, kept to the heads this model has; what could not be used is noted."""
    asked = st.session_state.pop("_m_ko", "")
    if not asked:
        return []
    try:
        heads = parse_heads(asked)
        check_heads(model, heads)
    except ConfigError as error:
        # TRANSLATORS: {value} is what the link asked for; {error} a whole sentence saying what is wrong
        show_notes([tr("ko={value}: {error} Knocked out no head.", value=repr(asked[:40]), error=error)])
        return []
    return [lab.head_name(h) for h in dict.fromkeys(heads)]


def _run_experiment(heads: tuple, text: str) -> None:
    st.session_state.update(m_ko=[lab.head_name(h) for h in heads], m_text=text, m_appended=[], m_query=None)


def experiments(source: str, model: GPTModel, info: ModelInfo) -> None:
    """The three classic experiments, a button each, on a sentence that shows them; an experiment
    whose heads this model lacks says so instead."""
    scores = models.roles(source, model, info, models.probes_for(info))
    for column, (name, words) in zip(st.columns(3), lab.EXPERIMENTS.items(), strict=True):
        try:
            heads = lab.experiment_heads(name, scores)
        except ConfigError as error:
            column.caption(literal(str(error)))
            continue
        column.button(
            tr(words),
            key=f"m_exp_{name}",
            on_click=_run_experiment,
            args=(heads, sentence.example(info)),
            use_container_width=True,
            help=tr(
                "This runs on a repeated phrase, because the second copy is where the model's copying shows."
            ),
        )
        column.caption(tr("Heads {heads}", heads=", ".join(map(lab.head_name, heads))))


def head_picker(model: GPTModel) -> tuple[list[str], str]:
    """Which heads to knock out and how: (["1.0", ...], "zero" | "mean")."""
    s = st.session_state
    options = [f"{layer}.{head}" for layer in range(model.layers) for head in range(model.heads)]
    s["m_ko"] = _heads_from_url(model) or [h for h in s["m_ko"] if h in options]
    left, right = st.columns([3, 1])
    left.multiselect(
        tr("Heads to knock out (layer.head)"),
        options,
        key="m_ko",
        placeholder=tr("Pick heads, or run an experiment above"),
    )
    mode_control(right)
    return s["m_ko"], s["m_mode"]


def mode_control(where) -> None:
    """Zero or mean: how a knocked-out head is replaced (one setting for the knockout and the map)."""
    keep_choice("m_mode", "zero")  # a click on the chosen mode keeps it
    where.segmented_control(
        tr("Replace with"),
        list(MODES),
        key="m_mode",
        format_func=label(MODES),
        wrap=True,  # in a column: its options wrap rather than scroll out of sight
        help=tr(
            "Zero: the head writes nothing. Mean: the head writes its average over this sentence's "
            "positions. Mean keeps the constant part of what the head writes, and it is the usual choice "
            "in papers."
        ),
    )


def knockout_view(
    source: str, model: GPTModel, info: ModelInfo, ids: list[int], tokens: tuple[str, ...]
) -> None:
    """Pick heads (or run an experiment), then the sentence before and after, with what it shows."""
    st.caption(
        tr(
            "A head's pattern shows where the head looks, not what it does. Knock heads out (remove what "
            "they write into the model) and see what changes: the loss on each token, the next token and "
            "the other heads."
        )
    )
    shared_kv_note(model)
    experiments(source, model, info)
    picked, mode = head_picker(model)
    if not picked:
        st.info(tr("Pick at least one head to knock out, or run one of the experiments above."))
        return
    try:
        result = models.knockout(source, model, info, ids, tokens, parse_heads(",".join(picked)), mode)
    except ConfigError as error:
        st.warning(literal(str(error)))
        return
    st.markdown(" ".join(literal(words) for words in lab.say_knockout(result)))
    chart(figures.loss_figure(tokens, result.loss, result.repeats, chart_width(1100)), key="m_ko_loss")
    chart(figures.next_figure(result.next, narrow()), key="m_ko_next")
    st.markdown(
        tr(
            "**Every head's attention**, with the knockout and without it. A knocked-out head still looks "
            "where it looked before; only what it writes is gone. A later head that read its output can "
            "now look elsewhere."
        )
    )
    after, before = st.tabs([tr("Knocked out"), tr("Untouched")])
    with after:
        chart(model_grid(result.weights["after"]), key="m_ko_grid_after")
    with before:
        chart(model_grid(result.weights["before"]), key="m_ko_grid_before")
    st.caption(
        tr("This page's address holds the heads and the mode. Share the address to show the same knockout.")
    )
    copy_link_button()


def shared_kv_note(model: GPTModel) -> None:
    """Where query heads share key/value heads: a head here is a query head, and its group's."""
    kv = model.kv_heads
    if len(kv) == len(set(kv)):
        return
    group = [h for h, g in enumerate(kv) if g == kv[0]]
    st.caption(
        tr(
            "Each head here is a query head: knocking it out or patching it changes what that one head "
            "passes on. Its keys and values are shared. Heads {first}–{last} read one key/value head, so "
            "patching that key/value head would change all {n} of them at once.",
            first=group[0],
            last=group[-1],
            n=len(group),
        )
    )


def corrupted_input(
    info: ModelInfo, ids: list[int], context_length: int
) -> tuple[list[int], tuple[str, ...]]:
    """The corrupted sentence for patching: typed (as many tokens as the sentence), or the sentence
    with its first copy changed (lab.corrupted_twin). ConfigError when neither can be used."""
    typed = st.text_input(
        tr("Corrupted sentence (as many tokens as yours)"),
        key="m_corrupted",
        placeholder=tr("Empty: your sentence, with the first copy of its repeated phrase changed"),
        help=tr(
            "Patching copies a head's output from your sentence (the clean run) into this corrupted one."
        ),
    )
    if typed.strip():
        corrupted, shown = sentence.encode(info, typed, context_length)
        if len(corrupted) != len(ids):
            raise ConfigError(
                tr_n(
                    "The corrupted sentence has {corrupted} token and yours has {clean}. Patching needs "
                    "the same number of tokens, position by position. Replace a word with another word "
                    "that is also one token (the line under the box shows the tokens).",
                    "The corrupted sentence has {corrupted} tokens and yours has {clean}. Patching needs "
                    "the same number of tokens, position by position. Replace a word with another word "
                    "that is also one token (the line under the box shows the tokens).",
                    len(corrupted),
                    corrupted=len(corrupted),
                    clean=len(ids),
                ),
                "corrupted",
            )
        return corrupted, shown
    corrupted = lab.corrupted_twin(info, ids)
    return corrupted, sentence.shown_tokens(info, corrupted)


METHOD_HELP = N_(
    "Exact runs the model once per head. The estimate (attribution patching) needs only one backward pass, "
    "which takes seconds even for a big model, but it is approximate. Check any head it names with a "
    "knockout."
)


def importance_view(
    source: str, model: GPTModel, info: ModelInfo, ids: list[int], tokens: tuple[str, ...]
) -> None:
    """Every head alone, knocked out or patched: an (L, H) map, what it shows, and its export."""
    s = st.session_state
    st.caption(
        tr(
            "Which heads matter for this prediction? Each head is knocked out on its own, or patched from "
            "your sentence into a corrupted one. The change is measured on the repeated tokens, where an "
            "earlier copy tells the model the next token. When nothing repeats, it is measured on every "
            "token."
        )
    )
    shared_kv_note(model)
    keep_choice("m_map", "ablation")
    keep_choice("m_method", "exact")
    left, middle, right = st.columns([2, 1, 2])
    left.segmented_control(tr("Map"), list(MAPS), key="m_map", format_func=label(MAPS), wrap=True)
    if s["m_map"] == "ablation":
        mode_control(middle)
    right.segmented_control(
        tr("Method"),
        list(METHODS),
        key="m_method",
        format_func=label(METHODS),
        wrap=True,
        help=tr(METHOD_HELP),
    )
    kind, method = s["m_map"], s["m_method"]
    corrupted = ()
    try:
        if kind == "patching":
            corrupted, shown = corrupted_input(info, ids, model.cfg["context_length"])
            words = literal(" ".join(shown[:60])) + (" …" if len(shown) > 60 else "")
            st.caption(tr("Corrupted: {tokens}", tokens=words))
        mode = s["m_mode"] if kind == "ablation" else "zero"  # patching replaces by the clean run's
        grid = models.importance(source, model, ids, corrupted, kind, method, mode)
    except ConfigError as error:
        st.warning(literal(str(error)))
        return
    st.markdown(" ".join(literal(words) for words in lab.say_map(grid, kind)))
    chart(figures.importance_figure(grid, kind, chart_width(720)), key="m_map_chart")
    left, right = st.columns(2)
    left.download_button(
        tr("The map (CSV)"),
        lambda: figures.map_csv(grid, kind),
        file_name=f"{kind}_map.csv",
        mime="text/csv",
        on_click="ignore",
    )
    right.download_button(
        tr("The map and its inputs (JSON)"),
        lambda: figures.map_json(grid, kind, source, ids, tokens, corrupted),
        file_name=f"{kind}_map.json",
        mime="application/json",
        on_click="ignore",
    )
    copy_link_button()
