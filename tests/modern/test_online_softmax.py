"""FlashAttention's online softmax (attention/modern/online_softmax.py) equals plain softmax
attention within 1e-6 in float32, for tiles that do and do not divide T, with and without masks."""

import pytest
import torch

from attention.chapter3.modules import attend, causal_mask
from attention.modern import online_attention, sliding_window_mask


def plain(q, k, v, mask=None):
    return attend(q, k, v, divisor=k.shape[-1] ** 0.5, mask=mask).context


@pytest.mark.parametrize("tokens", [1, 7, 64, 100])
@pytest.mark.parametrize("tile", [1, 3, 8, 16, 64, 128])
@pytest.mark.parametrize("masking", ["none", "causal", "window"])
def test_tile_by_tile_equals_the_whole_matrix(tokens, tile, masking):
    torch.manual_seed(tokens * 1000 + tile)
    q, k, v = torch.randn(2, 3, tokens, 16), torch.randn(2, 3, tokens, 16), torch.randn(2, 3, tokens, 8)
    mask = {"none": None, "causal": causal_mask(tokens), "window": sliding_window_mask(tokens, window=5)}[
        masking
    ]
    context, tiles = online_attention(q, k, v, tile, mask)
    torch.testing.assert_close(context, plain(q, k, v, mask), rtol=0, atol=1e-6)
    assert [t.stop - t.start for t in tiles] == [min(tile, tokens - s) for s in range(0, tokens, tile)]
    assert max(t.scores.shape[-1] for t in tiles) <= tile  # never a (T, T) block


def test_each_tile_holds_the_answer_for_the_keys_seen_so_far():
    torch.manual_seed(4)
    q, k, v = torch.randn(1, 2, 10, 4), torch.randn(1, 2, 10, 4), torch.randn(1, 2, 10, 4)
    _, tiles = online_attention(q, k, v, tile_size=4)
    for tile in tiles:
        torch.testing.assert_close(tile.partial, plain(q, k[..., : tile.stop, :], v[..., : tile.stop, :]))
        expected_max = (q @ k[..., : tile.stop, :].transpose(-2, -1) / 2.0).amax(-1, keepdim=True)
        torch.testing.assert_close(tile.running_max, expected_max)


def test_huge_scores_do_not_overflow():
    q = torch.full((1, 1, 4, 2), 100.0)
    k = torch.full((1, 1, 4, 2), 100.0)
    v = torch.randn(1, 1, 4, 3)
    context, _ = online_attention(q, k, v, 2)
    assert torch.isfinite(context).all()
    torch.testing.assert_close(context, v.mean(dim=-2, keepdim=True).expand_as(context))


def test_kept_tiles_are_slices_of_tensors_made_once():
    """Thousands of small tensors kept between the loop's large temporaries fragmented the heap
    (+300 MiB resident for 256 tiles of one key at the Explorer's caps): each tile's scores, m and
    l are slices of one tensor, and the partial outputs are left out when not asked for."""
    q, k, v = (torch.randn(1, 2, 9, 4, generator=torch.Generator().manual_seed(i)) for i in range(3))
    _, tiles = online_attention(q, k, v, 2, partials=False)
    assert len({t.scores.untyped_storage().data_ptr() for t in tiles}) == 1
    assert len({t.running_max.untyped_storage().data_ptr() for t in tiles}) == 1
    assert all(t.partial is None for t in tiles)
    _, with_partials = online_attention(q, k, v, 2)
    torch.testing.assert_close(with_partials[-1].partial, torch.softmax(q @ k.transpose(-2, -1) / 2, -1) @ v)
