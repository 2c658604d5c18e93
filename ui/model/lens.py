"""Inside a model's "Where it decided": the logit lens (what the model would predict if it stopped
after each block) with its commitment strip, then the chosen position's prediction split into what
each part of the model wrote into it (direct logit attribution), a click on a head opening it in
the lab. The numbers come from attention.model.lens through ui.model.caches; the figures from
attention.figures.lens and .explain. The position control is shared with "Which explanation?"."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from attention.figures import explain as figures
from attention.figures import lens as lens_figures
from attention.i18n import N_, tr
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from attention.model.lens import Lens, LogitParts
from ui.model import caches as models
from ui.widgets import MAIN_PX, PROJECTOR_SCALE, chart, chart_width, literal, narrow, projected, show_notes

LENS = N_(
    "The **logit lens**: after the embeddings and after every layer, the model's running sum (the "
    "residual stream) is read through its last norm and output layer as if it were the end, to see "
    "what the model would predict if it stopped there. Colour: the probability of the model's final "
    "prediction at that stage (yellow: it is already sure). Each column predicts the token after the one "
    "named under it."
)
NAMED = N_("Each cell names that stage's top token; hover over it for the top 5.")
# said where the cells are too narrow to hold a token (a long sentence, a phone)
UNNAMED = N_(
    "Hover over a cell, or tap it, to see that stage's top 5 tokens: the cells are too narrow here to "
    "name them."
)
STRIP = N_(
    "**Decided at** (the strip under the map): each token is coloured by the first stage from which the "
    "model's final prediction stays its top token at every later stage; the number is that stage (E: "
    "already after the embeddings, 0: after layer 0, …, {last}: only the last layer settles it). "
    "Bright colours decide early, dark ones late, as the map above is bright where the model is sure."
)
PARTS = N_(
    "**Who wrote the prediction?** The predicted token's logit (its score before the softmax) is a sum of "
    "parts. The parts are what the embeddings, each attention head, each feed-forward block (MLP) and the "
    "final layer norm's shift (the constant the norm adds after scaling) add to the residual stream, the "
    "running total that every layer writes into. Each part is read through the final norm and the output "
    "layer. The norm's scaling is taken from the final residual stream, as the TransformerLens library (a "
    "tool for inspecting models) does. Pick the prediction:"
)


def text_scale() -> float:
    """How much larger this session's chart text is (a projector's): rows grow with it."""
    return PROJECTOR_SCALE if st.session_state.get("projector") else 1.0


def shown_text(info: ModelInfo):
    """A token id -> its text as the page shows a token alone (a small model's symbol; GPT-2's "·the")."""
    return (lambda i: info.symbols[i]) if info.symbols else info.words.shown


def position_control(source: str, ids: Sequence[int], tokens: Sequence[str]) -> int:
    """The position whose prediction is explained (default: the last token; a new sentence starts
    there again); a URL's position past the sentence's end is noted."""
    s = st.session_state
    key = (source, tuple(ids))
    if s.get("_m_position_ids") not in (None, key):
        s["m_position"] = None  # another sentence: its last token again
    s["_m_position_ids"] = key
    asked, last = s.pop("_m_position_url", False), len(tokens) - 1
    if s["m_position"] is not None and s["m_position"] > last:
        if asked:
            note = tr(
                "position={value} is past the sentence's last token ({last}), so the last token is "
                "explained instead.",
                value=s["m_position"],
                last=last,
            )
            show_notes([note])
        s["m_position"] = None
    if s["m_position"] is None:
        s["m_position"] = last
    labels = [f"{i}: {t}" for i, t in enumerate(tokens)]
    return st.selectbox(
        tr("The prediction after"),
        range(len(tokens)),
        key="m_position",
        format_func=labels.__getitem__,
        help=tr(
            "Every position predicts the next token. The last position predicts what comes after the "
            "sentence."
        ),
    )


def lens_words(lens: Lens, info: ModelInfo) -> list[list[list[str]]]:
    """(S, T, k) the lens's top tokens as text."""
    shown = shown_text(info)
    return [[[shown(int(i)) for i in cell] for cell in row] for row in lens.top_ids.tolist()]


