"""SQLiteFile: the connections to one SQLite file that SQLiteStore keeps its classes in, shared by
every thread and every process on a machine.

Write-ahead logging lets readers go on while one process writes, busy_timeout makes a writer
wait its turn instead of failing, and every change is one `BEGIN IMMEDIATE` transaction (the
write lock is taken first, so two writers never both read and then both write). The threads of
one process take their turns at a lock of this process first: SQLite's own wait (busy_timeout)
polls with sleeps of up to 100 ms, so 200 students answering at once on one server waited up to
a second for writes of a fraction of a millisecond each; that wait is left to the other
processes (replicas). Connections come from a pool: Streamlit runs each session's script on a
thread of its own, and a sqlite3 connection is never used by two threads at once.

Deleted means gone from the file: secure_delete zeroes what a delete frees, and checkpoint()
folds the write-ahead log back into the file and empties it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path

from attention.classroom.store import guarded

BUSY_MS = 10_000  # a writer waits this long for another: far more than any of our transactions
CHECKPOINT_MS = 200  # purge's wait to empty the log: it tries again next minute rather than wait
_writers: dict[Path, threading.Lock] = {}  # a database file -> its writers' turn in this process
_writers_lock = threading.Lock()
PURGE_EVERY = 60.0  # seconds between sweeps of expired classes
# The layout's version (PRAGMA user_version). A file of another version holds only classes of at
# most a week written by an older app: its tables are dropped and made anew.
VERSION = 2
SCHEMA = (
    """CREATE TABLE classes (code TEXT PRIMARY KEY, secret TEXT NOT NULL, created REAL NOT NULL,
    expires REAL NOT NULL, ends REAL NOT NULL, current TEXT NOT NULL DEFAULT '',
    version INTEGER NOT NULL DEFAULT 0, page TEXT NOT NULL DEFAULT '', params TEXT NOT NULL DEFAULT '{}')""",
    "CREATE TABLE seats (code TEXT, seat TEXT, made REAL NOT NULL, PRIMARY KEY (code, seat))",
    "CREATE TABLE students (code TEXT, student TEXT, nickname TEXT NOT NULL, PRIMARY KEY (code, student))",
    """CREATE TABLE rounds (code TEXT, question TEXT, round INTEGER, asked INTEGER NOT NULL,
    opened REAL NOT NULL, revealed INTEGER NOT NULL DEFAULT 0, options TEXT NOT NULL,
    page TEXT NOT NULL, params TEXT NOT NULL, PRIMARY KEY (code, question, round))""",
    """CREATE TABLE answers (code TEXT, question TEXT, round INTEGER, student TEXT,
    option INTEGER NOT NULL, at REAL NOT NULL, PRIMARY KEY (code, question, round, student))""",
    "CREATE TABLE tries (caller TEXT PRIMARY KEY, count INTEGER NOT NULL, until REAL NOT NULL)",
    "CREATE TABLE starts (caller TEXT PRIMARY KEY, count INTEGER NOT NULL, until REAL NOT NULL)",
)
OLD_TABLES = ("classes", "seats", "students", "rounds", "answers", "tries", "starts")
POOL = 16  # idle connections a store keeps


class SQLiteFile:
    """A pool of connections to `path`; _write() and _read() are one transaction each. A subclass
    has _sweep(db, now), which _write() runs at most every PURGE_EVERY seconds."""

    FAILURES = (sqlite3.Error, OSError)

    def __init__(self, path: str | Path):
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
        self._lay_out()

    @guarded
    def _lay_out(self) -> None:
        """The tables, made by one process (the others find them there); a file in an older
        layout is laid out anew. A file that is no database is ClassError kind "store"."""
        with self._db() as db:
            db.execute("PRAGMA journal_mode = WAL")  # kept in the file: every later connection has it
        with self._db() as db, self._writer:
            db.execute("BEGIN IMMEDIATE")
            try:
                if db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
                    for table in OLD_TABLES:
                        db.execute(f"DROP TABLE IF EXISTS {table}")
                    for statement in SCHEMA:
                        db.execute(statement)
                    db.execute(f"PRAGMA user_version = {VERSION}")
            except BaseException:
                if db.in_transaction:  # SQLite ended it itself on some errors (a full disk)
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _failure(self, error: BaseException) -> str:
        said = str(error).lower()
        if "locked" in said or "busy" in said:
            return "slow"
        if "full" in said:
            return "full"
        if "readonly" in said or "read-only" in said:
            return "read_only"
        return "unreachable" if "unable to open" in said or isinstance(error, OSError) else ""

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
            db.execute("PRAGMA secure_delete = ON")  # a connection's setting: what it deletes is zeroed
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
                if db.in_transaction:  # SQLite ended it itself on some errors (a full disk)
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
                if db.in_transaction:
                    db.execute("COMMIT")

    def _checkpoint(self) -> None:
        """The log copied into the file and emptied: it still holds pages as they were before
        deletes. Not while others read (it would wait for them): then at the next purge."""
        with self._db() as db:
            db.execute(f"PRAGMA busy_timeout = {CHECKPOINT_MS}")
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
