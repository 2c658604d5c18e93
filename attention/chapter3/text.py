"""Sentence -> Tokens (texts, ids, vocabulary).

Schemes:
  words        Raschka's blog post's: punctuation dropped, vocabulary = sorted unique words
  words_punct  words, with each punctuation mark a token of its own
  chars        one token per visible character (grapheme cluster); spaces are tokens too

Text is split into grapheme clusters first (Unicode's extended grapheme clusters: a base
character with its combining marks, emoji sequences, Indic conjuncts), so accents, emoji and
Arabic, Devanagari or Thai marks stay whole. Han ideographs and kana are one token
each, since those scripts put no spaces between words. Control and format characters
(zero-width space, direction marks) are dropped: they are invisible and would make tokens
that look identical but differ.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache

import regex

from attention.errors import ConfigError
from attention.i18n import N_, tr

SCHEMES = ("words", "words_punct", "chars")
# how a picker names each scheme: messages, shown with tr()
SCHEME_LABELS = {
    "words": N_("words (punctuation dropped)"),
    # TRANSLATORS: a tokenizer: words, with each punctuation mark a token of its own
    "words_punct": N_("words + punctuation"),
    # TRANSLATORS: a tokenizer: one token per character
    "chars": N_("characters"),
}


def scheme_label(scheme: str) -> str:
    """How a picker names `scheme` (a key of SCHEME_LABELS), in this rerun's language."""
    return tr(SCHEME_LABELS[scheme])


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


_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn"}  # control, format, surrogate, private, unassigned
_CLUSTER = regex.compile(r"\X")  # an extended grapheme cluster (Unicode's user-perceived character)


def graphemes(text: str) -> list[str]:
    """Split text into user-perceived characters (Unicode's extended grapheme clusters, via the
    `regex` package's \\X), dropping clusters that are control or format characters."""
    clusters = _CLUSTER.findall(unicodedata.normalize("NFC", text))
    return [c for c in clusters if c.isspace() or unicodedata.category(c[0]) not in _INVISIBLE]


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


@lru_cache(maxsize=256)  # asked on every Explorer load of a link: a class opens the same few texts
def unspaced(text: str) -> bool:
    """Whether the text has characters of a script written without spaces between words (Chinese,
    Japanese): the words tokenizer can only split those into single characters."""
    return any(
        _kind(c) == "solo" and unicodedata.name(c[0], "").startswith(("CJK", "HIRA", "KATA"))
        for c in graphemes(text)
    )


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


@lru_cache(maxsize=512)  # pure, and Tokens is immutable: a config and its copies share one result
def tokenize(text: str, scheme: str = "words") -> Tokens:
    """Split `text` with `scheme`; ids index the sorted vocabulary (the blog's recipe)."""
    if scheme not in SCHEMES:
        choices = ", ".join(SCHEMES)
        raise ConfigError(
            tr(
                "tokenizer={scheme} is unknown; choose one of {choices}", scheme=repr(scheme), choices=choices
            ),
            "tokenizer",
        )
    if not text or not text.strip():
        raise ConfigError(tr("The text is empty; type a sentence of at least one word."), "text")
    texts = _split(text, scheme)
    if not texts:
        raise ConfigError(
            tr(
                "The text {text} has no tokens under the {scheme} tokenizer "
                "(only punctuation or invisible characters); add a word.",
                text=repr(text[:40]),
                scheme=repr(scheme),
            ),
            "text",
        )
    vocab = tuple(sorted(set(texts)))
    index = {w: i for i, w in enumerate(vocab)}
    return Tokens(texts=tuple(texts), ids=tuple(index[t] for t in texts), vocab=vocab, scheme=scheme)
