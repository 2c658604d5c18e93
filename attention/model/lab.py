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
from attention.i18n import N_, tr, tr_n
from attention.model import roles, sentence
from attention.model.catalog import ModelInfo
from attention.model.checks import check_one_of
from attention.model.gpt import GPTModel
from attention.model.interventions import Ablation, Head, HeadMap, check_heads, run_with, token_losses

# Below this best score no head is said to have a role (no "Open the best … head" button, no experiment):
# a score is the share of a head's attention on the keys its role expects; under 0.3 most goes elsewhere.
CLEAR_ROLE = 0.3
MOST_HEADS = 8  # an experiment knocks out at most this many heads (the clearest)
EXPERIMENTS = {  # name -> its button, in English (N_: experiment_label translates it)
    "induction": N_("Knock out the induction heads"),
    "previous": N_("Knock out the previous-token heads"),
    "layer0": N_("Knock out every head of layer 0"),
}
SMALL_CHANGE = 0.2  # nats: a change in loss below this is "hardly any"


def experiment_label(name: str) -> str:
    """An experiment's button, in this rerun's language."""
    return tr(EXPERIMENTS[name])


def head_name(head: Head) -> str:
    return f"{head[0]}.{head[1]}"


def experiment_heads(name: str, scores: dict[str, np.ndarray]) -> tuple[Head, ...]:
    """The heads an experiment knocks out, from role scores (L, H): every head whose induction score
    is clear; the clear previous-token heads in the layers below the best induction head (the ones
    it can read from, K-composition); or all of layer 0. ConfigError when the model has none."""
    layers, heads = scores["induction"].shape
    if name == "layer0":
        return tuple((0, h) for h in range(heads))
    check_one_of(
        name,
        EXPERIMENTS,
        "experiment",
        lambda v, c: tr("{name} is not an experiment; use one of {names}", name=v, names=c),
    )
    induction = scores["induction"]
    below = int(np.unravel_index(np.nanargmax(induction), induction.shape)[0])  # the best one's layer
    role, grid = name, scores[name]
    if name == "previous":
        grid = np.where(np.arange(layers)[:, None] < max(below, 1), grid, np.nan)
    clear = [(float(grid[h]), h) for h in np.ndindex(grid.shape) if grid[h] >= CLEAR_ROLE]
    if not clear:
        raise ConfigError(
            # TRANSLATORS: {role} is a head's role as the page names it (previous-token, induction, duplicate)
            tr(
                "No head of this model has a clear {role} role (a score of {least} or more on the probe "
                "sequences), so there is nothing to knock out for this experiment.",
                role=roles.role_name(role),
                least=CLEAR_ROLE,
            ),
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
            tr(
                "Nothing in this sentence repeats, so there is no first copy to change: type a sentence "
                "with a repeated phrase, or type the corrupted sentence yourself."
            ),
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
        raise ConfigError(tr("Pick at least one head to knock out."), "heads")
    if len(ids) < 2:
        raise ConfigError(
            tr_n(
                "A knockout needs at least {least} token: the loss is on predicting the next one.",
                "A knockout needs at least {least} tokens: the loss is on predicting the next one.",
                2,
                least=2,
            ),
            "text",
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


def listed(items: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c", in this rerun's language."""
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    # TRANSLATORS: the end of a list: {items} is "1.0, 1.1" (joined with ", "), {last} is "1.2"
    return tr("{items} and {last}", items=", ".join(items[:-1]), last=items[-1])


def _names(heads: Sequence[Head]) -> str:
    return listed([head_name(h) for h in heads])


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
    joined = listed([f"{a}" if a == b else f"{a}–{b}" for a, b in stretches(positions)])
    # TRANSLATORS: {positions} is a list of token positions, e.g. "3" or "10–20 and 31"
    return tr_n("position {positions}", "positions {positions}", len(positions), positions=joined)


def say_knockout(k: Knockout) -> list[str]:
    """What a knockout did, a sentence each: the loss where it counts, the prediction, the patterns."""
    where = k.repeats or tuple(range(1, len(k.ids)))
    before, after = (float(np.nanmean(k.loss[w][list(where)])) for w in ("before", "after"))
    change = after - before
    values = {
        "heads": _names(k.heads),
        # TRANSLATORS: what the loss is measured on, in "the loss on {what} (positions 10–20)"
        "what": tr("the repeated tokens") if k.repeats else tr("every token"),
        "where": _span(where),
        "before": before,
        "after": after,
        "change": change,
        "verdict": (
            tr("hardly any change, so these heads do little for this prediction.")
            if abs(change) < SMALL_CHANGE
            else tr(
                "the right next token's typical probability (e^−loss) is now {now:.2g}, against "
                "{then:.2g} before.",
                now=np.exp(-after),
                then=np.exp(-before),
            )
        ),
    }
    if k.mode == "zero":
        # TRANSLATORS: {what}: what the loss is measured on (a noun phrase); {where}: positions (e.g. 10–20);
        # {verdict}: a sentence saying whether it mattered
        first = tr_n(
            "With head {heads} zeroed, the loss on {what} ({where}) went from {before:.2f} to {after:.2f} "
            "nats ({change:+.2f}): {verdict}",
            "With heads {heads} zeroed, the loss on {what} ({where}) went from {before:.2f} to "
            "{after:.2f} nats ({change:+.2f}): {verdict}",
            len(k.heads),
            **values,
        )
    else:
        # TRANSLATORS: {what}: what the loss is measured on (a noun phrase); {where}: positions (e.g. 10–20);
        # {verdict}: a sentence saying whether it mattered
        first = tr_n(
            "With head {heads} replaced by its mean over this sentence, the loss on {what} ({where}) went "
            "from {before:.2f} to {after:.2f} nats ({change:+.2f}): {verdict}",
            "With heads {heads} replaced by their mean over this sentence, the loss on {what} ({where}) "
            "went from {before:.2f} to {after:.2f} nats ({change:+.2f}): {verdict}",
            len(k.heads),
            **values,
        )
    words = [first]
    (b_id, b_text, b_p), (a_id, a_text, a_p) = k.next["before"][0], k.next["after"][0]
    words.append(
        tr(
            "After the last token the top guess stays “{token}” ({before:.0%} → {after:.0%}).",
            token=b_text,
            before=b_p,
            after=a_p,
        )
        if a_id == b_id
        else tr(
            "After the last token the top guess changed from “{token}” ({before:.0%}) to “{new}” "
            "({after:.0%}).",
            token=b_text,
            before=b_p,
            new=a_text,
            after=a_p,
        )
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
        pattern = {"head": head_name(h), "role": roles.role_name(role), "before": b, "after": a}
        words.append(
            # TRANSLATORS: {role} is a head's role as the page names it (previous-token, induction, duplicate)
            tr(
                "Head {head}'s {role} pattern on this sentence fell from {before:.2f} to {after:.2f}: it "
                "reads what the knocked-out heads wrote (only later layers can change).",
                **pattern,
            )
            if a < b
            # TRANSLATORS: {role} is a head's role as the page names it (previous-token, induction, duplicate)
            else tr(
                "Head {head}'s {role} pattern on this sentence rose from {before:.2f} to {after:.2f}: it "
                "reads what the knocked-out heads wrote (only later layers can change).",
                **pattern,
            )
        )
    else:
        words.append(
            tr("No other head's pattern changed by 0.1 or more (only heads in later layers can change).")
        )
    return words


def say_map(grid: HeadMap, kind: str) -> list[str]:
    """What a map shows: the heads that matter most, and how many hardly do."""
    values = grid.values
    order = sorted(np.ndindex(values.shape), key=lambda h: -abs(values[h]))
    estimated = grid.method == "attribution"
    if kind == "ablation":
        # TRANSLATORS: one head and how much knocking it out changes the loss: "1.3 (+0.52 nats)"
        top = ", ".join(
            tr("{head} ({change:+.2f} nats)", head=head_name(h), change=values[h]) for h in order[:3]
        )
        small = int((np.abs(values) < SMALL_CHANGE).sum())
        return [
            tr(
                "Knocked out alone, the heads that change the loss most (estimated by attribution: check a "
                "head with a knockout): {heads}.",
                heads=top,
            )
            if estimated
            else tr("Knocked out alone, the heads that change the loss most: {heads}.", heads=top),
            tr_n(
                "{small} of {total} head changes it by less than {least} nats: the prediction does not need "
                "it on this sentence.",
                "{small} of {total} heads change it by less than {least} nats: the prediction does not need "
                "them on this sentence.",
                values.size,
                small=small,
                total=values.size,
                least=SMALL_CHANGE,
            ),
        ]
    top = ", ".join(f"{head_name(h)} ({values[h]:.0%})" for h in order[:3])
    return [
        tr(
            "Patched alone from the clean sentence into the corrupted one, the heads that bring back most "
            "of the clean prediction (estimated by attribution: check a head with a knockout): {heads}.",
            heads=top,
        )
        if estimated
        else tr(
            "Patched alone from the clean sentence into the corrupted one, the heads that bring back most "
            "of the clean prediction: {heads}.",
            heads=top,
        ),
        tr(
            "The loss on those tokens is {clean:.2f} nats on the clean sentence and {base:.2f} on the "
            "corrupted one; 100% means a head alone brings the clean value back, 0% that it changes "
            "nothing; heads that are needed together each bring back only part.",
            clean=grid.clean,
            base=grid.base,
        )
        if grid.metric.name == "loss"
        else tr(
            "The logit difference is {clean:.2f} clean and {base:.2f} corrupted; 100% means a head alone "
            "brings the clean value back, 0% that it changes nothing; heads that are needed together "
            "each bring back only part.",
            clean=grid.clean,
            base=grid.base,
        ),
    ]
