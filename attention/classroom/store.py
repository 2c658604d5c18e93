"""Store: a class's operations and their rules, the same whichever store keeps the data.

The rules live here, once: codes read back, wrong codes counted, the teacher's credential checked,
starts counted per caller, every value cleaned (rules.py). A store (sqlite_store.py,
redis_store.py) only keeps data, and does each change in one atomic step so that any number of
threads and processes can share it; it answers with a status word that this class turns into a
ClassError. Whatever else a store raises (Redis down or slow, SQLite's disk full or its file
locked) becomes ClassError kind "store" here too, so that a page catches one error and goes on
without its class.

Who is who. A student is a browser's token that the app keeps (a reload or a second tab is the
same student); joining again re-attaches. A teacher is whoever holds the class's secret or one of
its seats: a seat is a token for one teacher's browser, minted with the secret (seat()), so the
secret itself need not travel in links. Codes from a link or a text box go through find() (or
join(), is_student(), is_teacher()) first: it is the one place a wrong code is counted against its
caller, so guessing codes is slow.

Votes. The teacher asks a question with its options (texts, in the teacher's language) on the
view the page showed; that opens a round. Students answer with the position of an option and the
round their page showed, so a pick made just before Ask again is refused, not counted in the new
round. A student who leaves is gone from the counts: their answers in rounds not yet revealed go
with them (revealed rounds are final).
"""

from __future__ import annotations

import hmac
import json
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from attention import settings
from attention.classroom import codes, errors, rules
from attention.classroom.backend import Backend
from attention.classroom.errors import guarded
from attention.classroom.records import ClassInfo, Row, Tally, View, Vote, iso
from attention.classroom.rules import Limits


