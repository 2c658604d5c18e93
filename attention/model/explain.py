"""Which tokens made the model say this? Four common answers, scored against what removing a token does.

    explanation = explain(model, ids, position=12)      # the prediction of the token after position 12
    explanation.scores["rollout"], explanation.correlations["rollout"]

Every method gives one score per token 0..position, higher = mattered more:

    attention   the last layer's weights, mean over heads, row `position`
    rollout     Abnar & Zuidema (2020): the product over layers of 0.5·A + 0.5·I (A the mean over
                heads, the 0.5·I for the residual stream), rows renormalised; row `position`
    flow        the same paper's attention flow: the max-flow from each input token to `position`
                at the top, through a graph whose capacities are those 0.5·A + 0.5·I matrices
                (networkx; slow as tokens grow, so only up to FLOW_MAX_TOKENS)
    gradient    gradient × input on the token embeddings: Σ over emb dims of ∂logprob/∂tok_emb ·
                tok_emb (signed: a token that argues against the prediction scores below 0)
    ablation    the ground truth: logprob(target) − logprob(target with token j's token embedding
                replaced by the baseline, its position embedding kept). Baselines: "mean", the
                mean token embedding over the vocabulary; "zero", zeros.

The target is the model's own top-1 at `position`. Only tokens 0..position can matter (the mask
is causal), so everything runs on those. Each method's agreement with the ablation is Spearman's ρ
(ties averaged); NaN where it is undefined (one token, or a method that scores all alike).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import torch
from networkx.algorithms.flow import build_residual_network, shortest_augmenting_path

from attention.i18n import N_, tr, tr_n
from attention.model.checks import check_ids, check_one_of
from attention.model.gpt import GPTModel
from attention.model.lens import check_position

METHODS = ("attention", "rollout", "flow", "gradient", "ablation")  # "ablation" = the ground truth
BASELINES = ("mean", "zero")
# flow's time grows ~T³ (benchmarks/explain.py, Shakespeare model: 0.16 s at 32 tokens, 0.5 s at 48,
# 1.5 s at 64); 48 keeps both shipped models' example sentences in
FLOW_MAX_TOKENS = 48
# the ablation's rows go through the model in passes of at most this many tokens: all 129 rows of
# 128 tokens at once took +1.2 GB on a GPT-2-small-sized model (the page's cap; a Community Cloud
# app has 0.7-2.7 GB); a 32-token sentence is still one pass
ABLATION_TOKENS = 2048
# The methods' and baselines' names as a page or summary() shows them (tr(NAMES[m]))
NAMES = {
    "attention": N_("last layer's attention"),
    "rollout": N_("attention rollout"),
    "flow": N_("attention flow"),
    "gradient": N_("gradient × input"),
    "ablation": N_("ablation"),
    "mean": N_("the mean token embedding"),
    "zero": N_("zeros"),
}


@dataclass(frozen=True, eq=False)
class Explanation:
    position: int  # the prediction explained: the next token after `position`
    target: int  # that prediction's token id (the model's top-1 there)
    logprob: float  # its log-probability
    baseline: str  # what an ablated token's embedding became: "mean" or "zero"
    scores: dict[str, np.ndarray | None]  # method -> (position+1,) float64; None: flow over the cap
    correlations: dict[str, float]  # method (not ablation) -> Spearman ρ with the ablation (NaN: undefined)


def explain(
    model: GPTModel, ids: torch.Tensor, position: int | None = None, baseline: str = "mean"
) -> Explanation:
    """Every method's scores for the prediction after `position` (None: the last token)."""
    ids = check_ids(model, ids)[:1]  # (1, T)
    position = check_position(ids.shape[1] - 1 if position is None else position, ids.shape[1])
    check_one_of(
        baseline,
        BASELINES,
        "baseline",
        lambda v, c: tr(
            "baseline={baseline} is not a known baseline; use one of {baselines}", baseline=v, baselines=c
        ),
    )
    ids = ids[:, : position + 1]  # (1, P): later tokens cannot change this prediction
    with torch.no_grad():
        weights = model.trace(ids).weights.float()  # (L, H, P, P)
    target, logprob, gradient = _gradient(model, ids)
    scores = {
        "attention": weights[-1].mean(0)[position].double().numpy(),
        "rollout": rollout(weights)[position].double().numpy(),
        "flow": flow(weights, position) if position + 1 <= FLOW_MAX_TOKENS else None,
        "gradient": gradient,
        "ablation": _ablation(model, ids, target, baseline),
    }
    for values in scores.values():
        if values is not None:
            values.setflags(write=False)  # a page's cache shares them between sessions
    truth = scores["ablation"]
    correlations = {
        m: spearman(scores[m], truth) if scores[m] is not None else float("nan") for m in METHODS[:-1]
    }
    return Explanation(position, target, logprob, baseline, scores, correlations)


