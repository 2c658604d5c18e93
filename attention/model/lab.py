"""The intervention lab's experiments, for a page or a notebook: which heads a classic experiment
knocks out (chosen from the model's measured roles, not from a list of names), one knockout's
before and after, the corrupted twin of a sentence for patching, and what each result says in
plain words, written from its numbers.

    heads = experiment_heads("induction", scores)            # ((1, 0), (1, 1), ...)
    result = knockout(model, info, ids, tokens, heads, "zero")
    print(say_knockout(result))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from attention.errors import ConfigError
from attention.model import roles, sentence
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel
from attention.model.interventions import Ablation, Head, HeadMap, check_heads, run_with, token_losses

# Below this best score no head is said to have a role (no "Open the best … head" button, no experiment):
# a score is the share of a head's attention on the keys its role expects; under 0.3 most goes elsewhere.
CLEAR_ROLE = 0.3
MOST_HEADS = 8  # an experiment knocks out at most this many heads (the clearest)
EXPERIMENTS = {
    "induction": "Knock out the induction heads",
    "previous": "Knock out the previous-token heads",
    "layer0": "Knock out every head of layer 0",
}
SMALL_CHANGE = 0.2  # nats: a change in loss below this is "hardly any"


def head_name(head: Head) -> str:
    return f"{head[0]}.{head[1]}"


def experiment_heads(name: str, scores: dict[str, np.ndarray]) -> tuple[Head, ...]:
    """The heads an experiment knocks out, from role scores (L, H): every head whose induction score
    is clear; the clear previous-token heads in the layers below the best induction head (the ones
    it can read from, K-composition); or all of layer 0. ConfigError when the model has none."""
    layers, heads = scores["induction"].shape
    if name == "layer0":
        return tuple((0, h) for h in range(heads))
    if name not in EXPERIMENTS:
        raise ConfigError(f"{name!r} is not an experiment; use one of {', '.join(EXPERIMENTS)}", "experiment")
    induction = scores["induction"]
    below = int(np.unravel_index(np.nanargmax(induction), induction.shape)[0])  # the best one's layer
    role, grid = name, scores[name]
    if name == "previous":
        grid = np.where(np.arange(layers)[:, None] < max(below, 1), grid, np.nan)
    clear = [(float(grid[h]), h) for h in np.ndindex(grid.shape) if grid[h] >= CLEAR_ROLE]
    if not clear:
        raise ConfigError(
            f"No head of this model has a clear {role} role (a score of {CLEAR_ROLE} or more on the "
            "probe sequences), so there is nothing to knock out for this experiment.",
            "experiment",
        )
    return tuple(sorted((int(h[0]), int(h[1])) for _, h in sorted(clear, reverse=True)[:MOST_HEADS]))


def repeat_period(ids: Sequence[int]) -> int | None:
    """L, the length of the stretch a sentence repeats: the most common distance from a repeated
    token (repeat_positions) back to its earlier copy; None where nothing repeats. On the second
    copy a duplicate-token head looks L back, an induction head L − 1 back."""
    ids, distances = list(ids), Counter()
    for t in repeat_positions(ids):
        earlier = [s for s in range(t) if ids[s] == ids[t] and s > 0 and ids[s - 1] == ids[t - 1]]
        if earlier:
            distances[t - earlier[-1]] += 1
    return distances.most_common(1)[0][0] if distances else None


def repeat_positions(ids: Sequence[int]) -> tuple[int, ...]:
    """The positions t whose token an earlier copy tells: the token before t appeared earlier, and
    then it was followed by ids[t] (what an induction head can predict)."""
    ids = list(ids)
    seen: dict[int, set[int]] = {}  # token -> the tokens that followed it so far
    out = []
    for t in range(1, len(ids)):
        if ids[t] in seen.get(ids[t - 1], ()):
            out.append(t)
        seen.setdefault(ids[t - 1], set()).add(ids[t])
    return tuple(out)


def first_copy(ids: Sequence[int]) -> tuple[int, ...]:
    """The earlier positions the repeats copy from (for each repeat t, the earlier s + 1 after a
    copy s of ids[t - 1] whose next token was ids[t]), and their preceding tokens."""
    ids, repeats = list(ids), set(repeat_positions(ids))
    source = set()
    for t in repeats:
        for s in range(t - 1):
            if ids[s] == ids[t - 1] and ids[s + 1] == ids[t] and s + 1 not in repeats:
                source |= {s, s + 1}
    return tuple(sorted(source - repeats))


def corrupted_twin(info: ModelInfo, ids: Sequence[int], seed: int = 0) -> list[int]:
    """The same sentence with its first copy replaced by other tokens (seeded, from the model's
    probe vocabulary): as long, but nothing left to copy. ConfigError when nothing repeats."""
    positions = first_copy(ids)
    if not positions:
        raise ConfigError(
            "Nothing in this sentence repeats, so there is no first copy to change: type a sentence "
            "with a repeated phrase, or type the corrupted sentence yourself.",
            "corrupted",
        )
    vocab = range(len(info.symbols)) if info.symbols else info.probe_vocab
    generator = torch.Generator().manual_seed(seed)
    out = list(ids)
    for t in positions:
        draw = vocab[int(torch.randint(len(vocab), (1,), generator=generator))]
        out[t] = draw if draw != ids[t] else vocab[(vocab.index(draw) + 1) % len(vocab)]
    return out


@dataclass(frozen=True, eq=False)
class Knockout:
    """One sentence run as it is and with heads knocked out."""

    heads: tuple[Head, ...]
    mode: str
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    loss: dict[str, np.ndarray]  # "before", "after": (T,) per-token loss, NaN at 0
    next: dict[str, list[tuple[int, str, float]]]  # the top 10 next tokens after the last one
    weights: dict[str, np.ndarray]  # (L, H, T, T) float32
    scores: dict[str, dict[str, np.ndarray]]  # role -> (L, H) pattern scores on this sentence
    repeats: tuple[int, ...]  # repeat_positions(ids)


@torch.no_grad()
def knockout(
    model: GPTModel, info: ModelInfo, ids: Sequence[int], tokens: tuple[str, ...], heads, mode: str = "zero"
) -> Knockout:
    """The sentence before and after `heads` are ablated (mode "zero", or "mean": each head's mean
    over every position of this sentence)."""
    ablation = Ablation(tuple(heads), mode)
    check_heads(model, ablation.heads)
    if not ablation.heads:
        raise ConfigError("Pick at least one head to knock out.", "heads")
    if len(ids) < 2:
        raise ConfigError(
            "A knockout needs at least 2 tokens: the loss is on predicting the next one.", "text"
        )
    device = next(model.parameters()).device
    x = torch.tensor([list(ids)], device=device)
    runs = {"before": run_with(model, x), "after": run_with(model, x, ablation)}
    return Knockout(
        heads=ablation.heads,
        mode=mode,
        ids=tuple(ids),
        tokens=tuple(tokens),
        loss={k: token_losses(r) for k, r in runs.items()},
        next={k: sentence.next_tokens(r.logits[0, -1].numpy(), info) for k, r in runs.items()},
        weights={k: r.weights.numpy() for k, r in runs.items()},
        scores={k: roles.scores_of(r.weights.numpy(), ids) for k, r in runs.items()},
        repeats=repeat_positions(ids),
    )


# --- plain words, from the numbers -------------------------------------------------------------


def _names(heads: Sequence[Head]) -> str:
    names = [head_name(h) for h in heads]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def stretches(positions: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted positions as runs of consecutive ones: (10, 30, 31, 32) -> [(10, 10), (30, 32)]."""
    out: list[tuple[int, int]] = []
    for p in positions:
        if out and p == out[-1][1] + 1:
            out[-1] = (out[-1][0], p)
        else:
            out.append((p, p))
    return out


