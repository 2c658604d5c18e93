"""ui/classroom/bell.py: one look per class and round, and only the pages that must change rerun."""

import logging
from dataclasses import replace

import pytest

from attention.classroom import ClassError, SQLiteStore
from ui.classroom.bell import Bell, Tab, voting

Q = "check_ids"


@pytest.fixture
def setup(tmp_path):
    """A class, its store, and a bell whose reruns and live sessions are recorded, not real."""
    store = SQLiteStore(tmp_path / "c.sqlite3")
    code, secret = store.new_class()
    rerun, gone = [], set()

    def reruns(session, busy, wanted):  # as on the event loop: a rerun only if still wanted then
        if wanted():
            rerun.append(session)
        return True

    bell = Bell(store, rerun=reruns, alive=lambda s: s not in gone)
    bell.thread = object()  # no thread: the test rings by hand
    return store, code, secret, bell, rerun, gone


def tab(store, code, follow=True, waiting=()):
    return Tab(code, follow, store.view(code).version, voting(store.vote(code)), set(waiting))


def test_nothing_rings_while_the_class_stands_still(setup):
    store, code, secret, bell, rerun, _ = setup
    bell.listen("a", tab(store, code))
    assert bell.ring() == [] and rerun == [] and "a" in bell.tabs


def test_a_sent_view_wakes_followers_only(setup):
    store, code, secret, bell, rerun, _ = setup
    bell.listen("follows", tab(store, code))
    bell.listen("alone", tab(store, code, follow=False))
    store.send_view(code, secret, "learn", {"sentence": "1"})
    assert bell.ring() == ["follows"] and rerun == ["follows"]
    assert "follows" not in bell.tabs and "alone" in bell.tabs  # it listens again after its run
    assert bell.ring() == []  # rung once, not every round


def test_a_reveal_wakes_the_pages_holding_that_question(setup):
    store, code, secret, bell, rerun, _ = setup
    store.ask(code, secret, Q)
    bell.listen("holds", tab(store, code, waiting={Q}))
    bell.listen("other", tab(store, code, waiting={"check_mask"}))
    assert bell.ring() == []
    store.reveal(code, secret, Q)
    assert bell.ring() == ["holds"]


def test_asking_again_wakes_everyone_for_the_new_vote(setup):
    store, code, secret, bell, rerun, _ = setup
    store.ask(code, secret, Q)
    bell.listen("a", tab(store, code))
    bell.listen("b", tab(store, code, follow=False))
    store.ask_again(code, secret, Q)
    assert sorted(bell.ring()) == ["a", "b"]


def test_an_ended_class_wakes_its_pages_and_gone_sessions_are_forgotten(setup):
    store, code, secret, bell, rerun, gone = setup
    bell.listen("a", tab(store, code))
    bell.listen("left", tab(store, code))
    gone.add("left")
    assert bell.ring() == [] and "left" not in bell.tabs
    store.close(code, secret)
    assert bell.ring() == ["a"] and bell.tabs == {}


def test_a_phone_asleep_is_rung_once_it_is_back(setup):
    """A session whose connection went (a phone that slept) is kept by Streamlit for its browser to
    come back to, and a browser that comes back to an idle page does not rerun it: the bell keeps
    ringing it until the rerun reaches it, then forgets it until its page listens again."""
    store, code, secret, bell, rerun, gone = setup
    awake = set()
    bell.rerun = lambda session, busy, wanted: session in awake and (rerun.append(session) or True)
    bell.listen("phone", tab(store, code))
    assert bell.ring() == [] and "phone" in bell.tabs  # asleep, not gone: kept
    store.send_view(code, secret, "learn", {"sentence": "1"})
    assert bell.ring() == ["phone"] and rerun == [] and "phone" in bell.tabs  # not reached: kept
    assert bell.ring() == ["phone"] and rerun == []
    awake.add("phone")
    assert bell.ring() == ["phone"] and rerun == ["phone"] and "phone" not in bell.tabs
    bell.listen("late", tab(store, code))
    gone.add("late")  # never came back: Streamlit dropped it
    store.send_view(code, secret, "learn", {"sentence": "2"})
    assert bell.ring() == ["late"] and "late" not in bell.tabs


