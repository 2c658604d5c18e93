"""Class mode as a real room behaves (AppTest): a reload, a second tab or a phone that slept is the
same student; a shared link joins nobody; the teacher's link leaves the address and the teacher
stays the teacher; one tab cannot start classes in a loop; a store out of reach is one message;
every student answers the teacher's question; callbacks speak the page's language; a class's
news shows on whichever page the student is on."""

import pytest

from attention import i18n
from attention.classroom import ClassError, SQLiteStore, errors
from attention.classroom.rules import Limits
from attention.i18n import tr
from tests.app.conftest import in_language, opened, pick, teacher_asks, unescaped
from ui.classroom import address, browser, membership, trip

Q = "check_ids"  # Learn's first predict-first question


@pytest.fixture
def store(tmp_path, monkeypatch):
    made = SQLiteStore(tmp_path / "classes.sqlite3", Limits(students=5, tries=5))
    monkeypatch.setattr(membership, "store", lambda: made)
    return made


# --- 1. a student is a person, not a tab -------------------------------------------------------


def test_a_reload_and_a_second_tab_are_the_same_student(store):
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    student = opened(**{"class": code})
    token = student.query_params["student"]
    assert token == student.session_state[membership.KEY].student
    student = pick(student, index=0)
    assert any("Answer recorded" in i.value for i in student.info)
    for _ in range(2):  # a reload (F5), then a second tab opened from the address bar
        again = opened(**{"class": code, "student": token})
        assert again.session_state[membership.KEY].student == token
        again = pick(again, index=1)
        assert not again.exception
    tally = store.tally(code, Q, secret)
    assert (tally.joined, tally.current.answered) == (1, 1)  # one person, one answer
    assert tally.current.counts == {1: 1}  # the last pick counts


def test_a_token_the_class_does_not_know_is_not_taken_as_given(store):
    code, _ = store.new_class()
    at = opened(**{"class": code, "student": "made-up-token-0123456789"})
    m = at.session_state[membership.KEY]
    assert m.student != "made-up-token-0123456789" and store.joined(code) == 1


def test_a_shared_link_carries_no_class_and_no_token(store):
    code, _ = store.new_class()
    at = opened("pages/explorer.py", view="share", text="a view worth sharing", **{"class": code})
    assert "student" in at.query_params  # this tab's own address keeps it
    shared = [c.value for c in at.code if "text=" in c.value]  # the Share view's link
    assert shared and all("class=" not in link and "student=" not in link for link in shared)


def test_leaving_removes_the_student_from_the_counts_and_the_address(store):
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    student = pick(opened(**{"class": code}))
    student = student.button(key="class_leave").click().run()
    assert membership.KEY not in student.session_state
    assert "class" not in student.query_params and "student" not in student.query_params
    tally = store.tally(code, Q, secret)
    assert (tally.joined, tally.current.answered) == (0, 0)


# --- 2. nothing a visitor can use up ------------------------------------------------------------


def test_one_tab_cannot_start_classes_in_a_loop(store):
    at = opened("pages/classroom.py")
    started = 0
    for _ in range(8):
        at = at.button(key="class_start").click().run()
        if membership.KEY in at.session_state:
            started += 1
            at = at.button(key="class_leave").click().run()
        else:
            break
    assert started == 5  # page.STARTS_PER_BROWSER
    assert any("hour" in e.value for e in at.error), [e.value for e in at.error]
    other = opened("pages/classroom.py").button(key="class_start").click().run()  # another browser
    assert other.session_state[membership.KEY].teacher


def test_a_teacher_key_guards_starting_a_class(store, monkeypatch):
    monkeypatch.setenv("ATTENTION_TEACHER_KEY", "sesame-1234")
    at = opened("pages/classroom.py")
    at = at.button(key="class_start").click().run()
    assert membership.KEY not in at.session_state and at.error
    at.text_input(key="class_teacher_key").set_value("sesame-1234")
    at = at.button(key="class_start").click().run()
    assert at.session_state[membership.KEY].teacher


# --- 4. a store out of reach is one message -------------------------------------------------------


