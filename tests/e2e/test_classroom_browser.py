"""What only a browser shows: a hostile link runs no script and the server stays up (projector
mode on screen: test_first_minute_browser.py); a class student's tab has no timer, yet the reveal
and the teacher's view arrive by themselves, after a pick and after a knob's change (the server
reruns the page: ui/classroom/bell.py)."""

import asyncio
import sqlite3
import time
import urllib.request
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from attention import i18n
from attention.classroom import SQLiteStore
from attention.i18n import tr
from deploy.local import ROOT, start_streamlit
from tests.e2e.conftest import answerable, choose, in_thread, script_done, wait_idle
from tests.e2e.test_class_room_browser import ask
from tests.e2e.test_lab_browser import PHONE
from tests.session_client import Session, Stats

HOSTILE = [
    ("text", "<img src=x onerror=alert(1)> <script>alert(2)</script> **bold** [x](javascript:alert(3)) $x$"),
    ("tokenizer", "words_punct"),
    ("embedding", "random"),
    ("heads", "abc"),
    ("heads", "7"),
    ("dropout", "nan"),
    ("variant", "<svg onload=alert(4)>"),
    ("device", "cuda<b>"),
    ("seed", "-1"),
    ("d_out", "1e309"),
    ("<i>evil</i>", "1"),
]


def test_a_hostile_link_shows_notes_and_runs_nothing(server, page):
    page.goto(f"{server}/?{urlencode(HOSTILE)}")
    wait_idle(page)
    page.get_by_text("Some settings could not be used as given").wait_for(timeout=30_000)
    assert page.dialogs == []  # no alert() ran
    assert page.locator('img[src="x"], svg[onload], [data-testid="stMain"] script').count() == 0
    assert page.locator("i", has_text="evil").count() == 0  # tags in names stay text
    assert page.get_by_text("evil").count() == 0  # an unknown name is ignored, not echoed
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_text("Tokens", exact=True).click()
    page.get_by_text("Vocabulary (").wait_for(timeout=30_000)  # the Tokens view has no heatmap
    assert "**bold**" in page.get_by_role("textbox", name="Sentence").input_value()  # characters, as typed
    assert page.locator('[data-testid="stMain"] strong', has_text="bold").count() == 0
    assert page.dialogs == []
    with urllib.request.urlopen(f"{server}/_stcore/health", timeout=10) as r:
        assert r.status == 200  # still serving


# --- a class: no timer in any tab; the server reruns a student's page when the class moves on -----


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """A server of its own on a class store this test also opens: (its URL, the store)."""
    path = tmp_path_factory.mktemp("classes") / "classes.sqlite3"
    store = SQLiteStore(path)
    proc, url = start_streamlit(ROOT / "app.py", env={"ATTENTION_CLASS_STORE": f"sqlite://{path}"})
    yield url, store
    proc.terminate()
    proc.wait(timeout=20)


def timers(url: str, page_name: str, query: str) -> dict[str, float]:
    async def load():
        async with Session(url.replace("http://", "ws://"), Stats(), page_name=page_name) as s:
            await s.rerun(query=query)
            return s.timers

    return in_thread(asyncio.run, load())


def test_no_tab_reruns_a_fragment_every_second(classroom):
    """A run_every fragment is a rerun every second for as long as the tab is open (~4-6 ms of the
    server's CPU each): no page has one, in a class or not (ui/classroom/bell.py wakes a student's
    page instead)."""
    url, store = classroom
    code, secret = store.new_class()
    assert timers(url, "", "") == {} and timers(url, "learn", "") == {}
    assert timers(url, "learn", f"class={code}") == {} and timers(url, "", f"class={code}") == {}


def test_a_follower_who_changed_a_knob_still_follows(classroom, page):
    """A knob's change reruns only the Explorer's body: the page the server reruns when the
    teacher sends a view is still the whole page, which follows it."""
    url, store = classroom
    code, secret = store.new_class()
    page.goto(f"{url}/?class={code}")
    wait_idle(page)
    seed = page.get_by_role("spinbutton", name="seed")
    seed.fill("7")
    seed.press("Enter")
    page.wait_for_url("**seed=7**", timeout=30_000)
    script_done(page)
    store.send_view(code, secret, "learn", {"sentence": "1"})
    page.wait_for_url("**/learn?*sentence=1*", timeout=10_000)