class Store(Backend):
    """A class's data. Every method is safe to call from any thread."""

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits.from_settings()

    # Opening, finding and closing a class

    @guarded
    def new_class(
        self,
        hours: float | None = None,
        *,
        starters: Mapping[str, int] | None = None,
        key: str | None = None,
    ) -> tuple[str, str]:
        """A new class for `hours` (the limits' default when None): (its code, the teacher's secret).

        key: the server's teacher key (settings.teacher_key), needed when it has one.
        starters: who starts it, caller -> the most classes it may start per limits.starts_window
        (the app passes its browser and its address); each start is counted against each of them.
        Nobody in the class yet: it ends after limits.empty_hours (or at its end, if sooner), and
        lives to its end from the first join on."""
        ttl, callers = rules.lifetime(hours, self.limits), rules.starters(starters)
        wanted = settings.teacher_key()
        if wanted:  # a wrong key counts as a wrong code does, against every starter: no guessing it
            now, keys = time.time(), [rules.caller_key(caller) for caller in callers]
            if wait := max((self._locked(k, now) for k in keys), default=0.0):
                raise errors.too_many_tries(wait)
            if not (isinstance(key, str) and hmac.compare_digest(key.encode(), wanted.encode())):
                for k in keys:
                    self._strike(k, now)
                raise errors.teacher_key()
        secret = codes.new_secret()
        while True:  # a code already in use (1 in 35 trillion with a full server) is drawn again
            code = codes.new_code()
            now = time.time()
            expires = now + min(ttl, self.limits.empty_hours * 3600)
            status, started, until = self._create(
                codes.canonical(code), codes.hashed(secret), now, expires, now + ttl, callers
            )
            if status == "starts":
                raise errors.too_many_starts(started, until - now)
            if status != "taken":
                self._check(status, code)
                return code, secret

    @guarded
    def find(self, code: str, caller: str) -> str:
        """The class a person typed or a link named, as its code is shown (K7QX-M2P9R). A wrong
        code counts against `caller` (a browser's token, an address): after limits.tries of them in
        limits.window seconds, every code is refused until the window ends."""
        key, now = rules.caller_key(caller), time.time()
        if wait := self._locked(key, now):
            raise errors.too_many_tries(wait)
        found = codes.canonical(code)
        if found is None or not self._exists(found, now):
            self._strike(key, now)
            raise errors.unknown(code)
        return codes.shown(found)

    @guarded
    def is_teacher(self, code: str, credential: str | None, caller: str) -> bool:
        """Whether `credential` is the class's secret or one of its seats. A right one is never
        refused, however many wrong codes `caller` typed (a class behind one address must not be
        locked out by one person's typos); otherwise the code is found as find() does."""
        found = codes.canonical(code)
        if found and codes.same_credential(credential, self._credentials(found, time.time()) or []):
            return True
        self.find(code, caller)
        return False

    @guarded
    def seat(self, code: str, credential: str | None) -> str:
        """A new teacher's session: a fresh token that does whatever the secret does, until the
        class ends. A class keeps limits.seats of them; the oldest goes when one more comes."""
        found, token = self._teacher(code, credential), codes.new_secret()
        self._check(self._seat(found, codes.hashed(token), time.time()), code)
        return token

    @guarded
    def close(self, code: str, credential: str | None) -> None:
        """The class and all its data deleted now (teacher)."""
        self._delete(self._teacher(code, credential))

    # Students

    @guarded
    def join(self, code: str, student: str, nickname: str | None = None, caller: str | None = None) -> str:
        """`student` (a browser's token, chosen by the app) in the class: joining again is the same
        student. A nickname (cleaned: rules.nickname) replaces the stored one; None keeps it.
        Returns the code as shown. The code is found as find() does, counted against `caller` (the
        student when None)."""
        student = rules.student(student)
        nickname = None if nickname is None else rules.nickname(nickname)
        code = self.find(code, student if caller is None else caller)
        self._check(self._join(codes.canonical(code), student, nickname, time.time()), code)
        return code

    @guarded
    def is_student(self, code: str, student: str, caller: str) -> bool:
        """Whether `student` is in the class now. A student's token is never refused, however
        many wrong codes `caller` typed (is_teacher); otherwise the code is found as find() does."""
        student, found = rules.student(student), codes.canonical(code)
        if found and self._is_student(found, student, time.time()):
            return True
        self.find(code, caller)
        return False

    @guarded
    def picked(self, code: str, student: str, question: str, round: int) -> int | None:
        """The position `student` picked in that round of `question` (None: no answer there): a
        reload or a second tab shows the student's own recorded answer."""
        student, question = rules.student(student), rules.question(question)
        return self._picked(self._code(code), student, question, int(round), time.time())

    @guarded
    def leave(self, code: str, student: str) -> None:
        """`student` deleted from the class, with their answers in rounds not yet revealed: a student
        who leaves is gone from the counts (revealed rounds are final and keep theirs)."""
        self._leave(self._code(code), rules.student(student), time.time())

    @guarded
    def answer(self, code: str, student: str, question: str, option: int, round: int) -> None:
        """`student` picks the option at position `option` in the question's round `round` (the
        round their page showed), replacing their earlier pick there. Refused before the teacher
        asks (not_asked), once the teacher asked again (stale), once revealed, and from a student
        who has not joined."""
        args = rules.student(student), rules.question(question), rules.round_number(round)
        position = rules.position(option)
        status = self._answer(self._code(code), *args, position, time.time())
        if status == "position":
            raise errors.invalid("option", option)
        self._check(status, code)

    @guarded
    def tally(self, code: str, question: str, credential: str | None = None) -> Tally:
        """The question's rounds: answers per option's position, how many answered, how many
        joined. Without the teacher's credential, a round's counts stay empty until it is
        revealed."""
        found, question = self._code(code), rules.question(question)
        tally = self._tally(found, question, time.time())
        if tally is None:
            raise errors.unknown(code)
        if credential is not None:
            self._teacher(code, credential)  # a wrong one is refused, not taken for a student's None
            return tally
        rounds = tuple(r if r.revealed else replace(r, counts={}) for r in tally.rounds)
        return Tally(tally.question, tally.joined, rounds)

    @guarded
    def vote(self, code: str) -> Vote | None:
        """The class's vote now: the question asked last and its current round; None before any."""
        alive, found = self._vote(self._code(code), time.time())
        if not alive:
            raise errors.unknown(code)
        return found

    @guarded
    def current_question(self, code: str) -> str | None:
        """The question the teacher asked last (ask or ask_again), None before any."""
        found = self.vote(code)
        return found.question if found else None

    @guarded
    def revealed(self, code: str, question: str) -> bool:
        """Whether the question's current round is revealed."""
        current = self.tally(code, question).current
        return bool(current and current.revealed)

    @guarded
    def revealed_among(self, code: str, questions: set[str] | list[str]) -> set[str]:
        """Those of `questions` whose current round is revealed, in one look at the store (a
        student's page polls this for the questions it holds)."""
        found, asked = self._code(code), {rules.question(q) for q in questions}
        now = time.time()
        revealed = self._revealed(found, sorted(asked), now) if asked else set()
        if revealed is None or (not asked and not self._exists(found, now)):
            raise errors.unknown(code)
        return revealed

    @guarded
    def joined(self, code: str) -> int:
        """How many students are in the class now."""
        found = self._joined(self._code(code), time.time())
        if found is None:
            raise errors.unknown(code)
        return found

    @guarded
    def view(self, code: str) -> View:
        """The view the teacher sent last (version 0, no page, before any)."""
        found = self._view(self._code(code), time.time())
        if found is None:
            raise errors.unknown(code)
        return found

    # The teacher (credential: the class's secret or one of its seats)

    @guarded
    def ask(
        self,
        code: str,
        credential: str | None,
        question: str,
        options: Sequence[str] = (),
        page: str = "",
        params: dict[str, str] | None = None,
    ) -> int:
        """The class's vote is `question` with these options (the teacher's texts), asked on the
        view `page` with `params` ("" and None: none). Returns its round. Asking the current
        question again while its round is open changes nothing; so does asking a question whose
        current round has these options and this view (it becomes the class's vote again). Any
        other ask opens a new round (round 1 for a new question)."""
        return self._open(code, credential, question, options, page, params, again=False)

    @guarded
    def ask_again(
        self,
        code: str,
        credential: str | None,
        question: str,
        options: Sequence[str] = (),
        page: str = "",
        params: dict[str, str] | None = None,
    ) -> int:
        """A new round of `question`, hidden until revealed; earlier rounds are kept. Returns it."""
        return self._open(code, credential, question, options, page, params, again=True)

    @guarded
    def reveal(self, code: str, credential: str | None, question: str) -> None:
        """The question's current round shown to everyone; its answers are final."""
        found, question = self._teacher(code, credential), rules.question(question)
        self._check(self._reveal(found, question, time.time()), code)

    @guarded
    def send_view(self, code: str, credential: str | None, page: str, params: dict[str, str]) -> int:
        """Followers switch to `page` with these URL parameters. Returns the view's new version."""
        found, (page, text) = self._teacher(code, credential), rules.view(page, params)
        version = self._send_view(found, page, text, time.time())
        if version is None:
            raise errors.unknown(code)
        return version

    @guarded
    def export(self, code: str, credential: str | None, nicknames: bool = False) -> list[Row]:
        """One row per option per round, nobody's pick a count of 0 (time: when the round opened):
        questions in the order first asked, rounds ascending, options by position. A round asked
        without texts has a row per position picked. With `nicknames`, then each answer of a
        student who gave a nickname (count 1, time: when they answered)."""
        rounds, answers = self._export(self._teacher(code, credential), time.time())
        rounds = sorted(rounds, key=lambda r: (r[1], r[2]))
        counts = Counter((q, r, position) for q, r, position, *_ in answers)
        texts = {(q, r): options for q, _, r, _, options in rounds}

        def text(q: str, r: int, position: int) -> str:
            options = texts.get((q, r), ())
            return options[position] if position < len(options) else ""

        rows = []
        for q, _, r, opened, options in rounds:
            picked = sorted({p for (qq, rr, p) in counts if (qq, rr) == (q, r)})
            for position in range(len(options)) if options else picked:
                rows.append(Row(q, r, position, text(q, r, position), counts[q, r, position], iso(opened)))
        if nicknames:
            place = {q: asked for q, asked, *_ in rounds}
            named = sorted(
                (place.get(q, 0), q, r, nick, position, at) for q, r, position, _, at, nick in answers if nick
            )
            rows += [Row(q, r, p, text(q, r, p), 1, iso(at), nick) for _, q, r, nick, p, at in named]
        return rows

    # The server's administrator (python -m attention.classroom): no class's secret needed

    @guarded
    def classes(self) -> list[ClassInfo]:
        """Every open class, soonest to end first: never its secret or its students' names."""
        listed = sorted(self._classes(time.time()), key=lambda c: (c[2], c[0]))
        return [ClassInfo(codes.shown(c), iso(made), iso(ends), n, q) for c, made, ends, n, q in listed]

    @guarded
    def close_all(self) -> int:
        """Every class and all its data deleted now. Returns how many were open."""
        return self._close_all(time.time())

    @guarded
    def purge(self) -> None:
        """Delete every expired class's data, and the ended counts of wrong codes and of starts.
        Cheap: the app calls it about once a minute."""
        self._purge(time.time())

    # Helpers

    def _code(self, code: str) -> str:
        found = codes.canonical(code)
        if found is None:
            raise errors.unknown(code)
        return found

    def _teacher(self, code: str, credential: str | None) -> str:
        found = self._code(code)
        stored = self._credentials(found, time.time())
        if stored is None:
            raise errors.unknown(code)
        if not codes.same_credential(credential, stored):
            raise errors.not_teacher()
        return found

    def _open(self, code, credential, question, options, page, params, again: bool) -> int:
        found, question = self._teacher(code, credential), rules.question(question)
        texts = rules.options(options, self.limits.options)
        page, params_json = ("", "{}") if page == "" and not params else rules.view(page, params)
        options_json = json.dumps(list(texts), ensure_ascii=False)
        status, number = self._ask(
            found, question, options_json, len(texts), page, params_json, time.time(), again
        )
        self._check(status, code)
        return number

    def _check(self, status: str, code: str) -> None:
        """A store's status word as the error it means ("ok": none)."""
        made = {
            "unknown": lambda: errors.unknown(code),
            "full": lambda: errors.full(self.limits.students),
            "classes": lambda: errors.too_many_classes(self.limits.classes),
            "questions": lambda: errors.too_many_questions(self.limits.questions),
            "rounds": lambda: errors.too_many_rounds(self.limits.rounds),
            "revealed": errors.revealed,
            "not_joined": errors.not_joined,
            "not_asked": errors.not_asked,
            "stale": errors.stale,
        }
        if status != "ok":
            raise made[status]()
