"""A store that fails (Redis down, slow or restarted; SQLite locked, full or no database) is
ClassError kind "store" from every operation, said shortly, and the store works again once it is
back; and what a store deletes is gone from its file."""

import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from attention.classroom import ClassError, Limits, SQLiteStore, sqlite_file
from attention.classroom.redis_store import RedisStore
from attention.i18n import use

Q = "learn.softmax"
AB = ("A", "B")

EVERY_OPERATION = {
    "new_class": lambda s, code, secret: s.new_class(starters={"browser:b": 3}),
    "find": lambda s, code, secret: s.find(code, caller="c"),
    "is_teacher": lambda s, code, secret: s.is_teacher(code, secret, caller="c"),
    "seat": lambda s, code, secret: s.seat(code, secret),
    "close": lambda s, code, secret: s.close(code, secret),
    "join": lambda s, code, secret: s.join(code, "ann", "Ann"),
    "is_student": lambda s, code, secret: s.is_student(code, "ann", caller="c"),
    "leave": lambda s, code, secret: s.leave(code, "ann"),
    "answer": lambda s, code, secret: s.answer(code, "ann", Q, 0, 1),
    "tally": lambda s, code, secret: s.tally(code, Q, secret),
    "vote": lambda s, code, secret: s.vote(code),
    "current_question": lambda s, code, secret: s.current_question(code),
    "revealed": lambda s, code, secret: s.revealed(code, Q),
    "revealed_among": lambda s, code, secret: s.revealed_among(code, {Q}),
    "joined": lambda s, code, secret: s.joined(code),
    "view": lambda s, code, secret: s.view(code),
    "ask": lambda s, code, secret: s.ask(code, secret, Q, AB),
    "ask_again": lambda s, code, secret: s.ask_again(code, secret, Q, AB),
    "reveal": lambda s, code, secret: s.reveal(code, secret, Q),
    "send_view": lambda s, code, secret: s.send_view(code, secret, "learn", {}),
    "export": lambda s, code, secret: s.export(code, secret),
    "classes": lambda s, code, secret: s.classes(),
    "close_all": lambda s, code, secret: s.close_all(),
    "purge": lambda s, code, secret: s.purge(),
}


def unavailable(operation) -> str:
    """The message of the ClassError kind "store" that `operation()` raises."""
    use("en")
    with pytest.raises(ClassError) as refused:
        operation()
    assert refused.value.kind == "store", refused.value
    message = str(refused.value)
    assert message.startswith("Class mode is unavailable: ") and "\n" not in message and len(message) < 160
    return message


@pytest.mark.parametrize("operation", EVERY_OPERATION)
def test_every_operation_on_a_redis_that_is_not_there_is_a_store_error(operation):
    store = RedisStore("redis://:hunter2@127.0.0.1:1/0", Limits())  # nothing listens on port 1
    started = time.monotonic()
    message = unavailable(lambda: EVERY_OPERATION[operation](store, "K7QX-M2P9R", "secret"))
    assert "cannot be reached" in message and "hunter2" not in message and "127.0.0.1" not in message
    assert time.monotonic() - started < 3


def test_a_redis_that_does_not_answer_is_a_store_error_within_seconds():
    with socket.socket() as silent:  # accepts connections (the kernel's backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        store = RedisStore(f"redis://127.0.0.1:{silent.getsockname()[1]}/0", Limits())
        started = time.monotonic()
        assert "did not answer in time" in unavailable(lambda: store.view("K7QX-M2P9R"))
        assert time.monotonic() - started < 5  # the page waits seconds, not Redis's default forever


