"""The containers of one forward pass, named as in design.md. Data only: the math is in modules.py.

Shape legend: B batch, H heads (1 for single-head variants), T tokens, d_k query/key width per
head, d_v value width per head.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from attention.chapter3.text import Tokens


# The steps shaped (B, H, T, ...): one slice per head.
PER_HEAD = ("queries", "keys", "values", "scores", "scaled_scores", "masked_scores", "weights",
            "dropout_mask", "dropped_weights", "context")  # fmt: skip


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

    TENSORS = (
        "x",
        "queries",
        "keys",
        "values",
        "scores",
        "scaled_scores",
        "mask",
        "masked_scores",
        "weights",
        "dropout_mask",
        "dropped_weights",
        "context",
        "output",
    )

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
        return {n: None if (t := getattr(self, n)) is None else tuple(t.shape) for n in self.TENSORS}

    def nbytes(self) -> int:
        """Bytes held by distinct tensors (aliases such as masked_scores is scaled_scores count once)."""
        seen = {id(t): t for n in self.TENSORS if (t := getattr(self, n)) is not None}
        return sum(t.element_size() * t.nelement() for t in seen.values())

    def to(self, device: str | torch.device) -> AttentionTrace:
        """A copy with every tensor moved to `device`."""
        moved = {n: t.to(device) for n in self.TENSORS if (t := getattr(self, n)) is not None}
        return replace(self, **moved)