def test_a_browser_back_on_a_new_connection_is_rung_though_the_class_stood_still(setup):
    """A phone asleep for less time than the server's pings take to notice (30-60 s) is rung on a
    dead connection: its run draws the class's new state for nobody and listens as up to date.
    Its browser back on a new connection (one no run has named yet: "") is rung; one on the
    connection its page's run drew on, or away (None), is not."""
    store, code, secret, bell, rerun, _ = setup
    now = {"phone": "c1", "away": None}
    bell.connection = now.get
    store.send_view(code, secret, "learn", {"sentence": "1"})
    bell.listen("phone", replace(tab(store, code), connection="c1"))  # rung, on a connection now dead
    bell.listen("away", tab(store, code))  # its run drew while the browser was away
    assert bell.ring() == [] and rerun == []
    now["phone"] = None  # the server noticed: away, the session kept
    assert bell.ring() == [] and "phone" in bell.tabs
    now["phone"] = now["away"] = ""  # back, each on a new connection
    assert sorted(bell.ring()) == ["away", "phone"] and sorted(rerun) == ["away", "phone"]
    bell.listen("phone", replace(tab(store, code), connection="c2"))  # its run, on the new one
    now["phone"] = "c2"
    assert bell.ring() == [] and "phone" in bell.tabs


def test_a_session_busy_with_its_own_run_is_rung_again_next_round(setup):
    """The server does not stop a run the student started (a click on a link): the tab is kept
    and rung once that run has finished, unless the run listened meanwhile."""
    store, code, secret, bell, _, _ = setup
    busy_runs = []
    bell.rerun = lambda session, busy, wanted: (busy_runs.append(session), busy())
    bell.listen("a", tab(store, code))
    store.send_view(code, secret, "learn", {"sentence": "1"})
    assert bell.ring() == ["a"] and "a" in bell.tabs  # busy: kept
    assert bell.ring() == ["a"] and busy_runs == ["a", "a"]  # and rung again
    bell.rerun = lambda session, busy, wanted: True  # now it reruns
    assert bell.ring() == ["a"] and "a" not in bell.tabs


def test_a_page_that_left_its_ended_class_while_busy_is_not_rung_again(setup):
    """A page running when its class ends reads the end itself and says so; the bell, finding it
    busy, must not ring it again once that run is over: the rerun would draw the page past the
    run that said why."""
    store, code, secret, bell, _, _ = setup
    reruns = []

    def running(session, busy, wanted):  # its run in progress sees the end first and leaves
        reruns.append(session)
        bell.forget(session)  # membership.watch's ended path
        busy()
        return True

    bell.rerun = running
    bell.listen("a", tab(store, code))
    store.close(code, secret)
    assert bell.ring() == ["a"]
    assert bell.ring() == [] and reruns == ["a"] and "a" not in bell.tabs and "a" not in bell.said


def test_a_page_whose_run_left_its_class_after_the_round_looked_is_not_rerun(setup):
    """The round decides on what it read; the rerun is made later, on Streamlit's event loop. A run
    that left the class in between (it read the end and said so, and is over) is not rerun."""
    store, code, secret, bell, rerun, _ = setup
    decided = bell.rerun

    def late(session, busy, wanted):
        bell.forget(session)  # membership.watch's ended path, in a run that has ended since
        return decided(session, busy, wanted)

    bell.rerun = late
    bell.listen("a", tab(store, code))
    store.close(code, secret)
    assert bell.ring() == ["a"] and rerun == [] and bell.said == {}


def test_a_page_that_listened_while_the_round_looked_keeps_its_newer_tab(setup):
    """The page's own run listens while the bell's round looks at the tab before it: the round
    rings the old tab, and keeps watching the newer one."""
    store, code, secret, bell, rerun, _ = setup
    bell.listen("a", tab(store, code))
    store.send_view(code, secret, "learn", {"sentence": "1"})
    looked = bell._ring_class

    def racing(code_, members):
        rung = looked(code_, members)
        bell.listen("a", tab(store, code))  # a run that has read the new view
        return rung

    bell._ring_class = racing
    assert bell.ring() == ["a"] and rerun == ["a"] and "a" in bell.tabs
    bell._ring_class = looked
    assert bell.ring() == []  # its newer tab is not due
    store.send_view(code, secret, "learn", {"sentence": "2"})
    assert bell.ring() == ["a"]


