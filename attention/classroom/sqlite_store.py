"""SQLiteStore: classes in one SQLite file (sqlite_file.py: its connections and transactions),
shared by every thread and every process on a machine. Expired classes are deleted when found
and, at most once a minute, all at once (and by purge(), which the app calls about once a minute).

Deleted means gone from the file: secure_delete zeroes what a delete frees, and purge() empties
the write-ahead log into the file, so a nickname deleted is no longer on the disk. Every table is
bounded by the limits: students by limits.students rows per class (a student who leaves is
deleted), answers by students x rounds x questions, seats by limits.seats per class, starts by
limits.callers, classes by limits.classes.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from attention.classroom.backend import Answer, Asked, Listed
from attention.classroom.records import Round, Tally, View, Vote
from attention.classroom.rules import Limits
from attention.classroom.sqlite_file import SQLiteFile
from attention.classroom.store import Store

QUESTION = "code = ? AND question = ?"
ROUND = "code = ? AND question = ? AND round = ?"
TABLES = ("seats", "students", "rounds", "answers", "classes")  # a class's rows, the class itself last
CURRENT = "SELECT MAX(round) FROM rounds WHERE code = ? AND question = ?"
# A window count per caller (tries, starts): a new window at the first event after the last ended.
COUNT = (
    "INSERT INTO {table} VALUES (?, 1, ?) ON CONFLICT (caller) DO UPDATE SET"
    " count = CASE WHEN until > ? THEN count + 1 ELSE 1 END,"
    " until = CASE WHEN until > ? THEN until ELSE excluded.until END"
)


class SQLiteStore(SQLiteFile, Store):
    def __init__(self, path: str | Path, limits: Limits | None = None):
        Store.__init__(self, limits)
        SQLiteFile.__init__(self, path)

    def _purge(self, now: float) -> None:
        with self._write() as db:
            self._sweep(db, now)
        self._checkpoint()

    def _alive(self, db: sqlite3.Connection, code: str, now: float) -> bool:
        row = db.execute("SELECT expires FROM classes WHERE code = ?", (code,)).fetchone()
        return bool(row) and row[0] > now

    def _sweep(self, db: sqlite3.Connection, now: float) -> None:
        """In a write: every expired class's rows deleted, and the counts whose window ended."""
        self._swept = now
        for table in TABLES:
            db.execute(
                f"DELETE FROM {table} WHERE code IN (SELECT code FROM classes WHERE expires <= ?)", (now,)
            )
        db.execute("DELETE FROM tries WHERE until <= ?", (now,))
        db.execute("DELETE FROM starts WHERE until <= ?", (now,))

    def _create(
        self, code: str, secret_hash: str, now: float, expires: float, ends: float, starters: dict[str, int]
    ) -> tuple[str, int, float]:
        with self._write() as db:
            self._sweep(db, now)
            if db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone():
                return "taken", 0, 0.0
            over = []  # the starters at their limit: (until, count), the longest wait reported
            for caller, limit in starters.items():
                row = db.execute("SELECT count, until FROM starts WHERE caller = ?", (caller,)).fetchone()
                if row and row[1] > now and row[0] >= limit:
                    over.append((row[1], row[0]))
            if over:
                until, count = max(over)
                return "starts", count, until
            if db.execute("SELECT COUNT(*) FROM classes").fetchone()[0] >= self.limits.classes:
                return "classes", 0, 0.0
            db.execute(
                "INSERT INTO classes (code, secret, created, expires, ends) VALUES (?, ?, ?, ?, ?)",
                (code, secret_hash, now, expires, ends),
            )
            for caller in starters:
                db.execute(COUNT.format(table="starts"), (caller, now + self.limits.starts_window, now, now))
            extra = db.execute("SELECT COUNT(*) FROM starts").fetchone()[0] - self.limits.callers
            if extra > 0:  # the callers counted longest ago go: the table stays bounded
                db.execute(
                    "DELETE FROM starts WHERE caller IN (SELECT caller FROM starts ORDER BY until LIMIT ?)",
                    (extra,),
                )
            return "ok", 0, 0.0

    def _exists(self, code: str, now: float) -> bool:
        with self._db() as db:
            row = db.execute("SELECT expires FROM classes WHERE code = ?", (code,)).fetchone()
        if row and row[0] <= now:  # found ended: its data goes now, not at the next sweep
            with self._write() as db:
                self._sweep(db, now)
        return bool(row) and row[0] > now

    def _credentials(self, code: str, now: float) -> list[str] | None:
        with self._read() as db:
            row = db.execute("SELECT secret, expires FROM classes WHERE code = ?", (code,)).fetchone()
            seats = [s for (s,) in db.execute("SELECT seat FROM seats WHERE code = ?", (code,))]
        return [row[0], *seats] if row and row[1] > now else None

    def _seat(self, code: str, seat_hash: str, now: float) -> str:
        with self._write() as db:
            if not self._alive(db, code, now):
                return "unknown"
            db.execute("INSERT OR REPLACE INTO seats VALUES (?, ?, ?)", (code, seat_hash, now))
            db.execute(
                "DELETE FROM seats WHERE code = ? AND seat NOT IN"
                " (SELECT seat FROM seats WHERE code = ? ORDER BY made DESC, rowid DESC LIMIT ?)",
                (code, code, self.limits.seats),
            )
            return "ok"

    def _join(self, code: str, student: str, nickname: str | None, now: float) -> str:
        with self._write() as db:
            row = db.execute("SELECT expires, ends FROM classes WHERE code = ?", (code,)).fetchone()
            if not row or row[0] <= now:
                return "unknown"
            if db.execute(
                "SELECT 1 FROM students WHERE code = ? AND student = ?", (code, student)
            ).fetchone():
                if nickname is not None:
                    db.execute(
                        "UPDATE students SET nickname = ? WHERE code = ? AND student = ?",
                        (nickname, code, student),
                    )
            else:
                count = db.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()[0]
                if count >= self.limits.students:
                    return "full"
                db.execute("INSERT INTO students VALUES (?, ?, ?)", (code, student, nickname or ""))
            if row[0] < row[1]:  # the first join: the class lives to its end
                db.execute("UPDATE classes SET expires = ends WHERE code = ?", (code,))
            return "ok"

    def _is_student(self, code: str, student: str, now: float) -> bool:
        with self._read() as db:
            here = db.execute("SELECT 1 FROM students WHERE code = ? AND student = ?", (code, student))
            return self._alive(db, code, now) and here.fetchone() is not None

    def _picked(self, code: str, student: str, question: str, round: int, now: float) -> int | None:
        with self._read() as db:
            row = db.execute(
                "SELECT option FROM answers WHERE code = ? AND question = ? AND round = ? AND student = ?",
                (code, question, round, student),
            ).fetchone()
            return row[0] if row and self._alive(db, code, now) else None

    def _leave(self, code: str, student: str, now: float) -> None:
        with self._write() as db:
            db.execute(
                "DELETE FROM answers WHERE code = ? AND student = ? AND (question, round) IN"
                " (SELECT question, round FROM rounds WHERE code = ? AND NOT revealed)",
                (code, student, code),
            )
            db.execute("DELETE FROM students WHERE code = ? AND student = ?", (code, student))

    def _answer(self, code: str, student: str, question: str, round: int, position: int, now: float) -> str:
        with self._write() as db:
            if not self._alive(db, code, now):
                return "unknown"
            if not db.execute(
                "SELECT 1 FROM students WHERE code = ? AND student = ?", (code, student)
            ).fetchone():
                return "not_joined"
            current = db.execute(CURRENT, (code, question)).fetchone()[0]
            if not current:
                return "not_asked"
            if round != current:
                return "stale"
            key = (code, question, round)
            revealed, options = db.execute(
                f"SELECT revealed, options FROM rounds WHERE {ROUND}", key
            ).fetchone()
            if revealed:
                return "revealed"
            if position >= (len(json.loads(options)) or self.limits.options):
                return "position"
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)", (*key, student, position, now)
            )
            return "ok"

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
        with self._write() as db:
            row = db.execute("SELECT expires, current FROM classes WHERE code = ?", (code,)).fetchone()
            if not row or row[0] <= now:
                return "unknown", 0
            number = db.execute(CURRENT, (code, question)).fetchone()[0] or 0
            if number and not again:
                revealed, *shown = db.execute(
                    f"SELECT revealed, options, page, params FROM rounds WHERE {ROUND}",
                    (code, question, number),
                ).fetchone()
                if (row[1] == question and not revealed) or shown == [options_json, page, params_json]:
                    db.execute("UPDATE classes SET current = ? WHERE code = ?", (question, code))
                    return "ok", number
            asked = db.execute(
                "SELECT COUNT(DISTINCT question) FROM rounds WHERE code = ?", (code,)
            ).fetchone()[0]
            if number == 0 and asked >= self.limits.questions:
                return "questions", 0
            if number >= self.limits.rounds:
                return "rounds", number
            place = (
                asked
                if number == 0
                else db.execute(
                    f"SELECT asked FROM rounds WHERE {QUESTION} AND round = 1", (code, question)
                ).fetchone()[0]
            )
            db.execute(
                "INSERT INTO rounds (code, question, round, asked, opened, options, page, params)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (code, question, number + 1, place, now, options_json, page, params_json),
            )
            db.execute("UPDATE classes SET current = ? WHERE code = ?", (question, code))
            return "ok", number + 1

    def _reveal(self, code: str, question: str, now: float) -> str:
        with self._write() as db:
            if not self._alive(db, code, now):
                return "unknown"
            number = db.execute(CURRENT, (code, question)).fetchone()[0]
            if not number:
                return "not_asked"
            db.execute(f"UPDATE rounds SET revealed = 1 WHERE {ROUND}", (code, question, number))
            return "ok"

    def _tally(self, code: str, question: str, now: float) -> Tally | None:
        with self._read() as db:
            if not self._alive(db, code, now):
                return None
            joined = db.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()[0]
            counts = {}
            for number, option, n in db.execute(
                f"SELECT round, option, COUNT(*) FROM answers WHERE {QUESTION} GROUP BY round, option",
                (code, question),
            ):
                counts.setdefault(number, {})[option] = n
            rounds = db.execute(
                "SELECT round, opened, revealed, options, page, params FROM rounds"
                f" WHERE {QUESTION} ORDER BY round",
                (code, question),
            ).fetchall()
        made = (
            Round(
                r,
                opened,
                bool(shown),
                sum(counts.get(r, {}).values()),
                counts.get(r, {}),
                tuple(json.loads(texts)),
                page,
                json.loads(params),
            )
            for r, opened, shown, texts, page, params in rounds
        )
        return Tally(question, joined, tuple(made))

    def _vote(self, code: str, now: float) -> tuple[bool, Vote | None]:
        with self._read() as db:
            row = db.execute("SELECT expires, current FROM classes WHERE code = ?", (code,)).fetchone()
            if not row or row[0] <= now:
                return False, None
            found = db.execute(
                "SELECT round, options, page, params, revealed, opened FROM rounds WHERE code = ?"
                " AND question = ? ORDER BY round DESC LIMIT 1",
                (code, row[1]),
            ).fetchone()
        if not found:
            return True, None
        number, options, page, params, revealed, opened = found
        return True, Vote(
            row[1], number, tuple(json.loads(options)), page, json.loads(params), bool(revealed), opened
        )

    def _revealed(self, code: str, questions: list[str], now: float) -> set[str] | None:
        marks = ", ".join("?" * len(questions))
        with self._read() as db:
            if not self._alive(db, code, now):
                return None
            return {
                q
                for (q,) in db.execute(
                    "SELECT r.question FROM rounds r WHERE r.code = ? AND r.revealed"
                    f" AND r.question IN ({marks}) AND r.round = (SELECT MAX(round) FROM rounds"
                    " WHERE code = r.code AND question = r.question)",
                    (code, *questions),
                )
            }

    def _joined(self, code: str, now: float) -> int | None:
        with self._read() as db:
            if not self._alive(db, code, now):
                return None
            return db.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()[0]

    def _send_view(self, code: str, page: str, params_json: str, now: float) -> int | None:
        with self._write() as db:
            if not self._alive(db, code, now):
                return None
            db.execute(
                "UPDATE classes SET version = version + 1, page = ?, params = ? WHERE code = ?",
                (page, params_json, code),
            )
            return db.execute("SELECT version FROM classes WHERE code = ?", (code,)).fetchone()[0]

    def _view(self, code: str, now: float) -> View | None:
        with self._db() as db:
            row = db.execute(
                "SELECT expires, version, page, params FROM classes WHERE code = ?", (code,)
            ).fetchone()
        return View(row[1], row[2], json.loads(row[3])) if row and row[0] > now else None

    def _export(self, code: str, now: float) -> tuple[list[Asked], list[Answer]]:
        with self._read() as db:
            if not self._alive(db, code, now):
                return [], []
            rounds = [
                (q, asked, r, opened, tuple(json.loads(options)))
                for q, asked, r, opened, options in db.execute(
                    "SELECT question, asked, round, opened, options FROM rounds WHERE code = ?", (code,)
                )
            ]
            answers = db.execute(
                "SELECT a.question, a.round, a.option, a.student, a.at, COALESCE(s.nickname, '')"
                " FROM answers a LEFT JOIN students s USING (code, student) WHERE a.code = ?",
                (code,),
            ).fetchall()
        return rounds, answers

    def _delete(self, code: str) -> None:
        with self._write() as db:
            for table in TABLES:
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    def _classes(self, now: float) -> list[Listed]:
        with self._read() as db:
            return db.execute(
                "SELECT c.code, c.created, c.expires,"
                " (SELECT COUNT(*) FROM students s WHERE s.code = c.code),"
                " (SELECT COUNT(DISTINCT question) FROM rounds r WHERE r.code = c.code)"
                " FROM classes c WHERE c.expires > ?",
                (now,),
            ).fetchall()

    def _close_all(self, now: float) -> int:
        with self._write() as db:
            count = db.execute("SELECT COUNT(*) FROM classes WHERE expires > ?", (now,)).fetchone()[0]
            for table in TABLES:
                db.execute(f"DELETE FROM {table}")
            return count

    def _locked(self, caller: str, now: float) -> float:
        with self._db() as db:
            row = db.execute("SELECT count, until FROM tries WHERE caller = ?", (caller,)).fetchone()
        return row[1] - now if row and row[0] >= self.limits.tries and row[1] > now else 0.0

    def _strike(self, caller: str, now: float) -> None:
        with self._write() as db:
            db.execute(COUNT.format(table="tries"), (caller, now + self.limits.window, now, now))
