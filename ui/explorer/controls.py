"""The Explorer's controls: the sentence box and the sidebar knobs <-> an ExplorerConfig and the
URL (the sidebar's drawing: sidebar.py; the view above the chart, which step, head, token:
view_controls.py).

Knob state lives in widget keys "w_<param>", the view in keys named as its URL parameters
(query_params.VIEW_PARAMS). Every knob change runs `_sync` before the page: it repairs the settings
and writes back what will really be computed, so the sidebar and the page never disagree; the
notes it leaves say what was wrong. The URL holds everything (ui/url.py): the Explorer reloads
from a URL it did not write (Back, Forward, a shared link). Another page starts from the
Explorer's settings with explorer_settings(), which reads its link, never its widgets.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

from attention.chapter3.embeddings import format_matrix, has_book_vectors, presets
from attention.chapter3.text import tokenize
from attention.errors import ConfigError
from attention.explorer import ExplorerConfig
from attention.explorer.query_params import (
    PARAMS,
    VIEW_PARAMS,
    explorer_view_values,
    from_values,
    to_query_params,
)
from attention.explorer.variants import KNOBS, VARIANTS
from attention.i18n import DEFAULT, LANGUAGES, N_, language, tr
from attention.i18n.sentences import JOURNEY
from ui import url
from ui.cache import cached_trace
from ui.explorer.sidebar import look, sidebar

CUSTOM_PRESET = N_("— your own settings —")  # the example picker's value (and message) for none
# presets.json names an example "<its sentence> (<what it shows>)": the sentence stays as the book
# writes it, what it shows is translated (these, marked for the catalogs)
PRESET_NOTES = (
    N_("the book, chapter 3"),
    N_("worked by hand, no weights"),
    N_("Raschka's blog, d_v ≠ d_k"),
    N_("Llama 3's attention, small"),
)


def _translated_examples() -> tuple[dict, ...]:
    """The book's first example in each translation's words: the book's module and knobs, on a
    seeded random embedding of the book's width (its printed vectors are for its English words)."""
    book = presets()[0]
    settings = book["settings"] | {"embedding": "random", "d_in": len(book["vectors"][0])}
    return tuple(
        {"name": f"{text} ({LANGUAGES[code]})", "text": text, "tokenizer": "words", "settings": settings}
        for code, text in JOURNEY.items()
        if code != DEFAULT
    )


EXAMPLES = presets() + _translated_examples()  # the example picker's list


def _config_of(example: dict) -> ExplorerConfig:
    return ExplorerConfig(**example["settings"], text=example["text"], tokenizer=example["tokenizer"])


def opening_config() -> ExplorerConfig:
    """Where the Explorer opens: the book's example, in the reader's language where it is not English."""
    return _opening_in(language())


@functools.cache  # a config checks itself when made: once per language, not on every bare link
def _opening_in(code: str) -> ExplorerConfig:
    if code not in JOURNEY or code == DEFAULT:  # English, and the tests' pseudo language
        return ExplorerConfig()
    return _config_of(next(e for e in EXAMPLES if e["text"] == JOURNEY[code])).normalised()


@functools.cache
def _example_names() -> dict[ExplorerConfig, str]:
    """Each example's settings, as the knobs hold them, to its name (the first where two match):
    made once per process. Looking for a link's example by making every example's config again
    was ~2% of an Explorer link's page load (py-spy, benchmarks/compare_commits.py)."""
    names: dict[ExplorerConfig, str] = {}
    for example in EXAMPLES:
        names.setdefault(_config_of(example).normalised(), example["name"])
    return names


MATRIX_PREFILL_MAX = 4096  # numbers: "my matrix" starts as the current x up to this size
WIDGETS = tuple(f"w_{name}" for name in PARAMS) + ("w_matrix", "w_preset")
SIDEBAR = tuple(key for key in WIDGETS if key not in ("w_text", "w_preset"))  # the body has those two
# A change of one of these reruns only the page's body (a keyed fragment, BODY: the sentence, the
# example, the view) when the sidebar already shows all it will draw (_look): a class's knob turns
# skip the sidebar's ~20 elements and the page's chrome, each a message to every browser
# (benchmarks/classroom.py). Any other change, or one that changes what the sidebar draws (a
# repaired value, another module, a toggle it disables), reruns the page.
BODY = "explorer"
BODY_ONLY = {"text", "d_in", "d_out", "d_v", "heads", "dropout", "causal", "bias", "train", "seed"}


