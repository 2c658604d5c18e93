"""What a class accepts: its limits, and every value from outside cleaned or refused before a store
sees it. A hostile client must not fill the disk: every string has a length, every set a count.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass

import regex

from attention import settings
from attention.classroom import errors

NICKNAME_CHARS = 30
QUESTION_CHARS = 64
QUESTION = re.compile(r"[A-Za-z0-9_.:/-]{1,64}")  # names the app gives its questions, never a person's
OPTION_CHARS = 120
STUDENT_CHARS = 128  # a session's id, chosen by the app
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

    classes: int = 200
    students: int = 500
    questions: int = 100
    options: int = 16  # different answers to one round of a question
    rounds: int = 10
    tries: int = 10
    window: float = 60.0
    hours: float = 12.0

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


def student(sid: object) -> str:
    if not isinstance(sid, str) or not 0 < len(sid) <= STUDENT_CHARS or visible(sid) != sid:
        raise errors.invalid("student", sid)
    return sid


def view(page: object, params: object) -> tuple[str, str]:
    """A view as stored: its page's name, and its parameters as JSON (every key and value a string)."""
    if not isinstance(page, str) or not page or visible(page) != page:
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
    """Who typed a code (a session id, an address), as a short fixed-size key: a hostile caller
    cannot make the store keep a long string."""
    return hashlib.sha256(str(caller).encode("utf-8", "replace")).hexdigest()[:32]
