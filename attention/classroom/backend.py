"""Backend: what a store (sqlite_store.py, redis_store.py) implements for Store (store.py), which
calls it with codes canonical, values clean and the teacher checked. Each change is one atomic
step; each answers with a status word, or None for a class that is not there.
"""

from __future__ import annotations

import abc

from attention.classroom.records import Tally, View, Vote

# One answer as a store lists it: question, round, position, student, at, nickname ("" for none).
Answer = tuple[str, int, int, str, float, str]
# One round as a store lists it for the export: question, its place among the questions asked
# (0 first), round, opened, the options' texts.
Asked = tuple[str, int, int, float, tuple[str, ...]]
# One class as a store lists it: code (canonical), created, expires, students, questions.
Listed = tuple[str, float, float, int, int]


class Backend(abc.ABC):
    FAILURES: tuple[type[BaseException], ...] = (OSError,)  # what a store raises when it fails

    def _failure(self, error: BaseException) -> str:
        """What kind of failure `error` is, for errors.failure_reason: unreachable, slow, full,
        read_only, or anything else."""
        return "unreachable" if isinstance(error, ConnectionError) else ""

    @abc.abstractmethod
    def _create(
        self, code: str, secret_hash: str, now: float, expires: float, ends: float, starters: dict[str, int]
    ) -> tuple[str, int, float]:
        """(ok, 0, 0); (taken, 0, 0): the code is in use; (classes, 0, 0): limits.classes are open;
        (starts, how many, until when): a starter has started its most in its window. A start is
        counted against every starter (its window: limits.starts_window from its first start)."""

    @abc.abstractmethod
    def _exists(self, code: str, now: float) -> bool:
        """Whether the class is open (an expired one's data goes)."""

    @abc.abstractmethod
    def _credentials(self, code: str, now: float) -> list[str] | None:
        """The hashes of the teacher's secret and of its seats; None for no class."""

    @abc.abstractmethod
    def _seat(self, code: str, seat_hash: str, now: float) -> str:
        """ok (the seat kept, the oldest past limits.seats dropped) or unknown."""

    @abc.abstractmethod
    def _join(self, code: str, student: str, nickname: str | None, now: float) -> str:
        """ok, unknown or full (limits.students rows, `student` not among them). The first join
        extends the class to its end."""

    @abc.abstractmethod
    def _is_student(self, code: str, student: str, now: float) -> bool: ...

    @abc.abstractmethod
    def _picked(self, code: str, student: str, question: str, round: int, now: float) -> int | None:
        """The position `student` answered in that round; None for none (or no class)."""

    @abc.abstractmethod
    def _leave(self, code: str, student: str, now: float) -> None:
        """The student's row deleted, and their answers in rounds not revealed."""

    @abc.abstractmethod
    def _answer(self, code: str, student: str, question: str, round: int, position: int, now: float) -> str:
        """ok, unknown, not_joined, not_asked, stale (`round` is not the current one), revealed or
        position (past the round's options, or past limits.options in a round without texts)."""

    @abc.abstractmethod
    def _ask(
        self,
        code: str,
        question: str,
        options_json: str,
        size: int,
        page: str,
        params_json: str,
        now: float,
        again: bool,
    ) -> tuple[str, int]:
        """(ok, the round) with `question` current, as Store.ask says; a new round past
        limits.rounds: "rounds"; a new question past limits.questions: "questions"."""

    @abc.abstractmethod
    def _reveal(self, code: str, question: str, now: float) -> str:
        """ok (the current round revealed), unknown or not_asked."""

    @abc.abstractmethod
    def _tally(self, code: str, question: str, now: float) -> Tally | None:
        """Every round of `question` with all its counts; None for no class."""

    @abc.abstractmethod
    def _vote(self, code: str, now: float) -> tuple[bool, Vote | None]:
        """(whether the class is open, its vote or None before any ask)."""

    @abc.abstractmethod
    def _revealed(self, code: str, questions: list[str], now: float) -> set[str] | None:
        """Those of `questions` whose current round is revealed; None for no class."""

    @abc.abstractmethod
    def _joined(self, code: str, now: float) -> int | None:
        """Students in the class; None for no class."""

    @abc.abstractmethod
    def _send_view(self, code: str, page: str, params_json: str, now: float) -> int | None: ...

    @abc.abstractmethod
    def _view(self, code: str, now: float) -> View | None: ...

    @abc.abstractmethod
    def _export(self, code: str, now: float) -> tuple[list[Asked], list[Answer]]:
        """Every round of every question, and every answer in them ([], [] for no class)."""

    @abc.abstractmethod
    def _delete(self, code: str) -> None: ...

    @abc.abstractmethod
    def _classes(self, now: float) -> list[Listed]: ...

    @abc.abstractmethod
    def _close_all(self, now: float) -> int: ...

    @abc.abstractmethod
    def _purge(self, now: float) -> None: ...

    @abc.abstractmethod
    def _locked(self, caller: str, now: float) -> float:
        """Seconds until `caller` may try a code again (0: now)."""

    @abc.abstractmethod
    def _strike(self, caller: str, now: float) -> None:
        """One wrong code from `caller`: limits.tries of them lock it until limits.window seconds
        after its first."""