def lens_chart(lens: Lens, info: ModelInfo, tokens: Sequence[str]) -> None:
    width, tall = chart_width(MAIN_PX), narrow()
    named = lens_figures.cells_named(lens.stages, len(tokens), width, tall)
    st.caption(f"{tr(LENS)} {tr(NAMED if named else UNNAMED)}")
    fig = lens_figures.lens_figure(
        tokens,
        np.exp(lens.final_logprobs.numpy()),
        lens_words(lens, info),
        lens.top_probs.numpy(),
        lens.commit.numpy(),
        width,
        text_scale(),
        tall=tall,  # a phone: positions down the page
    )
    chart(fig, key="m_lens")
    st.caption(tr(STRIP, last=lens.stages - 2))


def part_bars(parts: LogitParts) -> tuple[list[str], np.ndarray]:
    """The parts in the residual stream's order: the embeddings, each layer's attention (its heads
    and out_proj's bias) and feed-forward, the last norm's shift."""
    names, values = [tr("embeddings")], [parts.embeddings]
    attention = parts.heads.sum(1) + parts.attention_bias  # (L,)
    for layer in range(parts.heads.shape[0]):
        names += [tr("layer {n} attention", n=layer), tr("layer {n} MLP", n=layer)]
        values += [float(attention[layer]), float(parts.mlps[layer])]
    names.append(tr("final norm's shift"))
    values.append(parts.norm_shift)
    return names, np.array(values)


def _open_head() -> None:
    """A click on a head in the map of heads (its marker's customdata: layer, head) knocks that
    head out in the lab."""
    points = st.session_state["m_dla_heads"].selection.points
    if points:
        layer, head = (int(v) for v in points[0]["customdata"])
        st.session_state.update(m_ko=[f"{layer}.{head}"], m_view="lab", m_layer=layer, m_head=head)


def parts_charts(lens: Lens, parts: LogitParts, info: ModelInfo, tokens: Sequence[str]) -> None:
    """What the chosen prediction is, when it settled, its parts as a waterfall and each head's."""
    target = shown_text(info)(parts.token)
    st.markdown(
        tr(
            "After “{token}” the model predicts “{target}” (logit {logit:.4f}). It stays the top token "
            "from this stage on: {stage}. The parts below add up to {total:.4f}, which is the logit.",
            token=literal(tokens[parts.position]),
            target=literal(target),
            logit=parts.logit,
            stage=lens_figures.stage_names(lens.stages)[int(lens.commit[parts.position])],
            total=parts.total,
        )
    )
    names, values = part_bars(parts)
    width = chart_width(MAIN_PX)
    chart(figures.parts_figure(names, values, parts.logit, width, text_scale()), key="m_dla_parts")
    st.caption(
        tr(
            "A layer's attention bar is the sum of its heads' parts (the map below) plus its out_proj bias "
            "({bias:+.4f} over all layers). Red raises the logit; blue lowers it.",
            bias=float(parts.attention_bias.sum()),
        )
    )
    st.plotly_chart(  # no toolbar: a map of heads to click needs none
        projected(figures.heads_figure(parts.heads.numpy(), width, text_scale())),
        key="m_dla_heads",
        on_select=_open_head,
        selection_mode="points",
        config={"displayModeBar": False},
    )


def norm_note(info: ModelInfo) -> str:
    """How a model in today's layout's norms enter the parts: RMSNorm has no shift; Gemma's norm
    after attention is frozen at the run's value so that the heads still add up."""
    words = tr(
        "This model's final norm is an RMSNorm. It only divides by this run's root mean square and adds no "
        "shift, so the shift's part is 0."
    )
    if info.layout == "gemma3_text":
        words += " " + tr(
            "Gemma also normalises each layer's attention output before adding it to the residual stream. "
            "Here a head's part goes through that norm with its scale fixed at this run's value: 1 ÷ the "
            "root mean square of the whole layer's output. The heads therefore still add up exactly to the "
            "layer's bar. On another sentence the scale differs."
        )
    return words


def lens_view(source: str, model: GPTModel, info: ModelInfo, ids: list[int], tokens: tuple[str, ...]) -> None:
    """The logit lens over the sentence, then one position's prediction split into its parts."""
    lens = models.lens(source, model, ids)
    lens_chart(lens, info, tokens)
    st.markdown(tr(PARTS))
    if info.layout != "gpt2":
        st.caption(norm_note(info))
    position = position_control(source, ids, tokens)
    lens_parts = models.parts(source, model, ids, position)
    parts_charts(lens, lens_parts, info, tokens)