class PrivateRedis:
    """A redis-server of this test's own on a Unix socket, nothing saved: stop() and start() it."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="redis-", dir="/tmp"))  # a socket's path is short
        self.socket = self.folder / "redis.sock"
        self.process = None

    def start(self):
        command = ["redis-server", "--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.folder)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket(socket.AF_UNIX) as probe:
                try:
                    probe.connect(str(self.socket))
                    return
                except OSError:
                    time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.socket.unlink(missing_ok=True)

    def close(self):
        if self.process and self.process.poll() is None:
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def private_redis():
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    server = PrivateRedis()
    server.start()
    yield server
    server.close()


def test_a_redis_stopped_mid_class_then_back(private_redis):
    """Redis stops during a class: each operation says the class is unavailable (no traceback, no
    wait for ever); Redis comes back (empty: this one saves nothing) and the next calls work."""
    store = RedisStore(f"unix://{private_redis.socket}?db=0", Limits())
    code, secret = store.new_class()
    store.join(code, "ann", "Ann")
    number = store.ask(code, secret, Q, AB)
    store.answer(code, "ann", Q, 0, number)

    private_redis.stop()
    for operation in (
        lambda: store.join(code, "bo", "Bo"),
        lambda: store.vote(code),
        lambda: store.answer(code, "ann", Q, 1, number),
        lambda: store.tally(code, Q, secret),
    ):
        started = time.monotonic()
        message = unavailable(operation)
        assert "cannot be reached" in message and str(private_redis.socket) not in message
        assert time.monotonic() - started < 3

    private_redis.start()
    with pytest.raises(ClassError) as gone:  # its data went with the server: unknown, not a crash
        store.vote(code)
    assert gone.value.kind == "unknown"
    code, secret = store.new_class()  # the pool reconnects: no connection stays broken
    store.join(code, "ann", "Ann")
    store.answer(code, "ann", Q, 1, store.ask(code, secret, Q, AB))
    assert store.tally(code, Q, secret).current.counts == {1: 1}


def test_a_locked_sqlite_file_is_a_store_error_and_works_once_free(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_file, "BUSY_MS", 200)  # a replica holds the file: wait 0.2 s, not 10
    store = SQLiteStore(tmp_path / "c.sqlite3", Limits())
    code, secret = store.new_class()
    other = sqlite3.connect(tmp_path / "c.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's writer, stuck
    try:
        assert "did not answer in time" in unavailable(lambda: store.join(code, "ann", "Ann"))
        assert store.vote(code) is None  # reads go on (WAL)
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.join(code, "ann", "Ann")
    assert store.joined(code) == 1


def test_a_full_disk_is_a_store_error(tmp_path):
    store = SQLiteStore(tmp_path / "c.sqlite3", Limits())
    code, _ = store.new_class()
    with store._db() as db:  # this thread's next operation gets this connection back from the pool
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 1}")  # what a full disk says: SQLITE_FULL
    message = ""
    for i in range(200):
        try:
            store.join(code, f"student-{i}", "x" * 30)
        except ClassError as error:
            assert error.kind == "store"
            message = str(error)
            break
    assert "disk is full" in message


def test_a_file_that_is_no_database_is_a_store_error(tmp_path):
    path = tmp_path / "c.sqlite3"
    path.write_bytes(os.urandom(8192))
    assert "Class mode is unavailable" in unavailable(lambda: SQLiteStore(path, Limits()))


def test_what_a_store_deletes_is_gone_from_its_file(tmp_path):
    """secure_delete zeroes what a delete frees and purge() empties the write-ahead log: a closed
    class's, a left student's and an expired class's nicknames are no longer in the file."""
    path = tmp_path / "c.sqlite3"
    store = SQLiteStore(path, Limits())
    with store._db() as db:
        assert db.execute("PRAGMA secure_delete").fetchone() == (1,)
    code, secret = store.new_class()
    ending, _ = store.new_class(hours=1 / 3600)
    store.join(code, "zofia", "Zofia Kowalska")
    store.join(code, "jan", "Jan Brzechwa")
    store.join(code, "keeps", "Maria Konopnicka")
    store.join(ending, "adam", "Adam Mickiewicz")
    store.answer(code, "zofia", Q, 1, store.ask(code, secret, Q, AB))
    store.leave(code, "jan")
    time.sleep(1.2)
    store.purge()

    def on_disk(name: str) -> bool:
        files = [p for p in tmp_path.iterdir() if p.name.startswith("c.sqlite3")]
        return any(name.encode() in p.read_bytes() for p in files)

    assert on_disk("Maria Konopnicka")  # a student still in the class is kept, of course
    assert not on_disk("Jan Brzechwa") and not on_disk("Adam Mickiewicz")
    store.close(code, secret)
    store.purge()
    assert not on_disk("Zofia Kowalska") and not on_disk("Maria Konopnicka")
