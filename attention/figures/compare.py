"""Compare's figures: A, B and A − B, three charts (a phone stacks them) on one colour scale.
`comparison_matrices` reads the two matrices off two traces; the builders draw plain arrays."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from attention.chapter3.trace import STEPS, AttentionTrace
from attention.figures.explorer import SCALES, StepPanel, step_figure, vectors_heatmap
from attention.figures.layout import DIVERGING, f32, token_labels
from attention.i18n import N_, tr

# What Compare offers, trace field -> what it is in words (a message, translated where it is shown):
# the steps (masked_scores aside: scaled_scores is drawn with the masked cells hatched), the context
# per head, the output.
COMPARABLE = {
    **{name: step.words for name, step in STEPS.items() if name != "masked_scores"},
    "context": N_("weights · values, per head"),
    "output": N_("the module's output"),
}


def comparison_matrices(a: AttentionTrace, b: AttentionTrace, name: str, head_a: int = 0, head_b: int = 0):
    """The two matrices to compare (float32 copies, −inf as NaN), or a reason they cannot be
    compared (in the reader's language). Copies: f32 of a trace's tensor is a view of it, and the
    traces are shared."""
    za = f32(a.output[0] if name == "output" else getattr(a, name)[0, head_a]).copy()
    zb = f32(b.output[0] if name == "output" else getattr(b, name)[0, head_b]).copy()
    za[np.isneginf(za)], zb[np.isneginf(zb)] = np.nan, np.nan
    if za.shape != zb.shape:
        why = tr(
            "{name} has shape {a} in A and {b} in B: no difference to take", name=name, a=za.shape, b=zb.shape
        )
        return za, zb, why
    return za, zb, None


def difference(za: np.ndarray, zb: np.ndarray) -> np.ndarray:
    """A − B; a cell masked on both sides is 0 (no change), masked on one side only is NaN."""
    with np.errstate(invalid="ignore"):
        diff = za - zb
    both = np.isnan(za) & np.isnan(zb)
    diff[both] = 0.0
    return diff


def difference_summary(za: np.ndarray, zb: np.ndarray) -> tuple[float, float]:
    """max |A − B| and mean |A − B| over the cells finite on both sides (0.0 when none is)."""
    finite = np.isfinite(za) & np.isfinite(zb)
    diff = np.abs(za - zb)[finite]
    return (float(diff.max()), float(diff.mean())) if diff.size else (0.0, 0.0)


def comparison_figures(
    tokens: list[str],
    za: np.ndarray,
    zb: np.ndarray,
    titles: tuple[str, str],
    name: str,
    masks: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
    fixed_difference: bool = True,
    width_px: int = 320,
) -> list[go.Figure]:
    """A, B and (when the shapes agree) A − B. A and B share one colour scale; A − B is centred on
    0 and, with `fixed_difference`, spans the same range as A and B (a difference of 0.0024 then
    looks small); otherwise it is fitted to the largest difference. Masked cells are hatched."""
    both = np.concatenate([za[np.isfinite(za)], zb[np.isfinite(zb)]])
    kind = STEPS[name].kind if name in STEPS else "scores"  # vectors diverge around 0, as scores do
    if kind == "weights":
        bound = float(max(1.0, both.max()))
    else:
        bound = float(np.abs(both).max()) if both.size else 1.0
    panels = [(za, titles[0], masks[0], SCALES[kind], name), (zb, titles[1], masks[1], SCALES[kind], name)]
    if za.shape == zb.shape:
        diff = difference(za, zb)
        largest = float(np.nanmax(np.abs(diff))) if np.isfinite(diff).any() else 0.0
        shown = bound if fixed_difference or largest == 0 else largest
        common = masks[0] if masks[0] is not None and masks[1] is not None else None
        panels.append((diff, "A − B", common, DIVERGING, "A − B"))
    figures = []
    for (z, title, mask, scale, value), label in zip(panels, ("A", "B", "A − B"), strict=False):
        is_diff = label == "A − B"
        subtitle = f"{name}: {tr(COMPARABLE[name])}"
        if is_diff and fixed_difference:
            subtitle = tr("white = no change · ±{bound:.3g}, the same range as A and B", bound=shown)
        elif is_diff:
            subtitle = tr("white = no change · ±{bound:.3g}, fitted to the largest difference", bound=shown)
        limit = shown if is_diff else bound
        if name in STEPS:
            panel = StepPanel(value, z, html.escape(title), subtitle, mask=mask, scale=scale)
            fig = step_figure(tokens, panel, width_px=width_px, bound=limit)
        else:
            fig = vectors_heatmap(z, token_labels(tokens), html.escape(title), width_px=width_px, bound=limit)
        fig.data[0].name = label
        figures.append(fig)
    return figures
