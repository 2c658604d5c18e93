"""Test what a head does: ablate heads, patch heads from another run, and map every head's
importance, all through GPTModel.trace's own hook (run_blocks' `edit`): no second model.

    trace = run_with(model, ids, Ablation(((1, 1), (1, 3))))     # a ModelTrace, as model.trace gives
    result = patch(model, clean, corrupted, ((1, 1),), Metric(answers=(right, wrong)))
    grid = ablation_map(model, ids, Metric(positions=(9, 10, 11)))   # (L, H), a few batched passes
    grid = patching_map(model, clean, corrupted, Metric())           # (L, H)

What is replaced is a head's context (B, T, head_dim), the weighted sum of values it hands to
out_proj ("z" in TransformerLens); the block's output is out_proj of the heads concatenated, as in
MultiHeadAttention.forward, so a zeroed head still leaves out_proj's bias. Modes:

    zero    its context set to 0 (TransformerLens: hook_z set to 0)
    mean    its context replaced by its mean over every position of a reference batch of
            sequences, run clean (the usual choice, e.g. Wang et al. 2022 average over a
            reference data set); the reference is the input itself unless one is given
    patch   its context taken from another run of the same length (the clean run)

The ablated head's own weights do not change (only what it writes does); later layers' weights do:
that is how a previous-token head's ablation shows in an induction head (K-composition).
Nothing is written into the model: an intervention lives in one call, so sessions sharing a cached
model cannot see each other's.

A metric scores a run (Metric): the mean loss −log p(ids[t] | ids[:t]) over chosen token positions
t (targets: the input's ids; for patching, the clean input's), or the logit difference right − wrong
of two answer tokens at the last position. Patching recovery = (patched − corrupted) / (clean −
corrupted): 0 is the corrupted run, 1 the clean one; not clipped, so a head that overshoots shows.

The maps branch one run into 1 + L·H rows: row 0 untouched, and at layer l, H copies of row 0
each with one of l's heads replaced, so the layers below l run once for all (a head cannot change
what comes before it). A pass holds at most `rows` rows (a few layers' heads; memory grows with
them, time hardly: benchmarks/importance.py), so a map is a few batched passes, not L·H runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from attention.errors import ConfigError
from attention.i18n import tr
from attention.model.checks import (  # noqa: F401  (the lab and the command line import them here)
    MODES,
    Head,
    check_heads,
    check_ids,
    check_mode,
    check_same_length,
    clean_heads,
    parse_heads,
)
from attention.model.gpt import Edit, GPTModel, ModelTrace

LOGITS_PER_CHUNK = 2**22  # floats of (rows, positions, vocab) logits at once: 16 MB
ROWS = 37  # most rows in one pass of a map: 1 + 3 layers of GPT-2 small's 12 heads (benchmarks/importance.py)


@dataclass(frozen=True)
class Ablation:
    """Heads to ablate, any layers, all at once. mode "zero" or "mean"; `reference`: the token
    ids of the sequences whose positions the mean runs over (empty: the input itself)."""

    heads: tuple[Head, ...]
    mode: str = "zero"
    reference: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self):
        check_mode(self.mode)
        object.__setattr__(self, "heads", clean_heads(self.heads))
        object.__setattr__(self, "reference", tuple(tuple(int(i) for i in s) for s in self.reference))


@dataclass(frozen=True, eq=False)
class Patch:
    """Heads whose context comes from `source`, another run (the clean one) of the same length."""

    heads: tuple[Head, ...]
    source: ModelTrace

    def __post_init__(self):
        object.__setattr__(self, "heads", clean_heads(self.heads))


@dataclass(frozen=True)
class Metric:
    """What a run scores. `answers` (right, wrong) token ids: the logit difference right − wrong at
    the last position. Otherwise the mean loss over `positions`, the tokens t whose prediction
    −log p(ids[t] | ids[:t]) counts (empty: every t ≥ 1)."""

    positions: tuple[int, ...] = ()
    answers: tuple[int, int] | None = None

    @property
    def name(self) -> str:
        return "logit_diff" if self.answers else "loss"


@dataclass(frozen=True, eq=False)
class HeadMap:
    """Every head alone: values (L, H) is the metric's change when the head is ablated
    (ablation_map), or the recovery when it alone is patched (patching_map)."""

    values: np.ndarray  # (L, H) float64
    base: float  # the metric with no head touched (patching_map: the corrupted run's)
    metric: Metric
    clean: float | None = None  # patching_map: the clean run's metric
    positions: tuple[int, ...] = ()  # the positions the loss counted (all of them when Metric's are empty)
    method: str = "exact"  # or "attribution": a first-order estimate (attribution.py)


@dataclass(frozen=True)
class PatchResult:
    clean: float
    corrupted: float
    patched: float

    @property
    def recovery(self) -> float:
        return recovery(self.patched, self.clean, self.corrupted)


# --- checks ------------------------------------------------------------------------------------


def check_positions(metric: Metric, length: int, vocab: int) -> torch.Tensor:
    """The metric's positions (P,) as a tensor: every t ≥ 1 when it names none."""
    if metric.answers is not None:
        if len(metric.answers) != 2 or any(not 0 <= int(a) < vocab for a in metric.answers):
            raise ConfigError(
                tr(
                    "answers={answers}: give two token ids in 0..{last}.",
                    answers=repr(metric.answers),
                    last=vocab - 1,
                ),
                "answers",
            )
        return torch.tensor([length - 1])
    positions = sorted(set(metric.positions)) or list(range(1, length))
    if not positions or positions[0] < 1 or positions[-1] >= length:
        raise ConfigError(
            tr("Loss positions must lie in 1..{last} (position 0 has nothing before it).", last=length - 1),
            "positions",
        )
    return torch.tensor(positions)


