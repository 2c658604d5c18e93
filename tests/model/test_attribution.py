"""Attribution patching (attribution.py): its gradient is the metric's true derivative through
every later layer (central differences, float64); for a tiny change it equals the exact map; on
the shipped model's repeated phrase the patching estimate ranks heads as the exact map does; the
model gets no gradient; bad input is a ConfigError."""

import numpy as np
import pytest
import torch

from attention.errors import ConfigError
from attention.model.attribution import attribution_map, attribution_patching_map, gradients
from attention.model.gpt import GPTModel
from attention.model.interventions import Metric, patching_map
from tests.model.test_interventions import SMALL, bundled, repeated_phrase  # noqa: F401 (bundled: a fixture)


@pytest.fixture(scope="module")
def small64():
    torch.manual_seed(7)
    return GPTModel(SMALL).double().eval().requires_grad_(False)


def ids_of(length=16, seed=0, vocab=97):
    return torch.randint(0, vocab, (1, length), generator=torch.Generator().manual_seed(seed))


def nudged(model, ids, metric, head, direction, eps):
    """The metric with head (layer, index)'s context moved by eps · direction (T, head_dim)."""
    layer, index = head

    def edit(at, attention):
        if at != layer:
            return None
        context = attention.context.clone()
        context[0, index] += eps * direction
        return context, None

    from attention.model.interventions import scores

    with torch.no_grad():
        return scores(model, model.run_blocks(ids, edit), ids[0], metric)[0].item()


@pytest.mark.parametrize("metric", [Metric(), Metric(positions=(5, 9, 15)), Metric(answers=(3, 4))])
@pytest.mark.parametrize("head", [(0, 0), (0, 3), (1, 2), (2, 1)])
def test_the_gradient_is_the_metrics_derivative_through_every_later_layer(small64, metric, head):
    ids = ids_of()
    _, z, grad = gradients(small64, ids, ids[0], metric)
    direction = torch.randn(z.shape[2:], generator=torch.Generator().manual_seed(1), dtype=z.dtype)
    eps = 1e-5
    numeric = (
        nudged(small64, ids, metric, head, direction, eps)
        - nudged(small64, ids, metric, head, direction, -eps)
    ) / (2 * eps)
    analytic = (grad[head] * direction).sum().item()
    assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-8)


def test_the_model_gets_no_gradient_and_grad_mode_is_left_as_it_was():
    """A model whose weights still require gradients (the CLI's, loaded and not frozen): the
    estimate differentiates the heads' contexts only, so no weight gets a .grad."""
    torch.manual_seed(3)
    model = GPTModel(SMALL).double().eval()
    assert all(p.requires_grad for p in model.parameters())
    ids = ids_of()
    attribution_map(model, ids)
    attribution_patching_map(model, ids, ids_of(seed=1))
    assert all(p.grad is None for p in model.parameters())
    assert torch.is_grad_enabled()
    with torch.no_grad():  # the page and the CLI may call it from inside no_grad: it still works
        assert np.isfinite(attribution_map(model, ids).values).all()


def test_a_tiny_patch_is_estimated_as_the_exact_map_measures_it(small64):
    """Clean and corrupted differing in one late token: every head's context changes little, so the
    first-order estimate matches the exact recovery closely."""
    clean = ids_of()
    corrupted = clean.clone()
    corrupted[0, -2] = (corrupted[0, -2] + 1) % 97
    metric = Metric(positions=(15,))
    exact = patching_map(small64, clean, corrupted, metric).values
    estimate = attribution_patching_map(small64, clean, corrupted, metric)
    assert estimate.method == "attribution"
    assert np.abs(estimate.values - exact).max() < 0.15
    assert np.corrcoef(exact.ravel(), estimate.values.ravel())[0, 1] > 0.95


def test_on_the_shipped_model_the_patching_estimate_finds_the_induction_heads(bundled):  # noqa: F811
    ids, copy = repeated_phrase()
    corrupted = list(ids)
    half = copy.stop - copy.start
    corrupted[copy.start - half : copy.start] = [(t + 1) % 50256 for t in ids[copy.start - half : copy.start]]
    metric = Metric(positions=tuple(range(copy.start, copy.stop)))
    exact = patching_map(bundled, ids, corrupted, metric).values
    estimate = attribution_patching_map(bundled, ids, corrupted, metric).values
    assert np.corrcoef(exact.ravel(), estimate.ravel())[0, 1] > 0.8
    assert np.unravel_index(estimate.argmax(), estimate.shape) == np.unravel_index(
        exact.argmax(), exact.shape
    )


def test_bad_input_is_a_config_error(small64):
    with pytest.raises(ConfigError, match="same length"):
        attribution_patching_map(small64, ids_of(10), ids_of(12))
    with pytest.raises(ConfigError, match="nothing to recover"):
        attribution_patching_map(small64, ids_of(10), ids_of(10))
    with pytest.raises(ConfigError, match="not a way to knock a head out"):
        attribution_map(small64, ids_of(10), mode="half")
    with pytest.raises(ConfigError, match="at least 2"):
        attribution_map(small64, ids_of(1))
