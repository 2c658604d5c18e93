"""The containers of one forward pass and the one table of its named steps. Data only: the math
is in modules.py. The names are the vocabulary every layer uses (code, UI labels, CSV headers).

Shape legend: B batch, H heads (1 for single-head variants), T tokens, d_k query/key width per
head, d_v value width per head.

    TENSORS    every tensor a trace holds, x to output, in the order the computation makes them
    STEPS      the (T, T) steps (scores ... dropped_weights): title, kind, words, when a pass has one
    PER_HEAD   the tensors shaped (B, H, T, ...): one slice per head
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

import torch

from attention.i18n import N_, tr

if TYPE_CHECKING:
    from attention.chapter3.text import Tokens


@dataclass(frozen=True)
class Step:
    """One (T, T) step of attention: rows are queries (the token that looks), columns are keys
    (the token looked at). `name` is the trace's field that holds it, (B, H, T, T)."""

    name: str
    title: str  # how it is computed, as a chart's title
    kind: str  # "scores": any real number, −inf where masked; "weights": 0..1, each row sums to 1
    words: str  # what it is, in a few plain words
    arrow: str  # the operation that makes it from the step before ("softmax")
    masked: bool  # the causal mask's cells are drawn hatched on it (the mask applies from here on)
    taken: Callable[[AttentionSteps], bool] = lambda steps: True  # whether a pass went through it

    # title, words and arrow are messages (N_): a page shows them through these, in its language
    def title_text(self) -> str:
        """The title, as a chart shows it, in this rerun's language."""
        return tr(self.title)

    def words_text(self) -> str:
        """What the step is, in a few plain words, in this rerun's language."""
        return tr(self.words)

    def arrow_text(self) -> str:
        """The operation that makes the step, in this rerun's language."""
        return tr(self.arrow)


# Titles and words that are only code (queries @ keysᵀ) stay as they are in every language; the
# rest are messages (N_), shown through Step.title_text(), words_text() and arrow_text().
STEPS: dict[str, Step] = {
    step.name: step
    for step in (
        Step(
            "scores",
            "scores = queries @ keysᵀ",
            "scores",
            "queries · keysᵀ",
            # TRANSLATORS: the first step of the chain "scores → ÷ √d_k → mask → softmax → dropout":
            # the attention scores are computed
            N_("scores"),
            False,
        ),
        Step(
            "scaled_scores",
            "scaled_scores = scores / √d_k",
            "scores",
            "scores / √d_k",
            "÷ √d_k",
            False,
            lambda steps: steps.scaled,  # section 3.3's simplified attention does not scale
        ),
        Step(
            "masked_scores",
            N_("masked_scores (−inf above the diagonal)"),
            "scores",
            N_("scaled_scores, −inf where a query may not look"),
            # TRANSLATORS: a step of the chain "scores → ÷ √d_k → mask → softmax → dropout": the
            # causal mask is applied
            N_("mask"),
            True,
            lambda steps: steps.mask is not None,
        ),
        Step(
            "weights",
            "weights = softmax(masked_scores)",
            "weights",
            N_("softmax output, rows sum to 1"),
            # TRANSLATORS: a step of the chain "scores → ÷ √d_k → mask → softmax → dropout"
            N_("softmax"),
            True,
        ),
        Step(
            "dropped_weights",
            "dropped_weights = weights · keep / (1 − p)",
            "weights",
            N_("weights after dropout"),
            # TRANSLATORS: a step of the chain "scores → ÷ √d_k → mask → softmax → dropout"
            N_("dropout"),
            True,
            lambda steps: steps.dropout_mask is not None,
        ),
    )
}

# The vocabulary: every tensor of a trace, in the order the computation makes them.
TENSORS = (
    "x",  # (B, T, d_in) token embeddings, the module input
    "queries",  # (B, H, T, d_k)
    "keys",  # (B, H, T, d_k)
    "values",  # (B, H, T, d_v)
    "scores",  # (B, H, T, T)
    "scaled_scores",  # (B, H, T, T)
    "mask",  # (T, T) bool
    "masked_scores",  # (B, H, T, T)
    "weights",  # (B, H, T, T)
    "dropout_mask",  # (B, H, T, T) bool
    "dropped_weights",  # (B, H, T, T)
    "context",  # (B, H, T, d_v)
    "output",  # (B, T, d_out)
)
PER_HEAD = tuple(name for name in TENSORS if name not in ("x", "mask", "output"))


