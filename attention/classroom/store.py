"""Store: a class's operations and their rules, the same whichever store keeps the data.

The rules live here, once: codes read back, wrong codes counted, the teacher's secret checked,
every value cleaned (rules.py). A store (sqlite_store.py, redis_store.py) only keeps data, and
does each change in one atomic step so that any number of threads and processes can share it; it
answers with a status word that this class turns into a ClassError.

Codes from a link or a text box go through find() (or join(), or is_teacher()) first: it is the
one place a wrong code is counted against its caller, so guessing codes is slow. Every teacher's
operation takes the secret and refuses a wrong or missing one.
"""

from __future__ import annotations

import abc
import time
from collections import Counter

from attention.classroom import codes, errors, rules
from attention.classroom.records import Round, Row, Tally, View, iso
from attention.classroom.rules import Limits

# One answer as a store lists it: question, round, opened, option, student, at, nickname.
Answer = tuple[str, int, float, str, str, float, str]


class Store(abc.ABC):
    """A class's data. Every method is safe to call from any thread."""

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits.from_settings()

    # Opening, finding and closing a class

    def new_class(self, hours: float | None = None) -> tuple[str, str]:
        """A new class for `hours` (the limits' default when None): (its code, the teacher's secret)."""
        ttl = rules.lifetime(hours, self.limits)
        secret = codes.new_secret()
        while True:  # a code already in use (1 in 35 trillion with a full server) is drawn again
            code = codes.new_code()
            now = time.time()
            status = self._create(codes.canonical(code), codes.hashed(secret), now, now + ttl)
            if status != "taken":
                self._check(status, code)
                return code, secret

    def find(self, code: str, caller: str) -> str:
        """The class a person typed or a link named, as its code is shown (K7QX-M2P9R). A wrong
        code counts against `caller` (a session id, an address): after limits.tries of them in
        limits.window seconds, every code is refused until the window ends."""
        key, now = rules.caller_key(caller), time.time()
        if wait := self._locked(key, now):
            raise errors.too_many_tries(wait)
        found = codes.canonical(code)
        if found is None or self._secret(found, now) is None:
            self._strike(key, now)
            raise errors.unknown(code)
        return codes.shown(found)

    def is_teacher(self, code: str, secret: str | None, caller: str) -> bool:
        """Whether `secret` is the teacher's of the class `code` names (found as find() does)."""
        found = codes.canonical(self.find(code, caller))
        return codes.same_secret(secret, self._secret(found, time.time()) or "")

    def close(self, code: str, secret: str | None) -> None:
        """The class and all its data deleted now (teacher)."""
        self._delete(self._teacher(code, secret))

    # Students

    def join(self, code: str, student: str, nickname: str = "", caller: str | None = None) -> str:
        """`student` (the app's id for a session) in the class, with an optional nickname (cleaned:
        rules.nickname); joining again changes the nickname. Returns the code as shown. The code is
        found as find() does, counted against `caller` (the student when None)."""
        student, nickname = rules.student(student), rules.nickname(nickname)
        code = self.find(code, student if caller is None else caller)
        self._check(self._join(codes.canonical(code), student, nickname, time.time()), code)
        return code

    def leave(self, code: str, student: str) -> None:
        """`student` is no longer counted as joined; answers given stay counted."""
        self._leave(self._code(code), rules.student(student), time.time())

    def answer(self, code: str, student: str, question: str, option: str) -> None:
        """`student`'s answer in the question's current round, replacing their earlier one there.
        Refused once the round is revealed, and from a student who has not joined."""
        args = rules.student(student), rules.question(question), rules.option(option)
        self._check(self._answer(self._code(code), *args, time.time()), code)

    def tally(self, code: str, question: str, secret: str | None = None) -> Tally:
        """The question's rounds: answers per option, how many answered, how many joined. Without
        the teacher's secret, a round's counts stay empty until it is revealed."""
        found, question = self._code(code), rules.question(question)
        tally = self._tally(found, question, time.time())
        if tally is None:
            raise errors.unknown(code)
        if secret is not None:
            self._teacher(code, secret)  # a wrong secret is refused, not taken for a student's None
            return tally
        rounds = tuple(
            r if r.revealed else Round(r.number, r.opened, False, r.answered) for r in tally.rounds
        )
        return Tally(tally.question, tally.joined, rounds)

    def revealed(self, code: str, question: str) -> bool:
        """Whether the question's current round is revealed."""
        current = self.tally(code, question).current
        return bool(current and current.revealed)

    def revealed_among(self, code: str, questions: set[str] | list[str]) -> set[str]:
        """Those of `questions` whose current round is revealed, in one look at the store (a
        student's page polls this every second for the questions it holds)."""
        found, asked = self._code(code), {rules.question(q) for q in questions}
        revealed = self._revealed(found, sorted(asked), time.time()) if asked else set()
        if revealed is None or (not asked and self._secret(found, time.time()) is None):
            raise errors.unknown(code)
        return revealed

    def joined(self, code: str) -> int:
        """How many students are in the class now."""
        return self._summary(code)[0]

    def current_question(self, code: str) -> str | None:
        """The question the teacher asked last (ask or ask_again), None before any."""
        return self._summary(code)[1] or None

    def view(self, code: str) -> View:
        """The view the teacher sent last (version 0, no page, before any)."""
        found = self._view(self._code(code), time.time())
        if found is None:
            raise errors.unknown(code)
        return found

    # The teacher

    def ask(self, code: str, secret: str | None, question: str) -> int:
        """The class's current question is `question` (its first round opens if it has none).
        Returns its round."""
        return self._open(code, secret, question, again=False)

    def ask_again(self, code: str, secret: str | None, question: str) -> int:
        """A new round of `question`, hidden until revealed; earlier rounds are kept. Returns it."""
        return self._open(code, secret, question, again=True)

    def reveal(self, code: str, secret: str | None, question: str) -> None:
        """The question's current round shown to everyone; its answers are final."""
        found, question = self._teacher(code, secret), rules.question(question)
        self._check(self._reveal(found, question, time.time()), code)

    def send_view(self, code: str, secret: str | None, page: str, params: dict[str, str]) -> int:
        """Followers switch to `page` with these URL parameters. Returns the view's new version."""
        found, (page, text) = self._teacher(code, secret), rules.view(page, params)
        version = self._send_view(found, page, text, time.time())
        if version is None:
            raise errors.unknown(code)
        return version

    def export(self, code: str, secret: str | None, nicknames: bool = False) -> list[Row]:
        """Every question's counts per option and round (time: when the round opened), by question,
        round and option; with `nicknames`, then each answer of a student who gave a nickname
        (count 1, time: when they answered)."""
        answers = self._answers(self._teacher(code, secret), time.time())
        counts = Counter((q, r, opened, option) for q, r, opened, option, *_ in answers)
        rows = [Row(q, option, n, r, iso(opened)) for (q, r, opened, option), n in sorted(counts.items())]
        if nicknames:
            named = sorted((q, r, nick, option, at) for q, r, _, option, _, at, nick in answers if nick)
            rows += [Row(q, option, 1, r, iso(at), nick) for q, r, nick, option, at in named]
        return rows

    @abc.abstractmethod
    def purge(self) -> None:
        """Delete every expired class's data now (stores also do it as they go)."""

    # Helpers

    def _code(self, code: str) -> str:
        found = codes.canonical(code)
        if found is None:
            raise errors.unknown(code)
        return found

    def _teacher(self, code: str, secret: str | None) -> str:
        found = self._code(code)
        stored = self._secret(found, time.time())
        if stored is None:
            raise errors.unknown(code)
        if not codes.same_secret(secret, stored):
            raise errors.not_teacher()
        return found

    def _open(self, code: str, secret: str | None, question: str, again: bool) -> int:
        found, question = self._teacher(code, secret), rules.question(question)
        status, number = self._ask(found, question, time.time(), again)
        self._check(status, code)
        return number

    def _summary(self, code: str) -> tuple[int, str]:
        found = self._about(self._code(code), time.time())
        if found is None:
            raise errors.unknown(code)
        return found

    def _check(self, status: str, code: str) -> None:
        """A store's status word as the error it means ("ok": none)."""
        made = {
            "unknown": lambda: errors.unknown(code),
            "full": lambda: errors.full(self.limits.students),
            "classes": lambda: errors.too_many_classes(self.limits.classes),
            "questions": lambda: errors.too_many_questions(self.limits.questions),
            "options": lambda: errors.too_many_options(self.limits.options),
            "rounds": lambda: errors.too_many_rounds(self.limits.rounds),
            "revealed": errors.revealed,
            "not_joined": errors.not_joined,
        }
        if status != "ok":
            raise made[status]()

    # What a store implements: codes are canonical, values clean, the teacher checked.

    @abc.abstractmethod
    def _create(self, code: str, secret_hash: str, now: float, expires: float) -> str:
        """ok, taken (the code is in use) or classes (limits.classes are open)."""

    @abc.abstractmethod
    def _secret(self, code: str, now: float) -> str | None:
        """The teacher's secret's hash; None for no class (or an expired one, whose data goes)."""

    @abc.abstractmethod
    def _join(self, code: str, student: str, nickname: str, now: float) -> str:
        """ok, unknown or full (limits.students joined, `student` not among them)."""

    @abc.abstractmethod
    def _leave(self, code: str, student: str, now: float) -> None: ...

    @abc.abstractmethod
    def _answer(self, code: str, student: str, question: str, option: str, now: float) -> str:
        """ok, unknown, not_joined, revealed, questions (a new question past limits.questions) or
        options (a new option past limits.options in this round). A question's first answer opens
        its round 1."""

    @abc.abstractmethod
    def _ask(self, code: str, question: str, now: float, again: bool) -> tuple[str, int]:
        """(ok, the round) with `question` current; a new round when `again` (rounds past
        limits.rounds: "rounds"); a new question opens round 1 (past limits.questions: "questions")."""

    @abc.abstractmethod
    def _reveal(self, code: str, question: str, now: float) -> str:
        """ok (the current round revealed, round 1 opened if none), unknown or questions."""

    @abc.abstractmethod
    def _tally(self, code: str, question: str, now: float) -> Tally | None:
        """Every round of `question` with all its counts; None for no class."""

    @abc.abstractmethod
    def _revealed(self, code: str, questions: list[str], now: float) -> set[str] | None:
        """Those of `questions` whose current round is revealed; None for no class."""

    @abc.abstractmethod
    def _about(self, code: str, now: float) -> tuple[int, str] | None:
        """(students joined, the current question or ""); None for no class."""

    @abc.abstractmethod
    def _send_view(self, code: str, page: str, params_json: str, now: float) -> int | None: ...

    @abc.abstractmethod
    def _view(self, code: str, now: float) -> View | None: ...

    @abc.abstractmethod
    def _answers(self, code: str, now: float) -> list[Answer]:
        """Every answer of every round (nickname: "" when none)."""

    @abc.abstractmethod
    def _delete(self, code: str) -> None: ...

    @abc.abstractmethod
    def _locked(self, caller: str, now: float) -> float:
        """Seconds until `caller` may try a code again (0: now)."""

    @abc.abstractmethod
    def _strike(self, caller: str, now: float) -> None:
        """One wrong code from `caller`: limits.tries of them lock it until limits.window seconds
        after its first."""
