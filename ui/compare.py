"""Compare's controls and tables: one sentence, two sides' knobs (or an example that sets both),
what to compare, and every variant's row against the reference.

The sentence, tokenizer, embedding and device start from the Explorer's link
(controls.explorer_settings), never from its widgets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st

from attention import bench
from attention.chapter3 import AttentionTrace
from attention.chapter3.trace import PER_HEAD
from attention.devices import available_devices, device_name
from attention.explorer import ExplorerConfig
from attention.explorer.config import MAX_D_OUT, MAX_HEADS, MAX_SEED, MAX_TEXT_CHARS, MAX_WINDOW
from attention.explorer.query_params import from_values, to_query_params
from attention.explorer.variants import VARIANTS
from attention.figures import compare as figures
from attention.i18n import N_, tr
from ui.explorer.controls import explorer_settings
from ui.widgets import HALF_PX, chart, chart_width

SIDE_KNOBS = ("variant", "d_out", "heads", "kv_groups", "window", "rope", "causal", "dropout", "seed")
TOLERANCE = 1e-5  # float32 against the float64 reference


@dataclass(frozen=True)
class Example:
    """Two settings that differ in one thing, and the step that shows the difference."""

    a: dict  # A's knobs (SIDE_KNOBS); the rest from the Explorer
    b: dict  # B's knobs
    step: str  # what to compare (a key of figures.COMPARABLE)
    input: dict = field(default_factory=dict)  # its own input for both sides, else the Explorer's


_GQA = {
    "variant": "gqa",
    "d_out": 8,
    "heads": 2,
    "kv_groups": 2,
    "window": None,
    "rope": False,
    "causal": True,
}
_WIDE = {"embedding": "random", "d_in": 8}  # the book's 3 dimensions barely tell these apart
# by name: the chips' values, said in the reader's language where they are shown
EXAMPLES = {
    N_("causal mask off vs on"): Example(
        {"variant": "mha", "causal": False}, {"variant": "mha", "causal": True}, "weights"
    ),
    # the book's 3-dimensional vectors barely tell 2 heads from 4 (1%); 8 seeded dimensions do (25%)
    N_("2 heads vs 4"): Example(
        {"variant": "mha", "d_out": 8, "heads": 2},
        {"variant": "mha", "d_out": 8, "heads": 4},
        "weights",
        {"embedding": "random", "d_in": 8},
    ),
    N_("two seeds"): Example({"seed": 123}, {"seed": 789}, "weights"),
    N_("v1 vs v2, same seed"): Example({"variant": "v1"}, {"variant": "v2"}, "weights"),
    N_("dropout off vs 0.5"): Example(
        {"variant": "mha", "dropout": 0.0}, {"variant": "mha", "dropout": 0.5}, "dropped_weights"
    ),
    # today's attention (GroupedQueryAttention): one knob apart, every other one pinned (not the
    # Explorer's: a RoPE already on there would leave "no RoPE vs RoPE" nothing to show)
    N_("4 key/value groups vs 2"): Example(
        _GQA | {"heads": 4, "kv_groups": 4}, _GQA | {"heads": 4, "kv_groups": 2}, "weights", _WIDE
    ),
    N_("causal vs window of 3"): Example(_GQA, _GQA | {"window": 3}, "weights", _WIDE),
    N_("no RoPE vs RoPE"): Example(_GQA, _GQA | {"rope": True}, "scores", _WIDE),
}


def _apply_example() -> None:
    example = EXAMPLES.get(st.session_state.get("cmp_example"))
    if example is None:
        return
    base = explorer_settings()
    for side, knobs in (("a", example.a), ("b", example.b)):
        for knob in SIDE_KNOBS:
            st.session_state[f"cmp_{side}_{knob}"] = knobs.get(knob, getattr(base, knob))
    st.session_state["cmp_what"], st.session_state["cmp_input"] = example.step, example.input


def sentence() -> str:
    """The sentence both sides compute on (the Explorer's, at first) and the examples' chips."""
    if "cmp_a_variant" not in st.session_state:
        st.session_state["cmp_text"] = explorer_settings().text
        st.session_state["cmp_example"] = "causal mask off vs on"
        _apply_example()
    text = st.text_input(
        tr("Sentence (both sides)"),
        key="cmp_text",
        max_chars=MAX_TEXT_CHARS,
        help=tr("Press Enter to apply."),
    )
    # TRANSLATORS: the label of a row of examples to try (chips)
    st.segmented_control(
        tr("Try"), list(EXAMPLES), key="cmp_example", format_func=tr, on_change=_apply_example
    )
    return text


def side(name: str, text: str) -> tuple[ExplorerConfig, list[str]]:
    """One side's knobs -> its config; dropout > 0 means train mode (dropout only acts there)."""
    s = st.session_state
    st.selectbox(
        tr("Module"), list(VARIANTS), key=f"cmp_{name}_variant", format_func=lambda v: tr(VARIANTS[v].label)
    )
    variant = VARIANTS[s[f"cmp_{name}_variant"]]
    c1, c2, c3, c4 = st.columns(4)
    c1.number_input("d_out", 1, MAX_D_OUT, key=f"cmp_{name}_d_out", disabled=not variant.has("d_out"))
    # TRANSLATORS: the number of attention heads
    c2.number_input(tr("heads"), 1, MAX_HEADS, key=f"cmp_{name}_heads", disabled=not variant.has("heads"))
    c3.number_input(
        # TRANSLATORS: dropout's probability p
        tr("dropout p"),
        0.0,
        0.99,
        step=0.1,
        key=f"cmp_{name}_dropout",
        disabled=not variant.has("dropout"),
        help=tr("Acts in train mode only."),
    )
    # TRANSLATORS: the random seed (a number that fixes the random weights)
    c4.number_input(tr("seed"), 0, MAX_SEED, key=f"cmp_{name}_seed")
    st.checkbox(tr("causal mask"), key=f"cmp_{name}_causal", disabled=not variant.has("causal"))
    for knob in ("kv_groups", "window", "rope"):  # drawn for GroupedQueryAttention only: kept meanwhile
        s[f"cmp_{name}_{knob}"] = s.get(f"cmp_{name}_{knob}", getattr(ExplorerConfig, knob))
    if variant.has("kv_groups"):
        g1, g2, g3 = st.columns([1, 1, 1], vertical_alignment="bottom")
        g1.number_input(tr("key/value groups"), 1, MAX_HEADS, key=f"cmp_{name}_kv_groups")
        g2.number_input(  # value=None: a box that can be emptied again
            # TRANSLATORS: a sliding window's size, in tokens
            tr("window"),
            1,
            MAX_WINDOW,
            value=None,
            key=f"cmp_{name}_window",
            # TRANSLATORS: shown in an empty box: no window
            placeholder=tr("none"),
            help=tr("Tokens a query sees, itself included. Empty: no window."),
        )
        g3.checkbox("RoPE", key=f"cmp_{name}_rope")
    shared = to_query_params(explorer_settings())
    raw = {k: shared[k] for k in ("tokenizer", "embedding", "d_in", "device") if k in shared}
    raw |= s.get("cmp_input", {})  # an example's own input (the same for both sides)
    raw |= {knob: s[f"cmp_{name}_{knob}"] for knob in SIDE_KNOBS if knob == "variant" or variant.has(knob)}
    raw |= {"text": text, "seed": s[f"cmp_{name}_seed"], "train": s[f"cmp_{name}_dropout"] > 0}
    return from_values(raw)


def input_caption(config: ExplorerConfig) -> str:
    if st.session_state.get("cmp_input"):
        where = tr(
            "This example uses a seeded nn.Embedding of width {d_in} on both sides: the book's "
            "3-dimensional vectors barely tell its two settings apart.",
            d_in=config.d_in,
        )
    else:
        where = tr(
            "Tokenizer, embedding ({embedding}, d_in = {d_in}) and device come from the Explorer's settings.",
            embedding=config.embedding,
            d_in=config.d_in,
        )
    return where + " " + tr("Rows are queries (the token that looks); columns are keys (the one looked at).")


def what_to_compare(a: AttentionTrace, b: AttentionTrace) -> tuple[str, int, int]:
    """Which tensor, and (for a per-head one) which head of A and of B."""
    c1, c2, c3 = st.columns([2, 1, 1])
    what = c1.selectbox(
        # TRANSLATORS: the page's name, and the label of its menu of what to compare
        tr("Compare"),
        list(figures.COMPARABLE),
        key="cmp_what",
        format_func=lambda n: f"{n}: {tr(figures.COMPARABLE[n])}",
    )
    per_head = what in PER_HEAD
    head_a = c2.selectbox(tr("A's head"), range(a.num_heads), key="cmp_head_a", disabled=not per_head)
    head_b = c3.selectbox(tr("B's head"), range(b.num_heads), key="cmp_head_b", disabled=not per_head)
    return what, head_a, head_b


def difference_headline(za: np.ndarray, zb: np.ndarray, why: str | None) -> None:
    if why:
        # TRANSLATORS: why is a sentence saying why A and B cannot be subtracted
        st.info(tr("{why}. Showing A and B only.", why=why))
        return
    biggest, mean = figures.difference_summary(za, zb)
    if biggest == 0.0:
        st.markdown(
            tr(
                "**max |A − B| = {biggest:.6g}** · mean |A − B| = {mean:.6g} · identical",
                biggest=0.0,
                mean=mean,
            )
        )
    else:
        st.markdown(
            tr("**max |A − B| = {biggest:.6g}** · mean |A − B| = {mean:.6g}", biggest=biggest, mean=mean)
        )


# --- every variant ---------------------------------------------------------------------------


def variant_table(text: str, tokenizer: str, d: int, heads: int, causal: bool, seed: int) -> pd.DataFrame:
    """bench.sentence_table, with a spinner in the reader's language while it runs."""
    with st.spinner(tr("Running every variant…")):
        return _variant_table(text, tokenizer, d, heads, causal, seed)


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def _variant_table(text: str, tokenizer: str, d: int, heads: int, causal: bool, seed: int) -> pd.DataFrame:
    """Keyed by plain values, in no language (the page translates its words where it shows them);
    the input is the sentence through a seeded nn.Embedding of width d."""
    return bench.sentence_table(text, tokenizer, d, heads, causal, seed, devices=available_devices())


def table_controls() -> tuple[int, int, bool]:
    """d = d_in = d_out, a head count that divides it, and the mask."""
    t1, t2, t3 = st.columns(3)
    d = t1.number_input("d = d_in = d_out", 1, 256, 8, key="cmp_table_d")
    divisors = [h for h in range(1, MAX_HEADS + 1) if d % h == 0]
    heads = t2.selectbox(
        tr("heads (divisors of d)"), divisors, index=min(1, len(divisors) - 1), key="cmp_table_heads"
    )
    causal = t3.checkbox(tr("causal mask (variants that have one)"), True, key="cmp_table_causal")
    return int(d), heads, causal


def show_table(table: pd.DataFrame, d: int) -> None:
    """The verdict, the table with short names, and what its columns and gaps mean."""
    worst = table["max |diff|"].max()
    if math.isfinite(worst) and worst <= TOLERANCE:
        st.success(
            tr(
                "Every variant matches the reference: max |difference| {worst:.2g} ≤ {tolerance:g} "
                "(float32).",
                worst=worst,
                tolerance=TOLERANCE,
            )
        )
    else:
        st.error(
            tr(
                "A variant differs from the reference by {worst:.2g} > {tolerance:g}.",
                worst=worst,
                tolerance=TOLERANCE,
            )
        )
    ms_columns = [c for c in table.columns if c.startswith("ms (")]
    implementation = table["variant"].map(bench.IMPLEMENTATIONS.get)
    headers = {  # in the reader's language
        # TRANSLATORS: a table's column: which implementation of attention
        "variant": tr("variant"),
        # TRANSLATORS: a table's column: what an implementation computes (heads, mask, ...)
        "computes": tr("computes"),
        # TRANSLATORS: a table's column: the output's shape
        "output shape": tr("output"),
        "parameters": tr("parameters"),
        "max |diff|": tr("largest difference"),
    }
    formats = {tr("largest difference"): "{:.2e}", **{c: "{:.3f}" for c in ms_columns}}
    frame = table.drop(columns=["module", "note"]).assign(
        variant=implementation.map(lambda i: i.shown("short")),
        computes=implementation.map(lambda i: i.shown("computes")),
    )
    # a table, not a data grid: long cells wrap (a grid cut them) and every row shows
    st.table(frame.rename(columns=headers).style.format(formats, na_rep="—"), hide_index=True)
    st.caption(_table_caption(table, d))


def _table_caption(table: pd.DataFrame, d: int) -> str:
    devices = available_devices()
    said = [
        tr(
            "ms = median time per forward, measured on this server now ({devices}); other sessions' work "
            "adds noise.",
            devices=", ".join(f"{dev}: {device_name(dev)}" for dev in devices),
        )
    ]
    if "cuda" not in devices:
        said.append(tr("No CUDA GPU here, so only the CPU column."))
    said.append(
        tr(
            "Parameters: nn.MultiheadAttention always has an in_proj bias (zeroed here, like "
            "qkv_bias=False); F.scaled_dot_product_attention is a function: it ran with MultiHeadAttention's "
            "weights, counted there."
        )
    )
    for key in table["variant"]:
        if why := bench.applicable(key, d, d):
            # TRANSLATORS: {variant} is a variant's name (code); {why} a short phrase saying why it cannot run
            # here
            said.append(tr("{variant} sits out: {why}.", variant=key, why=why))
    return " ".join(said) + " "


def difference_charts(a: AttentionTrace, b: AttentionTrace, what: str, heads: tuple[int, int], z) -> None:
    """A beside B, A − B below (each wide enough to read; a phone stacks them), with the toggle
    that puts A − B on A's and B's scale."""
    fixed = st.toggle(
        tr("A − B on the same scale as A and B"),
        True,
        key="cmp_fixed",
        help=tr(
            "On: a small difference looks small. Off: the scale fits the largest difference, "
            "so the smallest change is visible (read its size off the colour bar)."
        ),
    )
    if what == "output":
        titles = (f"A: {a.module}", f"B: {b.module}")
    else:
        titles = (
            tr("A: {module}, head {head}", module=a.module, head=heads[0]),
            tr("B: {module}, head {head}", module=b.module, head=heads[1]),
        )
    masks = tuple(None if t.mask is None else t.mask.numpy() for t in (a, b))
    charts = figures.comparison_figures(
        a.tokens.texts, *z, titles, what, masks, fixed_difference=fixed, width_px=chart_width(470)
    )
    for row in (charts[:2], charts[2:]):
        for column, fig in zip(st.columns(2), row, strict=False):
            with column:
                chart(fig, key=f"cmp_{fig.data[0].name}", width=HALF_PX)