@dataclass(frozen=True, eq=False)
class AttentionSteps:
    """What scaled dot-product attention computes, step by step (modules.attend)."""

    queries: torch.Tensor  # (B, H, T, d_k)
    keys: torch.Tensor  # (B, H, T, d_k)
    values: torch.Tensor  # (B, H, T, d_v)
    scores: torch.Tensor  # (B, H, T, T) queries @ keys^T ("omega")
    scaled_scores: torch.Tensor  # (B, H, T, T) scores / divisor
    mask: torch.Tensor | None  # (T, T) bool, True where a query may NOT look; None if not causal
    masked_scores: torch.Tensor  # (B, H, T, T) scaled_scores with -inf where mask
    weights: torch.Tensor  # (B, H, T, T) softmax over keys; rows sum to 1
    dropout_mask: torch.Tensor | None  # (B, H, T, T) bool, True = kept; None if dropout is off
    dropped_weights: torch.Tensor  # (B, H, T, T) weights * keep / (1 - p)
    context: torch.Tensor  # (B, H, T, d_v) dropped_weights @ values
    divisor: float  # what scores were divided by: sqrt(d_k), or 1.0 when not scaled (section 3.3)
    dropout: float  # p of the dropout that was applied (0.0 when off)
    scaled: bool = field(kw_only=True)  # whether scores were divided at all (not in section 3.3)

    def step_names(self) -> list[str]:
        """The steps (keys of STEPS) this pass went through, in order: no scaled_scores where the
        scores were not scaled, no masked_scores without a mask, no dropped_weights without
        dropout. The last one is what the context sums."""
        return [step.name for step in STEPS.values() if step.taken(self)]


@dataclass(frozen=True, eq=False)
class AttentionTrace(AttentionSteps):
    """One forward pass of a module: its input, every step, its output. Rows of every (T, T)
    matrix are queries, columns are keys."""

    x: torch.Tensor  # (B, T, d_in) token embeddings, the module input
    output: torch.Tensor  # (B, T, d_out) heads concatenated (then out_proj where there is one)
    module: str  # class name, e.g. "MultiHeadAttention"
    device: str = "cpu"  # where it was computed; the tensors here are always on cpu
    seconds: float = 0.0  # wall time of the forward pass, synchronised on GPUs
    tokens: Tokens | None = None
    config: Any = None  # the ExplorerConfig that produced it, when engine.run() made it
    kv_groups: int | None = None  # grouped-query attention: key/value heads, each shared by H / kv_groups
    window: int | None = None  # sliding-window attention: the keys a query sees, itself included
    rope: bool = False  # queries and keys rotated by position (RoPE) before their scores
    tile_size: int | None = None  # online softmax: keys taken this many at a time

    TENSORS = TENSORS

    @classmethod
    def of(cls, steps: AttentionSteps, **rest) -> AttentionTrace:
        """A trace from attend()'s steps plus x, output, module (and anything else)."""
        return cls(**{f.name: getattr(steps, f.name) for f in fields(AttentionSteps)}, **rest)

    @property
    def num_heads(self) -> int:
        return self.weights.shape[1]

    @property
    def num_tokens(self) -> int:
        return self.weights.shape[-1]

    def shapes(self) -> dict[str, tuple[int, ...] | None]:
        """{name: shape} for every tensor in the trace (None where absent)."""
        return {n: None if (t := getattr(self, n)) is None else tuple(t.shape) for n in TENSORS}

    def nbytes(self) -> int:
        """Bytes held by distinct tensors (aliases such as masked_scores is scaled_scores count once)."""
        seen = {id(t): t for n in TENSORS if (t := getattr(self, n)) is not None}
        return sum(t.element_size() * t.nelement() for t in seen.values())

    def to(self, device: str | torch.device, dtype: torch.dtype | None = None) -> AttentionTrace:
        """A copy with every tensor moved to `device`, its floating ones cast to `dtype` when given
        (a bfloat16 model's trace read as float32: numpy has no bfloat16)."""
        moved = {
            n: t.to(device, dtype) if dtype is not None and t.is_floating_point() else t.to(device)
            for n in TENSORS
            if (t := getattr(self, n)) is not None
        }
        return replace(self, **moved)