def test_a_students_pick_is_recorded_and_the_reveal_arrives_by_itself(classroom, browser, page):
    url, store = classroom
    code, secret = store.new_class()
    ask(browser, url, code, secret)
    page.goto(f"{url}/learn?class={code}")
    script_done(page)
    question = page.locator('[data-testid="stButtonGroup"]', has_text="How many rows")
    options = answerable(question)
    options.first.focus()
    page.keyboard.press("ArrowRight")  # the focus moves; nothing is recorded
    expect(options.nth(1)).to_be_focused()
    page.wait_for_timeout(1_000)  # a run the key would have started has begun by now
    script_done(page)
    assert store.tally(code, "check_ids", secret).current.answered == 0
    choose(question)  # the press answers
    page.get_by_text("Answer recorded").wait_for(timeout=30_000)
    tally = store.tally(code, "check_ids", secret)
    assert tally.current.answered == 1 and tally.current.counts == {0: 1}
    store.reveal(code, secret, "check_ids")
    page.get_by_text("Right. Answer:").first.wait_for(timeout=10_000)  # the first option is right
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_teachers_own_pick_is_judged_at_the_reveal_and_cleared_by_ask_again(classroom, page):
    """The teacher's own pick, Reveal judges it; Ask again clears the pick on the page, on a store
    slow to take it. Meanwhile the histogram's poll sends the browser's widget values, the old pick
    among them: when Ask again only set the pick to None, that poll put it back (every try, and
    once in a full suite under load; ui/classroom/questions.py: _teachers)."""
    url, store = classroom
    code, secret = store.new_class()
    page.goto(f"{url}/learn?class={code}&teacher={secret}")
    page.wait_for_url(lambda u: "teacher=" not in u, timeout=30_000)
    script_done(page)
    page.locator(".st-key-check_ids_ask button").click()
    page.get_by_text("students have answered").first.wait_for(timeout=30_000)
    question = page.locator(".st-key-check_ids")
    choose(question)
    script_done(page)
    assert page.get_by_text("Right. Answer:").count() == 0  # not before the reveal
    page.locator(".st-key-check_ids_reveal button").click()
    page.get_by_text("Right. Answer:").first.wait_for(timeout=30_000)
    expect(question.get_by_role("radio", checked=True)).to_have_count(1)
    held = sqlite3.connect(store.path, isolation_level=None)
    held.execute("BEGIN IMMEDIATE")  # the store's write lock: Ask again waits for it
    try:
        page.locator(".st-key-check_ids_again button").click()
        time.sleep(2.5)  # two polls of the histogram (POLL = 1 s) go out meanwhile
    finally:
        held.execute("COMMIT")
        held.close()
    expect(page.get_by_text("Right. Answer:")).to_have_count(0, timeout=30_000)
    asked_again = page.locator('[data-testid="stButtonGroup"]', has_text="How many rows")
    expect(asked_again.get_by_role("radio")).not_to_have_count(0, timeout=30_000)
    time.sleep(3)  # a poll that put the pick back did so within a second or two
    expect(asked_again.get_by_role("radio", checked=True)).to_have_count(0)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_held_question_speaks_the_pages_language_after_a_pick(classroom, browser, page):
    """A pick reruns only its question (a fragment, maybe on a new thread): it answers in the
    page's language, not in English (found by walking the class in Ukrainian)."""
    url, store = classroom
    code, secret = store.new_class()
    ask(browser, url, code, secret)
    page.goto(f"{url}/learn?class={code}&lang=uk")
    script_done(page)
    try:
        i18n.use("uk")
        asked = tr("How many rows does the embedding matrix x have?")
        recorded = tr("Answer recorded. Your teacher reveals the answer to the whole class.")
    finally:
        i18n.use(i18n.DEFAULT)
    choose(page.locator('[data-testid="stButtonGroup"]', has_text=asked))
    page.get_by_text(recorded).wait_for(timeout=30_000)
    assert page.get_by_text("Answer recorded").count() == 0