# --- knobs: widget state <-> config ------------------------------------------------------------


def _load(config: ExplorerConfig) -> None:
    s = st.session_state
    for name in PARAMS:
        s[f"w_{name}"] = getattr(config, name)
    s["w_text"] = config.text.replace("\n", " ")  # a one-line box; the tokenizers treat both alike
    s["w_matrix"] = format_matrix(config.matrix) if config.matrix else ""
    s["w_preset"] = _preset_of(config)


def _raw_values() -> dict:
    """Widget values as from_values takes them: only the knobs this variant and embedding use."""
    state = st.session_state
    s = {key[2:]: state[key] for key in WIDGETS if key in state}  # by name: iterating the state costs more
    variant = VARIANTS[s["variant"]]
    raw = {k: s[k] for k in ("text", "tokenizer", "variant", "seed", "device")}
    raw |= {k: s[k] for k in KNOBS if variant.has(k)}
    raw["embedding"] = s["matrix"] if s["embedding"] == "custom" else s["embedding"]
    if s["embedding"] == "random":
        raw["d_in"] = s["d_in"]
    return raw


def _preset_of(config: ExplorerConfig) -> str:
    return _example_names().get(config.normalised(), CUSTOM_PRESET)


def _sync(source: str) -> None:
    """A knob or the sentence changed (callback, before the page runs): repair, show what is really
    used. Then rerun only the page's body if the sidebar already shows all of it, else the page."""
    s = st.session_state
    shown = {key: s.get(key) for key in SIDEBAR}  # as the browser shows them, this change included
    if source == "text" and s["w_embedding"] == "book":
        try:
            if not has_book_vectors(tokenize(s["w_text"], s["w_tokenizer"])):
                s["w_embedding"] = "random"  # the learner's own sentence: quietly the seeded embedding
        except ConfigError:
            pass  # no tokens: from_values says so below
    if source == "embedding" and s["w_embedding"] == "custom" and not s.get("w_matrix"):
        s["w_matrix"] = _current_x()
    config, notes = from_values(_raw_values())
    for name in PARAMS:  # knobs this module lacks keep the learner's value for the next module
        if (name not in KNOBS or config.has(name)) and s[f"w_{name}"] != getattr(config, name):
            s[f"w_{name}"] = getattr(config, name)
    s["_notes"] = notes
    s["w_preset"] = _preset_of(config)
    same = shown == {key: s.get(key) for key in SIDEBAR} and look(config) == s.get("_sidebar_look")
    if source in BODY_ONLY and same:
        with contextlib.suppress(StreamlitAPIException):  # no body drawn yet (it stopped before): the page
            st.rerun(scope=BODY)
    st.rerun()  # the sidebar must change too: the page, whatever drew this


def _current_x() -> str:
    """The x the page shows now, as a matrix to edit (shortest float32 text of each number)."""
    shown = st.session_state.get("_explorer_config")
    if shown is None or len(shown.tokens) * shown.d_in > MATRIX_PREFILL_MAX:
        return ""
    x = cached_trace(shown).x[0].numpy()  # (T, d_in)
    return "; ".join(", ".join(str(np.float32(v)) for v in row) for row in x)


def _apply_preset() -> None:
    name = st.session_state["w_preset"]
    example = next((e for e in EXAMPLES if e["name"] == name), None)
    if example is not None:
        _load(_config_of(example).normalised())
    st.rerun()  # the knobs in the sidebar change too: the page, not only the body that drew this


# --- the URL --------------------------------------------------------------------------------------


