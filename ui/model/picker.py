"""Inside a model's first controls: the model picker (and what the model learned, in a line), a
model that cannot be opened said so, the sentence box and the sentence as the model's tokens."""

from __future__ import annotations

import re

import streamlit as st

from attention.errors import ConfigError
from attention.i18n import N_, tr, tr_n
from attention.model import catalog, sentence
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from ui.model import caches as models
from ui.widgets import literal

COPY_MODEL = N_(
    "This model learned to copy repeated stretches of tokens, not language. Its heads show where a repeat "
    "is, not grammar."
)


def meaning(info: ModelInfo) -> str:
    """What the model learned and what its attention patterns can and cannot mean, for a student;
    built from config.json's attention_explorer.trained_on."""
    trained_on = info.trained_on.lower()
    if "repeat" in trained_on or "copy" in trained_on:
        return tr(COPY_MODEL)
    if not trained_on and catalog.is_hub(info.source):
        return tr(
            "This model learned language from web text, so its heads can follow grammar and meaning. "
            "Still, a head's pattern is only a clue to what the head does, not proof."
        )
    if trained_on:
        return tr(
            "This model learned from {trained_on}. Its heads show what that training taught it, nothing "
            "more.",
            trained_on=literal(info.trained_on_shown),
        )
    return tr("What this model was trained on is not recorded, so read its patterns with care.")


def _label(source: str) -> str:
    """The picker's label for a source that is not in the catalogue but was opened."""
    if catalog.is_hub(source):
        # TRANSLATORS: a model's name in the model list, {source} a Hugging Face repo ("gpt2")
        return tr("{source} from the hub", source=source)
    # TRANSLATORS: a model's name in the model list, {source} a folder on the server
    return tr("Local: {source}", source=source)


OPENED = "_m_opened"  # the model this session last opened: where a pick that cannot be opened goes back
# What is shown instead of a model that cannot be opened, by whose it is (_fallback)
CANNOT_OPEN = {
    # TRANSLATORS: {label} is the model's name or folder; {why} a short phrase saying what went wrong; {name}
    # a model's name
    "had": N_("Could not open {label}: {why}. Showing “{name}”, the model you had open, instead."),
    # TRANSLATORS: {label} is the model's name or folder; {why} a short phrase saying what went wrong; {name}
    # a model's name
    "default": N_("Could not open {label}: {why}. Showing “{name}”, the default model, instead."),
    # TRANSLATORS: {label} is the model's name or folder; {why} a short phrase saying what went wrong; {name}
    # a model's name
    "copy": N_("Could not open {label}: {why}. Showing “{name}”, the copy model, instead."),
}


def _cannot_open(label: str, error: ConfigError, name: str, whose: str) -> None:
    """For a student: what happened and what is shown instead; the details folded away."""
    why = re.split(r"\. |。", str(error))[0].rstrip(".。")  # its first sentence (Japanese ends in 。)
    st.error(literal(tr(CANNOT_OPEN[whose], label=label[:100], why=why[:300], name=name)))
    with st.expander(tr("Details for the administrator")):
        st.text(str(error))


def _fallback(failed: str) -> tuple[str, str]:
    """Where a model that cannot be opened goes back to, and whose it is (a key of CANNOT_OPEN):
    the model the student had open, else the page's default model (else the copy model, if the
    default is what failed)."""
    had = st.session_state.get(OPENED)
    if had is not None and had != failed:
        return had, "had"
    default = catalog.default()
    return (default, "default") if default != failed else (catalog.BUNDLED, "copy")


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
            back, whose = catalog.BUNDLED, "copy"
            model, info = models.model(back)
        name = choices.get(back, _label(back)).split(" (")[0]  # "Shakespeare: has read 36 plays"
        _cannot_open(choices.get(source, source), error, name, whose)
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
        tr("Model"),
        list(choices),
        key="m_source",
        format_func=choices.get,
        help=tr(
            "The Shakespeare and copy models work offline. A model from the Hugging Face hub downloads "
            "once, when you pick it."
        ),
    )
    if listed_only:
        st.caption(  # docs/classroom.md: who may open what
            tr("This server opens only the models listed here.")
        )
    else:
        right.text_input(
            tr("…or a folder on this server"),
            key="m_path",
            placeholder="/path/with/config.json",
            help=tr(
                "A folder with config.json and model.safetensors in Hugging Face's layout (as "
                "save_pretrained writes them): GPT-2, Llama, Qwen3 or Gemma 3."
            ),
        )
    model_caption(model, info)
    return source, model, info


