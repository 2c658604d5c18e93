"""What a store answers: a question's tally by round, the class's vote, the teacher's view, export
rows and the rows as CSV, and what the administrator sees of a class."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass(frozen=True)
class Round:
    """One round of a question: one set of options, opened when the teacher asks (and again at
    each Ask again). `counts` is empty while the round is hidden from whoever asked for it."""

    number: int  # 1, 2, ...
    opened: float  # when it started, seconds since the epoch
    revealed: bool
    answered: int  # students who answered in this round
    counts: dict[int, int] = field(default_factory=dict)  # an option's position -> answers
    options: tuple[str, ...] = ()  # the teacher's option texts (): positions without texts
    page: str = ""  # the view it was asked on: its page ("" with no params: asked without one)
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Vote:
    """The class's vote now: the question the teacher asked last and its current round, with the
    options as the teacher's page showed them and the view (page, URL parameters) it was asked on."""

    question: str
    round: int
    options: tuple[str, ...]
    page: str
    params: dict[str, str]
    revealed: bool
    opened: float  # seconds since the epoch


@dataclass(frozen=True)
class Tally:
    question: str
    joined: int  # students in the class now
    rounds: tuple[Round, ...] = ()  # oldest first; () before anyone asked or answered

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None


@dataclass(frozen=True)
class View:
    """What the teacher sent: followers switch when `version` grows (0: nothing sent yet)."""

    version: int
    page: str = ""
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    """One export row: a count of one option in one round (0 when nobody picked it), or (nickname
    set) one student's answer. The fields in the CSV's order."""

    question: str
    round: int
    position: int  # the option's place in the round's options, 0 first
    option: str  # the teacher's text of it ("" in a round asked without texts)
    count: int
    time: str  # ISO 8601, UTC: when the round opened, or when the student answered
    nickname: str = ""


@dataclass(frozen=True)
class ClassInfo:
    """A class as the server's administrator lists it: never its secret, never who joined."""

    code: str  # as shown, K7QX-M2P9R
    created: str  # ISO 8601, UTC
    expires: str  # ISO 8601, UTC: sooner than its end while nobody has joined
    students: int
    questions: int


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula


def inert(cell: object) -> object:
    """A text cell a spreadsheet shows as text (OWASP's advice on CSV injection: a leading ')."""
    return "'" + cell if isinstance(cell, str) and cell.startswith(FORMULA) else cell


def to_csv(rows: list[Row], nicknames: bool = False) -> str:
    """Rows as CSV: question, round, position, option, count, time (and nickname when asked for)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["question", "round", "position", "option", "count", "time"]
    writer.writerow(header + (["nickname"] if nicknames else []))
    for row in rows:
        cells = [row.question, row.round, row.position, row.option, row.count, row.time]
        writer.writerow([inert(c) for c in cells + ([row.nickname] if nicknames else [])])
    return out.getvalue()