class Down:
    """A store whose server does not answer: every call fails as a store outage does."""

    limits = Limits()

    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise ClassError("Class mode is unavailable: the class store does not answer.", "store")

        return fail


def test_a_store_out_of_reach_is_one_message_and_the_page_goes_on(store, monkeypatch):
    code, _ = store.new_class()
    monkeypatch.setattr(membership, "store", lambda: Down())
    at = opened(**{"class": code})
    assert not at.exception
    said = [w.value for w in at.warning]
    assert any("unavailable" in w for w in said), said
    assert at.button_group(key=Q)  # Learn is drawn, alone
    assert "class" in at.query_params  # kept: the page opens it again by itself after the wait
    assert any("location.reload(), 2000" in h.proto.body for h in at.get("html")), "no reload owed"
    monkeypatch.setattr(membership, "store", lambda: store)
    at.session_state[membership.OFFLINE] = (0.0, 2.0)  # the wait has passed
    at = at.run()
    assert at.session_state[membership.KEY].code == code.replace("-", "")  # joined once it answers


def test_a_student_whose_store_goes_down_keeps_the_question_held(store, monkeypatch):
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    student = opened(**{"class": code})
    monkeypatch.setattr(membership, "store", lambda: Down())
    student = pick(student)
    assert not student.exception
    assert not student.success and not student.error  # no answer shown: the reveal is the class's
    assert student.button_group(key=Q).disabled
    assert student.button_group(key=Q).value is None  # not recorded: not shown as picked
    monkeypatch.setattr(membership, "store", lambda: store)  # back
    student.session_state[membership.OFFLINE] = (0.0, 2.0)  # its wait is over: the bell reruns it
    student = student.run()
    assert not student.button_group(key=Q).disabled
    assert not [w for w in student.warning if "unavailable" in w.value]  # the refusal is not left behind
    student = pick(student)
    assert store.tally(code, Q, secret).current.answered == 1


# --- 5. one question, one set of options ---------------------------------------------------------


def test_every_student_answers_the_teachers_sentence(store):
    code, secret = store.new_class()
    text = "Your journey starts with one step"
    teacher_asks(store, code, secret, sentence="own", text=text)
    vote = store.vote(code)
    assert vote.page == "learn" and vote.params["text"] == text and len(vote.options) >= 2
    student = opened(
        lang="ja", **{"class": code}
    )  # opens on Japanese's own sentence, then goes to the teacher's
    assert student.session_state["learn_text"] == text
    assert len(student.button_group(key=Q).options) == len(vote.options)
    student = pick(student, index=0)
    assert store.tally(code, Q, secret).current.counts == {0: 1}
    rows = store.export(code, secret)
    assert [(r.position, r.option) for r in rows if r.question == Q] == list(enumerate(vote.options))


def test_a_question_not_asked_yet_waits_for_the_teacher(store):
    """Its question and options to read ahead, and why it waits, in one element: nothing to press."""
    code, secret = store.new_class()
    student = opened(**{"class": code})
    assert Q not in [r.key for r in student.button_group]
    held = [md.value for md in student.markdown if "not asking this question" in md.value]
    assert len(held) == 6, [md.value for md in student.markdown]  # every question on Learn
    assert any("How many rows" in h and "- 6: one per token" in unescaped(h) for h in held), held
    assert store.tally(code, Q, secret).rounds == ()
    teacher_asks(store, code, secret)  # asked: the question itself, to answer
    student = student.run()
    assert not student.button_group(key=Q).disabled
    assert len([md for md in student.markdown if "not asking this question" in md.value]) == 5


def test_learn_never_cuts_a_languages_own_sentence(store):
    at = opened(lang="ja")
    assert not at.exception
    assert not [w for w in at.warning if "12" in w.value]
    assert len(at.selectbox(key="learn_query").options) > 12  # Japanese's sentence: 15 tokens, all there


# --- 6 and 7. callbacks speak the page's language; news shows where the reader is --------------