# --- runs --------------------------------------------------------------------------------------


@torch.no_grad()
def head_means(model: GPTModel, reference: Sequence[Sequence[int]] | torch.Tensor) -> torch.Tensor:
    """(L, H, head_dim): each head's context averaged over every position of the reference
    sequences (each run clean, alone, so they may differ in length)."""
    total, count = 0.0, 0
    for sequence in reference:
        trace = model.trace(check_ids(model, torch.as_tensor(sequence)[None]))
        contexts = torch.stack([layer.context[0] for layer in trace.layers])  # (L, H, T, head_dim)
        total, count = total + contexts.sum(2), count + contexts.shape[2]
    return (total / count).to(next(model.parameters()).device)  # (L, H, head_dim)


def _replace_in_place(plan: dict[int, dict[int, torch.Tensor]]) -> Edit:
    def edit(layer, attention):
        heads = plan.get(layer)
        if not heads:
            return None
        context = attention.context.clone()  # (B, H, T, head_dim): the trace keeps this copy
        for head, value in heads.items():
            context[:, head] = value  # (B, T, head_dim) <- (head_dim,) or (B|1, T, head_dim)
        return context, None

    return edit


@torch.no_grad()
def run_with(
    model: GPTModel, ids, *interventions: Ablation | Patch, tokens: tuple[str, ...] = ()
) -> ModelTrace:
    """model.trace(ids) with the interventions applied together (later ones win on a shared head).
    With none, it is model.trace(ids), bit for bit."""
    ids = check_ids(model, ids)
    plan = _plans(model, ids, interventions)
    return model.trace(ids, tokens, edit=_replace_in_place(plan) if plan else None)


def _plans(model, ids, interventions) -> dict[int, dict[int, torch.Tensor]]:
    """layer -> head -> what its context becomes, broadcastable to (B, T, head_dim); where two
    interventions name one head, the later wins."""
    plan: dict[int, dict[int, torch.Tensor]] = {}
    for item in interventions:
        check_heads(model, item.heads)
        if isinstance(item, Patch):
            check_same_length(item.source.ids.shape[1], ids.shape[1])
        means = head_means(model, item.reference or ids) if getattr(item, "mode", "") == "mean" else None
        for layer, head in item.heads:
            if isinstance(item, Patch):
                value = item.source.layers[layer].context[:, head]  # (B or 1, T, head_dim)
            elif means is None:
                value = torch.zeros(model.trf_blocks[0].att.head_dim)  # (head_dim,)
            else:
                value = means[layer, head]  # (head_dim,)
            plan.setdefault(layer, {})[head] = value.to(ids.device)
    return plan


