"""Fast, approximate head-importance maps: attribution patching (Nanda 2023; Syed et al. 2023).

The exact maps (interventions.ablation_map, patching_map) run every head's change through the
layers above it: for GPT-2 small about 100 forwards of work however it is batched. Attribution
replaces that by the first-order term of the change: with z a head's context and g = ∂metric/∂z
from one forward and one backward pass,

    metric(z → z') − metric(z) ≈ Σ_t,d g · (z' − z)

so every head's estimate costs one gradient, not one run. z' is 0 (zero ablation), the head's
mean (mean ablation) or, for patching, the clean run's context with g taken on the corrupted run.
The estimate is exact for a change the metric is linear in and drifts where attention or the loss
saturates (a large change, e.g. a knocked-out induction head, is under- or overestimated); use it
to find the heads worth an exact run, and the exact map for the numbers (tests compare the two).
"""

from __future__ import annotations

import torch

from attention.model.gpt import GPTModel
from attention.model.interventions import (
    HeadMap,
    Metric,
    check_ids,
    check_mode,
    check_positions,
    check_same_length,
    head_means,
    recovery,
    scores,
)


def gradients(model: GPTModel, ids: torch.Tensor, targets: torch.Tensor, metric: Metric):
    """The metric of one run of ids (1, T), every head's context z and ∂metric/∂z, both (L, H, T,
    head_dim). The gradient reaches z through every later layer (a zero added to each context is
    what is differentiated, so no path is cut); the model's weights get none."""
    added, contexts = [], []

    def edit(layer, attention):
        zero = torch.zeros_like(attention.context, requires_grad=True)  # (1, H, T, head_dim)
        added.append(zero)
        contexts.append(attention.context.detach()[0])
        return attention.context + zero, None

    with torch.enable_grad():
        score = scores(model, model.run_blocks(ids, edit), targets, metric)[0]
        grads = torch.autograd.grad(score, added)
    return score.item(), torch.stack(contexts), torch.stack([g[0] for g in grads])


def attribution_map(
    model: GPTModel, ids, metric: Metric = Metric(), mode: str = "zero", reference=()
) -> HeadMap:
    """ablation_map's estimate: values (L, H) ≈ the metric's change with each head alone ablated."""
    ids = check_ids(model, ids, least=2)[:1]  # (1, T)
    positions = check_positions(metric, ids.shape[1], model.cfg["vocab_size"])
    check_mode(mode)
    base, z, grad = gradients(model, ids, ids[0], metric)  # (L, H, T, head_dim) twice
    target = torch.zeros_like(z) if mode == "zero" else head_means(model, reference or ids)[:, :, None]
    change = (grad * (target - z)).sum((2, 3))  # (L, H)
    return HeadMap(
        change.double().cpu().numpy(), base, metric, positions=tuple(positions.tolist()), method="attribution"
    )


def attribution_patching_map(model: GPTModel, clean, corrupted, metric: Metric = Metric()) -> HeadMap:
    """patching_map's estimate: values (L, H) ≈ each head's recovery (0 corrupted .. 1 clean),
    from the corrupted run's gradient and the clean run's contexts: two forwards, one backward."""
    clean = check_ids(model, clean, least=2)[:1]
    corrupted = check_ids(model, corrupted, least=2)[:1]
    check_same_length(clean.shape[1], corrupted.shape[1])
    positions = check_positions(metric, clean.shape[1], model.cfg["vocab_size"])
    with torch.no_grad():
        clean_layers = []
        hidden = model.run_blocks(clean, keep=clean_layers.append)
        clean_score = scores(model, hidden, clean[0], metric)[0].item()
    corrupted_score, z, grad = gradients(model, corrupted, clean[0], metric)
    clean_z = torch.stack([layer.context[0] for layer in clean_layers])  # (L, H, T, head_dim)
    recovery(corrupted_score, clean_score, corrupted_score)  # ConfigError when they agree
    change = (grad * (clean_z - z)).sum((2, 3)) / (clean_score - corrupted_score)  # (L, H)
    return HeadMap(
        change.double().cpu().numpy(),
        corrupted_score,
        metric,
        clean_score,
        tuple(positions.tolist()),
        method="attribution",
    )
