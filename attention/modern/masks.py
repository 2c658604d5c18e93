"""Which keys a query may look at, by position: causal (none after it), and with a sliding window
(Mistral, Gemma; the book's ch04/06_swa) none `window` or more positions back."""

from __future__ import annotations

import torch


def sliding_window_mask(
    num_queries: int,
    num_keys: int | None = None,
    window: int | None = None,
    q_start: int = 0,
    k_start: int = 0,
    causal: bool = True,
    device: torch.device | str = "cpu",
) -> torch.Tensor:
    """(num_queries, num_keys) bool, True where a query may NOT look: a key after it (causal), or
    `window` or more positions before it. Queries sit at positions q_start.., keys at k_start..
    (a KV-cached step's one new query sees every cached key). window=None: no window; a window
    of T or more over T tokens is the causal mask itself."""
    if window is not None and window < 1:
        raise ValueError(f"a window must hold at least the query itself (1), got {window}")
    num_keys = num_queries if num_keys is None else num_keys
    q = torch.arange(q_start, q_start + num_queries, device=device)  # (T_q,)
    k = torch.arange(k_start, k_start + num_keys, device=device)  # (T_k,)
    back = q[:, None] - k[None, :]  # (T_q, T_k): how far back each key is
    masked = back < 0 if causal else torch.zeros_like(back, dtype=torch.bool)
    if window is not None:
        masked = masked | (back >= window)
    return masked
