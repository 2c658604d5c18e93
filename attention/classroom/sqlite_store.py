"""SQLiteStore: classes in one SQLite file, shared by every thread and every process on a machine.

Write-ahead logging lets readers go on while one process writes, busy_timeout makes a writer
wait its turn instead of failing, and every change is one `BEGIN IMMEDIATE` transaction (the
write lock is taken first, so two writers never both read and then both write). The threads of
one process take their turns at a lock of this process first: SQLite's own wait (busy_timeout)
polls with sleeps of up to 100 ms, so 200 students answering at once on one server waited up to
a second for writes of a fraction of a millisecond each; that wait is left to the other
processes (replicas). Each thread has
its own connection: Streamlit runs each session's script on a thread of its own, and a sqlite3
connection is not for sharing across threads. Expired classes are deleted when found and, at most
once a minute, all at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

from attention.classroom.records import Round, Tally, View
from attention.classroom.rules import Limits
from attention.classroom.store import Answer, Store

BUSY_MS = 10_000  # a writer waits this long for another: far more than any of our transactions
_writers: dict[Path, threading.Lock] = {}  # a database file -> its writers' turn in this process
_writers_lock = threading.Lock()
PURGE_EVERY = 60.0  # seconds between sweeps of expired classes
SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (code TEXT PRIMARY KEY, secret TEXT NOT NULL, expires REAL NOT NULL,
    current TEXT NOT NULL DEFAULT '', version INTEGER NOT NULL DEFAULT 0, page TEXT NOT NULL DEFAULT '',
    params TEXT NOT NULL DEFAULT '{}');
CREATE TABLE IF NOT EXISTS students (code TEXT, student TEXT, nickname TEXT NOT NULL,
    present INTEGER NOT NULL, PRIMARY KEY (code, student));
CREATE TABLE IF NOT EXISTS rounds (code TEXT, question TEXT, round INTEGER, opened REAL NOT NULL,
    revealed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (code, question, round));
CREATE TABLE IF NOT EXISTS answers (code TEXT, question TEXT, round INTEGER, student TEXT,
    option TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (code, question, round, student));
CREATE TABLE IF NOT EXISTS tries (caller TEXT PRIMARY KEY, count INTEGER NOT NULL, until REAL NOT NULL);
"""
POOL = 16  # idle connections a store keeps
QUESTION = "code = ? AND question = ?"
ROUND = "code = ? AND question = ? AND round = ?"
TABLES = ("students", "rounds", "answers", "classes")  # a class's rows, the class itself last