def test_a_session_gone_before_or_after_its_rerun_is_forgotten(setup):
    """Nothing is kept for a session Streamlit dropped: the bell's memory is the live pages'."""
    store, code, secret, bell, _, gone = setup
    bell.listen("before", tab(store, code))
    bell.listen("after", tab(store, code))
    bell.rerun = lambda session, busy, wanted: session != "before"  # "before" is not connected
    gone.add("before")
    store.send_view(code, secret, "learn", {"sentence": "1"})
    assert sorted(bell.ring()) == ["after", "before"] and bell.tabs == {} and list(bell.said) == ["after"]
    gone.add("after")  # its rerun went, and no run of it listened again
    assert bell.ring() == [] and bell.said == {}


def test_one_sessions_failed_rerun_never_skips_the_others(setup):
    store, code, secret, bell, rerun, _ = setup
    for session in ("a", "b", "c"):
        bell.listen(session, tab(store, code))

    def rerun_but_b(session, busy, wanted):
        if session == "b":
            raise RuntimeError("its event loop is gone")
        rerun.append(session)
        return True

    bell.rerun = rerun_but_b
    store.send_view(code, secret, "learn", {"sentence": "1"})
    assert sorted(bell.ring()) == ["a", "b", "c"] and sorted(rerun) == ["a", "c"]
    assert "b" in bell.tabs  # looked at again next round


class Outage:
    """A store that is out of reach (Redis restarting)."""

    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise ClassError("Class mode is unavailable: the class store cannot be reached.", "store")

        return fail


def test_a_store_outage_is_logged_once_and_the_pages_keep_what_they_show(setup, caplog):
    store, code, secret, bell, rerun, _ = setup
    bell.listen("a", tab(store, code))
    bell.store = Outage()
    with caplog.at_level(logging.WARNING, logger="attention.classroom.bell"):
        for _ in range(3):
            assert bell.ring() == []
    assert "a" in bell.tabs and rerun == []  # not taken for a class that ended
    assert (
        len([r for r in caplog.records if "store" in r.getMessage()]) == 1
    )  # once a minute, not every round
    bell.store = store
    store.send_view(code, secret, "learn", {"sentence": "1"})
    assert bell.ring() == ["a"]  # back: the page is woken for what it missed


def test_the_bell_sweeps_the_store_without_any_student(monkeypatch):
    """Expired and closed classes leave the disk within a minute of the bell's start, whether or
    not a student's page listens (an idle server kept the last class's nicknames until a write)."""
    import time

    from ui.classroom import bell as module

    swept = []

    class Store:
        def purge(self):
            swept.append(time.monotonic())

    monkeypatch.setattr(module, "SWEEP", 0.0)
    monkeypatch.setattr(module, "BELL", 0.01)
    bell = Bell(Store(), rerun=lambda *a, **k: None, alive=lambda s: True)
    bell.start()
    deadline = time.monotonic() + 5
    while not swept and time.monotonic() < deadline:
        time.sleep(0.01)
    assert swept


def test_a_page_that_could_not_reach_the_store_is_woken_once_it_answers(setup):
    """A student's page has no timer: one that went offline (a Redis restart) is rerun by the bell
    once the store answers again and the page's wait is over, nothing else having changed."""
    import time

    store, code, secret, bell, rerun, _ = setup
    waiting = Tab(
        code, True, store.view(code).version, voting(store.vote(code)), set(), time.monotonic() + 60
    )
    bell.listen("later", waiting)
    back = Tab(code, True, store.view(code).version, voting(store.vote(code)), set(), time.monotonic() - 1)
    bell.listen("now", back)
    assert bell.ring() == ["now"] and "later" in bell.tabs