def test_a_student_on_a_phone_sees_the_class_and_how_to_leave(classroom, browser):
    """A phone hides the sidebar: which class, Follow and Leave are on the page itself."""
    url, store = classroom
    code, secret = store.new_class()
    context = browser.new_context(viewport={"width": 390, "height": 844}, user_agent=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{url}/?class={code}")
        script_done(page)
        main = page.locator('[data-testid="stMain"]')
        main.get_by_role("button", name="Leave the class").wait_for(timeout=30_000)
        assert main.get_by_text(f"Class {code}").first.is_visible()
    finally:
        context.close()


def test_a_phone_that_slept_through_the_class_moving_on_is_woken_when_it_is_back(classroom):
    """A phone that sleeps drops its connection; Streamlit keeps its session for the browser to
    come back to, and a browser that comes back to an idle page does not rerun it. The teacher
    sends a view and then ends the class while it sleeps: once it is back, the server reruns its
    page by itself (the bell kept it: ui/classroom/bell.py) and it says the class has ended."""
    url, store = classroom
    code, secret = store.new_class()
    said: list[str] = []

    def listen(fwd, _):
        element = fwd.delta.new_element
        if element.WhichOneof("type") == "alert":
            said.append(element.alert.body)

    async def go():
        stats = Stats()
        async with Session(url.replace("http://", "ws://"), stats, page_name="learn") as phone:
            await phone.rerun(f"class={code}")
        await asyncio.sleep(1.0)  # asleep for a few of the bell's rounds
        store.send_view(code, secret, "learn", {"sentence": "1"})
        await asyncio.sleep(1.0)
        store.close(code, secret)
        await asyncio.sleep(1.0)
        async with Session(url.replace("http://", "ws://"), stats, resume=phone.session_id) as back:
            back.listen = listen
            # nothing sent: the server starts the runs (an ended class's page reruns once more to
            # say so), and what trails a run is read past
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(s.startswith("Your class has ended") for s in said):
                await back.pushed(deadline - time.monotonic())
        return stats, phone.session_id, back.session_id

    stats, first, again = in_thread(asyncio.run, go())
    assert not stats.errors
    assert first and again == first  # the same session, back
    assert any(s.startswith("Your class has ended") for s in said), said


async def a_run(tab: Session, seconds: float) -> bool:
    """Whether the server started a run of the tab's page within `seconds` (read whole); what
    trails a run before it (its status) is read past."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if await tab.pushed(left):
            return True
    return False


@pytest.mark.parametrize("noticed", [True, False], ids=["back-after-the-server-noticed", "back-before"])
def test_a_phone_rung_on_a_connection_already_dead_is_rung_again_when_it_is_back(classroom, noticed):
    """A phone that has just gone to sleep: its connection is dead, and the server learns so only
    by its pings (every 30 s, 30 s to answer). The teacher sends a view meanwhile; the bell reruns
    the page on that connection, and the run draws the view for nobody. Once the phone is back on
    a new connection (after the server noticed, or before: Streamlit then moves the session to
    the new one), the server reruns its page by itself (the bell: the page's last run drew on
    another connection than the session has now) and the phone shows the teacher's view."""
    url, store = classroom
    code, secret = store.new_class()

    async def go():
        stats, ws = Stats(), url.replace("http://", "ws://")
        phone = await Session(ws, stats).__aenter__()
        await phone.rerun(f"class={code}")  # the Explorer, following the teacher
        home = phone.page
        store.send_view(code, secret, "learn", {"sentence": "1"})
        assert await a_run(phone, 30)  # rung and rerun (this test reads it; the phone never will)
        if noticed:
            phone.ws.transport.abort()  # the dead connection closed: what it held is lost
            await asyncio.sleep(1.0)
        async with Session(ws, stats, resume=phone.session_id) as back:
            came = await a_run(back, 30)  # nothing sent: the server starts the run
        phone.ws.transport.abort()
        return stats, home, phone.session_id, back, came

    stats, home, first, back, came = in_thread(asyncio.run, go())
    assert not stats.errors
    assert first and back.session_id == first  # the same session, back
    assert came and back.page and back.page != home  # the teacher's view: Learn