def test_a_ukrainian_teachers_refusal_is_ukrainian_and_on_the_page(store):
    code, secret = store.new_class()
    teacher = teacher_asks(store, code, secret, lang="uk")
    for _ in range(store.limits.rounds):
        store.reveal(code, secret, Q)
        try:
            store.ask_again(code, secret, Q)
        except ClassError:
            break
    store.reveal(code, secret, Q)
    teacher = teacher.run()
    teacher = teacher.button(key=f"{Q}_again").click().run()
    i18n.use("uk")  # the refusal as the code words it in Ukrainian (a plural message)
    expected, _ = str(errors.too_many_rounds(store.limits.rounds)), i18n.use(i18n.DEFAULT)
    assert any(expected in unescaped(w.value) for w in teacher.warning), [w.value for w in teacher.warning]


def test_the_send_view_toast_is_ukrainian(store):
    code, secret = store.new_class()
    teacher = opened(**{"class": code, "teacher": secret, "lang": "uk"}).run()
    teacher = teacher.button(key="class_send").click().run()
    assert [t.value for t in teacher.toast] == [in_language("uk", "Sent to the class.")]


def test_a_class_that_ends_says_so_on_the_students_page(store):
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    student = opened(lang="uk", **{"class": code})
    store.close(code, secret)
    student = student.run()
    assert membership.KEY not in student.session_state
    ended = in_language(
        "uk",
        "Your class has ended: its teacher closed it, or its time ran out. The page is yours alone again.",
    )
    assert any(ended in unescaped(w.value) for w in student.warning), [w.value for w in student.warning]


# --- 9. the teacher's first minutes ----------------------------------------------------------------


def test_the_join_link_is_one_a_phone_can_open_and_carries_no_language(store, monkeypatch):
    monkeypatch.setattr(address, "network_address", lambda: "192.0.2.7")
    teacher = opened("pages/classroom.py", lang="uk").button(key="class_start").click().run()
    links = [c.value for c in teacher.code if "class=" in c.value]
    join = [link for link in links if "teacher=" not in link][0]
    assert join.startswith("http://192.0.2.7:") and "lang=" not in join, join


def test_a_loopback_only_server_says_phones_cannot_join(store, monkeypatch):
    monkeypatch.setattr(address, "listening", lambda: "localhost")
    teacher = opened("pages/classroom.py").button(key="class_start").click().run()
    assert any("--server.address 0.0.0.0" in unescaped(w.value) for w in teacher.warning)


def test_an_administrators_public_url_is_the_join_link(store, monkeypatch):
    monkeypatch.setenv("ATTENTION_PUBLIC_URL", "https://class.example.org/")
    teacher = opened("pages/classroom.py").button(key="class_start").click().run()
    assert any(c.value.startswith("https://class.example.org/?class=") for c in teacher.code)


def test_an_empty_code_says_what_was_wrong(store):
    at = opened("pages/classroom.py")
    at.text_input(key="class_join_code").set_value("   ")
    at = at.button(key="FormSubmitter:class_join-" + tr("Join")).click().run()
    assert not at.exception
    said = " ".join(e.value for e in at.error)
    assert "Type the code" in said and "code  " not in said, said


def test_a_sent_learn_view_is_the_teachers_sentence_on_every_phone(store):
    """Learn opens on the reader's language's sentence: a view sent at that default writes it out,
    so a Japanese and a Korean phone show the teacher's Ukrainian sentence, not their own."""
    code, secret = store.new_class()
    teacher = opened(lang="uk", **{"class": code, "teacher": secret}).run()
    teacher = teacher.button(key="class_send").click().run()
    sent = store.view(code)
    assert sent.page == "learn" and sent.params["sentence"] == "own" and sent.params["text"]
    for lang in ("ja", "ko"):
        phone = opened("pages/classroom.py", lang=lang, **{"class": code})
        phone.session_state[membership.KEY].seen = 0  # joined before the view was sent
        phone = phone.run()
        assert phone.session_state["learn_text"] == sent.params["text"]