def _span(positions: Sequence[int]) -> str:
    parts = [f"{a}" if a == b else f"{a}–{b}" for a, b in stretches(positions)]
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return ("positions " if len(positions) > 1 else "position ") + joined


def say_knockout(k: Knockout) -> list[str]:
    """What a knockout did, a sentence each: the loss where it counts, the prediction, the patterns."""
    where = k.repeats or tuple(range(1, len(k.ids)))
    before, after = (float(np.nanmean(k.loss[w][list(where)])) for w in ("before", "after"))
    what = "the repeated tokens" if k.repeats else "every token"
    change = after - before
    heads = f"head{'s' if len(k.heads) > 1 else ''} {_names(k.heads)}"
    how = (
        "zeroed"
        if k.mode == "zero"
        else f"replaced by {'their' if len(k.heads) > 1 else 'its'} mean over this sentence"
    )
    words = [
        f"With {heads} {how}, the loss on {what} ({_span(where)}) went from {before:.2f} to {after:.2f} "
        f"nats ({change:+.2f}): "
        + (
            "hardly any change, so these heads do little for this prediction."
            if abs(change) < SMALL_CHANGE
            else f"the right next token's typical probability (e^−loss) is now {np.exp(-after):.2g}, "
            f"against {np.exp(-before):.2g} before."
        )
    ]
    (b_id, b_text, b_p), (a_id, a_text, a_p) = k.next["before"][0], k.next["after"][0]
    words.append(
        f"After the last token the top guess stays “{b_text}” ({b_p:.0%} → {a_p:.0%})."
        if a_id == b_id
        else f"After the last token the top guess changed from “{b_text}” ({b_p:.0%}) "
        f"to “{a_text}” ({a_p:.0%})."
    )
    moved = [
        (abs(k.scores["after"][role][h] - k.scores["before"][role][h]), role, h)
        for role in ("previous", "induction")
        for h in np.ndindex(k.scores["before"][role].shape)
        if h not in k.heads and np.isfinite(k.scores["before"][role][h])
    ]
    if moved and (top := max(moved))[0] >= 0.1:
        _, role, h = top
        b, a = k.scores["before"][role][h], k.scores["after"][role][h]
        words.append(
            f"Head {head_name(h)}'s {role} pattern on this sentence {'fell' if a < b else 'rose'} from "
            f"{b:.2f} to {a:.2f}: it reads what the knocked-out heads wrote (only later layers can change)."
        )
    else:
        words.append(
            "No other head's pattern changed by 0.1 or more (only heads in later layers can change)."
        )
    return words


