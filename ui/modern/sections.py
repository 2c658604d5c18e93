"""The Modern attention page's sections, below each one's heading and introduction (pages/modern.py):
each asks its question first (predict), then answers it with live numbers from
attention.lessons.modern on the learner's sentence, and links to the same setting in the Explorer.
Every word a reader reads goes through tr(); the lesson's tables are shown with their column names
translated."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from attention.explorer import ExplorerConfig
from attention.explorer.query_params import to_query_params
from attention.figures.explorer import StepPanel, heads_grid, step_figure
from attention.i18n import tr, tr_n
from attention.lessons import modern as lesson
from ui.cache import cached_trace
from ui.chrome import pages
from ui.classroom.questions import predict
from ui.modern.sentence import question_view
from ui.widgets import chart, chart_width, narrow


def explorer_link(config: ExplorerConfig, label: str) -> None:
    st.page_link(
        pages()[""], label=label, icon=":material/open_in_new:", query_params=to_query_params(config)
    )


def _table(frame, **options) -> None:
    """Every row in sight (at most MAX_TOKENS + 1): the last one is often the answer; the column
    names (attention.lessons.modern's, marked) in the reader's language."""
    st.dataframe(frame.rename(columns=tr), height=36 * (len(frame) + 1) + 3, **options)


def _matrix(config: ExplorerConfig, z, name: str, title: str, subtitle: str, key: str, mask=None) -> None:
    panel = StepPanel(name, z, title, subtitle, mask=mask)
    numbers = len(config.tokens) <= 12 and not narrow()
    width = chart_width(560)
    chart(
        step_figure(list(config.tokens.texts), panel, numbers=numbers, width_px=width), key=key, width=width
    )


# --- 1 · the KV cache ----------------------------------------------------------------------------


def _predict_cache(config: ExplorerConfig, everything: bool) -> bool:
    n = len(config.tokens)
    right = tr("{n}: its query against every key so far, its own included", n=n)
    return predict(
        "modern_check_cache",
        tr_n(
            "Step {step} generates the last token, {last}, with {before} token before it. With a KV cache, "
            "how many query · key products does one head compute at that step?",
            "Step {step} generates the last token, {last}, with {before} tokens before it. With a KV cache, "
            "how many query · key products does one head compute at that step?",
            n - 1,
            step=n - 1,
            last=repr(config.tokens.texts[-1]),
            before=n - 1,
        ),
        [right, tr("{square}: the whole {n} × {n} matrix", square=n * n, n=n), "1"],
        right,
        tr_n(
            "One new query row against the {n} key so far: O(T) work per token, not O(T²). The price is "
            "memory: the cache keeps every key and value.",
            "One new query row against the {n} keys so far: O(T) work per token, not O(T²). The price is "
            "memory: the cache keeps every key and value.",
            n,
            n=n,
        ),
        everything,
        view=question_view(),
    )


def kv_cache(config: ExplorerConfig, everything: bool) -> None:
    n = len(config.tokens)
    if not _predict_cache(config, everything):
        return
    generation = lesson.kv_cache(config)
    step = st.slider(tr("Step (the token being generated)"), 0, n - 1, n - 1, key="modern_cache_step")
    weights = generation.whole.weights[0, 0].numpy().copy()  # (T, T) head 0, row t from step t
    later = generation.whole.mask.numpy().copy()
    later[step + 1 :] = True  # rows of steps not run yet
    weights[later] = 0.0
    _matrix(
        config,
        weights,
        "weights",
        tr("Head 0's weights after step {step}", step=step),
        tr_n(
            "row t: step t alone, 1 query × {keys} key · hatched: not computed",
            "row t: step t alone, 1 query × {keys} keys · hatched: not computed",
            step + 1,
            keys=step + 1,
        ),
        "modern_cache_weights",
        mask=later,
    )
    _table(generation.table, hide_index=True, width="stretch")
    total_cache = int(generation.table["q·k products, all heads, cache"].sum())
    total_none = int(generation.table["q·k products, all heads, no cache"].sum())
    st.markdown(
        tr(
            "Products over the whole sentence: with the cache **{cache:,}**, without it **{none:,}** "
            "({ratio:.1f}×). Every step's weights equal row t of chapter 3's full causal "
            "`MultiHeadAttention` with the same weights: largest difference **{difference:.1e}**.",
            cache=total_cache,
            none=total_none,
            ratio=total_none / total_cache,
            difference=generation.largest_difference,
        )
    )
    explorer_link(replace(config, variant="kv_cache"), tr("Open the KV cache in the Explorer"))


# --- 2 · grouped-query attention -----------------------------------------------------------------


def grouped(config: ExplorerConfig, everything: bool) -> None:
    heads, groups = config.heads, config.kv_groups
    size = heads // groups
    if not predict(
        "modern_check_groups",
        # TRANSLATORS: on this page heads is 8 and groups is 2
        tr(
            "Query heads: {heads}. Key/value heads they share: {groups}. How many different key matrices "
            "do the query heads read?",
            heads=heads,
            groups=groups,
        ),
        [str(heads), str(groups), "1"],
        str(groups),
        # TRANSLATORS: on this page groups is 2, last is 3 and size is 4
        tr(
            "{groups}: heads 0–{last} read key/value head 0, and the next {size} read key/value head 1. "
            "Their queries still differ, so their weights differ too.",
            groups=groups,
            last=size - 1,
            size=size,
        ),
        everything,
    ):
        return
    trace = cached_trace(config)
    groups_table = lesson.head_groups(heads, groups)
    st.dataframe(groups_table.rename(index=tr, columns=lambda h: tr("head {h}", h=h)), width="stretch")
    # TRANSLATORS: a small chart's title: query head h reads key/value ("kv") head kv
    titles = [tr("head {h} · kv {kv}", h=h, kv=h // size) for h in range(heads)]
    chart(
        heads_grid(trace.weights[0].numpy(), titles, columns=2 if narrow() else 4), key="modern_groups_heads"
    )
    st.markdown(
        tr(
            "Distinct key matrices the query heads ({heads}) read, counted in the trace: **{distinct}**. "
            "Sharing them saves KV-cache memory; at the size of Llama 3 8B (32 layers, head width 128, "
            "bfloat16), per token:",
            heads=heads,
            distinct=lesson.distinct_keys(trace),
        )
    )
    st.dataframe(lesson.cache_per_token().rename(columns=tr), hide_index=True, width="stretch")
    explorer_link(config, tr("Open these 8 heads in 2 groups in the Explorer"))


# --- 3 · sliding window --------------------------------------------------------------------------


def _predict_window(everything: bool) -> bool:
    right = tr("No: it sees only itself and the 3 tokens before it")
    return predict(
        "modern_check_window",
        tr("With a window of 4, can a token attend to the token 10 positions before it, in one layer?"),
        [
            tr("Yes: the causal mask allows every earlier token"),
            right,
            tr("Only if the two tokens are the same word"),
        ],
        right,
        tr(
            "One layer moves information at most window − 1 = 3 positions. Stacked layers pass it further, "
            "one layer after another."
        ),
        everything,
    )


def window(config: ExplorerConfig, everything: bool) -> None:
    n = len(config.tokens)
    if not _predict_window(everything):
        return
    size = st.slider(
        tr("Window (tokens a query sees, itself included)"), 1, max(2, n), min(4, n), key="modern_window"
    )
    windowed = replace(config, window=size)
    trace = cached_trace(windowed)
    _matrix(
        config,
        trace.weights[0, 0].numpy(),
        "weights",
        tr("Head 0's weights, window {size}", size=size),
        tr("hatched: masked (later, or {size} or more back)", size=size),
        "modern_window_weights",
        mask=trace.mask.numpy(),
    )
    needed = lesson.layers_to_reach(10, size)
    if needed is None:
        reach = tr("never: a window of 1 sees only itself")
    else:
        reach = tr_n("{n} layer", "{n} layers", needed, n=needed)
    st.markdown(
        tr(
            "To carry a token 10 positions forward with a window of {size}: **{reach}**.",
            size=size,
            reach=reach,
        )
    )
    st.dataframe(lesson.window_reach(size).rename(columns=tr), hide_index=True)
    explorer_link(windowed, tr("Open a window of {size} in the Explorer", size=size))


# --- 4 · RoPE ------------------------------------------------------------------------------------


def _predict_rope(everything: bool) -> bool:
    right = tr("No: each score depends only on the distance between the two tokens")
    return predict(
        "modern_check_rope",
        tr(
            "Move the whole sentence 5 positions later (after a 5-token prompt, say). With RoPE, do the "
            "scores between its tokens change?"
        ),
        [
            right,
            tr("Yes: every token gets a new angle, so every score changes"),
            tr("Only the scores on the diagonal change"),
        ],
        right,
        tr(
            "Rotating both vectors by the same extra angle leaves their dot product unchanged. GPT-2 "
            "instead adds a position vector, and the later positions add different vectors, so the scores "
            "change."
        ),
        everything,
    )


def rope(config: ExplorerConfig, everything: bool) -> None:
    if not _predict_rope(everything):
        return
    shift = st.slider(tr("Shift the sentence by (positions)"), 1, 100, 5, key="modern_rope_shift")
    result = lesson.rope_shift(config, shift)
    later = tr_n(
        "the same queries · keys, each {shift} position later",
        "the same queries · keys, each {shift} positions later",
        shift,
        shift=shift,
    )
    panels = (
        (result.rope, tr("RoPE, positions from 0"), tr("head 0's queries · keys"), "modern_rope_0"),
        (result.rope_shifted, tr("RoPE, positions from {shift}", shift=shift), later, "modern_rope_s"),
    )
    for column, (z, title, subtitle, key) in zip(st.columns(2), panels, strict=True):
        with column:
            _matrix(config, z, "scores", title, subtitle, key)
    st.markdown(
        tr_n(
            "Largest change of a score when the sentence moves {shift} position: with RoPE **{rope:.1e}** "
            "(float rounding); with learned absolute positions added to x (seeded, as GPT-2's `wpe` starts) "
            "**{absolute:.2f}**.",
            "Largest change of a score when the sentence moves {shift} positions: with RoPE **{rope:.1e}** "
            "(float rounding); with learned absolute positions added to x (seeded, as GPT-2's `wpe` starts) "
            "**{absolute:.2f}**.",
            shift,
            shift=shift,
            rope=result.rope_change,
            absolute=result.absolute_change,
        )
    )
    explorer_link(replace(config, rope=True), tr("Open RoPE in the Explorer"))


# --- 5 · FlashAttention's online softmax -----------------------------------------------------------


def _predict_online(everything: bool) -> bool:
    right = tr("It is multiplied by exp(m_old − m_new), which shrinks it")
    return predict(
        "modern_check_online",
        tr(
            "A later tile holds a larger score than any before it. What must happen to the sum l kept so far?"
        ),
        [
            right,
            tr("Nothing: a sum of exponentials only grows"),
            tr("It is thrown away and the earlier tiles are computed again"),
        ],
        right,
        tr(
            "Each term in l was exp(score − m_old). With the new maximum it must be exp(score − m_new) = "
            "exp(score − m_old) · exp(m_old − m_new). The output so far is rescaled in the same way, so no "
            "tile is read twice."
        ),
        everything,
    )


def _tiles_figure(config: ExplorerConfig, tiled: ExplorerConfig, tile: int):
    """Head 0's weights with a white line where each tile of keys ends."""
    n = len(config.tokens)
    trace = cached_trace(tiled)
    panel = StepPanel(
        "weights",
        trace.weights[0, 0].numpy(),
        tr("Head 0's weights, keys in tiles of {tile}", tile=tile),
        tr("exp(score − m) / l, using the last tile's m and l; the white lines show where each tile ends"),
        mask=trace.mask.numpy(),
    )
    figure = step_figure(
        list(config.tokens.texts), panel, numbers=n <= 12 and not narrow(), width_px=chart_width(560)
    )
    for edge in range(tile, n, tile):
        figure.add_vline(x=edge - 0.5, line={"color": "white", "width": 3})
    return figure


def online(config: ExplorerConfig, everything: bool) -> None:
    n = len(config.tokens)
    if not _predict_online(everything):
        return
    left, right = st.columns(2)
    tile = left.slider(tr("Tile (keys at a time)"), 1, n, min(4, n), key="modern_tile")
    labels = [f"{i}: {t}" for i, t in enumerate(config.tokens.texts)]
    query = right.selectbox(
        tr("Query token"), range(n), index=n - 1, format_func=labels.__getitem__, key="modern_q"
    )
    tiled = replace(config, variant="online", tile=tile)
    result = lesson.online(tiled, query)
    chart(_tiles_figure(config, tiled, tile), key="modern_tiles")
    _table(result.tiles, hide_index=True, width="stretch")
    st.markdown(
        tr(
            "Head 0's output, online against chapter 3's plain softmax (same weights): largest difference "
            "**{difference:.1e}**. Numbers in the largest block of scores held at once: T × tile = "
            "**{block:,}**, where chapter 3 holds T × T = **{full:,}**. Measure the peak memory as T grows "
            "on the Scaling page (OnlineSoftmaxAttention beside MultiHeadAttention).",
            difference=result.largest_difference,
            block=result.largest_block,
            full=result.full_matrix,
        )
    )
    explorer_link(tiled, tr("Open tiles of {tile} in the Explorer", tile=tile))