def test_a_reloaded_tab_shows_the_answer_that_counts(store):
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    first = pick(opened(**{"class": code}), index=0)
    token = first.query_params["student"]
    second = pick(opened(**{"class": code, "student": token}), index=2)  # a second tab changes it
    reloaded = opened(**{"class": code, "student": token})  # a reload: the pick is there
    assert unescaped(reloaded.button_group(key=Q).value) == unescaped(reloaded.button_group(key=Q).options[2])
    assert any("Answer recorded" in i.value for i in reloaded.info)
    first = first.run()  # the first tab, woken (the reveal): the pick that counts, not its own old one
    assert unescaped(first.button_group(key=Q).value) == unescaped(first.button_group(key=Q).options[2])
    del second


def test_the_explorer_view_can_be_sent(store):
    code, secret = store.new_class()
    teacher = opened("pages/explorer.py", seed="7", **{"class": code, "teacher": secret}).run()
    teacher = teacher.button(key="class_send").click().run()
    assert not teacher.warning, [w.value for w in teacher.warning]
    sent = store.view(code)
    assert (sent.version, sent.page, sent.params.get("seed")) == (1, "", "7")


def test_closing_asks_first_and_says_it_closed(store):
    code, secret = store.new_class()
    teacher = opened("pages/classroom.py", **{"class": code, "teacher": secret}).run()
    assert not [b for b in teacher.button if b.key == "class_close"]  # not one click away
    teacher = teacher.toggle(key="class_close_ask").set_value(True).run()
    teacher = teacher.button(key="class_close").click().run()
    assert membership.KEY not in teacher.session_state
    assert any("is closed" in unescaped(w.value) for w in teacher.warning), [w.value for w in teacher.warning]
    with pytest.raises(ClassError):
        store.view(code)


def test_a_classmates_copied_address_does_not_make_you_them(store, monkeypatch):
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    ann = pick(opened(**{"class": code}), index=0)
    bo = opened(**{"class": code})  # Bo's own browser: its cookie names Bo
    bo_token = bo.session_state[membership.KEY].student
    canonical = code.replace("-", "")
    monkeypatch.setattr(browser, "cookie", lambda c: ("student", bo_token) if c == canonical else None)
    pasted = opened(
        **{"class": code, "student": ann.query_params["student"]}
    )  # Ann's address, in Bo's browser
    assert pasted.session_state[membership.KEY].student == bo_token
    assert store.tally(code, Q, secret).current.counts == {0: 1}  # Ann's pick stands


def test_the_teachers_browser_typing_its_code_is_the_teacher(store, monkeypatch):
    code, secret = store.new_class()
    seat = store.seat(code, secret)
    canonical = code.replace("-", "")
    monkeypatch.setattr(browser, "cookie", lambda c: ("teacher", seat) if c == canonical else None)
    at = opened("pages/classroom.py")
    at.text_input(key="class_join_code").set_value(code)
    at = at.button(key="FormSubmitter:class_join-" + tr("Join")).click().run()
    assert at.session_state[membership.KEY].teacher and store.joined(code) == 0


def test_a_teachers_link_opened_during_an_outage_is_kept_and_tried_again(store, monkeypatch):
    code, secret = store.new_class()
    monkeypatch.setattr(membership, "store", lambda: Down())
    at = opened("pages/classroom.py", **{"class": code, "teacher": secret})
    assert not at.exception and at.query_params["teacher"] == secret  # no new history entry made
    assert any("location.reload()" in h.proto.body for h in at.get("html"))


def test_one_persons_wrong_codes_never_lock_out_a_students_reload(store):
    code, secret = store.new_class()
    student = opened(**{"class": code})
    token = student.session_state[membership.KEY].student
    for _ in range(store.limits.tries + 5):  # someone on the school's network, guessing
        opened("pages/classroom.py", **{"class": "ZZZZ-ZZZZZ"})
    again = opened(**{"class": code, "student": token})
    assert again.session_state[membership.KEY].student == token


def test_the_teacher_can_change_the_sentence_after_asking(store):
    """A new sentence asks Learn's questions afresh (reset_predictions): the question's buttons
    (the teacher's Ask the class, Reveal and Ask again) keep their own state, which cannot be set."""
    code, secret = store.new_class()
    teacher = teacher_asks(store, code, secret)
    teacher = teacher.radio(key="learn_source").set_value("Hello shiny sun!").run()
    assert not teacher.exception, [e.message for e in teacher.exception]


