"""Tokens -> x of shape (T, d_in).

Sources:
  random  a seeded nn.Embedding(vocab_size, d_in) looked up by token id (as in Raschka's blog post)
  book    the book's fixed vectors for its example sentences (assets/presets.json)
  custom  a matrix the user typed, one row per token
"""

from __future__ import annotations

import json
import math
from functools import cache

import torch

from attention.chapter3.text import Tokens
from attention.errors import ConfigError
from attention.i18n import tr
from attention.settings import ASSETS

EMBEDDINGS = ("random", "book", "custom")
PRESETS_FILE = ASSETS / "presets.json"


@cache
def presets() -> tuple[dict, ...]:
    """The example sentences, with their vectors and settings (read once)."""
    return tuple(json.loads(PRESETS_FILE.read_text(encoding="utf-8"))["presets"])


def book_vectors(tokens: Tokens) -> list[list[float]]:
    """The book's fixed vectors for `tokens`, matched by the token texts."""
    for preset in presets():
        if "vectors" in preset and _same_tokens(preset, tokens):
            return preset["vectors"]
    known = " / ".join(repr(p["text"]) for p in presets() if "vectors" in p)
    raise ConfigError(
        tr(
            "The book's fixed vectors exist only for its example sentences ({known}); "
            "the text {text} is not one of them. "
            "Use the random (seeded nn.Embedding) embedding for your own text.",
            known=known,
            text=repr(" ".join(tokens.texts)[:60]),
        ),
        "embedding",
    )


def has_book_vectors(tokens: Tokens) -> bool:
    return any("vectors" in preset and _same_tokens(preset, tokens) for preset in presets())


def _same_tokens(preset: dict, tokens: Tokens) -> bool:
    from attention.chapter3.text import tokenize  # local: text is cheap, keeps the import graph flat

    return tokenize(preset["text"], tokens.scheme).texts == tokens.texts


def parse_matrix(spec: str) -> list[list[float]]:
    """'0.1, 0.2; 0.3, 0.4' (rows split by ';' or newlines) -> [[0.1, 0.2], [0.3, 0.4]]."""
    rows = [r for r in spec.replace("\n", ";").split(";") if r.strip()]
    if not rows:
        raise ConfigError(
            tr("The custom matrix is empty; write one row per token, e.g. '0.1, 0.2; 0.3, 0.4'."), "embedding"
        )
    out: list[list[float]] = []
    for i, row in enumerate(rows, start=1):
        try:
            values = [float(v) for v in row.replace(",", " ").split()]
        except ValueError as e:
            raise ConfigError(
                tr(
                    "Row {i} of the custom matrix is not a list of numbers: {row}",
                    i=i,
                    row=repr(row.strip()[:40]),
                ),
                "embedding",
            ) from e
        if not all(math.isfinite(v) for v in values):
            raise ConfigError(
                tr("Row {i} of the custom matrix has a non-finite value (nan or inf).", i=i), "embedding"
            )
        out.append(values)
    widths = {len(r) for r in out}
    if len(widths) != 1:
        raise ConfigError(
            tr("The custom matrix's rows have different lengths: {lengths}.", lengths=sorted(widths)),
            "embedding",
        )
    return out


def format_matrix(rows: list[list[float]] | tuple[tuple[float, ...], ...]) -> str:
    """Inverse of parse_matrix (shortest exact repr of each float)."""
    return "; ".join(", ".join(repr(float(v)) for v in row) for row in rows)


def random_embedding(tokens: Tokens, d_in: int, seed: int) -> torch.Tensor:
    """nn.Embedding(len(vocab), d_in) initialised as after torch.manual_seed(seed), looked up.

    Drawn from a local generator, not the global RNG, so concurrent sessions cannot disturb
    each other; a CPU torch.Generator seeded s yields the same stream as torch.manual_seed(s).
    """
    generator = torch.Generator().manual_seed(seed)
    weight = torch.empty(len(tokens.vocab), d_in).normal_(generator=generator)  # (V, d_in)
    return weight[torch.tensor(tokens.ids)]  # (T, d_in)


def fixed_vectors(tokens: Tokens, source: str, matrix=None):
    """The rows of a fixed embedding, one per token: the book's vectors for its sentences, or the
    user's matrix."""
    if source not in ("book", "custom") or (source == "custom" and matrix is None):
        raise ConfigError(
            tr("embedding={source} has no fixed vectors; choose book or custom.", source=repr(source)),
            "embedding",
        )
    rows = book_vectors(tokens) if source == "book" else matrix
    if len(rows) != len(tokens):
        raise ConfigError(_row_count_message(source, len(rows), len(tokens)), "embedding")
    return rows


def _row_count_message(source: str, rows: int, tokens: int) -> str:
    if source == "book":
        return tr(
            "The book embedding needs one row per token (rows: {rows}, tokens in the text: {tokens}).",
            rows=rows,
            tokens=tokens,
        )
    return tr(
        "The custom embedding needs one row per token (rows: {rows}, tokens in the text: {tokens}).",
        rows=rows,
        tokens=tokens,
    )


def embed(tokens: Tokens, source: str, d_in: int, seed: int, matrix=None) -> torch.Tensor:
    """x of shape (T, d_in) for `tokens` from `source` (see module docstring)."""
    if source == "random":
        return random_embedding(tokens, d_in, seed)
    if source not in EMBEDDINGS:
        raise ConfigError(
            tr("embedding={source} is unknown; choose random, book or custom.", source=repr(source)),
            "embedding",
        )
    x = torch.tensor(fixed_vectors(tokens, source, matrix), dtype=torch.float32)  # (T, d_in)
    if x.shape[1] != d_in:
        if source == "book":
            message = tr(
                "d_in={d_in} does not match the book embedding's width {width}.", d_in=d_in, width=x.shape[1]
            )
        else:
            message = tr(
                "d_in={d_in} does not match the custom embedding's width {width}.",
                d_in=d_in,
                width=x.shape[1],
            )
        raise ConfigError(message, "d_in")
    return x
