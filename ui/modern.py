"""The Modern attention page's sections: each asks its question first (predict), then answers it
with live numbers from attention.lessons.modern on the learner's sentence, and links to the same
setting in the Explorer."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from attention.explorer import ExplorerConfig
from attention.explorer.config import MAX_SEED
from attention.explorer.query_params import from_values, to_query_params
from attention.figures.explorer import StepPanel, heads_grid, step_figure
from attention.lessons import modern as lesson
from attention.lessons.chapter3 import first_tokens
from ui.cache import cached_trace
from ui.chrome import pages
from ui.widgets import chart, narrow, plural, predict, reset_predictions

MAX_TOKENS = 16  # heatmaps with every number readable
# 8 query heads of width 4 (RoPE needs an even width), 2 key/value heads: Llama 3's shape, small
SETTINGS = {"embedding": "random", "d_in": 32, "d_out": 32, "heads": 8, "kv_groups": 2, "seed": 123}
DEFAULT_TEXT = "the cat sat on the mat because the cat was tired"


def sentence() -> tuple[ExplorerConfig, list[str], bool]:
    """The learner's sentence as a GroupedQueryAttention config (its first MAX_TOKENS tokens; the
    example sentence for one of a single token: a cache, a window and tiles need two), notes on
    anything repaired, and whether every answer shows without predicting."""
    st.session_state.setdefault("modern_text", DEFAULT_TEXT)
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    text = left.text_input("Your sentence", key="modern_text", on_change=_reset, help="Press Enter to apply.")
    seed = right.number_input("seed", 0, MAX_SEED, key="modern_seed", value=123, on_change=_reset)
    everything = st.toggle("Show every answer without predicting", key="modern_everything")
    config, notes = from_values(SETTINGS | {"variant": "gqa", "text": text, "seed": seed})
    if config.embedding != "random":  # an unusable sentence was repaired to the book's, vectors and all
        config = replace(config, embedding="random", d_in=SETTINGS["d_in"], matrix=None)
    if len(config.tokens) < 2:
        notes.append(
            f"{text!r} is one token; this page needs two or more. Used the example sentence instead."
        )
        config = replace(config, text=DEFAULT_TEXT)
    short = first_tokens(config, MAX_TOKENS)
    if short is not config:
        st.info(f"Your sentence has {len(config.tokens)} tokens; this page uses its first {MAX_TOKENS}.")
    return short, notes, everything


def _reset() -> None:
    reset_predictions("modern_check_")


def explorer_link(config: ExplorerConfig, label: str) -> None:
    st.page_link(
        pages()[""], label=label, icon=":material/open_in_new:", query_params=to_query_params(config)
    )


def _width() -> int:
    return 360 if narrow() else 560


def _table(frame, **options) -> None:
    """Every row in sight (at most MAX_TOKENS + 1): the last one is often the answer."""
    st.dataframe(frame, height=36 * (len(frame) + 1) + 3, **options)


def _matrix(config: ExplorerConfig, z, name: str, title: str, subtitle: str, key: str, mask=None) -> None:
    panel = StepPanel(name, z, title, subtitle, mask=mask)
    numbers = len(config.tokens) <= 12 and not narrow()
    chart(step_figure(list(config.tokens.texts), panel, numbers=numbers, width_px=_width()), key=key)


# --- 1 · the KV cache ----------------------------------------------------------------------------


def kv_cache(config: ExplorerConfig, everything: bool) -> None:
    n = len(config.tokens)
    st.markdown(
        "Generating text, a model produces one token at a time, and each new token attends to every token "
        "before it. Without a cache it recomputes every query, key and value of the whole sentence at each "
        "step; **with a KV cache** (the book's `ch04/03_kv-cache`) it computes only the new token's, keeps "
        "the keys and values, and adds **one row** of scores."
    )
    last = config.tokens.texts[-1]
    if not predict(
        "modern_check_cache",
        f"Step {n - 1} generates the last token, {last!r}, with {n - 1} tokens before it. With a KV cache, "
        "how many query · key products does one head compute at that step?",
        [
            f"{n}: its query against every key so far, its own included",
            f"{n * n}: the whole {n} × {n} matrix",
            "1",
        ],
        f"{n}: its query against every key so far, its own included",
        f"One new query row against the {n} keys so far: O(T) work per token, not O(T²). The price is "
        "memory: the cache keeps every key and value.",
        everything,
    ):
        return
    generation = lesson.kv_cache(config)
    cached = replace(config, variant="kv_cache")
    step = st.slider("Step (the token being generated)", 0, n - 1, n - 1, key="modern_cache_step")
    weights = generation.whole.weights[0, 0].numpy().copy()  # (T, T) head 0, row t from step t
    later = generation.whole.mask.numpy().copy()
    later[step + 1 :] = True  # rows of steps not run yet
    weights[later] = 0.0
    _matrix(
        config,
        weights,
        "weights",
        f"Head 0's weights after step {step}",
        f"row t: step t alone, 1 query × {step + 1} keys · hatched: not computed",
        "modern_cache_weights",
        mask=later,
    )
    _table(generation.table, hide_index=True, width="stretch")
    total_cache = int(generation.table["q·k products, all heads, cache"].sum())
    total_none = int(generation.table["q·k products, all heads, no cache"].sum())
    st.markdown(
        f"Over the whole sentence: **{total_cache:,}** products with the cache, **{total_none:,}** without "
        f"({total_none / total_cache:.1f}×). Every step's weights equal row t of chapter 3's full causal "
        f"`MultiHeadAttention` with the same weights: largest difference "
        f"**{generation.largest_difference:.1e}**."
    )
    explorer_link(cached, "Open the KV cache in the Explorer")


# --- 2 · grouped-query attention -----------------------------------------------------------------


def grouped(config: ExplorerConfig, everything: bool) -> None:
    heads, groups = config.heads, config.kv_groups
    st.markdown(
        f"Llama 3, Qwen3, Gemma and Mistral give their **{heads} query heads** only **{groups} key/value "
        "heads** (grouped-query attention, the book's `llama3.py`): neighbouring query heads share one "
        "key and one value projection. One group is multi-query attention; as many groups as heads is "
        "chapter 3's multi-head attention."
    )
    if not predict(
        "modern_check_groups",
        f"{heads} query heads share {groups} key/value heads. How many different key matrices do the "
        f"{heads} heads read?",
        [str(heads), str(groups), "1"],
        str(groups),
        f"{groups}: heads 0–{heads // groups - 1} read key/value head 0, the next {heads // groups} head 1. "
        "Their queries still differ, so their weights differ too.",
        everything,
    ):
        return
    trace = cached_trace(config)
    st.dataframe(lesson.head_groups(heads, groups), width="stretch")
    size = heads // groups
    titles = [f"head {h} · kv {h // size}" for h in range(heads)]
    chart(
        heads_grid(trace.weights[0].numpy(), titles, columns=2 if narrow() else 4), key="modern_groups_heads"
    )
    st.markdown(
        f"Distinct key matrices among the {heads} heads, counted in the trace: "
        f"**{lesson.distinct_keys(trace)}**. What it saves is the KV cache: at Llama 3 8B's size (32 layers, "
        "head width 128, bfloat16) per token:"
    )
    st.dataframe(lesson.cache_per_token(), hide_index=True, width="stretch")
    explorer_link(config, "Open these 8 heads in 2 groups in the Explorer")


# --- 3 · sliding window --------------------------------------------------------------------------


def window(config: ExplorerConfig, everything: bool) -> None:
    n = len(config.tokens)
    st.markdown(
        "Mistral and Gemma let a query see only the last few tokens, **a sliding window** (the book's "
        "`ch04/06_swa`): the causal mask plus a band, and a KV cache that can drop older keys."
    )
    if not predict(
        "modern_check_window",
        "With a window of 4, can a token attend to the token 10 positions before it, in one layer?",
        [
            "Yes: the causal mask allows every earlier token",
            "No: it sees only itself and the 3 tokens before it",
            "Only if the two tokens are the same word",
        ],
        "No: it sees only itself and the 3 tokens before it",
        "One layer moves information at most window − 1 = 3 positions; stacked layers relay it further.",
        everything,
    ):
        return
    size = st.slider(
        "Window (tokens a query sees, itself included)", 1, max(2, n), min(4, n), key="modern_window"
    )
    windowed = replace(config, window=size)
    trace = cached_trace(windowed)
    _matrix(
        config,
        trace.weights[0, 0].numpy(),
        "weights",
        f"Head 0's weights, window {size}",
        f"hatched: masked (later, or {size} or more back)",
        "modern_window_weights",
        mask=trace.mask.numpy(),
    )
    needed = lesson.layers_to_reach(10, size)
    reach = "never: a window of 1 sees only itself" if needed is None else plural(needed, "layer")
    st.markdown(f"To carry a token 10 positions forward with a window of {size}: **{reach}**.")
    st.dataframe(lesson.window_reach(size), hide_index=True)
    explorer_link(windowed, f"Open a window of {size} in the Explorer")


# --- 4 · RoPE ------------------------------------------------------------------------------------


def rope(config: ExplorerConfig, everything: bool) -> None:
    st.markdown(
        "GPT-2 adds a learned vector for each position to each token (chapter 2). Llama, Qwen and Gemma "
        "instead **rotate** each query and key by an angle proportional to its position (RoPE, the book's "
        "`compute_rope_params` and `apply_rope`). The score of two rotated vectors depends on the "
        "*difference* of their angles."
    )
    if not predict(
        "modern_check_rope",
        "Move the whole sentence 5 positions later (after a 5-token prompt, say). With RoPE, do the "
        "scores between its tokens change?",
        [
            "No: each score depends only on the distance between the two tokens",
            "Yes: every token gets a new angle, so every score changes",
            "Only the scores on the diagonal change",
        ],
        "No: each score depends only on the distance between the two tokens",
        "Rotating both vectors by the same extra angle leaves their dot product unchanged. With GPT-2's "
        "absolute positions, the vectors added are new ones, and the scores change.",
        everything,
    ):
        return
    shift = st.slider("Shift the sentence by (positions)", 1, 100, 5, key="modern_rope_shift")
    result = lesson.rope_shift(config, shift)
    left, right = st.columns(2)
    with left:
        _matrix(
            config,
            result.rope,
            "scores",
            "RoPE, positions from 0",
            "head 0's queries · keys",
            "modern_rope_0",
        )
    with right:
        _matrix(
            config,
            result.rope_shifted,
            "scores",
            f"RoPE, positions from {shift}",
            f"the same queries · keys, each {shift} positions later",
            "modern_rope_s",
        )
    st.markdown(
        f"Largest change of a score when the sentence moves {shift} positions: with RoPE "
        f"**{result.rope_change:.1e}** (float rounding); with learned absolute positions added to x "
        f"(seeded, as GPT-2's `wpe` starts) **{result.absolute_change:.2f}**."
    )
    explorer_link(replace(config, rope=True), "Open RoPE in the Explorer")


# --- 5 · FlashAttention's online softmax -----------------------------------------------------------


def online(config: ExplorerConfig, everything: bool) -> None:
    n = len(config.tokens)
    st.markdown(
        "FlashAttention never holds the T × T matrix: it takes the keys a **tile** at a time and keeps, for "
        "each query, the largest score so far **m**, the sum of exp(score − m) so far **l**, and the output "
        "so far. At the end, output / l is exactly softmax · values."
    )
    if not predict(
        "modern_check_online",
        "A later tile holds a larger score than any before it. What must happen to the sum l kept so far?",
        [
            "It is multiplied by exp(m_old − m_new), which shrinks it",
            "Nothing: a sum of exponentials only grows",
            "It is thrown away and the earlier tiles are computed again",
        ],
        "It is multiplied by exp(m_old − m_new), which shrinks it",
        "Each term was exp(score − m_old); with the new maximum it must be exp(score − m_new) = "
        "exp(score − m_old) · exp(m_old − m_new). The output so far is rescaled the same way: no tile is "
        "read twice.",
        everything,
    ):
        return
    left, right = st.columns(2)
    tile = left.slider("Tile (keys at a time)", 1, n, min(4, n), key="modern_tile")
    labels = [f"{i}: {t}" for i, t in enumerate(config.tokens.texts)]
    query = right.selectbox(
        "Query token", range(n), index=n - 1, format_func=labels.__getitem__, key="modern_q"
    )
    tiled = replace(config, variant="online", tile=tile)
    result = lesson.online(tiled, query)
    trace = cached_trace(tiled)
    panel = StepPanel(
        "weights",
        trace.weights[0, 0].numpy(),
        f"Head 0's weights, keys in tiles of {tile}",
        "exp(score − m) / l with the last tile's m and l; white lines: where a tile ends",
        mask=trace.mask.numpy(),
    )
    figure = step_figure(
        list(config.tokens.texts), panel, numbers=n <= 12 and not narrow(), width_px=_width()
    )
    for edge in range(tile, n, tile):
        figure.add_vline(x=edge - 0.5, line={"color": "white", "width": 3})
    chart(figure, key="modern_tiles")
    _table(result.tiles, hide_index=True, width="stretch")
    st.markdown(
        f"Head 0's output, online against chapter 3's plain softmax (same weights): largest difference "
        f"**{result.largest_difference:.1e}**. The largest block of scores held at once: "
        f"**{result.largest_block:,}** numbers (T × tile) instead of **{result.full_matrix:,}** (T × T). "
        "Measure the peak memory as T grows on the Scaling page (OnlineSoftmaxAttention beside "
        "MultiHeadAttention)."
    )
    explorer_link(replace(config, variant="online", tile=tile), f"Open tiles of {tile} in the Explorer")
