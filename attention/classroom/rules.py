"""What a class accepts: its limits, and every value from outside cleaned or refused before a store
sees it. A hostile client must not fill the disk: every string has a length, every set a count,
and every table or key a bound that no sequence of joins, answers and leaves can pass.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import regex

from attention import settings
from attention.classroom import errors

NICKNAME_CHARS = 30
QUESTION_CHARS = 64
QUESTION = re.compile(r"[A-Za-z0-9_.:/-]{1,64}")  # names the app gives its questions, never a person's
OPTION_CHARS = 120
STUDENT_CHARS = 128  # a browser's student token, chosen by the app
STARTERS = 8  # callers one start is counted against (the UI passes its browser and its address)
PAGE_CHARS = 64
VIEW_CHARS = 20_000  # a page's URL parameters as JSON: the Explorer's text is at most 5,000 characters
VIEW_PARAMS = 40
HOURS = (1 / 3600, 7 * 24)  # a class lasts from a second (tests) to a week
# Invisible characters that change how the text around them reads: controls, lone surrogates
# (not encodable), line and paragraph separators, and the bidirectional overrides and isolates
# (an RTL override turns "evil.exe" into "exe.live" on screen).
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
HIDDEN = {"Cc", "Cs", "Zl", "Zp"}


@dataclass(frozen=True)
class Limits:
    """How much one store and one class hold (settings: ATTENTION_MAX_CLASSES, ATTENTION_MAX_STUDENTS,
    ATTENTION_CLASS_HOURS); tries: wrong codes a caller may type per `window` seconds."""

    # A guard for the disk, far above real use: who may start classes is limited per caller
    # (starters) and by the teacher key, so a visitor cannot fill it.
    classes: int = 5000
    students: int = 500  # rows, not people present: a student who leaves is deleted
    questions: int = 100
    options: int = 16  # a round's options (the positions a round without texts accepts)
    rounds: int = 10
    # Wrong codes are counted per address (the app's caller): a school behind one address needs
    # room for its typos; a guesser still has 30 tries a minute against 2^45 codes.
    tries: int = 30
    window: float = 60.0
    hours: float = 12.0
    seats: int = 16  # teacher's sessions per class (Store.seat); the oldest goes when one more comes
    starts_window: float = 3600.0  # seconds over which a caller's starts are counted
    empty_hours: float = 1.0  # a class nobody has joined yet ends this soon (or at its end, if sooner)
    callers: int = 10_000  # callers whose starts a store remembers; past it, the longest-counted go

    @classmethod
    def from_settings(cls) -> Limits:
        s = settings.current()
        return cls(classes=s.max_classes, students=s.max_students, hours=min(s.class_hours, HOURS[1]))


def visible(text: str) -> str:
    """`text` without the characters HIDDEN and BIDI name."""
    return "".join(c for c in text if c not in BIDI and unicodedata.category(c) not in HIDDEN)


def nickname(text: object) -> str:
    """A nickname as stored: plain text, never interpreted (pages escape it), without invisible
    characters, trimmed, then cut to at most NICKNAME_CHARS code points at a whole character
    (an emoji or an accented letter is never split). Anything not a string is no nickname."""
    if not isinstance(text, str):
        return ""
    clean = visible(text[: 8 * NICKNAME_CHARS]).strip()  # a 10 kB paste costs no more than a line
    kept, size = [], 0
    for cluster in regex.findall(r"\X", clean):
        if size + len(cluster) > NICKNAME_CHARS:
            break
        kept.append(cluster)
        size += len(cluster)
    return "".join(kept).strip()


def question(name: object) -> str:
    if isinstance(name, str) and len(name) > QUESTION_CHARS:
        raise errors.question_too_long(QUESTION_CHARS)
    if not isinstance(name, str) or not QUESTION.fullmatch(name):
        raise errors.invalid("question", name)
    return name


def option(text: object) -> str:
    if not isinstance(text, str):
        raise errors.invalid("option", text)
    clean = visible(text).strip()
    if len(clean) > OPTION_CHARS:
        raise errors.option_too_long(OPTION_CHARS)
    if not clean:
        raise errors.invalid("option", text)
    return clean


def options(texts: object, limit: int) -> tuple[str, ...]:
    """A round's options as stored: each cleaned as option() does, at most `limit` of them."""
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise errors.invalid("options", texts)
    if len(texts) > limit:
        raise errors.too_many_options(limit)
    return tuple(option(text) for text in texts)


def position(value: object) -> int:
    """An answer: the position of the option picked (0 is the first)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise errors.invalid("option", value)
    return value


def round_number(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise errors.invalid("round", value)
    return value


def starters(given: object) -> dict[str, int]:
    """Who starts a class, as {caller_key: the most classes it may start per window}: the UI's
    browser and address (any strings), each limit at least 1."""
    if given is None:
        return {}
    if not isinstance(given, Mapping) or len(given) > STARTERS:
        raise errors.invalid("starters", given)
    for limit in given.values():
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise errors.invalid("starters", given)
    return {caller_key(caller): limit for caller, limit in given.items()}


def student(sid: object) -> str:
    if not isinstance(sid, str) or not 0 < len(sid) <= STUDENT_CHARS or visible(sid) != sid:
        raise errors.invalid("student", sid)
    return sid


def view(page: object, params: object) -> tuple[str, str]:
    """A view as stored: its page's name ("" is the app's first page, the Explorer), and its
    parameters as JSON (every key and value a string)."""
    if not isinstance(page, str) or visible(page) != page:
        raise errors.invalid("page", page)
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in [*params, *params.values()]):
        raise errors.invalid("params", params)
    text = json.dumps(params, ensure_ascii=False, sort_keys=True)
    if len(page) > PAGE_CHARS or len(params) > VIEW_PARAMS or len(text) > VIEW_CHARS:
        raise errors.view_too_long()
    return page, text


def lifetime(hours: object, limits: Limits) -> float:
    """How long a new class lasts, in seconds: `hours`, or the limits' default when None."""
    hours = limits.hours if hours is None else hours
    low, high = HOURS
    if isinstance(hours, bool) or not isinstance(hours, int | float) or not low <= hours <= high:  # NaN too
        raise errors.lifetime(round(low, 4), high, hours)
    return float(hours) * 3600


def caller_key(caller: object) -> str:
    """Who typed a code or started a class (a browser's token, an address), as a short fixed-size
    key: a hostile caller cannot make the store keep a long string."""
    return hashlib.sha256(str(caller).encode("utf-8", "replace")).hexdigest()[:32]
