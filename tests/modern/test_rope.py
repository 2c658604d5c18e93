"""RoPE (attention/modern/rope.py) against the book's own llama3.py, and what it is for: a score
depends on how far apart a query and a key are, not on where they sit."""

import pytest
import torch

from attention.modern import apply_rope, compute_rope_params

llama3 = pytest.importorskip("llms_from_scratch.llama3")

LLAMA31_SCALING = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_context_length": 8192,
}


@pytest.mark.parametrize("head_dim", [2, 8, 64, 128])
@pytest.mark.parametrize("theta_base", [10_000, 500_000])
@pytest.mark.parametrize("freq_config", [None, LLAMA31_SCALING])
def test_the_angles_are_the_books(head_dim, theta_base, freq_config):
    ours = compute_rope_params(head_dim, theta_base, 1024, freq_config)
    book = llama3.compute_rope_params(head_dim, theta_base, 1024, freq_config)
    for a, b in zip(ours, book, strict=True):
        assert a.shape == (1024, head_dim)
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_the_rotation_is_the_books():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 37, 16)  # (B, H, T, head_dim)
    cos, sin = compute_rope_params(16, context_length=64)
    torch.testing.assert_close(apply_rope(x, cos, sin), llama3.apply_rope(x, cos, sin), rtol=0, atol=0)


def test_a_rotation_keeps_lengths_and_position_zero_is_not_turned():
    x = torch.randn(1, 2, 10, 8)
    cos, sin = compute_rope_params(8, context_length=10)
    rotated = apply_rope(x, cos, sin)
    torch.testing.assert_close(rotated.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(rotated[:, :, 0], x[:, :, 0])


@pytest.mark.parametrize("shift", [1, 7, 100, 900])
def test_scores_depend_only_on_the_distance(shift):
    """The whole sentence moved `shift` places on: every score is the same (within float error)."""
    torch.manual_seed(1)
    q, k = torch.randn(1, 2, 24, 32), torch.randn(1, 2, 24, 32)
    cos, sin = compute_rope_params(32, context_length=1024)
    here = apply_rope(q, cos, sin) @ apply_rope(k, cos, sin).transpose(-2, -1)  # (1, 2, 24, 24)
    there = apply_rope(q, cos, sin, offset=shift) @ apply_rope(k, cos, sin, offset=shift).transpose(-2, -1)
    # float32 angles of positions near 1,000 carry ~1e-4 of rounding into scores of size ~30
    torch.testing.assert_close(here, there, rtol=1e-3, atol=1e-3)
    unrotated = q @ k.transpose(-2, -1)
    assert not torch.allclose(here, unrotated, atol=1e-2)  # the rotation did change the scores


def test_an_odd_head_dim_is_refused():
    with pytest.raises(ValueError, match="even head_dim"):
        compute_rope_params(7)
