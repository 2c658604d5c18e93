"""Sliding-window masks (attention/modern/masks.py), every position and window checked by hand."""

import pytest
import torch

from attention.chapter3.modules import attend, causal_mask
from attention.modern import sliding_window_mask


@pytest.mark.parametrize("tokens", [1, 5, 17, 40])
def test_every_cell_is_causal_and_inside_the_window(tokens):
    for window in [*range(1, tokens + 2), None]:
        mask = sliding_window_mask(tokens, window=window)
        for q in range(tokens):
            for k in range(tokens):
                allowed = k <= q and (window is None or q - k < window)
                assert bool(mask[q, k]) is not allowed, (tokens, window, q, k)


@pytest.mark.parametrize("tokens", [1, 6, 33])
def test_a_window_of_the_whole_sentence_is_the_causal_mask(tokens):
    causal = causal_mask(tokens)
    for window in (tokens, tokens + 1, 10 * tokens, None):
        assert torch.equal(sliding_window_mask(tokens, window=window), causal)


def test_a_window_of_one_sees_only_itself():
    assert torch.equal(~sliding_window_mask(6, window=1), torch.eye(6, dtype=torch.bool))


def test_a_cached_step_sees_its_window_of_the_keys_so_far():
    mask = sliding_window_mask(1, 10, window=4, q_start=9)  # token 9 against keys 0..9
    assert (~mask[0]).nonzero().flatten().tolist() == [6, 7, 8, 9]


def test_attention_with_a_window_equals_masking_by_hand():
    torch.manual_seed(2)
    q, k, v = torch.randn(1, 2, 12, 4), torch.randn(1, 2, 12, 4), torch.randn(1, 2, 12, 3)
    steps = attend(q, k, v, divisor=2.0, mask=sliding_window_mask(12, window=3))
    for i in range(12):
        keys = list(range(max(0, i - 2), i + 1))
        weights = torch.softmax(q[..., i : i + 1, :] @ k[..., keys, :].transpose(-2, -1) / 2.0, dim=-1)
        torch.testing.assert_close(steps.context[..., i : i + 1, :], weights @ v[..., keys, :])
        assert torch.all(steps.weights[..., i, [j for j in range(12) if j not in keys]] == 0)


def test_a_window_of_zero_is_refused():
    with pytest.raises(ValueError, match="at least the query itself"):
        sliding_window_mask(4, window=0)