def test_a_switch_to_the_teachers_question_that_a_rerun_overtook_is_made_again(store, monkeypatch):
    """The run that takes a student to the view a question was asked on (st.switch_page) can be
    overtaken: a rerun the browser asks for before it has the new address (a click, a reconnect)
    replaces the switch's page and address with the old ones (Streamlit keeps the newest request's).
    That run takes the student there again: not left on their own sentence with the question held."""
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    vote = store.vote(code)
    with monkeypatch.context() as overtaken:  # the switched run never drew its page to the end
        overtaken.setattr(membership, "arrived", lambda: None)
        student = opened(lang="uk", **{"class": code})  # Ukrainian's own sentence, then the teacher's
    m = student.session_state[membership.KEY]
    student.query_params.clear()
    student.query_params.update({"class": code, "student": m.student, "lang": "uk"})  # the old address
    student = student.run()
    assert not student.button_group(key=Q).disabled, [w.value for w in student.warning]
    assert m.going is None and m.asked == (vote.question, vote.round)  # arrived: settled
    student.query_params.update({"seed": "7"})  # the student's own move after arriving is theirs
    student = student.run()
    assert student.query_params.get("seed") == "7" and student.button_group(key=Q).disabled


def test_a_follower_whose_switch_was_overtaken_still_follows(store, monkeypatch):
    """The same for a view the teacher sends: the follower goes there once a run there is drawn."""
    code, secret = store.new_class()
    with monkeypatch.context() as overtaken:
        overtaken.setattr(membership, "arrived", lambda: None)
        student = opened(**{"class": code})
        store.send_view(code, secret, "learn", {"sentence": "1"})
        student = student.run()
    assert student.query_params.get("sentence") == "1"
    m = student.session_state[membership.KEY]
    student.query_params.clear()
    student.query_params.update({"class": code, "student": m.student})  # the old address
    student = student.run()
    assert student.query_params.get("sentence") == "1" and m.seen == store.view(code).version


def test_a_trip_that_never_arrives_is_given_up_after_its_tries(store, monkeypatch):
    """Every switch overtaken (the view's page never drawn to its end): the page stops trying after
    trip.TRIES switches and stays the student's own, not a loop of switches."""
    code, secret = store.new_class()
    student = opened(**{"class": code})
    m = student.session_state[membership.KEY]
    store.send_view(code, secret, "learn", {"sentence": "1"})
    monkeypatch.setattr(membership, "arrived", lambda: None)
    switched = []
    for _ in range(trip.TRIES + 3):
        student = student.run()
        switched.append(student.query_params.get("sentence") == "1")
        student.query_params.clear()
        student.query_params.update({"class": code, "student": m.student})  # the old address again
    assert switched == [True] * trip.TRIES + [False] * 3, switched
    assert not student.exception


def test_a_follower_sent_to_a_page_that_stops_early_arrives_once(store):
    """A page that says why in place of what it would show (Scaling with nothing picked: st.stop)
    is drawn as far as it goes: the follower's trip there is settled, not made again on each run."""
    code, secret = store.new_class()
    student = opened(**{"class": code})
    student.session_state["scaling_variants"] = []  # nothing to measure: the page stops early
    store.send_view(code, secret, "scaling", {})
    student = student.run()
    assert [w.value for w in student.warning] == ["Pick at least one variant, one device and one measure."]
    m = student.session_state[membership.KEY]
    assert m.going is None and m.seen == store.view(code).version, m.going  # settled


def test_a_pick_is_judged_at_a_reveal_that_comes_after_another_question(store):
    """The teacher asks, the student picks, the teacher asks another question, then reveals the
    first: the student's pick, kept while its question waited, is judged."""
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    student = pick(opened(**{"class": code}), index=0)  # the first option is right
    store.ask(code, secret, "check_top")  # another question: check_ids waits, not asked
    student = student.run()
    assert Q not in [r.key for r in student.button_group]
    store.reveal(code, secret, Q)
    student = student.run()
    assert any(s.value.startswith("Right.") for s in student.success), [s.value for s in student.success]
