"""The Explorer's controls: the sentence box and the sidebar knobs -> an ExplorerConfig.

Widget state lives under "w_<param>" keys. The URL holds the whole view: read once when a
session starts, written after every run.
"""

from __future__ import annotations

import streamlit as st

from attention import ExplorerConfig
from attention.config import MAX_D_IN, MAX_D_OUT, MAX_HEADS, MAX_SEED, MAX_TEXT_CHARS
from attention.devices import available_devices
from attention.embeddings import format_matrix, presets
from attention.query_params import PARAMS, from_values, to_query_params
from attention.text import SCHEME_LABELS
from attention.variants import KNOBS, VARIANTS

CUSTOM_PRESET = "— your own settings —"
MAX_DROPOUT_WIDGET = 1.0 - 2**-53  # the largest float below 1: any p the config accepts


def _load(config: ExplorerConfig) -> None:
    for name in PARAMS:
        st.session_state[f"w_{name}"] = getattr(config, name)
    st.session_state["w_matrix"] = format_matrix(config.matrix) if config.matrix else ""


def _apply_preset() -> None:
    name = st.session_state["w_preset"]
    preset = next((p for p in presets() if p["name"] == name), None)
    if preset is not None:
        settings = {**preset["settings"], "text": preset["text"], "tokenizer": preset["tokenizer"]}
        _load(ExplorerConfig(**settings).normalised())


def _init_widgets() -> None:
    """Give every widget its value when it has none: on a session's first run from the URL's
    query parameters; after a visit to another page (Streamlit drops the state of widgets a
    run did not draw) from the view the Explorer last showed."""
    if "w_variant" in st.session_state:
        return
    saved = st.session_state.get("_explorer_params")
    if saved is None:
        raw = {key: st.query_params.get_all(key) for key in st.query_params}
        config, st.session_state["_url_notes"] = from_values(raw)
    else:
        config, _ = from_values(saved)
    _load(config)


def _raw_values() -> dict:
    """Widget values as from_values takes them: only the knobs this variant and embedding use."""
    s = {key[2:]: value for key, value in st.session_state.items() if key.startswith("w_")}
    variant = VARIANTS[s["variant"]]
    raw = {k: s[k] for k in ("text", "tokenizer", "variant", "seed", "device")}
    raw |= {k: s[k] for k in KNOBS if variant.has(k)}
    raw["embedding"] = s["matrix"] if s["embedding"] == "custom" else s["embedding"]
    if s["embedding"] == "random":
        raw["d_in"] = s["d_in"]
    return raw


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
        st.selectbox("Module", list(VARIANTS), key="w_variant", format_func=lambda v: VARIANTS[v].label,
                     help=variant.help)  # fmt: skip
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
        st.number_input(
            "d_in (embedding width)",
            1,
            MAX_D_IN,
            key="w_d_in",
            disabled=s["w_embedding"] != "random",
            help="Fixed vectors decide d_in; pick the nn.Embedding source to change it.",
        )
        st.number_input(variant.d_out_label, 1, MAX_D_OUT, key="w_d_out", disabled=not variant.has("d_out"))
        if variant.has("d_v"):
            st.number_input("d_v (value width)", 1, MAX_D_OUT, key="w_d_v")
        st.number_input("heads", 1, MAX_HEADS, key="w_heads", disabled=not variant.has("heads"))
        st.number_input(
            "dropout p",
            0.0,
            MAX_DROPOUT_WIDGET,
            step=0.05,
            key="w_dropout",
            format="%.2f",
            disabled=not variant.has("dropout"),
            help="Applied to the weights in train mode only.",
        )
        st.checkbox("causal mask", key="w_causal", disabled=not variant.has("causal"))
        st.checkbox("qkv bias", key="w_bias", disabled=not variant.has("bias"))
        st.toggle("train mode (dropout on)", key="w_train", disabled=not variant.has("train"))
        st.number_input(
            "seed", 0, MAX_SEED, key="w_seed", help="Seeds the embedding, the weights and dropout."
        )
        devices = ["auto", *available_devices()]
        if s["w_device"] not in devices:
            devices.append(s["w_device"])  # asked for by a link; resolve_device explains the fallback
        st.selectbox("device", devices, key="w_device")
        if not variant.knobs:
            st.caption(
                f"{variant.cls.__name__} has no trainable weights: only the text and embedding matter."
            )

    config, notes = from_values(_raw_values())
    url_notes = s.pop("_url_notes", [])
    st.session_state["_explorer_params"] = to_query_params(config)
    st.query_params.from_dict(to_query_params(config))
    return config, url_notes + notes
