"""Learn: the chapter's computation step by step, on the learner's own sentence, live numbers.

Predict, then see: each step asks its question before it shows the numbers that answer it.
"""

from dataclasses import replace

import pandas as pd
import streamlit as st

from attention.chapter3 import ExplorerConfig, lesson
from attention.chapter3.config import MAX_SEED
from attention.chapter3.embeddings import presets
from attention.chapter3.engine import build_module
from attention.chapter3.query_params import view_values
from attention.errors import ConfigError
from attention.figures.explorer import StepPanel, shape_text, step_figure, vectors_heatmap
from attention.figures.layout import SEQUENTIAL, token_labels
from ui import url
from ui.cache import cached_trace
from ui.router import use_router
from ui.widgets import chart, literal, predict, show_notes

use_router()

BOOK = [p for p in presets() if "vectors" in p]
OWN = "my own sentence"
HEADS, D_OUTS, PS = [1, 2, 3, 4, 6], [12, 24, 48], [round(0.1 * i, 1) for i in range(10)]
MAX_TOKENS = 12  # the worked sums stay readable
DEFAULTS = {"learn_source": BOOK[0]["text"], "learn_text": "The cat sat on the mat", "learn_seed": 123,
            "learn_query": 1, "learn_p": 0.5, "learn_heads": 3, "learn_d_out": 12}  # fmt: skip


@st.cache_data(show_spinner=False)
def scaling_table() -> pd.DataFrame:
    """The √d_k demo draws ~6 M random numbers; it depends on nothing the learner sets."""
    return pd.DataFrame(lesson.scaling_demo())


def _reset_predictions() -> None:
    """A new sentence or seed: every question is asked afresh."""
    for key in [k for k in st.session_state if k.startswith("check_")]:
        del st.session_state[key]


def _load_url(raw: dict) -> None:
    s = st.session_state
    spec = {"sentence": [str(i) for i in range(len(BOOK))] + ["own"], "seed": range(MAX_SEED + 1),
            "query": MAX_TOKENS, "p": [str(p) for p in PS], "heads": [str(h) for h in HEADS],
            "d_out": [str(d) for d in D_OUTS]}  # fmt: skip
    view, notes = view_values(raw, spec)
    s.update(DEFAULTS)
    if "sentence" in view:
        s["learn_source"] = OWN if view["sentence"] == "own" else BOOK[int(view["sentence"])]["text"]
    if raw.get("text"):
        s["learn_text"] = str(raw["text"][-1])[:500]
    s.update({f"learn_{k}": view[k] for k in ("seed", "query") if k in view})
    s.update(
        {f"learn_{k}": type(DEFAULTS[f"learn_{k}"])(view[k]) for k in ("p", "heads", "d_out") if k in view}
    )
    s["_learn_notes"] = notes
    _reset_predictions()


def _write_url() -> None:
    s = st.session_state
    own = s["learn_source"] == OWN
    params = {"sentence": "own" if own else str([b["text"] for b in BOOK].index(s["learn_source"]))}
    params |= {"text": s["learn_text"]} if own else {}
    params |= {k: str(s[f"learn_{k}"]) for k in ("seed", "query", "p", "heads", "d_out")}
    params = {k: v for k, v in params.items() if k == "text" or v != str(_default_param(k))}
    url.keep("learn", params)


def _default_param(name: str):
    return "0" if name == "sentence" else DEFAULTS[f"learn_{name}"]


s = st.session_state
url.sync("learn", list(DEFAULTS), _load_url)

st.title("Learn attention, step by step")
st.caption(
    "Predict, then check: each step asks a question before it shows the numbers that answer it. Every "
    "number is computed live by the Explorer's engine."
)
show_notes(s.pop("_learn_notes", []))

# --- the learner's sentence ------------------------------------------------------------------
choice = st.radio("Sentence", [p["text"] for p in BOOK] + [OWN], key="learn_source", horizontal=True,
                  on_change=_reset_predictions)  # fmt: skip
own = choice == OWN
left, right = st.columns([3, 1])
text = left.text_input("Your sentence", key="learn_text", disabled=not own, on_change=_reset_predictions)
seed = right.number_input("seed", 0, MAX_SEED, key="learn_seed", on_change=_reset_predictions,
                          help="Seeds the weights, and the embedding of your own sentence.")  # fmt: skip
everything = st.toggle("Show every answer without predicting", key="learn_everything",
                       help="For a teacher preparing a lesson, or a second reading.")  # fmt: skip
try:
    config = ExplorerConfig(text=text if own else choice, embedding="random" if own else "book", d_in=3,
                            variant="v1", d_out=2, seed=int(seed))  # fmt: skip
except ConfigError as error:
    st.error(literal(f"{error} Showing the book's sentence instead."))
    config = ExplorerConfig(text=BOOK[0]["text"], variant="v1", seed=int(seed))