def _logprobs(model: GPTModel, tok_embeds: torch.Tensor, target: int) -> torch.Tensor:
    """(N,) log p(target) after the last position, for N rows of token embeddings (N, P, emb_dim)."""
    last = model.final_norm(model.blocks_from(model.start(tok_embeds))[:, -1])  # (N, emb_dim)
    return torch.log_softmax(model.out_head(last), -1)[:, target]  # (N,)


def _gradient(model: GPTModel, ids: torch.Tensor) -> tuple[int, float, np.ndarray]:
    """The top-1 after the last position, its log-probability, and gradient × input (P,)."""
    with torch.enable_grad():
        tok_embeds = model.tok_emb(ids).detach().requires_grad_(True)  # (1, P, emb_dim)
        x = model.blocks_from(model.start(tok_embeds))  # (1, P, emb_dim)
        logits = model.out_head(model.final_norm(x[0, -1]))  # (vocab,)
        target = int(logits.argmax())
        logprob = torch.log_softmax(logits, -1)[target]
        (grad,) = torch.autograd.grad(logprob, tok_embeds)  # the model's weights get none
    scores = (grad * tok_embeds.detach())[0].sum(-1)  # (P,)
    return target, logprob.item(), scores.double().cpu().numpy()


@torch.no_grad()
def _ablation(model: GPTModel, ids: torch.Tensor, target: int, baseline: str) -> np.ndarray:
    """(P,) the fall in log p(target) when token j's embedding alone becomes the baseline: P + 1
    rows (row 0 untouched), batched in passes of at most ABLATION_TOKENS tokens."""
    count = ids.shape[1]
    tok_embeds = model.tok_emb(ids)  # (1, P, emb_dim)
    table = model.tok_emb.weight
    swap = table.mean(0) if baseline == "mean" else torch.zeros_like(table[0])  # (emb_dim,)
    rows = tok_embeds.repeat(count + 1, 1, 1)  # (P + 1, P, emb_dim)
    index = torch.arange(count, device=ids.device)
    rows[index + 1, index] = swap  # row 1 + j: token j replaced
    step = max(1, ABLATION_TOKENS // count)  # rows per pass
    logprobs = torch.cat([_logprobs(model, rows[i : i + step], target) for i in range(0, count + 1, step)])
    return (logprobs[0] - logprobs[1:]).double().cpu().numpy()  # (P,)


def _mixed(weights: torch.Tensor) -> torch.Tensor:
    """(L, H, T, T) -> (L, T, T): each layer's 0.5·mean_h(A) + 0.5·I, rows renormalised."""
    mean = weights.mean(1)  # (L, T, T)
    mixed = 0.5 * mean + 0.5 * torch.eye(mean.shape[-1], dtype=mean.dtype, device=mean.device)
    return mixed / mixed.sum(-1, keepdim=True)  # (L, T, T)


def rollout(weights: torch.Tensor) -> torch.Tensor:
    """Attention rollout (Abnar & Zuidema 2020): (L, H, T, T) -> (T, T), row i = how much each
    token reaches token i at the top; Ã_L-1 · … · Ã_0, later layers on the left."""
    mixed = _mixed(torch.as_tensor(weights).double())  # (L, T, T)
    out = mixed[0]
    for layer in mixed[1:]:
        out = layer @ out  # (T, T)
    return out


def flow(weights: torch.Tensor, position: int) -> np.ndarray:
    """Attention flow (Abnar & Zuidema 2020): (position+1,) the max-flow from each input token to
    `position` after the last layer. Nodes (layer 0..L, token); an edge from (l, j) to (l+1, i)
    of capacity Ã_l[i, j] (0.5·mean_h(A) + 0.5·I, rows renormalised). The paper's code then divides
    the values by their sum; these are the flows themselves (each ≤ 1)."""
    mixed = _mixed(torch.as_tensor(weights).double())[:, : position + 1, : position + 1].numpy()
    layers, count = mixed.shape[0], position + 1
    graph = nx.DiGraph()
    for layer, matrix in enumerate(mixed):
        for i, j in zip(*np.nonzero(matrix), strict=True):
            graph.add_edge((layer, int(j)), (layer + 1, int(i)), capacity=float(matrix[i, j]))
    sink = (layers, position)
    residual = build_residual_network(graph, "capacity")
    values = np.zeros(count)
    for j in range(count):
        if graph.has_node((0, j)):
            flow_value = shortest_augmenting_path(graph, (0, j), sink, residual=residual)
            values[j] = flow_value.graph["flow_value"]
    return values


def spearman(a, b) -> float:
    """Spearman's ρ: the Pearson correlation of the ranks, tied values sharing their mean rank;
    NaN for fewer than two values or when either side is constant."""
    ra, rb = _ranks(np.asarray(a, dtype=float)), _ranks(np.asarray(b, dtype=float))
    if len(ra) != len(rb):
        raise ValueError(f"spearman of {len(ra)} and {len(rb)} values")  # code's own slip: English
    if len(ra) < 2:
        return float("nan")
    ra, rb = ra - ra.mean(), rb - rb.mean()
    spread = np.sqrt((ra**2).sum() * (rb**2).sum())
    return float((ra * rb).sum() / spread) if spread > 0 else float("nan")


def _ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    for value in np.unique(values):  # ties: their mean rank
        tied = values == value
        ranks[tied] = ranks[tied].mean()
    return ranks


# Which explanation?'s questions ask which token's removal hurts most. Two removals closer than this
# (in nats of the prediction's log-probability) are a tie, and a largest fall under FLAT_NATS tells the
# tokens apart no better than noise: neither has one right answer to grade.
TIE_NATS = 0.02
FLAT_NATS = 0.05


def undecided(explanation: Explanation) -> tuple[str, list[int]] | None:
    """Why "which removal hurts most?" has no single answer here: ("tie", the two positions) or
    ("flat", [the largest]); None when it has one."""
    drops = explanation.scores["ablation"]
    order = [int(i) for i in np.argsort(-drops, kind="stable")]
    if drops[order[0]] < FLAT_NATS:
        return "flat", order[:1]
    if len(order) > 1 and drops[order[0]] - drops[order[1]] < TIE_NATS:
        return "tie", order[:2]
    return None


def summary(explanation: Explanation, tokens: Sequence[str], target: str | None = None) -> str:
    """A short paragraph written from the numbers, in the reader's language. `tokens`: the input's
    tokens as shown (at least position + 1); `target`: the predicted token's text, when known."""
    e, truth = explanation, explanation.scores["ablation"]
    after = tokens[e.position]
    said = (
        tr(
            "After «{token}» the model predicts «{target}» (probability {p:.2f}).",
            token=after,
            target=target,
            p=np.exp(e.logprob),
        )
        if target is not None
        else tr(
            "After «{token}» the model predicts its top token with probability {p:.2f}.",
            token=after,
            p=np.exp(e.logprob),
        )
    )
    best = int(np.argmax(truth))
    lines = [
        said,
        tr(
            "The ablation test removes one token at a time by replacing its embedding. Replacing «{token}» "
            "(position {position}) with {baseline} changes the prediction most: its log-probability falls "
            "by {drop:.2f}.",
            token=tokens[best],
            position=best,
            baseline=tr(NAMES[e.baseline]),
            drop=truth[best],
        ),
    ]
    ranked = sorted((rho, m) for m, rho in e.correlations.items() if not np.isnan(rho))
    if not ranked:
        lines.append(tr("With so few tokens, no method can be compared with the ablation."))
        return " ".join(lines)
    (worst_rho, worst), (best_rho, top) = ranked[0], ranked[-1]
    if f"{best_rho:.2f}" == f"{worst_rho:.2f}":  # as printed: no method is closer than another
        lines.append(
            tr(
                "Every method ranks the tokens equally close to the ablation's order (Spearman ρ = "
                "{rho:.2f}, a rank correlation: 1 means the same order).",
                rho=best_rho,
            )
        )
    else:
        lines.append(
            # TRANSLATORS: {method} and {other} are method names (attention, rollout, flow, gradient × input)
            tr(
                "Of the methods, {method} ranks the tokens most like the ablation (Spearman ρ = {rho:.2f}, "
                "a rank correlation: 1 means the same order). {other} ranks them least like it (ρ = "
                "{other_rho:.2f}).",
                method=tr(NAMES[top]),
                rho=best_rho,
                other=tr(NAMES[worst]),
                other_rho=worst_rho,
            )
        )
    named = {m: int(np.argmax(s)) for m, s in e.scores.items() if s is not None and m != "ablation"}
    agree = [tr(NAMES[m]) for m, j in named.items() if j == best]
    lines.append(
        # TRANSLATORS: {methods} is a list of method names (attention, rollout, flow, gradient × input)
        tr("Pointing at the same token as the ablation: {methods}.", methods=", ".join(agree))
        if agree
        else tr("No method puts that token first.")
    )
    if e.scores["flow"] is None:
        lines.append(
            tr_n(
                "Attention flow is left out: it is only computed for up to {n} token.",
                "Attention flow is left out: it is only computed for up to {n} tokens.",
                FLOW_MAX_TOKENS,
                n=FLOW_MAX_TOKENS,
            )
        )
    return " ".join(lines)