def model_caption(model: GPTModel, info: ModelInfo) -> None:
    """The model's size in a line (what it was trained on in full under the "?"), and, in the line
    below, what it learned."""
    cfg = model.cfg
    st.caption(
        tr(
            "**{name}**: layers: {layers}, heads in each: {heads}, d = {d}, parameters: {millions:.1f} M, "
            "context length: {context}.",
            name=literal(info.shown_name),
            layers=cfg["n_layers"],
            heads=cfg["n_heads"],
            d=cfg["emb_dim"],
            millions=sum(p.numel() for p in model.parameters()) / 1e6,
            context=cfg["context_length"],
        ),
        # TRANSLATORS: {what} is what the model learned from, a noun phrase (e.g. 36 of Shakespeare's plays)
        help=tr("Trained on {what}.", what=literal(info.trained_on_shown)) if info.trained_on else None,
    )
    if info.layout != "gpt2":
        st.caption(layout_words(model, info))
    st.caption(meaning(info))


LAYOUTS = {"llama": "Llama 3", "qwen3": "Qwen3", "gemma3_text": "Gemma 3"}


def layout_words(model, info: ModelInfo) -> str:
    """How a model in today's layout computes attention, in a line: its key/value heads, RoPE,
    QK-norm and its sliding-window layers."""
    cfg = model.cfg
    words = [
        tr_n(
            "Laid out as {layout} is: {heads} query heads share {groups} key/value head, positions enter "
            "by rotating queries and keys (RoPE), RMSNorm instead of LayerNorm.",
            "Laid out as {layout} is: {heads} query heads share {groups} key/value heads, positions enter "
            "by rotating queries and keys (RoPE), RMSNorm instead of LayerNorm.",
            cfg["n_kv_groups"],
            layout=LAYOUTS.get(info.layout, info.layout),
            heads=cfg["n_heads"],
            groups=cfg["n_kv_groups"],
        )
    ]
    if cfg.get("qk_norm"):
        words.append(tr("Queries and keys are normalised before they meet (QK-norm)."))
    sliding = [i for i, block in enumerate(model.trf_blocks) if block.window]
    if sliding:
        words.append(
            tr_n(
                "Layer {layers} sees only the last {window} tokens (a sliding window).",
                "Layers {layers} see only the last {window} tokens (a sliding window).",
                len(sliding),
                layers=", ".join(map(str, sliding)),
                window=model.trf_blocks[sliding[0]].window,
            )
        )
    return " ".join(words)


def _new_sentence() -> None:
    """A new sentence starts without the tokens appended to the last one."""
    st.session_state.update(m_appended=[], m_query=None)


def sentence_input(info: ModelInfo, context_length: int) -> tuple[str, list[int], tuple[str, ...]]:
    """The sentence box: (the text, its token ids with the appended ones, their display texts),
    and a note under it when the model learned from English only and the sentence is not English
    (its predictions then say little: the question pages would grade guesses)."""
    text, ids, tokens = _sentence(info, context_length)
    if info.english_only and not sentence.looks_english(text, len(ids)):
        st.caption(
            tr(
                "“{model}” learned from English text only, and this sentence does not look like English. "
                "Its attention and predictions here show what it does with text it never learned.",
                model=literal(info.shown_name),
            )
        )
    return text, ids, tokens


def _sentence(info: ModelInfo, context_length: int) -> tuple[str, list[int], tuple[str, ...]]:
    """Appended tokens that cannot be used are dropped (the sentence stays); a sentence that cannot
    be used is said so and the example sentence is shown."""
    s = st.session_state
    text = st.text_input(
        tr("Sentence"),
        key="m_text",
        help=tr("Press Enter to apply. A repeated phrase shows induction heads."),
        on_change=_new_sentence,
    )
    try:
        if s["m_appended"]:  # too many from a link, say, or another model's ids
            try:
                return text, *sentence.encode(info, text, context_length, s["m_appended"])
            except ConfigError as error:
                s["m_appended"] = []
                st.warning(
                    # TRANSLATORS: {error} is a whole sentence saying what is wrong with the appended tokens
                    literal(tr("{error} Showing the sentence without the appended tokens.", error=error))
                )
        return text, *sentence.encode(info, text, context_length)
    except ConfigError as error:
        # TRANSLATORS: {error} is a whole sentence saying what is wrong with the sentence
        st.warning(literal(tr("{error} Showing the example sentence instead.", error=error)))
        return text, *sentence.encode(info, sentence.example(info), context_length, cut=True)