class SQLiteStore(Store):
    def __init__(self, path: str | Path, limits: Limits | None = None):
        super().__init__(limits)
        self.path = Path(path)
        self._pool: list[sqlite3.Connection] = []  # connections not in use, any thread's
        self._pool_lock = threading.Lock()
        self._swept = 0.0
        with _writers_lock:
            self._writer = _writers.setdefault(self.path.resolve(), threading.Lock())
        # Made by us, readable by this account only (the -wal and -shm files take its mode). Only
        # when missing: closing any descriptor of a database file drops every POSIX lock SQLite
        # holds on it in this process (sqlite.org/howtocorrupt.html, 2.2), so a second store on a
        # file this process has open would leave the other processes free to delete the WAL under
        # it (measured: a server then never saw this process's writes again).
        with contextlib.suppress(FileExistsError):
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        with self._db() as db:
            db.execute("PRAGMA journal_mode = WAL")  # kept in the file: every later connection has it
            db.executescript(SCHEMA)

    @contextlib.contextmanager
    def _db(self):
        """A connection for one statement or transaction, from this store's pool. Streamlit runs
        every rerun on a new thread: a connection per thread opened one per student's tick, half
        the tick's store work (py-spy). SQLite's connections may change threads between uses."""
        with self._pool_lock:
            db = self._pool.pop() if self._pool else None
        if db is None:
            db = sqlite3.connect(
                self.path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False
            )
            db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            db.execute("PRAGMA synchronous = NORMAL")  # WAL's safe setting: a crash loses no committed vote
        try:
            yield db
        finally:
            if db.in_transaction:  # a COMMIT that failed: none of it stays for the next user
                db.rollback()
            with self._pool_lock:
                kept = len(self._pool) < POOL
                if kept:
                    self._pool.append(db)
            if not kept:  # a burst's extra connections go (a class's 200 at once)
                db.close()

    @contextlib.contextmanager
    def _write(self):
        """One transaction holding the write lock from its start (expired classes swept first, at
        most once a minute)."""
        now = time.time()
        with self._db() as db, self._writer:
            db.execute("BEGIN IMMEDIATE")
            try:
                if now - self._swept > PURGE_EVERY:
                    self._sweep(db, now)
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextlib.contextmanager
    def _read(self):
        """One snapshot: what it reads is one moment, whatever others commit meanwhile."""
        with self._db() as db:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")

    def _alive(self, db: sqlite3.Connection, code: str, now: float) -> bool:
        row = db.execute("SELECT expires FROM classes WHERE code = ?", (code,)).fetchone()
        return bool(row) and row[0] > now

    def _sweep(self, db: sqlite3.Connection, now: float) -> None:
        """In a write: every expired class's rows deleted, and the lock-outs that ended."""
        self._swept = now
        for table in TABLES:
            db.execute(
                f"DELETE FROM {table} WHERE code IN (SELECT code FROM classes WHERE expires <= ?)", (now,)
            )
        db.execute("DELETE FROM tries WHERE until <= ?", (now,))

    def purge(self) -> None:
        with self._write() as db:
            self._sweep(db, time.time())

    def _create(self, code: str, secret_hash: str, now: float, expires: float) -> str:
        with self._write() as db:
            self._sweep(db, now)
            if db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone():
                return "taken"
            if db.execute("SELECT COUNT(*) FROM classes").fetchone()[0] >= self.limits.classes:
                return "classes"
            db.execute(
                "INSERT INTO classes (code, secret, expires) VALUES (?, ?, ?)", (code, secret_hash, expires)
            )
            return "ok"

    def _secret(self, code: str, now: float) -> str | None:
        with self._db() as db:
            row = db.execute("SELECT secret, expires FROM classes WHERE code = ?", (code,)).fetchone()
        if row and row[1] <= now:
            self.purge()
        return row[0] if row and row[1] > now else None

    def _join(self, code: str, student: str, nickname: str, now: float) -> str:
        with self._write() as db:
            if not self._alive(db, code, now):
                return "unknown"
            here = db.execute(
                "SELECT present FROM students WHERE code = ? AND student = ?", (code, student)
            ).fetchone()
            count = db.execute(
                "SELECT COUNT(*) FROM students WHERE code = ? AND present", (code,)
            ).fetchone()[0]
            if not (here and here[0]) and count >= self.limits.students:
                return "full"
            db.execute("INSERT OR REPLACE INTO students VALUES (?, ?, ?, 1)", (code, student, nickname))
            return "ok"

    def _leave(self, code: str, student: str, now: float) -> None:
        with self._write() as db:
            db.execute("UPDATE students SET present = 0 WHERE code = ? AND student = ?", (code, student))

    def _current_round(
        self, db, code: str, question: str, now: float, again: bool = False
    ) -> tuple[str, int]:
        """In a write: the question's current round, opening round 1 (or, `again`, the next)."""
        row = db.execute(f"SELECT MAX(round) FROM rounds WHERE {QUESTION}", (code, question)).fetchone()
        number = row[0] or 0
        if number == 0:
            asked = db.execute(
                "SELECT COUNT(DISTINCT question) FROM rounds WHERE code = ?", (code,)
            ).fetchone()[0]
            if asked >= self.limits.questions:
                return "questions", 0
        elif not again:
            return "ok", number
        elif number >= self.limits.rounds:
            return "rounds", number
        db.execute(
            "INSERT INTO rounds (code, question, round, opened) VALUES (?, ?, ?, ?)",
            (code, question, number + 1, now),
        )
        return "ok", number + 1

    def _answer(self, code: str, student: str, question: str, option: str, now: float) -> str:
        with self._write() as db:
            if not self._alive(db, code, now):
                return "unknown"
            if not db.execute(
                "SELECT 1 FROM students WHERE code = ? AND student = ? AND present", (code, student)
            ).fetchone():
                return "not_joined"
            status, number = self._current_round(db, code, question, now)
            key = (code, question, number)
            if status != "ok":
                return status
            if db.execute(f"SELECT revealed FROM rounds WHERE {ROUND}", key).fetchone()[0]:
                return "revealed"
            others = f"SELECT DISTINCT option FROM answers WHERE {ROUND} AND student != ?"
            options = {o for (o,) in db.execute(others, (*key, student))}  # what the others answered
            if option not in options and len(options) >= self.limits.options:
                return "options"
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)", (*key, student, option, now)
            )
            return "ok"

    def _ask(self, code: str, question: str, now: float, again: bool) -> tuple[str, int]:
        with self._write() as db:
            if not self._alive(db, code, now):
                return "unknown", 0
            status, number = self._current_round(db, code, question, now, again)
            if status == "ok":
                db.execute("UPDATE classes SET current = ? WHERE code = ?", (question, code))
            return status, number

    def _reveal(self, code: str, question: str, now: float) -> str:
        with self._write() as db:
            if not self._alive(db, code, now):
                return "unknown"
            status, number = self._current_round(db, code, question, now)
            if status == "ok":
                key = (code, question, number)
                db.execute(f"UPDATE rounds SET revealed = 1 WHERE {ROUND}", key)
            return status

    def _tally(self, code: str, question: str, now: float) -> Tally | None:
        with self._read() as db:
            if not self._alive(db, code, now):
                return None
            joined = db.execute(
                "SELECT COUNT(*) FROM students WHERE code = ? AND present", (code,)
            ).fetchone()[0]
            counts = {}
            for number, option, n in db.execute(
                f"SELECT round, option, COUNT(*) FROM answers WHERE {QUESTION} GROUP BY round, option",
                (code, question),
            ):
                counts.setdefault(number, {})[option] = n
            rounds = db.execute(
                f"SELECT round, opened, revealed FROM rounds WHERE {QUESTION} ORDER BY round",
                (code, question),
            ).fetchall()
        made = (
            Round(r, opened, bool(shown), sum(counts.get(r, {}).values()), counts.get(r, {}))
            for r, opened, shown in rounds
        )
        return Tally(question, joined, tuple(made))

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

    def _about(self, code: str, now: float) -> tuple[int, str] | None:
        with self._read() as db:
            row = db.execute("SELECT expires, current FROM classes WHERE code = ?", (code,)).fetchone()
            joined = db.execute(
                "SELECT COUNT(*) FROM students WHERE code = ? AND present", (code,)
            ).fetchone()[0]
        return (joined, row[1]) if row and row[0] > now else None

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

    def _answers(self, code: str, now: float) -> list[Answer]:
        with self._read() as db:
            if not self._alive(db, code, now):
                return []
            return db.execute(
                "SELECT a.question, a.round, r.opened, a.option, a.student, a.at, COALESCE(s.nickname, '')"
                " FROM answers a JOIN rounds r USING (code, question, round)"
                " LEFT JOIN students s USING (code, student) WHERE a.code = ?",
                (code,),
            ).fetchall()

    def _delete(self, code: str) -> None:
        with self._write() as db:
            for table in TABLES:
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    def _locked(self, caller: str, now: float) -> float:
        with self._db() as db:
            row = db.execute("SELECT count, until FROM tries WHERE caller = ?", (caller,)).fetchone()
        return row[1] - now if row and row[0] >= self.limits.tries and row[1] > now else 0.0

    def _strike(self, caller: str, now: float) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO tries VALUES (?, 1, ?) ON CONFLICT (caller) DO UPDATE SET"
                " count = CASE WHEN until > ? THEN count + 1 ELSE 1 END,"
                " until = CASE WHEN until > ? THEN until ELSE excluded.until END",
                (caller, now + self.limits.window, now, now),
            )
