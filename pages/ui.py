"""The Explorer's UI layer: widgets in, plain values out; caches keyed by plain values.

Not a page (app.py registers only pages/explorer.py). Streamlit lives here and in the pages,
never in attention/.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from attention import AttentionTrace, ExplorerConfig, figures, run
from attention.config import MAX_D_IN, MAX_D_OUT, MAX_HEADS, MAX_SEED, MAX_TEXT_CHARS, PARAMS, VARIANTS
from attention.devices import available_devices, configure_torch_threads, resolve_device
from attention.embeddings import format_matrix, presets
from attention.text import SCHEME_LABELS


def use_router() -> None:
    """Every page calls this first. Until some run calls st.navigation, Streamlit serves a folder
    called pages/ the old (v1) way: a fresh server's first visitor arriving at /compare would get
    that page alone, without app.py (no page config, no sidebar, no per-page cleanup), and so
    would everyone after until someone opened "/" (AppTest even starts every run that way). Run
    app.py here instead: its st.navigation switches the process over and runs this page again,
    inside the router, in this same run (a rerun would lose a button's click)."""
    if PagesManager.uses_pages_directory:
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()


if __name__ == "__main__":  # opened as a page (/ui) in that old mode: it is not one
    use_router()


APP = Path(__file__).resolve().parents[1] / "app.py"
configure_torch_threads()  # once per server process: one thread per computation (see there)
CUSTOM_PRESET = "— your own settings —"
MAX_DROPOUT_WIDGET = 1.0 - 2**-53  # the largest float below 1: any p the config accepts
KNOBS = ("d_out", "d_v", "heads", "dropout", "causal", "bias", "train")


# --- cache: one trace per config, shared by every session (traces are immutable) ------------


# Bounded: a trace at the caps holds ~25 MB (16 heads x 256^2 x 6 matrices x 4 B), so 16 entries
# stay under ~400 MB even if every one is that large.
@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def _trace_for(params: tuple[tuple[str, str], ...]) -> AttentionTrace:
    config, _ = ExplorerConfig.from_values(dict(params))
    return run(config)


def cached_trace(config: ExplorerConfig) -> AttentionTrace:
    return _trace_for(tuple(sorted(config.to_query_params().items())))


# --- widget state <-> config -----------------------------------------------------------------


def _widget_values(config: ExplorerConfig) -> dict:
    values = {name: getattr(config, name) for name in PARAMS}
    values["matrix"] = format_matrix(config.matrix) if config.matrix else ""
    return values


def _load(config: ExplorerConfig) -> None:
    for key, value in _widget_values(config).items():
        st.session_state[f"w_{key}"] = value


def _apply_preset() -> None:
    name = st.session_state["w_preset"]
    preset = next((p for p in presets() if p["name"] == name), None)
    if preset is not None:
        _load(
            ExplorerConfig(**{**preset["settings"], "text": preset["text"], "tokenizer": preset["tokenizer"]})
        )


def _init_widgets() -> None:
    """Give every widget its value when it has none: on a session's first run from the URL's
    query parameters; after a visit to another page (Streamlit drops the state of widgets a
    run did not draw) from the view the Explorer last showed."""
    if "w_variant" in st.session_state:
        return
    saved = st.session_state.get("_explorer_params")
    if saved is None:
        raw = {key: st.query_params.get_all(key) for key in st.query_params}
        config, st.session_state["_url_notes"] = ExplorerConfig.from_values(raw)
    else:
        config, _ = ExplorerConfig.from_values(saved)
    _load(config)


def _raw_values() -> dict:
    """Widget values as from_values takes them: only the knobs this variant and embedding use."""
    s = {key[2:]: value for key, value in st.session_state.items() if key.startswith("w_")}
    knobs = VARIANTS[s["variant"]].knobs
    raw = {k: s[k] for k in ("text", "tokenizer", "variant", "seed", "device")}
    raw |= {k: s[k] for k in KNOBS if k in knobs}
    raw["embedding"] = s["matrix"] if s["embedding"] == "custom" else s["embedding"]
    if s["embedding"] == "random":
        raw["d_in"] = s["d_in"]
    return raw


# --- the controls ----------------------------------------------------------------------------


def explorer_controls() -> tuple[ExplorerConfig, list[str]]:
    """The sentence box and the sidebar knobs -> the config to show, and notes on anything that
    was corrected (bad URL values, impossible combinations)."""
    _init_widgets()
    s = st.session_state
    st.text_area(
        "Sentence",
        key="w_text",
        height=80,
        max_chars=MAX_TEXT_CHARS,
        help="Type anything; tokens are split by the tokenizer in the sidebar.",
    )

    with st.sidebar:
        names = [CUSTOM_PRESET] + [p["name"] for p in presets()]
        st.selectbox("Preset (the documents' examples)", names, key="w_preset", on_change=_apply_preset)
        variant = VARIANTS[s["w_variant"]]
        st.selectbox("Module", list(VARIANTS), key="w_variant", format_func=lambda v: VARIANTS[v].label)
        st.selectbox("Tokenizer", list(SCHEME_LABELS), key="w_tokenizer", format_func=SCHEME_LABELS.get)
        st.radio(
            "Embedding",
            ["book", "random", "custom"],
            key="w_embedding",
            horizontal=True,
            format_func={
                "book": "book vectors",
                "random": "nn.Embedding (seeded)",
                "custom": "my matrix",
            }.get,
            help="Book vectors exist for the documents' sentences (see Preset).",
        )
        if s["w_embedding"] == "custom":
            st.text_area(
                "Matrix: one row per token, numbers split by commas, rows by ';' or lines",
                key="w_matrix",
                height=100,
            )
        knobs = variant.knobs
        blog = variant.key.startswith("blog")
        st.number_input(
            "d_in (embedding width)",
            1,
            MAX_D_IN,
            key="w_d_in",
            disabled=s["w_embedding"] != "random",
            help="Fixed vectors decide d_in; pick the nn.Embedding source to change it.",
        )
        d_out_label = {"wrapper": "d_out per head", "blog": "d_q = d_k", "blog_heads": "d_q = d_k per head"}
        st.number_input(
            d_out_label.get(variant.key, "d_out"), 1, MAX_D_OUT, key="w_d_out", disabled="d_out" not in knobs
        )
        if blog:
            st.number_input("d_v (value width)", 1, MAX_D_OUT, key="w_d_v")
        st.number_input("heads", 1, MAX_HEADS, key="w_heads", disabled="heads" not in knobs)
        st.number_input(
            "dropout p",
            0.0,
            MAX_DROPOUT_WIDGET,
            step=0.05,
            key="w_dropout",
            format="%.2f",
            disabled="dropout" not in knobs,
            help="Applied to the weights in train mode only.",
        )
        st.checkbox("causal mask", key="w_causal", disabled="causal" not in knobs)
        st.checkbox("qkv bias", key="w_bias", disabled="bias" not in knobs)
        st.toggle("train mode (dropout on)", key="w_train", disabled="train" not in knobs)
        st.number_input(
            "seed", 0, MAX_SEED, key="w_seed", help="Seeds the embedding, the weights and dropout."
        )
        devices = ["auto", *available_devices()]
        if s["w_device"] not in devices:
            devices.append(s["w_device"])  # asked for by a link; resolve_device explains the fallback
        st.selectbox("device", devices, key="w_device")
        if not knobs:
            st.caption(f"{variant.class_name} has no trainable weights: only the text and embedding matter.")

    config, notes = ExplorerConfig.from_values(_raw_values())
    url_notes = s.pop("_url_notes", [])
    st.session_state["_explorer_params"] = config.to_query_params()
    st.query_params.from_dict(config.to_query_params())
    return config, url_notes + notes


_MARKUP = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def literal(text: str) -> str:
    """User text made safe for Streamlit's markdown (labels, captions, messages): every ASCII
    punctuation mark backslash-escaped (CommonMark allows it), so **bold**, [x](javascript:…),
    <img …>, $latex$ and :red[colour] directives all show as the characters typed."""
    return _MARKUP.sub(r"\\\1", text)


def show_notes(notes: list[str]) -> None:
    """Corrections, as text (never HTML): what was wrong and what is shown instead."""
    if notes:
        st.warning("**Some settings could not be used as given; the page shows the closest valid view.**")
        for note in notes:
            st.text("• " + note)


def device_caption(config: ExplorerConfig) -> str:
    """The device that ran, in words, with the reason for any fallback."""
    choice = resolve_device(config.device)
    return choice.name + (f" ({choice.reason})" if choice.reason else "")


PROJECTOR_SCALE = 1.4  # text in charts in projector mode (the sidebar toggle)


def chart(fig, key: str) -> None:
    """A plotly chart with its PNG download (the modebar camera) kept; in projector mode, with
    every text in it 1.4 times larger."""
    if st.session_state.get("projector"):
        figures.scale_text(fig, PROJECTOR_SCALE, color="#000000")
    st.plotly_chart(
        fig, key=key, config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
    )


def self_check(key: str, question: str, options: list[str], answer: str, why: str) -> str | None:
    """A prediction before the reveal: immediate feedback once the learner picks an option."""
    picked = st.radio(f"Predict: {question}", options, index=None, key=key, format_func=literal)
    if picked is not None:
        if picked == answer:
            st.success(f"Right: {literal(answer)}. {why}")
        else:
            st.error(f"Not quite: the answer is {literal(answer)}. {why}")
    return picked
