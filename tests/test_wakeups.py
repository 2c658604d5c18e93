"""ui/wakeups.py: one wake-up of an event loop per batch of callbacks handed over from other
threads, and never a callback left waiting."""

import asyncio
import random
import threading
import time

from ui import wakeups


def test_every_callback_runs_and_the_loop_is_woken_less_often():
    loop = asyncio.new_event_loop()  # made before the patch, as the server's loop is
    wakeups.coalesce()
    writes, sock = [0], loop._csock

    class Counting:  # counts the bytes written to the loop's self-pipe
        def send(self, data):
            writes[0] += 1
            return sock.send(data)

        def __getattr__(self, name):
            return getattr(sock, name)

    loop._csock = Counting()
    ran, threads, calls = [], 8, 500
    runner = threading.Thread(target=loop.run_forever)
    runner.start()

    def hand_over(n):
        rng = random.Random(n)
        for i in range(calls):
            loop.call_soon_threadsafe(ran.append, (n, i))
            if rng.random() < 0.05:
                time.sleep(rng.random() / 1000)  # sometimes the loop goes back to sleep meanwhile

    workers = [threading.Thread(target=hand_over, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    deadline = time.monotonic() + 5
    while len(ran) < threads * calls and time.monotonic() < deadline:
        time.sleep(0.01)
    loop.call_soon_threadsafe(loop.stop)
    runner.join(5)
    loop._csock = sock
    loop.close()
    assert sorted(ran) == [(n, i) for n in range(threads) for i in range(calls)]  # none lost
    assert writes[0] < threads * calls / 2  # most calls found a wake-up already pending


def test_a_callback_after_the_loop_went_idle_still_wakes_it():
    wakeups.coalesce()
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever)
    runner.start()
    try:
        for _ in range(50):  # each time the loop is asleep in select() when the call comes
            done = threading.Event()
            time.sleep(0.002)
            loop.call_soon_threadsafe(done.set)
            assert done.wait(1)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        runner.join(5)
        loop.close()


def test_patching_from_many_threads_at_once_patches_once():
    """Every open tab reconnects at once after a restart: each first rerun asks for the patch."""
    threads = [threading.Thread(target=wakeups.coalesce) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wakeups.coalesce() is False
    import asyncio.selector_events as selector_events

    assert selector_events.BaseSelectorEventLoop._write_to_self is wakeups._write_to_self  # not wrapped twice
    test_a_callback_after_the_loop_went_idle_still_wakes_it()
