"""Compare: two settings of one sentence side by side with their difference, and every variant
on one input with shared weights."""

import math

import numpy as np
import pandas as pd
import streamlit as st

from attention import bench
from attention.chapter3 import ExplorerConfig
from attention.chapter3.config import MAX_D_OUT, MAX_HEADS, MAX_SEED, MAX_TEXT_CHARS
from attention.chapter3.embeddings import embed
from attention.chapter3.query_params import from_values, to_query_params
from attention.chapter3.variants import VARIANTS
from attention.devices import available_devices, device_name
from attention.figures import compare as figures
from ui.cache import cached_trace
from ui.router import use_router
from ui.widgets import chart, chart_width, device_caption, show_notes

use_router()

SIDE_KNOBS = ("variant", "d_out", "heads", "causal", "dropout", "seed")
EXAMPLES = {  # name -> (A's knobs, B's knobs, the step that shows the change, input for both sides)
    "causal mask off vs on": ({"variant": "mha", "causal": False}, {"variant": "mha", "causal": True},
                              "weights", {}),
    # the book's 3-dimensional vectors barely tell 2 heads from 4 (1%); 8 seeded dimensions do (25%)
    "2 heads vs 4": ({"variant": "mha", "d_out": 8, "heads": 2}, {"variant": "mha", "d_out": 8, "heads": 4},
                     "weights", {"embedding": "random", "d_in": 8}),
    "two seeds": ({"seed": 123}, {"seed": 789}, "weights", {}),
    "v1 vs v2, same seed": ({"variant": "v1"}, {"variant": "v2"}, "weights", {}),
    "dropout off vs 0.5": ({"variant": "mha", "dropout": 0.0}, {"variant": "mha", "dropout": 0.5},
                           "dropped_weights", {}),
}  # fmt: skip


def _base() -> ExplorerConfig:
    """The Explorer's current settings (or the defaults): sentence, tokenizer, embedding, d_in."""
    return st.session_state.get("_explorer_config") or ExplorerConfig()


def _apply_example() -> None:
    name = st.session_state.get("cmp_example")
    if name not in EXAMPLES:
        return
    base = _base()
    a, b, step, shared = EXAMPLES[name]
    for side, knobs in (("a", a), ("b", b)):
        for knob in SIDE_KNOBS:
            st.session_state[f"cmp_{side}_{knob}"] = knobs.get(knob, getattr(base, knob))
    st.session_state["cmp_what"], st.session_state["cmp_input"] = step, shared


def _side(side: str, text: str, base: ExplorerConfig) -> tuple[ExplorerConfig, list[str]]:
    """One side's knobs -> its config; dropout > 0 means train mode (dropout only acts there)."""
    s = st.session_state
    st.selectbox("Module", list(VARIANTS), key=f"cmp_{side}_variant", format_func=lambda v: VARIANTS[v].label)
    variant = VARIANTS[s[f"cmp_{side}_variant"]]
    c1, c2, c3, c4 = st.columns(4)
    c1.number_input("d_out", 1, MAX_D_OUT, key=f"cmp_{side}_d_out", disabled=not variant.has("d_out"))
    c2.number_input("heads", 1, MAX_HEADS, key=f"cmp_{side}_heads", disabled=not variant.has("heads"))
    c3.number_input("dropout p", 0.0, 0.99, step=0.1, key=f"cmp_{side}_dropout",
                    disabled=not variant.has("dropout"), help="Acts in train mode only.")  # fmt: skip
    c4.number_input("seed", 0, MAX_SEED, key=f"cmp_{side}_seed")
    st.checkbox("causal mask", key=f"cmp_{side}_causal", disabled=not variant.has("causal"))
    shared = to_query_params(base)
    raw = {k: shared[k] for k in ("tokenizer", "embedding", "d_in", "device") if k in shared}
    raw |= s.get("cmp_input", {})  # an example's own input (the same for both sides)
    raw |= {knob: s[f"cmp_{side}_{knob}"] for knob in SIDE_KNOBS if knob == "variant" or variant.has(knob)}
    raw |= {"text": text, "seed": s[f"cmp_{side}_seed"], "train": s[f"cmp_{side}_dropout"] > 0}
    return from_values(raw)


@st.cache_data(max_entries=32, ttl=3600, show_spinner="Running every variant…")
def variant_table(text: str, tokenizer: str, d: int, heads: int, causal: bool, seed: int) -> pd.DataFrame:
    """Keyed by plain values; the input is the sentence through a seeded nn.Embedding of width d."""
    tokens = ExplorerConfig(text=text, tokenizer=tokenizer, embedding="random", d_in=d, variant="v1").tokens
    x = embed(tokens, "random", d, seed, None).unsqueeze(0)  # (1, T, d)
    return bench.equivalence_table(x, d, heads, causal, seed, devices=available_devices())


st.title("Compare")
base = _base()
if "cmp_a_variant" not in st.session_state:
    st.session_state["cmp_text"] = base.text
    st.session_state["cmp_example"] = "causal mask off vs on"
    _apply_example()

text = st.text_input("Sentence (both sides)", key="cmp_text", max_chars=MAX_TEXT_CHARS,
                     help="Press Enter to apply.")  # fmt: skip
st.segmented_control("Try", list(EXAMPLES), key="cmp_example", on_change=_apply_example)

col_a, col_b = st.columns(2)
sides = {}
for side, col in (("a", col_a), ("b", col_b)):
    with col:
        st.subheader(side.upper())
        config, notes = _side(side, text, base)
        show_notes(notes)
        sides[side] = (config, cached_trace(config))
