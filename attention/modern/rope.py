"""Rotary position embeddings (RoPE; Su et al. 2021), as Llama 3 computes them (the book's
llama3.py: compute_rope_params, apply_rope). Each pair of a query's or key's coordinates (i and
i + head_dim/2) is turned by an angle position x frequency_i: the score of a query at position m
and a key at position n then depends on m - n alone, not on where the pair sits in the sentence.
"""

from __future__ import annotations

import torch


def compute_rope_params(
    head_dim: int,
    theta_base: float = 10_000,
    context_length: int = 4096,
    freq_config: dict | None = None,
    dtype: torch.dtype = torch.float32,
    linear_factor: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin), each (context_length, head_dim): the angles position x inv_freq_i, the half
    repeated. `freq_config` (Llama 3.1's long-context scaling: factor, low_freq_factor,
    high_freq_factor, original_context_length) slows the low frequencies; `linear_factor` slows
    them all (position interpolation: Gemma 3's global layers in its 4B and larger models)."""
    if head_dim % 2:
        raise ValueError(f"RoPE needs an even head_dim, got {head_dim}")
    inv_freq = 1.0 / theta_base ** (
        torch.arange(0, head_dim, 2, dtype=dtype)[: head_dim // 2].float() / head_dim
    )
    if freq_config is not None:
        original = freq_config["original_context_length"]
        low_wavelen = original / freq_config["low_freq_factor"]
        high_wavelen = original / freq_config["high_freq_factor"]
        wavelen = 2 * torch.pi / inv_freq  # (head_dim / 2,)
        slowed = torch.where(wavelen > low_wavelen, inv_freq / freq_config["factor"], inv_freq)
        smooth = (original / wavelen - freq_config["low_freq_factor"]) / (
            freq_config["high_freq_factor"] - freq_config["low_freq_factor"]
        )
        smoothed = (1 - smooth) * (inv_freq / freq_config["factor"]) + smooth * inv_freq
        medium = (wavelen <= low_wavelen) & (wavelen >= high_wavelen)
        inv_freq = torch.where(medium, smoothed, slowed)
    inv_freq = inv_freq / linear_factor if linear_factor != 1.0 else inv_freq
    positions = torch.arange(context_length, dtype=dtype)  # (context_length,)
    angles = positions[:, None] * inv_freq[None, :]  # (context_length, head_dim / 2)
    angles = torch.cat([angles, angles], dim=1)  # (context_length, head_dim)
    return torch.cos(angles), torch.sin(angles)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, offset: int = 0) -> torch.Tensor:
    """x (B, H, T, head_dim) rotated by position: the pairs (x_i, x_{i+head_dim/2}) turned by the
    angles of positions offset .. offset + T - 1 (offset: a KV-cached step's first position)."""
    seq_len, head_dim = x.shape[-2], x.shape[-1]
    if head_dim % 2:
        raise ValueError(f"RoPE needs an even head_dim, got {head_dim}")
    x1, x2 = x[..., : head_dim // 2], x[..., head_dim // 2 :]  # (B, H, T, head_dim / 2) each
    cos = cos[offset : offset + seq_len, :][None, None]  # (1, 1, T, head_dim)
    sin = sin[offset : offset + seq_len, :][None, None]
    rotated = torch.cat((-x2, x1), dim=-1)  # (B, H, T, head_dim)
    return ((x * cos) + (rotated * sin)).to(dtype=x.dtype)
