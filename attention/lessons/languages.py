"""What does my language cost? The same sentence in each language, counted the ways the app
tokenises it: characters, words, GPT-2's tokens (and how many of them are only part of a
character), the Explorer's words and characters tokenizers, and the T × T attention cells each
costs a head. No Streamlit."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from attention.chapter3.text import graphemes, tokenize
from attention.model import pieces
from attention.model.tokenizer import encode, gpt2


@dataclass(frozen=True)
class Cost:
    """One sentence, counted."""

    text: str
    characters: int  # what a reader counts as letters (grapheme clusters), spaces included
    words: int  # split at spaces: Japanese writes none, so its sentence is one "word"
    tokens: int  # GPT-2's byte-level BPE
    pieces: int  # of those, tokens that are only part of a character
    explorer_words: int  # the Explorer's "words" tokenizer
    explorer_chars: int  # the Explorer's "chars" tokenizer
    labels: tuple[str, ...]  # GPT-2's tokens as Inside a model labels them ("한 1/2")

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / max(self.words, 1)

    @property
    def cells(self) -> int:
        """Attention weights one head computes for it: T × T (half of them masked when causal)."""
        return self.tokens * self.tokens

    @property
    def has_spaces(self) -> bool:
        return self.words > 1


@functools.lru_cache(maxsize=64)  # six sentences on every rerun of the page, and a reader's own
def cost(text: str) -> Cost:
    ids = encode(text)
    raw = [gpt2().decode_single_token_bytes(i) for i in ids]
    labels = pieces.labels(raw)
    return Cost(
        text=text,
        characters=len(graphemes(text)),
        words=len(text.split()),
        tokens=len(ids),
        pieces=sum(pieces.partial(raw)),
        explorer_words=len(tokenize(text, "words").texts),
        explorer_chars=len(tokenize(text, "chars").texts),
        labels=labels,
    )


def costs(sentences: dict[str, str]) -> dict[str, Cost]:
    """Each sentence counted, by its key (a language code, or "yours")."""
    return {key: cost(text) for key, text in sentences.items()}
