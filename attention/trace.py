"""AttentionTrace: every intermediate of one forward pass, named as in design.md."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from attention.text import Tokens

# Shape legend: B batch, H heads (1 for single-head variants), T tokens,
# d_k query/key width per head, d_v value width per head.


@dataclass(frozen=True, eq=False)
class AttentionTrace:
    """One forward pass. Rows of every (T, T) matrix are queries, columns are keys."""

    x: torch.Tensor  # (B, T, d_in) token embeddings, the module input
    queries: torch.Tensor  # (B, H, T, d_k)
    keys: torch.Tensor  # (B, H, T, d_k)
    values: torch.Tensor  # (B, H, T, d_v)
    scores: torch.Tensor  # (B, H, T, T) queries @ keys^T ("omega")
    scaled_scores: torch.Tensor  # (B, H, T, T) scores / scale
    mask: torch.Tensor | None  # (T, T) bool, True where a query may NOT look; None if not causal
    masked_scores: torch.Tensor  # (B, H, T, T) scaled_scores with -inf where mask
    weights: torch.Tensor  # (B, H, T, T) softmax over keys; rows sum to 1
    dropout_mask: torch.Tensor | None  # (B, H, T, T) bool, True = kept; None if dropout is off
    dropped_weights: torch.Tensor  # (B, H, T, T) weights * keep / (1 - p)
    context: torch.Tensor  # (B, H, T, d_v) dropped_weights @ values
    output: torch.Tensor  # (B, T, d_out) heads concatenated (then out_proj where there is one)
    scale: float  # the divisor sqrt(d_k), or 1.0 for the simplified variant
    dropout: float  # p of the dropout that was applied (0.0 when off)
    module: str  # class name, e.g. "MultiHeadAttention"
    device: str = "cpu"  # where it was computed; the tensors here are always on cpu
    seconds: float = 0.0  # wall time of the forward pass, synchronised on GPUs
    tokens: Tokens | None = None
    config: Any = None  # the ExplorerConfig that produced it, when run() made it

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
        moved = {
            f.name: getattr(self, f.name).to(device)
            for f in fields(self)
            if f.name in self.TENSORS and getattr(self, f.name) is not None
        }
        return replace(self, **moved)


def attend(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    *,
    scale: float,
    causal: bool = False,
    dropout: float = 0.0,
    training: bool = False,
    generator: torch.Generator | None = None,
) -> dict[str, Any]:
    """Scaled dot-product attention over (B, H, T, d) tensors, keeping every intermediate.

    `scale` is the divisor, sqrt(d_k) as the book computes it (d_k ** 0.5), 1.0 for none.

    The ops mirror the book's forward (matmul, divide by sqrt(d_k), -inf mask, softmax,
    dropout) so that a trace and a forward of the same module agree. The dropout mask is
    drawn like nn.Dropout on the CPU (bernoulli_(1 - p) on an empty tensor, then / (1 - p)),
    from `generator` (the global CPU RNG when None), always on the CPU so that every device
    draws the same mask for the same seed.
    """
    num_tokens = queries.shape[-2]
    scores = queries @ keys.transpose(-2, -1)  # (B, H, T, T)
    scaled_scores = scores if scale == 1.0 else scores / scale  # (B, H, T, T)
    mask = None
    masked_scores = scaled_scores
    if causal:
        ones = torch.ones(num_tokens, num_tokens, device=scores.device)
        mask = torch.triu(ones, diagonal=1).bool()  # (T, T)
        masked_scores = scaled_scores.masked_fill(mask, -torch.inf)  # (B, H, T, T), a copy
    weights = torch.softmax(masked_scores, dim=-1)  # (B, H, T, T)
    dropout_mask = None
    dropped_weights = weights
    if training and dropout > 0.0:
        noise = torch.empty(weights.shape).bernoulli_(1 - dropout, generator=generator)
        noise = noise.div_(1 - dropout).to(weights.device)  # (B, H, T, T): 0 or 1/(1-p)
        dropout_mask = noise > 0  # (B, H, T, T)
        dropped_weights = weights * noise  # (B, H, T, T)
    context = dropped_weights @ values  # (B, H, T, d_v)
    return dict(
        queries=queries,
        keys=keys,
        values=values,
        scores=scores,
        scaled_scores=scaled_scores,
        mask=mask,
        masked_scores=masked_scores,
        weights=weights,
        dropout_mask=dropout_mask,
        dropped_weights=dropped_weights,
        context=context,
        scale=scale,
        dropout=dropout if dropout_mask is not None else 0.0,
    )