# --- metrics -----------------------------------------------------------------------------------


def recovery(patched: float, clean: float, corrupted: float) -> float:
    """(patched − corrupted) / (clean − corrupted); ConfigError when clean and corrupted agree."""
    if abs(clean - corrupted) < 1e-6:
        raise ConfigError(
            tr(
                "The clean and the corrupted input score the same ({score:.4g}): there is nothing to "
                "recover; pick a corrupted input (or answers) that changes the prediction.",
                score=clean,
            ),
            "corrupted",
        )
    return (patched - corrupted) / (clean - corrupted)


def scores(model: GPTModel, hidden: torch.Tensor, targets: torch.Tensor, metric: Metric) -> torch.Tensor:
    """(N,) the metric of every row of `hidden` (N, T, emb_dim), the residual stream after the
    last block (run_blocks); targets (T,) the ids the loss predicts. Logits are made a few rows
    at a time (all (N, T, vocab) at once would be gigabytes for a map of GPT-2 small)."""
    positions = check_positions(metric, hidden.shape[1], model.cfg["vocab_size"]).to(hidden.device)  # (P,)
    if metric.answers is not None:
        last = model.final_norm(hidden[:, -1])  # (N, emb_dim)
        pair = model.out_head.weight[list(metric.answers)]  # (2, emb_dim); out_head has no bias
        logits = last @ pair.T  # (N, 2)
        return logits[:, 0] - logits[:, 1]
    before = model.final_norm(hidden[:, positions - 1])  # (N, P, emb_dim): predicts ids[positions]
    wanted = targets[positions]  # (P,)
    rows = max(1, LOGITS_PER_CHUNK // (len(positions) * model.cfg["vocab_size"]))
    losses = []
    for chunk in before.split(rows):
        logits = model.out_head(chunk)  # (c, P, vocab)
        picked = logits.gather(-1, wanted.expand(len(chunk), -1)[..., None])[..., 0]  # (c, P)
        losses.append(torch.logsumexp(logits, -1) - picked)  # (c, P)
    return torch.cat(losses).mean(-1)  # (N,)


def token_losses(trace: ModelTrace) -> np.ndarray:
    """(T,) the first sequence's loss on each token, −log p(ids[t] | ids[:t]); NaN at 0."""
    logits, ids = trace.logits[0].double(), trace.ids[0]  # (T, vocab), (T,)
    losses = F.cross_entropy(logits[:-1], ids[1:], reduction="none")  # (T - 1,)
    return np.concatenate([[np.nan], losses.numpy()])


# --- patching and maps -------------------------------------------------------------------------


@torch.no_grad()
def patch(model: GPTModel, clean, corrupted, heads: Sequence[Head], metric: Metric = Metric()) -> PatchResult:
    """The corrupted input run with `heads`' context taken from the clean run: the metric of
    the clean, corrupted and patched runs (PatchResult.recovery: 0 corrupted .. 1 clean)."""
    clean, corrupted = _pair(model, clean, corrupted)
    contexts, clean_hidden = _clean_run(model, clean)
    check_heads(model, clean_heads(heads))
    plan: dict[int, dict[int, torch.Tensor]] = {}
    for layer, head in clean_heads(heads):
        plan.setdefault(layer, {})[head] = contexts[layer, head]  # (T, head_dim)
    patched = model.run_blocks(corrupted, _replace_in_place(plan))  # (1, T, emb_dim)
    hidden = torch.cat([clean_hidden, model.run_blocks(corrupted), patched])  # (3, T, emb_dim)
    return PatchResult(*scores(model, hidden, clean[0], metric).tolist())  # clean, corrupted, patched


@torch.no_grad()
def ablation_map(
    model: GPTModel, ids, metric: Metric = Metric(), mode: str = "zero", reference=(), rows: int = ROWS
) -> HeadMap:
    """Every head ablated alone (mode "zero" or "mean", as Ablation): values (L, H) = the metric
    with it ablated minus the metric of the untouched input. A few batched passes (module doc)."""
    ids = check_ids(model, ids, least=2)[:1]  # (1, T)
    positions = check_positions(metric, ids.shape[1], model.cfg["vocab_size"])
    check_mode(mode)
    head_dim = model.trf_blocks[0].att.head_dim
    if mode == "zero":
        values = torch.zeros(model.layers, model.heads, 1, head_dim, device=ids.device)  # (L, H, 1, hd)
    else:
        values = head_means(model, reference or ids)[:, :, None]  # (L, H, 1, head_dim)
    base, changes = _map(model, ids, values, ids[0], metric, rows)
    return HeadMap(changes, base, metric, positions=tuple(positions.tolist()))


@torch.no_grad()
def patching_map(model: GPTModel, clean, corrupted, metric: Metric = Metric(), rows: int = ROWS) -> HeadMap:
    """Every head patched alone from the clean run into the corrupted one: values (L, H) is its
    recovery (0 corrupted .. 1 clean). One clean run and a few batched passes."""
    clean, corrupted = _pair(model, clean, corrupted)
    positions = check_positions(metric, clean.shape[1], model.cfg["vocab_size"])
    values, clean_hidden = _clean_run(model, clean)  # (L, H, T, head_dim)
    clean_score = scores(model, clean_hidden, clean[0], metric)[0].item()
    corrupted_score, changes = _map(model, corrupted, values, clean[0], metric, rows)
    recovery(corrupted_score, clean_score, corrupted_score)  # ConfigError when they agree
    grid = changes / (clean_score - corrupted_score)  # (L, H)
    return HeadMap(grid, corrupted_score, metric, clean_score, tuple(positions.tolist()))


def _pair(model, clean, corrupted) -> tuple[torch.Tensor, torch.Tensor]:
    clean, corrupted = check_ids(model, clean, least=2)[:1], check_ids(model, corrupted, least=2)[:1]
    check_same_length(clean.shape[1], corrupted.shape[1])
    return clean, corrupted


def _clean_run(model, ids) -> tuple[torch.Tensor, torch.Tensor]:
    """Every head's context (L, H, T, head_dim) and the last residual stream (1, T, emb_dim)."""
    layers = []
    hidden = model.run_blocks(ids, keep=layers.append)  # (1, T, emb_dim)
    return torch.stack([layer.context[0] for layer in layers]), hidden


def _map(model, ids, values, targets, metric, rows) -> tuple[float, np.ndarray]:
    """The metric untouched, and (L, H) its change with each head alone set to values[l, h]. A
    pass branches the heads of a few layers (rows: 1 + their heads); the untouched row 0 of each
    pass is its own reference, so every change is measured within one batch."""
    per_pass = max(1, (rows - 1) // model.heads)
    base, changes = None, []
    for first in range(0, model.layers, per_pass):
        layers = range(first, min(first + per_pass, model.layers))
        row = scores(model, model.run_blocks(ids, _branch(values, layers)), targets, metric)  # (1 + n·H,)
        base = row[0].item() if base is None else base
        changes.append(row[1:] - row[0])
    return base, torch.cat(changes).double().cpu().numpy().reshape(model.layers, model.heads)  # (L, H)


def _branch(values: torch.Tensor, layers: range) -> Edit:
    """The maps' edit: at each of `layers`, row 0 gets H copies, copy h with head h's context set
    to values[layer, h] ((T or 1, head_dim)); the rows before stay (row 1 + i·H + h: head h of
    the i-th layer)."""

    def edit(layer, attention):
        if layer not in layers:
            return None
        context = attention.context  # (N, H, T, head_dim)
        heads = context.shape[1]
        copies = context[:1].repeat(heads, 1, 1, 1)  # (H, H, T, head_dim)
        index = torch.arange(heads, device=context.device)
        copies[index, index] = values[layer].to(copies.dtype)  # copy h: head h replaced, (H, T, head_dim)
        rows = torch.cat([torch.arange(len(context)), torch.zeros(heads, dtype=torch.long)])  # (N + H,)
        return torch.cat([context, copies]), rows.to(context.device)

    return edit
