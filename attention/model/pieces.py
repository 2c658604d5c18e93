"""GPT-2's byte-level tokens as a reader sees them: a token that is only part of a character is
labelled with that character and which part it is ("한 1/2"), never <0xED> or "�"; and tokens
grouped into the characters (or words) they spell, with attention summed over a group's columns.

GPT-2 splits text into UTF-8 bytes before its merges: a Korean syllable (3 bytes) or a Cyrillic
letter (2) the merges never saw often stays 2 or 3 tokens. Here each token's bytes are placed in
the decoded sentence, so every token knows the characters it touches.

    labels(token_bytes)           per token: "·the", "한 1/2", "·한 1/2", "녕 2/2+하 1/3"
    spans(token_bytes)            per token: the characters it touches, and its bytes in hex
    groups(token_bytes, by)       token indices per character group or per word, and their labels
    grouped(weights, members)     (…, T, T) -> (…, G, G): a group's column is the sum of its tokens'
                                  columns; its row is its LAST token's row (see grouped())
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SPACE, NEWLINE, TAB = "·", "⏎", "⇥"


def readable(text: str) -> str:
    """Whitespace as the pages show it: a leading space as "·" ("·the")."""
    return text.replace(" ", SPACE).replace("\n", NEWLINE).replace("\t", TAB)


@dataclass(frozen=True)
class Span:
    """One token in its sentence: the characters it touches (indices into `chars`), the bytes it
    holds of each (start, end within that character's bytes), and all its bytes."""

    chars: tuple[int, ...]
    parts: tuple[tuple[int, int], ...]
    raw: bytes

    @property
    def hex(self) -> str:
        return " ".join(f"{b:02X}" for b in self.raw)


def characters(token_bytes: Sequence[bytes]) -> tuple[list[str], list[int]]:
    """The sentence's characters, and the byte offset where each starts. Bytes that do not decode
    (a sentence cut inside a character) stand for themselves as one character each."""
    data = b"".join(token_bytes)
    chars, starts, at = [], [], 0
    while at < len(data):
        for size in (1, 2, 3, 4):
            try:
                ch = data[at : at + size].decode("utf-8")
            except UnicodeDecodeError:
                continue
            break
        else:
            ch, size = f"\\x{data[at]:02X}", 1  # not UTF-8: the byte itself, written out
        chars.append(ch)
        starts.append(at)
        at += size
    return chars, starts


def spans(token_bytes: Sequence[bytes]) -> tuple[list[str], list[Span]]:
    """The sentence's characters, and each token's Span."""
    chars, starts = characters(token_bytes)
    ends = [*starts[1:], sum(map(len, token_bytes))]
    out, at, c = [], 0, 0
    for raw in token_bytes:
        lo, hi = at, at + len(raw)
        while c < len(chars) and ends[c] <= lo:
            c += 1
        touched, parts, k = [], [], c
        while k < len(chars) and starts[k] < hi:
            touched.append(k)
            parts.append((max(lo, starts[k]) - starts[k], min(hi, ends[k]) - starts[k]))
            k += 1
        out.append(Span(tuple(touched), tuple(parts), raw))
        at = hi
    return chars, out


def labels(token_bytes: Sequence[bytes]) -> tuple[str, ...]:
    """Each token's label: the characters it holds whole, and "ch k/n" for a character it holds
    only part of (its k-th of the n tokens that share that character)."""
    chars, found = spans(token_bytes)
    sharing: dict[int, list[int]] = {}
    for t, span in enumerate(found):
        for c in span.chars:
            sharing.setdefault(c, []).append(t)
    out = []
    for t, span in enumerate(found):
        whole, pieces = "", []
        for c, (lo, hi) in zip(span.chars, span.parts, strict=True):
            if lo == 0 and hi == len(chars[c].encode("utf-8", "surrogatepass")) or len(sharing[c]) == 1:
                whole += chars[c]
            else:
                before = readable(whole)
                before += "+" if before and not before.endswith(SPACE) else ""  # "の+旅 1/3", "·여 1/3"
                pieces.append(f"{before}{chars[c]} {sharing[c].index(t) + 1}/{len(sharing[c])}")
                whole = ""
        out.append("+".join([*pieces, readable(whole)] if whole or not pieces else pieces))
    return tuple(out)


def partial(token_bytes: Sequence[bytes]) -> list[bool]:
    """Per token: does it hold only part of some character?"""
    chars, found = spans(token_bytes)
    return [
        any(hi - lo < len(chars[c].encode("utf-8")) for c, (lo, hi) in zip(s.chars, s.parts, strict=True))
        for s in found
    ]


def groups(token_bytes: Sequence[bytes], by: str = "character") -> tuple[list[list[int]], list[str]]:
    """Token indices grouped by the characters they share ("character": a group is the fewest
    tokens that spell whole characters) or by word ("word": a new word starts at a token that
    begins with whitespace), and each group's text."""
    chars, found = spans(token_bytes)
    # a word: the spaces before it and the characters up to the next space
    word_of, word = [], -1
    for i, ch in enumerate(chars):
        if not ch.isspace() and (i == 0 or chars[i - 1].isspace()) or word < 0:
            word += 1
        word_of.append(word)
    for i in range(len(chars) - 1, 0, -1):  # spaces belong to the word after them
        if chars[i - 1].isspace() and not chars[i].isspace():
            j = i - 1
            while j >= 0 and chars[j].isspace() and word_of[j] != word_of[i]:
                word_of[j] = word_of[i]
                j -= 1
    members: list[list[int]] = []
    last_char, last_word = -1, -1
    for t, span in enumerate(found):
        first = span.chars[0] if span.chars else last_char + 1
        if by == "word":
            new = first > last_char and (not span.chars or word_of[first] != last_word)
        else:
            new = first > last_char
        if new or not members:
            members.append([])
        members[-1].append(t)
        if span.chars:
            last_char, last_word = max(last_char, span.chars[-1]), word_of[span.chars[-1]]
    texts = [readable(b"".join(token_bytes[t] for t in g).decode("utf-8", "replace")) for g in members]
    return members, texts


def grouped(weights: np.ndarray, members: Sequence[Sequence[int]]) -> np.ndarray:
    """(…, T, T) attention weights -> (…, G, G). A query group attends to a key group with the sum
    of the weights its tokens' columns get, so each row still sums to 1. The row is the group's
    last token's: in a causal model only the last piece has read the whole character or word (the
    pieces before it cannot see it), and it is the position that predicts what comes next."""
    last = [g[-1] for g in members]
    summed = np.stack([weights[..., list(g)].sum(-1) for g in members], axis=-1)  # (…, T, G)
    return summed[..., last, :]