def _load_url(raw: dict[str, tuple[str, ...]]) -> None:
    """The URL's view into the widgets (the session's first run, Back/Forward, an edited link)."""
    s = st.session_state
    knobs = {k: v for k, v in raw.items() if k not in VIEW_PARAMS}
    if not knobs:  # a bare link: the opening example, in the reader's language
        knobs = {k: (v,) for k, v in to_query_params(opening_config()).items()}
    config, notes = from_values(knobs)
    _load(config)
    view, view_notes = explorer_view_values(raw, config)
    s["view"] = view.get("view", "steps")
    s["head"], s["query"] = view.get("head", 0), view.get("query", min(1, len(config.tokens) - 1))
    for name in ("step", "numbers", "fitted"):
        s[f"_{name}_auto"] = name not in view
        if name in view:
            s[name] = view[name] if name == "step" else view[name] == "1"
    s["_url_notes"] = notes + view_notes


def explorer_settings() -> ExplorerConfig:
    """The Explorer's settings as its link carries them (the defaults before it has run): what
    another page starts from. Read from the Explorer's URL, not from its widgets."""
    return from_values(url.own_link(""))[0]


def explorer_url(config: ExplorerConfig, shown: dict) -> dict[str, str]:
    """The URL parameters of this view: the knobs, and what is shown where it is not the
    default; nothing at all for the opening view (a bare URL)."""
    params = {k: str(v) for k, v in shown.items() if v is not None}
    if config.normalised() == opening_config() and not params:
        return {}
    return to_query_params(config) | params


def write_url(config: ExplorerConfig, shown: dict) -> None:
    url.keep("explorer", explorer_url(config, shown))


# --- drawing ----------------------------------------------------------------------------------


def explorer_controls() -> None:
    """The sidebar's knobs (a page run; most changes of them rerun only the body)."""
    url.sync("explorer", WIDGETS + VIEW_PARAMS, _load_url)
    sidebar(from_values(_raw_values())[0], _sync)


def sentence_row() -> None:
    """The sentence box and the example picker, side by side (the body's: it redraws the example's
    name when a knob or the sentence leaves it)."""
    row = st.container(horizontal=True, vertical_alignment="bottom")  # one block (columns are three)
    row.text_input(  # no max_chars: its counter sits over long text; from_values cuts at MAX_TEXT_CHARS
        tr("Sentence"),
        key="w_text",
        on_change=_sync,
        args=("text",),
        placeholder=tr("Type a sentence and press Enter"),
        help=tr("Press Enter to apply. The tokenizer chosen in the sidebar splits the text into tokens."),
    )
    row.selectbox(
        tr("Example"),
        [CUSTOM_PRESET] + [e["name"] for e in EXAMPLES],
        key="w_preset",
        on_change=_apply_preset,
        format_func=preset_label,
        help=tr(
            "Sentences and settings from the book and from Raschka's blog post, plus the book's first "
            "sentence in each of its translations."
        ),
        width=400,  # the opening example's name whole at 1366 px, in the longest language (Polish)
    )


def preset_label(name: str) -> str:
    """An example's name in the reader's language: its sentence as the book writes it, what it
    shows translated."""
    sentence, opening, note = name.rpartition(" (")
    if not opening or not note.endswith(")"):
        return tr(name)
    return tr("{sentence} ({note})", sentence=sentence, note=tr(note[:-1]))


def explorer_config() -> tuple[ExplorerConfig, list[str]]:
    """The config the knobs hold, and notes on anything that was corrected (bad URL values,
    impossible combinations). Read from the widgets' state: the body may run without the sidebar."""
    s = st.session_state
    config, notes = from_values(_raw_values())
    s["_explorer_config"] = config
    fresh = s.pop("_url_notes", []) + s.pop("_notes", [])  # a link's or a knob's corrections
    if fresh:
        s["_notes_for"] = (config, language(), fresh)
    elif s.get("_notes_for", (None, None))[:2] == (config, language()):  # a click in the view: the same
        fresh = s["_notes_for"][2]  # notes (written in one language: another drops them)
    return config, fresh + notes
