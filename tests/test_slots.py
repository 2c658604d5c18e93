"""Slots bound heavy work per process: at most `capacity` at once, the rest in line, in order."""

import gc
import time
from types import SimpleNamespace

from attention import slots
from attention.slots import Slots
from tests.threads import Overlap, in_threads


def test_slots_bound_how_many_run_at_once():
    line, overlap, done = Slots("test", 2), Overlap(), []

    def run(n):
        ticket = line.ticket()
        while ticket.ask() > 0:
            time.sleep(0.005)
        overlap.busy(0.03)
        ticket.release()
        done.append(n)

    in_threads(8, run)
    assert sorted(done) == list(range(8)) and overlap.peak == 2  # all ran, never more than two at once


def test_the_line_says_how_many_are_ahead_and_moves_in_order():
    line = Slots("test", 1)
    a, b, c = line.ticket(), line.ticket(), line.ticket()
    assert (a.ask(), b.ask(), c.ask()) == (0, 1, 2)
    assert (line.running, line.waiting) == (1, 2)
    assert b.ask() == 1  # asking again keeps the place
    a.release()
    assert (c.ask(), b.ask()) == (1, 0)  # b was first in line


def test_a_ticket_that_stops_asking_loses_its_place(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(slots, "time", SimpleNamespace(monotonic=lambda: now[0]))  # a clock moved by hand
    line = Slots("test", 1, lease=60)
    a, b = line.ticket(), line.ticket()
    assert (a.ask(), b.ask()) == (0, 1)
    now[0] = 59.0
    assert b.ask() == 1  # a asked 59 s ago: still in its slot
    now[0] = 61.0  # a's tab closed: it has not asked for 61 s
    assert b.ask() == 0


def test_a_dropped_ticket_leaves_the_line_at_once():
    line = Slots("test", 1)
    held = {"ticket": line.ticket()}
    other = line.ticket()
    assert (held["ticket"].ask(), other.ask()) == (0, 1)
    del held  # Streamlit dropped the page's state
    gc.collect()
    assert other.ask() == 0


def test_a_session_holds_one_place_in_each_line_at_most():
    slots, other = Slots("sweeps", 1), Slots("model loads", 1)
    first = slots.ticket("session-a")
    assert first.ask() == 0 and other.ticket("session-a").ask() == 0  # one place in each line
    second = slots.ticket("session-a")  # the same session asks again (another page, another map)
    assert second.ask() == 0 and slots.running == 1 and slots.waiting == 0  # it took the old place
    behind = slots.ticket("session-b")
    assert behind.ask() == 1  # another session still waits behind it
    del first  # the old ticket collected later: the session's new place stays
    assert second.ask() == 0 and slots.waiting == 1
