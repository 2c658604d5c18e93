"""Sentence -> Tokens (texts, ids, vocabulary).

Schemes:
  words        document 001's: punctuation dropped, vocabulary = sorted unique words
  words_punct  words, with each punctuation mark a token of its own
  chars        one token per visible character (grapheme cluster); spaces are tokens too

Text is split into grapheme clusters first (a base character with its combining marks,
variation selectors, emoji modifiers and zero-width-joined parts), so accents, emoji
sequences and Arabic or Devanagari marks stay whole. Han ideographs and kana are one token
each, since those scripts put no spaces between words. Control and format characters
(zero-width space, direction marks) are dropped: they are invisible and would make tokens
that look identical but differ.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cached_property

from attention.errors import ConfigError

SCHEMES = ("words", "words_punct", "chars")
SCHEME_LABELS = {
    "words": "words (punctuation dropped, as in document 001)",
    "words_punct": "words + punctuation",
    "chars": "characters",
}

_ZWJ = "\u200d"
_ZWNJ = "\u200c"


@dataclass(frozen=True)
class Tokens:
    """The tokens of one sentence. `vocab` is sorted; a token's id is its index in `vocab`."""

    texts: tuple[str, ...]
    ids: tuple[int, ...]
    vocab: tuple[str, ...]
    scheme: str

    def __len__(self) -> int:
        return len(self.texts)

    @cached_property
    def vocabulary(self) -> dict[str, int]:
        return {word: i for i, word in enumerate(self.vocab)}


def _is_glue(ch: str) -> bool:
    """Characters that belong to the cluster before them."""
    cat = unicodedata.category(ch)
    return (
        cat in ("Mn", "Mc", "Me")  # combining marks (accents, harakat, vowel signs)
        or "\ufe00" <= ch <= "\ufe0f"  # variation selectors (emoji presentation)
        or "\U0001f3fb" <= ch <= "\U0001f3ff"  # emoji skin-tone modifiers
        or "\U000e0020" <= ch <= "\U000e007f"  # emoji tag sequences (subdivision flags)
    )


def _is_regional_indicator(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def graphemes(text: str) -> list[str]:
    """Split text into user-perceived characters, dropping control and format characters."""
    text = unicodedata.normalize("NFC", text)
    clusters: list[str] = []
    join_next = False
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in (_ZWJ, _ZWNJ):
            # Joiners glue two clusters (emoji ZWJ sequences, Persian ZWNJ) when between two.
            if clusters and not clusters[-1].isspace():
                clusters[-1] += ch
                join_next = True
            continue
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn") and not ch.isspace():
            join_next = False
            continue  # invisible or invalid: zero-width space, direction marks, NUL, ...
        if clusters and (join_next or _is_glue(ch)) and not clusters[-1].isspace():
            clusters[-1] += ch
        elif (
            clusters
            and _is_regional_indicator(ch)
            and len(clusters[-1]) == 1
            and _is_regional_indicator(clusters[-1])
        ):
            clusters[-1] += ch  # two regional indicators make one flag
        else:
            clusters.append(ch)
        join_next = False
    return clusters


def _kind(cluster: str) -> str:
    """'space', 'word', 'solo' (a word of its own: CJK, emoji, symbols) or 'punct'."""
    base = cluster[0]
    if base.isspace():
        return "space"
    cat = unicodedata.category(base)
    if cat[0] in "LN" or base == "_":
        name = unicodedata.name(base, "")
        if name.startswith(("CJK UNIFIED", "CJK COMPATIBILITY", "HIRAGANA", "KATAKANA")):
            return "solo"
        return "word"
    if cat[0] == "P":
        return "punct"
    return "solo"  # symbols: emoji, math, currency


def _split(text: str, scheme: str) -> list[str]:
    clusters = graphemes(text)
    if scheme == "chars":
        out: list[str] = []
        for c in clusters:
            if c.isspace():
                if out and out[-1] == " ":
                    continue  # a run of whitespace is one space token
                c = " "
            out.append(c)
        while out and out[0] == " ":
            out.pop(0)
        while out and out[-1] == " ":
            out.pop()
        return out

    tokens: list[str] = []
    word = ""
    for i, c in enumerate(clusters):
        kind = _kind(c)
        if kind == "word":
            word += c
            continue
        nxt = clusters[i + 1] if i + 1 < len(clusters) else ""
        if kind == "punct" and c in "'’" and word and nxt and _kind(nxt) == "word":
            word += c  # an apostrophe inside a word: don't, l'amour
            continue
        if word:
            tokens.append(word)
            word = ""
        if kind == "solo" or (kind == "punct" and scheme == "words_punct"):
            tokens.append(c)
    if word:
        tokens.append(word)
    return tokens


def tokenize(text: str, scheme: str = "words") -> Tokens:
    """Split `text` with `scheme`; ids index the sorted vocabulary (document 001's recipe)."""
    if scheme not in SCHEMES:
        raise ConfigError(f"tokenizer={scheme!r} is unknown; choose one of {', '.join(SCHEMES)}", "tokenizer")
    if not text or not text.strip():
        raise ConfigError("The text is empty; type a sentence of at least one word.", "text")
    texts = _split(text, scheme)
    if not texts:
        raise ConfigError(
            f"The text {text[:40]!r} has no tokens under the {scheme!r} tokenizer "
            "(only punctuation or invisible characters); add a word.",
            "text",
        )
    vocab = tuple(sorted(set(texts)))
    index = {w: i for i, w in enumerate(vocab)}
    return Tokens(texts=tuple(texts), ids=tuple(index[t] for t in texts), vocab=vocab, scheme=scheme)