tokens = config.tokens.texts
if len(tokens) > MAX_TOKENS:
    st.warning(f"Long sentences make the worked sums hard to read; the first {MAX_TOKENS} tokens are used.")
    config = replace(config, text=" ".join(tokens[:MAX_TOKENS]))
    tokens = config.tokens.texts
labels = [f"{i}: {t}" for i, t in enumerate(tokens)]
T = len(tokens)
trace = cached_trace(config)
WIDE = 900  # px a full-width matrix is drawn at


def matrix(z, name: str, title: str, subtitle: str, *, mask=None, scale=None, width: int = WIDE, key: str):
    """A (T, T) matrix as a heatmap with its numbers in the cells, rows queries, columns keys."""
    panel = StepPanel(name, z, title, subtitle, mask=mask, scale=scale)
    chart(step_figure(tokens, panel, numbers=True, width_px=width), key=key)


# --- 1. tokens -> ids -> embeddings ----------------------------------------------------------
st.header("1 · Tokens → ids → embeddings")
st.markdown("Raschka's blog recipe: split into words, sort the unique words, a word's id is its place.")
token_info = config.tokens
st.latex(r"\text{vocabulary} = \mathrm{sorted}(\mathrm{set}(\text{words})),\quad x^{(i)} = E[\mathrm{id}_i]")
st.code(f"vocabulary = {token_info.vocabulary}", language=None, wrap_lines=True)
st.dataframe(pd.DataFrame({"token": token_info.texts, "id": token_info.ids}), width="content")
vocab, d_in = len(token_info.vocab), config.d_in
if predict(
    "check_ids",
    "How many rows does the embedding matrix x have?",
    [f"{T}: one per token", f"{vocab}: one per vocabulary word", f"{d_in}: one per embedding dimension"],
    f"{T}: one per token",
    "One row per token (position), not per vocabulary entry: repeated words repeat their row.",
    everything,
):
    source = "the book's fixed vectors" if not own else f"nn.Embedding({vocab}, 3), seed {seed}"
    st.markdown(f"**x** {shape_text(trace, 'x')} — {source}")
    chart(vectors_heatmap(trace.x[0], token_labels(tokens), f"x {shape_text(trace, 'x')}", numbers=True,
                          width_px=WIDE // 2), key="learn_x")  # fmt: skip

# --- 2. simplified self-attention for one query ------------------------------------------------
st.header("2 · Simplified self-attention for one query")
s["learn_query"] = min(s["learn_query"], T - 1)
query = st.selectbox("Query token", range(T), format_func=labels.__getitem__, key="learn_query")
work = lesson.worked_query(config, query)
st.latex(
    r"\omega_{qj} = x^{(q)} \cdot x^{(j)}, \qquad "
    r"\alpha_{qj} = \frac{e^{\omega_{qj}}}{\sum_k e^{\omega_{qk}}},"
    r"\qquad z^{(q)} = \sum_j \alpha_{qj}\, x^{(j)}"
)
if predict(
    "check_top",
    f"Before looking: which key will “{literal(tokens[query])}” attend to most?",
    labels,
    labels[work.top_key],
    "The largest dot product wins after the softmax, which keeps the order.",
    everything,
):
    rows = [{"key": labels[j], "ω = x(q)·x(j)": f"{work.dot_terms[j]} = {lesson.fmt(work.scores[j])}",
             "exp(ω)": lesson.fmt(work.exps[j]), "α = exp(ω)/Σ": lesson.fmt(work.weights[j])}
            for j in range(T)]  # fmt: skip
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.markdown(
        f"Σ exp(ω) = **{lesson.fmt(work.exp_sum)}**; each α is exp(ω) divided by it, and the α sum to 1."
    )
    st.markdown(
        f"z({query}) = " + " + ".join(f"{lesson.fmt(w, 4)}·x({j})" for j, w in enumerate(work.weights))
    )
    st.code("context = [" + ", ".join(lesson.fmt(v) for v in work.context) + "]", language=None)
    if not own and choice.startswith("Hello shiny sun") and query == 1:
        st.info(
            "The hand-worked example prints [0.3992, 0.3858, 0.8610]: it rounds each term to 4 decimals "
            "before adding. Exact float32 arithmetic gives the values above."
        )
    simple = lesson.simplified_matrices(config)
    a, b = st.columns(2)
    with a:
        matrix(simple["scores"], "scores", "ω = x · xᵀ, every query", "scores (T, T)", width=WIDE // 2,
               key="learn_omega")  # fmt: skip
    with b:
        matrix(simple["weights"], "weights", "α = softmax(ω), row by row", "weights (T, T): rows sum to 1",
               width=WIDE // 2, key="learn_alpha")  # fmt: skip

# --- 3. trainable weights ---------------------------------------------------------------------
st.header("3 · Trainable weights: queries, keys, values")
module, _ = build_module(config)  # SelfAttention_v1(d_in=3, d_out=2), seeded
st.latex(
    r"q^{(i)} = x^{(i)} W_q,\quad k^{(i)} = x^{(i)} W_k,\quad v^{(i)} = x^{(i)} W_v,\qquad"
    r"\omega = q k^\top,\quad \alpha = \mathrm{softmax}\!\left(\omega / \sqrt{d_k}\right)"
)
cols = st.columns(3)
for col, name in zip(cols, ("W_query", "W_key", "W_value"), strict=True):
    col.markdown(f"**{name}** {tuple(getattr(module, name).shape)}")
    col.dataframe(
        pd.DataFrame(getattr(module, name).detach().numpy()).style.format("{:.4f}"), width="content"
    )
cols = st.columns(3)
for col, name in zip(cols, ("queries", "keys", "values"), strict=True):
    col.markdown(f"**{name}** {shape_text(trace, name)}")
    col.dataframe(pd.DataFrame(getattr(trace, name)[0, 0].numpy(), index=labels).style.format("{:.4f}"),
                  width="content")  # fmt: skip
a, b = st.columns(2)
with a:
    matrix(trace.scores[0, 0].numpy(), "scores", "ω = queries · keysᵀ",
           f"scores {shape_text(trace, 'scores')}", width=WIDE // 2, key="learn_qk")  # fmt: skip
with b:
    matrix(
        trace.weights[0, 0].numpy(),
        "weights",
        "α = softmax(ω / √d_k)",
        f"weights: d_k = 2, divided by √2 ≈ {trace.divisor:.4g}",
        width=WIDE // 2,
        key="learn_qk_weights",
    )
st.markdown(
    f"Row {query} (“{literal(tokens[query])}”) of ω: "
    + ", ".join(lesson.fmt(v) for v in trace.scores[0, 0, query].tolist())
)
st.subheader("Why divide by √d_k?")
st.markdown(
    "Random queries and keys with unit variance: their dot products spread like √d_k, so without scaling one "
    "weight takes almost everything (the softmax saturates and its gradients vanish)."
)
if predict(
    "check_scale",
    "d_k grows from 2 to 2048. The unscaled softmax's largest weight…",
    ["goes toward 1", "stays near 1/8", "goes toward 0"],
    "goes toward 1",
    "Scores of spread √d_k make exp() of the largest dwarf the rest.",
    everything,
):
    formats = {
        "score std": "{:.2f}",
        "largest weight, unscaled": "{:.3f}",
        "largest weight, scaled": "{:.3f}",
    }
    st.dataframe(scaling_table().style.format(formats), hide_index=True)

# --- 4. causal mask ---------------------------------------------------------------------------
st.header("4 · Causal mask: two ways, one result")
st.latex(
    r"\text{A: } \alpha' = \frac{\alpha \odot \mathrm{tril}}{\sum (\alpha \odot \mathrm{tril})}"
    r"\qquad \text{B: } \alpha = \mathrm{softmax}(\omega + M),\ M_{ij} = -\infty \text{ for } j > i"
)
if predict(
    "check_mask",
    "With the causal mask, what weight does the first token give the last one?",
    ["0", "1 / T", "it depends on the scores"],
    "0",
    "Everything above the diagonal is exactly 0.",
    everything,
):
    two = lesson.causal_two_ways(config)
    future = (two["masked_scores"] == float("-inf")).numpy()
    matrix(future.astype(float), "mask", "The mask: 1 where a query may not look (a later key)",
           f"mask ({T}, {T}), True above the diagonal", scale=SEQUENTIAL, key="learn_mask")  # fmt: skip
    a, b = st.columns(2)
    with a:
        matrix(two["renormalised"].numpy(), "weights", "A: multiply by tril, renormalise",
               "the book's first way", mask=future, width=WIDE // 2, key="learn_tril")  # fmt: skip
    with b:
        matrix(two["minus_inf"].numpy(), "weights", "B: −inf before the softmax", "CausalAttention's way",
               mask=future, width=WIDE // 2, key="learn_minus_inf")  # fmt: skip
    diff = (two["renormalised"] - two["minus_inf"]).abs().max().item()
    st.markdown(
        f"Largest difference: **{diff:.1e}** (float rounding). B is preferred: one softmax instead of "
        "softmax, multiply, sum and divide, and masked keys never get probability to remove — "
        "the future is never seen, not seen-then-erased."
    )

# --- 5. dropout -------------------------------------------------------------------------------
st.header("5 · Dropout on the attention weights")
st.latex(r"\tilde\alpha_{ij} = \frac{\alpha_{ij}\, m_{ij}}{1-p},\qquad m_{ij} \sim \mathrm{Bernoulli}(1-p)")
if predict(
    "check_dropout",
    "p = 0.5. A kept weight of 0.2 becomes…",
    ["0.1", "0.2", "0.4"],
    "0.4",
    "Kept weights are divided by 1 − p = 0.5, so the expected row sum stays 1.",
    everything,
):
    p = st.select_slider("dropout p", PS, key="learn_p")
    if p == 0:
        st.info("p = 0: nothing is dropped.")
    else:
        drop = lesson.dropout_demo(config, p)
        one = drop["trace"]
        future = one.mask.numpy()
        keep = one.dropout_mask[0, 0].numpy()
        matrix(keep.astype(float), "mask", "m: 1 = kept, 0 = dropped", f"dropout mask ({T}, {T}), p = {p}",
               scale=SEQUENTIAL, key="learn_keep")  # fmt: skip
        a, b = st.columns(2)
        with a:
            matrix(one.dropped_weights[0, 0].numpy(), "dropped_weights",
                   f"train: α·m/(1−p), kept ×{1 / (1 - p):.3g}", "dropped_weights", mask=future,
                   width=WIDE // 2, key="learn_train")  # fmt: skip
        with b:
            matrix(drop["eval"].dropped_weights[0, 0].numpy(), "weights", "eval: no dropout", "weights",
                   mask=future, width=WIDE // 2, key="learn_eval")  # fmt: skip
        sums = ", ".join(f"{v:.3f}" for v in drop["mean_row_sums"].tolist())
        st.markdown(
            f"One draw's rows no longer sum to 1; averaged over {drop['draws']:,} draws they do: **{sums}**."
        )

# --- 6. multi-head ----------------------------------------------------------------------------
st.header("6 · Multi-head attention")
st.latex(
    r"\mathrm{head}_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{d_{head}}} + M\right) V_h,\qquad "
    r"\mathrm{MultiHead}(x) = [\mathrm{head}_1, \dots, \mathrm{head}_H]\, W_{out}"
)
h_col, d_col = st.columns(2)
heads = h_col.selectbox("heads", HEADS, key="learn_heads")
d_out = d_col.selectbox("d_out (total)", D_OUTS, key="learn_d_out")
head_dim = d_out // heads
st.markdown(
    f"**Wrapper** (3.6.1): {heads} separate CausalAttention heads of width d_out each, concatenated → "
    f"output width {heads} × d_out. **Split heads** (3.6.2): one projection of width {d_out}, split into "
    f"{heads} heads of head_dim = {d_out} / {heads} = {head_dim}, then out_proj."
)
# Named axes keep the question fair when two sizes happen to be equal (6 tokens, head_dim 6).
before = f"(b, num_tokens, num_heads, head_dim) = (1, {T}, {heads}, {head_dim})"
after = [f"(b, num_heads, num_tokens, head_dim) = (1, {heads}, {T}, {head_dim})",
         f"(b, num_tokens, head_dim, num_heads) = (1, {T}, {head_dim}, {heads})",
         f"(b, head_dim, num_heads, num_tokens) = (1, {head_dim}, {heads}, {T})"]  # fmt: skip
if predict(
    "check_transpose",
    f"keys has shape {before}. After keys.transpose(1, 2)?",
    after,
    after[0],
    "Heads become a batch axis, so each head attends alone.",
    everything,
):
    st.table(pd.DataFrame(lesson.multihead_shapes(1, T, 3, d_out, heads), columns=["step", "shape"]))
    multi = cached_trace(replace(config, variant="mha", d_out=d_out, heads=heads))
    st.markdown(f"**Each head's weights** (MultiHeadAttention, d_out = {d_out}, {heads} heads, seed {seed}):")
    future = multi.mask.numpy()
    per_row = 2 if heads > 1 else 1  # two a row: each wide enough for its numbers
    for row in range(0, heads, per_row):
        for col, h in zip(st.columns(per_row), range(row, min(row + per_row, heads)), strict=False):
            with col:
                matrix(multi.weights[0, h].numpy(), "weights", f"head {h}", f"head_dim {head_dim}",
                       mask=future, width=WIDE // per_row, key=f"learn_head_{h}")  # fmt: skip
ex32 = lesson.exercise_3_2()
st.markdown(
    f"**Exercise 3.2:** the wrapper with d_out = 1 per head and 2 heads gives context vectors of width "
    f"**{ex32.shape[-1]}**: shape {tuple(ex32.shape)}; first row "
    f"[{', '.join(f'{v:.4f}' for v in ex32[0, 0].tolist())}]."
)
st.markdown(
    f"**Exercise 3.3:** MultiHeadAttention(d_in = d_out = 768, 12 heads, qkv_bias=False) has "
    f"**{lesson.parameter_count():,}** parameters: 3 × 768 × 768 for W_query, W_key, W_value plus "
    "768 × 768 + 768 for out_proj."
)
_write_url()
