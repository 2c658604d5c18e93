"""What the lab takes from outside, checked before a model runs: which heads ("1.3, 0.5"), which
mode, which token ids, runs of the same length. Every refusal is a ConfigError in the reader's
language, naming what was wrong."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence

import torch

from attention.errors import ConfigError
from attention.i18n import tr, tr_n
from attention.model.gpt import GPTModel

MODES = ("zero", "mean")
Head = tuple[int, int]  # (layer, head), zero-based: "1.3" is (1, 3)


def parse_heads(text: str) -> tuple[Head, ...]:
    """ "1.1,1.3" -> ((1, 1), (1, 3)); ConfigError for anything else."""
    heads = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        layer, dot, head = part.partition(".")
        if not (dot and layer.isdigit() and head.isdigit()):
            raise ConfigError(
                tr("{part} is not a head; name heads layer.head, e.g. 1.3", part=repr(part[:20])), "heads"
            )
        heads.append((int(layer), int(head)))
    if not heads:
        raise ConfigError(tr("No head given; name heads layer.head, e.g. 1.1,1.3"), "heads")
    return tuple(heads)


def clean_heads(heads) -> tuple[Head, ...]:
    out = []
    for head in heads:
        pair = tuple(head)
        if len(pair) != 2 or any(
            isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0 for v in pair
        ):
            raise ConfigError(
                tr("{head} is not a head; a head is (layer, head), both whole numbers ≥ 0", head=repr(head)),
                "heads",
            )
        out.append((int(pair[0]), int(pair[1])))
    return tuple(sorted(set(out)))


def check_one_of(value, choices: Sequence[str], field: str, say: Callable[[str, str], str]) -> None:
    """ConfigError unless `value` is one of `choices`; say(value as typed, the choices) words it
    (each caller's own message, in the reader's language)."""
    if value not in choices:
        raise ConfigError(say(repr(value), ", ".join(choices)), field)


def check_mode(mode: str) -> None:
    check_one_of(
        mode,
        MODES,
        "mode",
        lambda v, c: tr("mode={mode} is not a way to knock a head out; use one of {modes}", mode=v, modes=c),
    )


def check_ids(model: GPTModel, ids: torch.Tensor, least: int = 1) -> torch.Tensor:
    """ids (B, T) of whole numbers, on the model's device; ConfigError for an empty input, too many
    tokens or an id outside the vocabulary."""
    ids = torch.as_tensor(ids, dtype=torch.long)
    ids = ids[None] if ids.dim() == 1 else ids  # (B, T)
    if ids.dim() != 2 or ids.numel() == 0:
        raise ConfigError(tr("The input is empty; give at least one token."), "text")
    if ids.shape[1] < least:
        raise ConfigError(
            tr_n(
                "The input has {n} token; this needs at least {least}.",
                "The input has {n} tokens; this needs at least {least}.",
                ids.shape[1],
                n=ids.shape[1],
                least=least,
            ),
            "text",
        )
    if ids.shape[1] > model.cfg["context_length"]:
        raise ConfigError(
            tr_n(
                "The input has {n} token; the model reads at most {most}.",
                "The input has {n} tokens; the model reads at most {most}.",
                ids.shape[1],
                n=ids.shape[1],
                most=model.cfg["context_length"],
            ),
            "tokens",
        )
    if ids.min() < 0 or ids.max() >= model.cfg["vocab_size"]:
        raise ConfigError(
            tr("A token id is outside the vocabulary (0..{last}).", last=model.cfg["vocab_size"] - 1), "text"
        )
    return ids.to(next(model.parameters()).device)


def check_heads(model: GPTModel, heads: Sequence[Head]) -> None:
    for layer, head in heads:
        if layer >= model.layers or head >= model.heads:
            raise ConfigError(
                tr(
                    "Head {head} does not exist: the model's layers are 0–{last_layer}, and each has heads "
                    "0–{last_head}.",
                    head=f"{layer}.{head}",
                    last_layer=model.layers - 1,
                    last_head=model.heads - 1,
                ),
                "heads",
            )


def check_same_length(clean: int, corrupted: int) -> None:
    if clean != corrupted:
        raise ConfigError(
            tr(
                "Patching needs a clean and a corrupted input of the same length (tokens: {clean} and "
                "{corrupted}).",
                clean=clean,
                corrupted=corrupted,
            ),
            "corrupted",
        )
