"""What a store answers: a question's tally by round, the teacher's view, export rows, and the rows
as CSV."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass(frozen=True)
class Round:
    """One round of a question (a round starts when it is first asked or answered, and again at
    each Ask again). `counts` is empty while the round is hidden from whoever asked for it."""

    number: int  # 1, 2, ...
    opened: float  # when it started, seconds since the epoch
    revealed: bool
    answered: int  # students who answered in this round
    counts: dict[str, int] = field(default_factory=dict)  # option -> answers


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
    """One export row: a count of one option in one round, or (nickname set) one student's answer."""

    question: str
    option: str
    count: int
    round: int
    time: str  # ISO 8601, UTC: when the round opened, or when the student answered
    nickname: str = ""


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula


def inert(cell: object) -> object:
    """A text cell a spreadsheet shows as text (OWASP's advice on CSV injection: a leading ')."""
    return "'" + cell if isinstance(cell, str) and cell.startswith(FORMULA) else cell


def to_csv(rows: list[Row], nicknames: bool = False) -> str:
    """Rows as CSV: question, option, count, round, time (and nickname when asked for)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["question", "option", "count", "round", "time"] + (["nickname"] if nicknames else [])
    writer.writerow(header)
    for row in rows:
        cells = [row.question, row.option, row.count, row.round, row.time]
        writer.writerow([inert(c) for c in cells + ([row.nickname] if nicknames else [])])
    return out.getvalue()
