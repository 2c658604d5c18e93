"""Every answer counted once when a class answers at once: threads of one process (Streamlit's
sessions) and separate processes (replicas) on one store."""

import gc
import os
import subprocess
import sys
import threading
from pathlib import Path

from attention.classroom import ClassError, SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
Q = "learn.scaling"


def at_once(work, n: int) -> list[BaseException]:
    """work(i) on n threads released together; the errors they raised."""
    start, errors = threading.Barrier(n), []

    def run(i):
        start.wait()
        try:
            work(i)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


ABCD = ("A", "B", "C", "D")


def test_200_students_joining_and_answering_at_once_are_each_counted_once(store, a_class):
    code, secret = a_class
    number = store.ask(code, secret, Q, ABCD)

    def student(i):
        store.join(code, f"s{i}", nickname=f"n{i}", caller=f"s{i}")
        store.answer(code, f"s{i}", Q, i % 4, number)

    assert at_once(student, 200) == []
    tally = store.tally(code, Q, secret)
    assert (tally.joined, len(tally.rounds), tally.current.answered) == (200, 1, 200)
    assert tally.current.counts == {0: 50, 1: 50, 2: 50, 3: 50}
    named = [r.nickname for r in store.export(code, secret, nicknames=True) if r.nickname]
    assert sorted(named) == sorted(f"n{i}" for i in range(200))  # each student's answer once


def test_students_changing_their_answers_at_once_keep_one_each(store, a_class):
    code, secret = a_class
    number = store.ask(code, secret, Q, ABCD)
    for i in range(40):
        store.join(code, f"s{i}", caller=f"s{i}")

    def changes(i):
        for option in (0, 1, 2, i % 4):
            store.answer(code, f"s{i}", Q, option, number)

    assert at_once(changes, 40) == []
    current = store.tally(code, Q, secret).current
    assert current.counts == {0: 10, 1: 10, 2: 10, 3: 10} and current.answered == 40


def test_the_teacher_asking_again_while_students_answer_loses_nothing(store, a_class):
    """Each pick names round 1, the round its page showed: counted there, or refused as stale once
    round 2 is open (the page asks the student again), never counted in round 2."""
    code, secret = a_class
    store.ask(code, secret, Q, ABCD)  # round 1
    for i in range(30):
        store.join(code, f"s{i}", caller=f"s{i}")
    stale = []

    def work(i):
        if i == 30:
            store.ask_again(code, secret, Q, ABCD)
            return
        try:
            store.answer(code, f"s{i}", Q, 0, 1)
        except ClassError as error:
            stale.append(error.kind)

    assert at_once(work, 31) == []
    first, second = store.tally(code, Q, secret).rounds
    assert first.answered + len(stale) == 30 and set(stale) <= {"stale"} and second.answered == 0


CHILD = """
import sys
import time
from attention.classroom import SQLiteStore
store = SQLiteStore(sys.argv[1])
code, name, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
for i in range(n):
    store.join(code, f"{name}{i}", caller=name)
    store.answer(code, f"{name}{i}", "learn.scaling", ["one", "other"].index(name), 1)
other, deadline = "other" if name == "one" else "one", time.monotonic() + 60
def seen():
    counts = store.tally(code, "learn.scaling", sys.argv[5]).current.counts
    return counts.get(["one", "other"].index(other), 0)
while seen() < n and time.monotonic() < deadline:
    time.sleep(0.05)  # until the other process's answers are all in
print(seen())
"""


def test_two_processes_on_one_sqlite_file_see_each_others_answers(tmp_path):
    path = tmp_path / "classes.sqlite3"
    store = SQLiteStore(path)
    code, secret = store.new_class()
    store.ask(code, secret, Q, ("one", "other"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), code, name, "60", secret],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for name in ("one", "other")
    ]
    outputs = [child.communicate(timeout=120)[0] for child in children]
    assert all(child.returncode == 0 for child in children)
    assert [int(out) for out in outputs] == [60, 60]  # each saw all of the other's answers
    assert store.tally(code, Q, secret).current.counts == {0: 60, 1: 60}
    assert SQLiteStore(path).tally(code, Q, secret).current.answered == 120  # a third process's view


# A server: its store made on a thread that ends, each look on a thread (a connection) of its own
# that closes after it, as Streamlit's script threads do; it prints the view's version per line read.
LOOKER = """
import gc, sys, threading
from attention.classroom import SQLiteStore
made = []
first = threading.Thread(target=lambda: made.append(SQLiteStore(sys.argv[1])))
first.start(); first.join()
for _ in sys.stdin:
    seen = []
    look = threading.Thread(target=lambda: seen.append(made[0].view(sys.argv[2]).version))
    look.start(); look.join()
    gc.collect()  # the look's connection closed: none of this process's stays open between looks
    print(seen[0], flush=True)
"""


def test_a_second_store_on_a_file_this_process_holds_keeps_its_writes_seen(tmp_path):
    """Closing any descriptor of a database file drops all of this process's POSIX locks on it: a
    store that opened and closed the file to set its mode let the other process delete the WAL
    that this process went on writing to (the other process saw version 1 for ever; measured with
    a server and benchmarks/class_mode.py, which opens a store per phase)."""
    path = tmp_path / "classes.sqlite3"
    first = SQLiteStore(path)
    code, secret = first.new_class()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    other = subprocess.Popen(
        [sys.executable, "-c", LOOKER, str(path), code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )

    def seen() -> int:
        other.stdin.write("?\n")
        other.stdin.flush()
        return int(other.stdout.readline())

    try:
        assert seen() == 0
        second = SQLiteStore(path)  # the first store's connection still open
        assert second.send_view(code, secret, "learn", {}) == 1 and seen() == 1
        del first
        gc.collect()  # the first store's connection closes
        for version in (2, 3):
            assert second.send_view(code, secret, "learn", {}) == version and seen() == version
    finally:
        other.stdin.close()
        other.wait(timeout=30)
