"""The Explorer's sidebar: the module, its input (tokenizer, embedding, d_in) and its knobs, each
labelled in the reader's language. A knob the module lacks is drawn disabled at the value it
computes with. Every change calls controls._sync, passed in as `sync` (controls.py holds the knobs'
state and the URL; this draws them).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from attention.chapter3.text import SCHEME_LABELS
from attention.devices import available_devices
from attention.explorer import ExplorerConfig
from attention.explorer.config import MAX_D_IN, MAX_D_OUT, MAX_HEADS, MAX_SEED, MAX_WINDOW, RANGES
from attention.explorer.variants import KNOBS, VARIANTS
from attention.i18n import N_, tr

EMBEDDING_LABELS = {
    "book": N_("book vectors"),
    "random": N_("nn.Embedding (seeded)"),
    "custom": N_("my matrix"),
}
MAX_DROPOUT_WIDGET = 1.0 - 2**-53  # the largest float below 1: any p the config accepts
MAX_TILE = RANGES["tile"][1]


def sidebar(config: ExplorerConfig, sync: Callable[[str], None]) -> None:
    """The sidebar: the module, the input (tokenizer, embedding, d_in), the knobs; and what it drew
    beyond their values, for controls._sync (`sync`, every knob's callback)."""
    s = st.session_state
    s["_sidebar_look"] = look(config)
    variant = config.spec
    with st.sidebar:
        st.selectbox(
            tr("Module"),
            list(VARIANTS),
            key="w_variant",
            format_func=lambda v: tr(VARIANTS[v].label),
            help=tr(variant.help),
            on_change=sync,
            args=("variant",),
        )
        st.selectbox(
            tr("Tokenizer"),
            list(SCHEME_LABELS),
            key="w_tokenizer",
            format_func=lambda k: tr(SCHEME_LABELS[k]),
            on_change=sync,
            args=("tokenizer",),
        )
        st.radio(
            tr("Embedding"),
            ["book", "random", "custom"],
            key="w_embedding",
            horizontal=True,
            format_func=lambda k: tr(EMBEDDING_LABELS[k]),
            help=tr(
                "The book's fixed vectors exist only for its example sentences. Your own text uses a "
                "seeded nn.Embedding, or a matrix you type."
            ),
            on_change=sync,
            args=("embedding",),
        )
        if s["w_embedding"] == "custom":
            st.text_area(
                tr(
                    "Matrix: one row per token; separate the numbers with commas and the rows with ';' or "
                    "new lines"
                ),
                key="w_matrix",
                height=100,
                on_change=sync,
                args=("matrix",),
            )
        st.number_input(
            tr("d_in (embedding width)"),
            1,
            MAX_D_IN,
            key="w_d_in",
            on_change=sync,
            args=("d_in",),
            disabled=config.embedding != "random",
            help=tr("Fixed vectors decide d_in; pick nn.Embedding to change it."),
        )
    _knobs(config, sync)


def _knobs(config: ExplorerConfig, sync: Callable[[str], None]) -> None:
    """The module's knobs, d_out to device; a knob the module lacks is shown disabled, at the
    value it computes with."""
    s = st.session_state
    variant = config.spec
    used = config.effective_values()

    def knob(widget, name: str, label: str, **options) -> None:
        if variant.has(name):
            widget(label, key=f"w_{name}", on_change=sync, args=(name,), **options)
        else:
            s[f"na_{name}"] = used[name]
            options["help"] = tr(
                "{module} has no {knob} knob: it computes as shown.", module=variant.cls.__name__, knob=label
            )
            widget(label, key=f"na_{name}", disabled=True, **options)

    with st.sidebar:
        knob(st.number_input, "d_out", tr(variant.d_out_label), min_value=1, max_value=MAX_D_OUT)
        if variant.has("d_v"):
            knob(st.number_input, "d_v", tr("d_v (value width)"), min_value=1, max_value=MAX_D_OUT)
        # TRANSLATORS: a sidebar knob: how many attention heads
        knob(st.number_input, "heads", tr("heads"), min_value=1, max_value=MAX_HEADS)
        _modern_knobs(config, knob, sync)
        knob(
            st.number_input,
            "dropout",
            tr("dropout p"),
            min_value=0.0,
            max_value=MAX_DROPOUT_WIDGET,
            step=0.05,
            format="%.2f",
        )
        knob(st.checkbox, "causal", tr("causal mask"))
        knob(st.checkbox, "bias", tr("qkv bias"))
        knob(st.toggle, "train", tr("train mode (dropout on)"))
    _seed_and_device(sync)


def _seed_and_device(sync: Callable[[str], None]) -> None:
    """The seed of every random draw, and the device that computes."""
    s = st.session_state
    with st.sidebar:
        st.number_input(
            # TRANSLATORS: the random seed (a sidebar knob)
            tr("seed"),
            0,
            MAX_SEED,
            key="w_seed",
            on_change=sync,
            args=("seed",),
            help=tr("Seeds the embedding, the weights and dropout."),
        )
        devices = ["auto", *available_devices()]
        if s["w_device"] not in devices:
            devices.append(s["w_device"])  # asked for by a link; resolve_device explains the fallback
        st.selectbox(
            # TRANSLATORS: the compute device (cpu, cuda, mps) a sidebar menu picks
            tr("device"),
            devices,
            key="w_device",
            # TRANSLATORS: the device menu's choice that picks the fastest device there is
            format_func=lambda d: tr("auto") if d == "auto" else d,
            on_change=sync,
            args=("device",),
        )


def _modern_knobs(config: ExplorerConfig, knob, sync: Callable[[str], None]) -> None:
    """Today's attention (attention.modern): drawn only for the variants that have them."""
    s = st.session_state
    variant = config.spec
    if variant.has("kv_groups"):
        knob(
            st.number_input,
            "kv_groups",
            tr("key/value groups"),
            min_value=1,
            max_value=MAX_HEADS,
            help=tr(
                "How many key/value heads the query heads share (Llama 3: 32 query heads, 8 groups). 1 "
                "group = multi-query attention; as many groups as heads = ordinary multi-head attention. "
                "The number of heads must be a multiple of this number."
            ),
        )
    if variant.has("window"):
        s["w_window_on"] = s.get("w_window") is not None  # the window knob is the truth
        st.toggle(
            tr("sliding window"),
            key="w_window_on",
            on_change=_window_switched,
            args=(sync,),
            disabled=not s.get("w_causal", True),  # a window limits how far back: the causal mask first
            help=tr(
                "Used by Mistral and Gemma: a query sees only itself and the (window − 1) tokens before it."
            ),
        )
        if s.get("w_window") is not None:
            knob(
                st.number_input,
                "window",
                tr("window (tokens a query sees)"),
                min_value=1,
                max_value=MAX_WINDOW,
            )
    if variant.has("rope"):
        knob(
            st.checkbox,
            "rope",
            tr("RoPE (rotary positions)"),
            help=tr(
                "RoPE (rotary position embedding, used by Llama, Qwen and Gemma) rotates each query and "
                "key by an angle set by its position. A score then depends on the distance between two "
                "tokens, not on where they sit. It needs d_out / heads to be even."
            ),
        )
    if variant.has("tile"):
        knob(
            st.number_input,
            "tile",
            tr("tile (keys at a time)"),
            min_value=1,
            max_value=MAX_TILE,
            help=tr(
                "FlashAttention's online softmax reads the keys this many at a time and keeps a running "
                "maximum and sum. The whole T × T matrix is never held in memory."
            ),
        )


def _window_switched(sync: Callable[[str], None]) -> None:
    """The sliding-window toggle: on starts at half the sentence (at least 1), off is no window."""
    s = st.session_state
    if s["w_window_on"]:
        shown = s.get("_explorer_config")
        s["w_window"] = max(1, len(shown.tokens) // 2) if shown is not None else 3
    else:
        s["w_window"] = None
    sync("window")


def look(config: ExplorerConfig) -> tuple:
    """What the sidebar draws beyond its knobs' values: the module (which knobs, their labels), the
    values on the knobs it lacks, and what is disabled or shown (d_in; the window's toggle)."""
    s = st.session_state
    used = config.effective_values()
    lacks = tuple((name, used.get(name)) for name in KNOBS if not config.has(name))
    window = (s.get("w_causal", True), s.get("w_window") is not None) if config.has("window") else None
    return config.variant, lacks, config.embedding, window
