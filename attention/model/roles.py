"""What each head does, measured from a model's own attention: four roles, each a score in [0, 1]
for every layer x head.

A role is a pattern: for each query, the keys a head in that role looks at. A head's score is the
attention it puts on those keys, averaged over the queries the pattern asks something of (each
row of weights sums to 1, so this is Σ attention × pattern / Σ attention, as TransformerLens's
head detector computes it):

    previous    each token looks at the one before it (queries 1..T-1)
    first       each token looks at position 0, the "attention sink" (queries 1..T-1)
    duplicate   a token looks at earlier copies of itself (queries that have one)
    induction   a token looks at the token that FOLLOWED its earlier copy: "last time I saw
                this, what came next?" (Olsson et al. 2022). Needs two layers: a previous-token
                head writes "what came before me" into each position, and this head's key reads it

The scores come from probes: a start token, a random prefix, L random tokens, the same L tokens
again. They average over several L and prefix lengths, so a head that merely looks a fixed
distance back (L − 1 positions, say) cannot pass as an induction head.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from attention.i18n import N_, tr

# role -> what it measures, in English (N_: translated where shown, by describe())
ROLES = {
    "previous": N_("previous token: weight on position t − 1"),
    "first": N_("first token (attention sink): weight on position 0"),
    "duplicate": N_("duplicate token: weight on earlier copies of the same token"),
    "induction": N_("induction: weight on the token after the earlier copy"),
}
# role -> its short name as a page writes it ("the best induction head"); the keys stay the ids
NAMES = {
    # TRANSLATORS: a head role's short name, as in "the best previous head": the head
    # looks at the token before
    "previous": N_("previous"),
    # TRANSLATORS: a head role's short name, as in "the best first head": the head looks at position 0
    "first": N_("first"),
    # TRANSLATORS: a head role's short name, as in "the best duplicate head": the head
    # looks at earlier copies of its own token
    "duplicate": N_("duplicate"),
    # TRANSLATORS: a head role's short name, as in "the best induction head" (Olsson et al. 2022)
    "induction": N_("induction"),
}


def role_name(role: str) -> str:
    """A role's short name in this rerun's language ("previous" in English, as its id)."""
    return tr(NAMES[role]) if role in NAMES else role


def describe(role: str) -> str:
    """What a role measures, in this rerun's language (ROLES' words)."""
    return tr(ROLES[role]) if role in ROLES else role


LENGTHS = (5, 8, 11, 14)  # span lengths L of the probes
PREFIXES = (0, 3, 7)  # random tokens between the start token and the first copy
# Published roles of GPT-2 small's heads, to set beside what the page measures (layer.head):
# induction heads (Olsson et al. 2022; the IOI paper, Wang et al. 2022) and previous-token heads.
PUBLISHED = {"induction": ("5.5", "6.9", "7.10", "5.1"), "previous": ("2.2", "4.11")}


def role_score(weights, pattern: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """weights (..., T, T), pattern (T, T) of 0/1, rows (T,) bool -> (...) the mean over the rows
    of the weight each row puts on its pattern's keys."""
    w = np.asarray(weights, dtype=np.float64)
    if not rows.any():
        return np.full(w.shape[:-2], np.nan)
    return (w * pattern)[..., rows, :].sum(-1).mean(-1)


Pattern = tuple[np.ndarray, np.ndarray]  # (T, T) keys to look at, (T,) queries asked


def patterns(ids: Sequence[int], second_copy: slice | None = None) -> dict[str, Pattern]:
    """Each role's (pattern (T, T), rows (T,)) for a token sequence. Duplicate and induction ask
    only the queries in `second_copy` (all that have an earlier copy when None)."""
    ids = np.asarray(ids)
    t = len(ids)
    earlier = np.tril(ids[:, None] == ids[None, :], -1)  # [q, k]: k < q holds the same token
    nothing = np.zeros((t, t))
    previous, first = nothing.copy(), nothing.copy()
    previous[np.arange(1, t), np.arange(t - 1)] = 1
    first[1:, 0] = 1
    after = np.zeros((t, t), dtype=bool)  # [q, k + 1] for each earlier copy k of q's token
    after[:, 1:] = earlier[:, :-1]
    rows = np.zeros(t, dtype=bool)
    if second_copy is None:
        rows = earlier.any(1)
    else:
        rows[second_copy] = True
    later = np.arange(t) >= 1
    return {
        "previous": (previous, later),
        "first": (first, later),
        "duplicate": (earlier.astype(float), rows & earlier.any(1)),
        "induction": (after.astype(float), rows & after.any(1)),
    }