(config_a, a), (config_b, b) = sides["a"], sides["b"]
own_input = st.session_state.get("cmp_input")
st.caption(
    (f"This example uses a seeded nn.Embedding of width {config_a.d_in} on both sides: the book's "
     "3-dimensional vectors barely tell its two settings apart. " if own_input else
     f"Tokenizer, embedding ({config_a.embedding}, d_in = {config_a.d_in}) and device come from the "
     "Explorer's settings. ")
    + "Rows are queries (the token that looks); columns are keys (the one looked at)."
)  # fmt: skip
if len(a.tokens) != len(b.tokens):  # a side's repair shortened or replaced the text
    st.error("A and B ended up with different sentences (see the notes above); fix the sentence to compare.")
    st.stop()

c1, c2, c3 = st.columns([2, 1, 1])
what = c1.selectbox(
    "Compare",
    list(figures.COMPARABLE),
    key="cmp_what",
    format_func=lambda n: f"{n}: {figures.COMPARABLE[n]}",
)
per_head = what != "output"
head_a = c2.selectbox("A's head", range(a.num_heads), key="cmp_head_a", disabled=not per_head)
head_b = c3.selectbox("B's head", range(b.num_heads), key="cmp_head_b", disabled=not per_head)
za, zb, why = figures.comparison_matrices(a, b, what, head_a, head_b)
if why:
    st.info(why + ". Showing A and B only.")
else:
    finite = np.isfinite(za) & np.isfinite(zb)
    diff = np.abs(za - zb)[finite]
    biggest = float(diff.max()) if diff.size else 0.0
    st.markdown(
        f"**max |A − B| = {biggest:.6g}** · mean |A − B| = {float(diff.mean()) if diff.size else 0.0:.6g}"
        + (" · identical" if biggest == 0.0 else "")
    )
fixed = st.toggle("A − B on the same scale as A and B", True, key="cmp_fixed",
                  help="On: a small difference looks small. Off: the scale fits the largest difference, "
                  "so the smallest change is visible (read its size off the colour bar).")  # fmt: skip
head_text = "" if what == "output" else ", head {}"
titles = (f"A: {a.module}{head_text.format(head_a)}", f"B: {b.module}{head_text.format(head_b)}")
masks = tuple(None if t.mask is None else t.mask.numpy() for t in (a, b))
charts = figures.comparison_figures(a.tokens.texts, za, zb, titles, what, masks, fixed_difference=fixed,
                                    width_px=chart_width(470))  # fmt: skip
for row in (
    charts[:2],
    charts[2:],
):  # A beside B, A − B below: each wide enough to read (a phone stacks them)
    for column, fig in zip(st.columns(2), row, strict=False):
        with column:
            chart(fig, key=f"cmp_{fig.data[0].name}")
st.caption(f"Computed on {device_caption(config_a.device)}. Hatched: masked; white in A − B: no change.")

# --- every variant -----------------------------------------------------------------------------
st.header("Every variant, one input, shared weights")
st.markdown(
    "Do all the book's classes compute the same attention? One draw of W_query, W_key, W_value and out_proj "
    "(MultiHeadAttention's constructor, seeded) is given to every variant, each taking the slice it needs; "
    "each result is compared with the same math done in double precision (float64), "
    "softmax(Q Kᵀ / √head_dim) V per head, masked where the variant has a mask, out_proj where it has one. "
    "The input is the sentence through a seeded nn.Embedding of width d = d_in = d_out."
)
t1, t2, t3 = st.columns(3)
d = t1.number_input("d = d_in = d_out", 1, 256, 8, key="cmp_table_d")
divisors = [h for h in range(1, MAX_HEADS + 1) if d % h == 0]
heads = t2.selectbox(
    "heads (divisors of d)", divisors, index=min(1, len(divisors) - 1), key="cmp_table_heads"
)
causal = t3.checkbox("causal mask (variants that have one)", True, key="cmp_table_causal")
table = variant_table(config_a.text, config_a.tokenizer, int(d), heads, causal, config_a.seed)
worst = table["max |diff|"].max()
tolerance = 1e-5
if math.isfinite(worst) and worst <= tolerance:
    st.success(
        f"Every variant matches the reference: max |difference| {worst:.2g} ≤ {tolerance:g} (float32)."
    )
else:
    st.error(f"A variant differs from the reference by {worst:.2g} > {tolerance:g}.")
ms_columns = [c for c in table.columns if c.startswith("ms (")]
st.dataframe(
    table.drop(columns=["module", "note"])
    .assign(variant=table["variant"].map(lambda k: bench.IMPLEMENTATIONS[k].short))
    .rename(columns={"max |diff|": "largest difference"})
    .style.format(
        {"largest difference": "{:.2e}", **{c: "{:.3f}" for c in ms_columns}}, na_rep="—"),
    hide_index=True,
    width="stretch",
    column_config={"variant": st.column_config.TextColumn("variant", width="medium"),
                   "computes": st.column_config.TextColumn("computes", width="large"),
                   "output shape": st.column_config.TextColumn("output", width="small"),
                   "parameters": st.column_config.NumberColumn("parameters", width="small")},
)  # fmt: skip
st.caption(
    "ms = median time per forward, measured on this server now ("
    + ", ".join(f"{dev}: {device_name(dev)}" for dev in available_devices())
    + "); other sessions' work adds noise. "
    + ("" if "cuda" in available_devices() else "No CUDA GPU here, so only the CPU column. ")
    + "Parameters: nn.MultiheadAttention always has an in_proj bias (zeroed here, like qkv_bias=False); "
    "F.scaled_dot_product_attention is a function: it ran with MultiHeadAttention's weights, counted there. "
    + "".join(
        f"{row.variant} sits out: {row.note}. " for row in table.itertuples() if row.note.startswith("needs")
    )
)
