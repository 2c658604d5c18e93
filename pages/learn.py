"""Learn: the chapter's computation step by step, on the learner's own sentence, live numbers."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from attention import ConfigError, ExplorerConfig, lesson
from attention.embeddings import presets
from attention.engine import build_module
from attention.figures.explorer import shape_text
from attention.figures.export import matrix_frame
from ui.cache import cached_trace
from ui.router import use_router
from ui.widgets import literal, self_check

use_router()


@st.cache_data(show_spinner=False)
def scaling_table() -> pd.DataFrame:
    """The √d_k demo draws ~6 M random numbers; it depends on nothing the learner sets."""
    return pd.DataFrame(lesson.scaling_demo())


st.title("Learn attention, step by step")
st.caption("Every number below is computed live by the same engine as the Explorer. Predict, then check.")

# --- the learner's sentence ------------------------------------------------------------------
BOOK = [p for p in presets() if "vectors" in p]
choice = st.radio(
    "Sentence", [p["text"] for p in BOOK] + ["my own sentence"], key="learn_source", horizontal=True
)
own = choice == "my own sentence"
text = st.text_input("Your sentence", "The cat sat on the mat", key="learn_text", disabled=not own)
seed = st.number_input(
    "seed (weights, and the embedding of your own sentence)", 0, 2**32 - 1, 123, key="learn_seed"
)
try:
    config = ExplorerConfig(
        text=text if own else choice,
        embedding="random" if own else "book",
        d_in=3,
        variant="v1",
        d_out=2,
        seed=int(seed),
    )
except ConfigError as error:
    st.error(f"{error} Showing the book's sentence instead.")
    config = ExplorerConfig(text=BOOK[0]["text"], variant="v1", seed=int(seed))
tokens = config.tokens.texts
if len(tokens) > 12:
    st.warning("Long sentences make the worked sums hard to read; the first 12 tokens are used.")
    config = replace(config, text=" ".join(tokens[:12]))
    tokens = config.tokens.texts
labels = [f"{i}: {t}" for i, t in enumerate(tokens)]

# --- 1. tokens -> ids -> embeddings ----------------------------------------------------------
st.header("1 · Tokens → ids → embeddings")
st.markdown("Document 001's recipe: split into words, sort the unique words, a word's id is its place.")
token_info = config.tokens
st.latex(r"\text{vocabulary} = \mathrm{sorted}(\mathrm{set}(\text{words})),\quad x^{(i)} = E[\mathrm{id}_i]")
st.code(f"vocabulary = {token_info.vocabulary}", language=None)
c1, c2 = st.columns(2)
c1.dataframe(pd.DataFrame({"token": token_info.texts, "id": token_info.ids}), width="content")
with c2:
    trace = cached_trace(config)
    st.markdown(
        f"**x** {shape_text(trace, 'x')} — "
        + (
            "the book's fixed vectors"
            if not own
            else f"nn.Embedding({len(token_info.vocab)}, 3), seed {seed}"
        )
    )
    st.dataframe(matrix_frame(trace, "x").style.format("{:.4f}"), width="content")
self_check(
    "check_ids",
    "How many rows does the embedding matrix x have?",
    [str(len(token_info.vocab)), str(len(tokens)), "3"],
    str(len(tokens)),
    "One row per token (position), not per vocabulary entry: repeated words repeat their row.",
)

# --- 2. simplified self-attention for one query ------------------------------------------------
st.header("2 · Simplified self-attention for one query")
query = st.selectbox(
    "Query token",
    range(len(tokens)),
    index=min(1, len(tokens) - 1),
    format_func=labels.__getitem__,
    key="learn_query",
)
work = lesson.worked_query(config, query)
st.latex(
    r"\omega_{qj} = x^{(q)} \cdot x^{(j)}, \qquad "
    r"\alpha_{qj} = \frac{e^{\omega_{qj}}}{\sum_k e^{\omega_{qk}}},"
    r"\qquad z^{(q)} = \sum_j \alpha_{qj}\, x^{(j)}"
)
guess = self_check(
    "check_top",
    f"Before looking: which key will “{literal(tokens[query])}” attend to most?",
    labels,
    labels[work.top_key],
    "The largest dot product wins after the softmax, which keeps the order.",
)
rows = [
    {
        "key": labels[j],
        "ω = x(q)·x(j)": f"{work.dot_terms[j]} = {lesson.fmt(work.scores[j])}",
        "exp(ω)": lesson.fmt(work.exps[j]),
        "α = exp(ω)/Σ": lesson.fmt(work.weights[j]),
    }
    for j in range(len(tokens))
]
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
st.markdown(f"Σ exp(ω) = **{lesson.fmt(work.exp_sum)}**; each α is exp(ω) divided by it, and the α sum to 1.")
terms = " + ".join(f"{lesson.fmt(w, 4)}·x({j})" for j, w in enumerate(work.weights))
st.markdown(f"z({query}) = {terms}")
st.code("context = [" + ", ".join(lesson.fmt(v) for v in work.context) + "]", language=None)
if not own and choice.startswith("Hello shiny sun") and query == 1:
    st.info(
        "Document 000 prints [0.3992, 0.3858, 0.8610]: its hand arithmetic rounds each term to 4 "
        "decimals before adding. Exact float32 arithmetic gives the values above."
    )

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
    col.dataframe(
        pd.DataFrame(getattr(trace, name)[0, 0].numpy(), index=labels).style.format("{:.4f}"), width="content"
    )
st.markdown(
    f"**scores ω = queries · keysᵀ** {shape_text(trace, 'scores')}, "
    f"query “{literal(tokens[query])}”: "
    + ", ".join(lesson.fmt(v) for v in trace.scores[0, 0, query].tolist())
)
st.subheader("Why divide by √d_k?")
demo = scaling_table()
st.markdown(
    "Random queries and keys with unit variance: their dot products spread like √d_k, so without "
    "scaling one weight takes almost everything (the softmax saturates and its gradients vanish)."
)
st.dataframe(
    demo.style.format(
        {"score std": "{:.2f}", "largest weight, unscaled": "{:.3f}", "largest weight, scaled": "{:.3f}"}
    ),
    hide_index=True,
)
self_check(
    "check_scale",
    "d_k grows from 2 to 2048. The unscaled softmax's largest weight…",
    ["goes toward 1", "stays near 1/8", "goes toward 0"],
    "goes toward 1",
    "Scores of spread √d_k make exp() of the largest dwarf the rest.",
)

# --- 4. causal mask ---------------------------------------------------------------------------
st.header("4 · Causal mask: two ways, one result")
two = lesson.causal_two_ways(config)
st.latex(
    r"\text{A: } \alpha' = \frac{\alpha \odot \mathrm{tril}}{\sum (\alpha \odot \mathrm{tril})}"
    r"\qquad \text{B: } \alpha = \mathrm{softmax}(\omega + M),\ M_{ij} = -\infty \text{ for } j > i"
)
a, b = st.columns(2)
a.markdown(f"**A: multiply by tril, renormalise** (document 002), ({len(tokens)}, {len(tokens)})")
a.dataframe(pd.DataFrame(two["renormalised"].numpy(), index=labels, columns=labels).style.format("{:.4f}"))
b.markdown(f"**B: −inf before the softmax** (CausalAttention), ({len(tokens)}, {len(tokens)})")
b.dataframe(pd.DataFrame(two["minus_inf"].numpy(), index=labels, columns=labels).style.format("{:.4f}"))
diff = (two["renormalised"] - two["minus_inf"]).abs().max().item()
st.markdown(
    f"Largest difference: **{diff:.1e}** (float rounding). B is preferred: one softmax instead of "
    "softmax, multiply, sum and divide, and masked keys never get probability to remove — "
    "the future is never seen, not seen-then-erased."
)
self_check(
    "check_mask",
    "With the causal mask, what weight does the first token give the last one?",
    ["0", "1 / T", "it depends on the scores"],
    "0",
    "Everything above the diagonal is exactly 0.",
)

# --- 5. dropout -------------------------------------------------------------------------------
st.header("5 · Dropout on the attention weights")
p = st.slider("dropout p", 0.0, 0.9, 0.5, 0.1, key="learn_p")
st.latex(r"\tilde\alpha_{ij} = \frac{\alpha_{ij}\, m_{ij}}{1-p},\qquad m_{ij} \sim \mathrm{Bernoulli}(1-p)")
if p == 0:
    st.info("p = 0: nothing is dropped.")
else:
    drop = lesson.dropout_demo(config, p)
    one = drop["trace"]
    a, b, c = st.columns(3)
    a.markdown("**mask m** (1 = kept)")
    a.dataframe(pd.DataFrame(one.dropout_mask[0, 0].numpy().astype(int), index=labels, columns=labels))
    b.markdown(f"**train: α·m/(1−p)**, kept ×{1 / (1 - p):.3g}")
    b.dataframe(
        pd.DataFrame(one.dropped_weights[0, 0].numpy(), index=labels, columns=labels).style.format("{:.3f}")
    )
    c.markdown("**eval: no dropout**")
    c.dataframe(
        pd.DataFrame(drop["eval"].dropped_weights[0, 0].numpy(), index=labels, columns=labels).style.format(
            "{:.3f}"
        )
    )
    sums = ", ".join(f"{v:.3f}" for v in drop["mean_row_sums"].tolist())
    st.markdown(
        f"One draw's rows no longer sum to 1; averaged over {drop['draws']:,} draws they do: **{sums}**."
    )
self_check(
    "check_dropout",
    "p = 0.5. A kept weight of 0.2 becomes…",
    ["0.1", "0.2", "0.4"],
    "0.4",
    "Kept weights are divided by 1 − p = 0.5, so the expected row sum stays 1.",
)

# --- 6. multi-head ----------------------------------------------------------------------------
st.header("6 · Multi-head attention")
st.latex(
    r"\mathrm{head}_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{d_{head}}} + M\right) V_h,\qquad "
    r"\mathrm{MultiHead}(x) = [\mathrm{head}_1, \dots, \mathrm{head}_H]\, W_{out}"
)
h_col, d_col = st.columns(2)
heads = h_col.selectbox("heads", [1, 2, 3, 4, 6], index=1, key="learn_heads")
d_out = d_col.selectbox("d_out (total)", [12, 24, 48], index=0, key="learn_d_out")
st.markdown(
    f"**Wrapper** (3.6.1): {heads} separate CausalAttention heads of width d_out each, concatenated → "
    f"output width {heads} × d_out. **Split heads** (3.6.2): one projection of width {d_out}, split into "
    f"{heads} heads of head_dim = {d_out} / {heads} = {d_out // heads}, then out_proj."
)
st.table(pd.DataFrame(lesson.multihead_shapes(1, len(tokens), 3, d_out, heads), columns=["step", "shape"]))
self_check(
    "check_transpose",
    f"keys has shape (1, {len(tokens)}, {heads}, {d_out // heads}). After keys.transpose(1, 2)?",
    [
        f"(1, {heads}, {len(tokens)}, {d_out // heads})",
        f"(1, {len(tokens)}, {d_out // heads}, {heads})",
        f"(1, {d_out // heads}, {heads}, {len(tokens)})",
    ],
    f"(1, {heads}, {len(tokens)}, {d_out // heads})",
    "Heads become a batch axis, so each head attends alone.",
)
ex32 = lesson.exercise_3_2()
st.markdown(
    f"**Exercise 3.2:** the wrapper with d_out = 1 per head and 2 heads gives context vectors of width "
    f"**{ex32.shape[-1]}**: shape {tuple(ex32.shape)}; first row "
    f"{[round(v, 4) for v in ex32[0, 0].tolist()]}."
)
st.markdown(
    f"**Exercise 3.3:** MultiHeadAttention(d_in = d_out = 768, 12 heads, qkv_bias=False) has "
    f"**{lesson.parameter_count():,}** parameters: 3 × 768 × 768 for W_query, W_key, W_value plus "
    "768 × 768 + 768 for out_proj."
)