def scores_of(weights, ids: Sequence[int], second_copy: slice | None = None) -> dict[str, np.ndarray]:
    """Every role's score for attention `weights` (..., T, T) on one sequence."""
    return {role: role_score(weights, *pattern) for role, pattern in patterns(ids, second_copy).items()}


@dataclass(frozen=True)
class Probe:
    ids: list[int]
    second_copy: slice  # positions of the repeated span


def probes(
    vocab: range, start_token: int, seed: int = 0, draws: int = 2, lengths=LENGTHS, prefixes=PREFIXES
) -> list[Probe]:
    """Start token + `prefix` random tokens + L random tokens + the same L again, for every L and
    prefix, `draws` times; tokens drawn without repeats inside a probe, from `vocab`."""
    generator = torch.Generator().manual_seed(seed)
    out = []
    for length in lengths:
        for prefix in prefixes:
            for _ in range(draws):
                order = torch.randperm(len(vocab), generator=generator)[: prefix + length]
                tokens = [vocab[i] for i in order.tolist()]
                span = tokens[prefix:]
                ids = [start_token, *tokens[:prefix], *span, *span]
                out.append(Probe(ids, slice(1 + prefix + length, len(ids))))
    return out


@torch.no_grad()
def scores_on(model, probe_list: Sequence[Probe]) -> dict[str, np.ndarray]:
    """Each role's (layers, heads) scores for a GPTModel, averaged over the probes. A probe longer
    than the model's context is cut to it (a tiny model's 16 tokens), its second copy with it."""
    totals: dict[str, list[np.ndarray]] = {role: [] for role in ROLES}
    device = next(model.parameters()).device
    most = model.cfg["context_length"]
    for probe in probe_list:
        if len(probe.ids) > most:
            second = probe.second_copy
            second = second and slice(min(second.start, most), min(second.stop, most))
            probe = Probe(probe.ids[:most], second)
        trace = model.trace(torch.tensor([probe.ids], device=device))
        for role, value in scores_of(trace.weights.numpy(), probe.ids, probe.second_copy).items():
            totals[role].append(value)
    with warnings.catch_warnings():  # a role none of the probes asks anything of is NaN, said once
        warnings.simplefilter("ignore", RuntimeWarning)
        return {role: np.nanmean(values, axis=0) for role, values in totals.items()}


def text_roles(
    model, passages: Sequence[Sequence[int]], start_token: int | None, spans: Sequence[int] = (12, 18, 24)
) -> dict[str, np.ndarray]:
    """Role scores on natural text: previous-token and first-token on the passages as they are
    (after the start token, or from their own first token when it is None); duplicate and induction
    on each passage's first `span` tokens twice, for several spans (so a head that looks a fixed
    distance back cannot pass as induction)."""
    head = [] if start_token is None else [start_token]
    plain = [Probe([*head, *p], slice(len(head), len(head) + len(p))) for p in passages]
    twice = [
        Probe([*head, *p[:span], *p[:span]], slice(len(head) + len(p[:span]), len(head) + 2 * len(p[:span])))
        for p in passages
        for span in spans
    ]
    first, second = scores_on(model, plain), scores_on(model, twice)
    return {role: (first if role in ("previous", "first") else second)[role] for role in ROLES}


@torch.no_grad()
def head_roles(
    model, vocab: range | None = None, start_token: int | None = None, seed: int = 0, draws: int = 2
) -> dict[str, np.ndarray]:
    """Each role's (layers, heads) scores for a GPTModel, averaged over the probes. By default
    probe tokens come from the whole vocabulary but its last id, which starts each probe (GPT-2's
    <|endoftext|>)."""
    vocab_size = model.cfg["vocab_size"]
    start_token = vocab_size - 1 if start_token is None else start_token
    vocab = range(vocab_size - 1) if vocab is None else vocab
    return scores_on(model, probes(vocab, start_token, seed, draws))


def ranked(scores: dict[str, np.ndarray], top: int = 5) -> list[dict]:
    """The `top` heads of each role, best first: {role, head "layer.head", layer, index, score}."""
    rows = []
    for role, grid in scores.items():
        order = np.argsort(np.nan_to_num(grid, nan=-np.inf), axis=None)[::-1][:top]  # NaN last
        for flat in order:
            layer, head = np.unravel_index(flat, grid.shape)
            rows.append(
                {
                    "role": role,
                    "head": f"{layer}.{head}",
                    "layer": int(layer),
                    "index": int(head),
                    "score": float(grid[layer, head]),
                }
            )
    return rows