def say_map(grid: HeadMap, kind: str) -> list[str]:
    """What a map shows: the heads that matter most, and how many hardly do."""
    values = grid.values
    order = sorted(np.ndindex(values.shape), key=lambda h: -abs(values[h]))
    estimate = (
        " (estimated by attribution: check a head with a knockout)" if grid.method == "attribution" else ""
    )
    if kind == "ablation":
        top = [f"{head_name(h)} ({values[h]:+.2f} nats)" for h in order[:3]]
        small = int((np.abs(values) < SMALL_CHANGE).sum())
        return [
            f"Knocked out alone, the heads that change the loss most{estimate}: {', '.join(top)}.",
            f"{small} of {values.size} heads change it by less than {SMALL_CHANGE} nats: "
            "the prediction does not need them on this sentence.",
        ]
    top = [f"{head_name(h)} ({values[h]:.0%})" for h in order[:3]]
    return [
        f"Patched alone from the clean sentence into the corrupted one, the heads that bring back most of "
        f"the clean prediction{estimate}: {', '.join(top)}.",
        (
            f"The loss on those tokens is {grid.clean:.2f} nats on the clean sentence and {grid.base:.2f} on "
            "the corrupted one"
            if grid.metric.name == "loss"
            else f"The logit difference is {grid.clean:.2f} clean and {grid.base:.2f} corrupted"
        )
        + "; 100% means a head alone brings the clean value back, 0% that it changes nothing; heads that "
        "are needed together each bring back only part.",
    ]
