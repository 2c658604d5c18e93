"""Class mode under AppTest: a teacher starts a class, a student joins by link and answers a Learn
question; the answer is held until the teacher reveals; a wrong code, a full class and hostile
nicknames get clear messages; a student has no teacher's controls."""

import pytest

from attention.classroom import SQLiteStore
from attention.classroom.rules import Limits
from tests.app.conftest import figures, pick, session, teacher_asks
from ui.classroom import membership
from ui.classroom.page import qr_code


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A store of this test's own (the app opens one per process: membership.store)."""
    made = SQLiteStore(tmp_path / "classes.sqlite3", Limits(students=3))
    monkeypatch.setattr(membership, "store", lambda: made)
    return made


def class_page(**params):
    at = session(60, **params).run()
    at.switch_page("pages/classroom.py")
    return at.run()


def learn(**params):
    at = session(60, **params).run()
    at.switch_page("pages/learn.py")
    return at.run()


def test_a_teacher_starts_a_class_and_gets_its_code_link_and_qr(store):
    at = class_page()
    at = at.button(key="class_start").click().run()
    assert not at.exception
    m = at.session_state[membership.KEY]
    assert m.teacher and len(m.code) == 9
    page = "\n".join(x.value for x in at.markdown)
    assert m.shown_code in page
    assert any(f"class={m.shown_code}" in c.value for c in at.code)  # the join link
    assert any("teacher=" in c.value for c in at.code)  # the teacher's link, folded away
    link = next(c.value for c in at.code if f"class={m.shown_code}" in c.value)
    qr = [h.proto.body for h in at.get("html") if "class-qr" in h.proto.body]  # the QR code: the link's
    assert qr and qr[0] == qr_code(link, f"Scan to join class {m.shown_code}")
    assert f"alt='Scan to join class {m.shown_code}'" in qr[0]  # named for a screen reader
    assert "teacher" not in at.query_params


def test_a_student_answer_is_held_until_the_teacher_reveals(store):
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    student = learn(**{"class": code})
    assert not student.exception and student.session_state[membership.KEY].code == code.replace("-", "")
    student = pick(student)
    assert not student.exception
    assert any("Answer recorded" in i.value for i in student.info)
    assert not student.success and not student.error  # no right or wrong before the reveal
    tally = store.tally(code, "check_ids", secret)
    assert tally.current.answered == 1 and tally.current.counts == {0: 1}
    assert not [b for b in student.button if b.key and b.key.endswith("_reveal")]  # no teacher's controls
    store.reveal(code, secret, "check_ids")
    student = student.run()
    assert student.success or student.error  # now the answer, right or not


def test_a_pick_the_class_refused_says_why_not_recorded(store):
    code, secret = store.new_class()
    teacher_asks(store, code, secret)
    student = learn(**{"class": code})
    store.leave(code, student.session_state[membership.KEY].student)  # no longer in the class
    student = pick(student)
    assert not student.exception
    assert not any("Answer recorded" in i.value for i in student.info)
    assert any("join" in w.value.lower() for w in student.warning), [w.value for w in student.warning]
    assert store.tally(code, "check_ids", secret).current.answered == 0  # nothing counted


def test_the_teacher_sees_the_histogram_and_reveals(store):
    code, secret = store.new_class()
    teacher = teacher_asks(store, code, secret)
    assert store.vote(code).question == "check_ids"
    assert any("students have answered" in m.value for m in teacher.markdown)
    teacher = teacher.button(key="check_ids_reveal").click().run()
    assert store.revealed(code, "check_ids")


@pytest.mark.parametrize("code", ["ZZZZ-ZZZZZ", "nope", "<script>", "x" * 500])
def test_a_wrong_code_says_so_and_joins_nothing(store, code):
    at = session(60, **{"class": code}).run()  # the page the link opens says it
    assert not at.exception and membership.KEY not in at.session_state
    assert any("class" in w.value.lower() for w in at.warning)
    assert "class" not in at.query_params


def test_a_full_class_is_refused_politely(store):
    code, _ = store.new_class()
    for n in range(3):
        store.join(code, f"s{n}")
    at = session(60, **{"class": code}).run()
    assert any("full" in w.value for w in at.warning) and membership.KEY not in at.session_state


def test_a_wrong_teacher_secret_is_refused(store):
    code, _ = store.new_class()
    at = session(60, **{"class": code, "teacher": "not-the-secret"}).run()
    assert membership.KEY not in at.session_state
    assert any("teacher" in w.value for w in at.warning)


def test_a_hostile_nickname_is_inert(store):
    code, secret = store.new_class()
    at = class_page(**{"class": code})
    hostile = "<img src=x onerror=alert(1)>**bold**\u202e" + "x" * 100
    [box] = [t for t in at.text_input if "Nickname" in t.label]
    [save] = [b for b in at.button if "class_nickname" in str(b.key)]
    box.set_value(hostile)
    at = save.click().run()  # the form sends both
    assert not at.exception
    store.ask(code, secret, "q", options=["yes", "no"])
    store.answer(code, at.session_state[membership.KEY].student, "q", 0, 1)
    [row] = [r for r in store.export(code, secret, nicknames=True) if r.nickname]
    assert len(row.nickname) <= 30 and "\u202e" not in row.nickname  # cut, control characters gone
    assert all("<img" not in m.value for m in at.markdown)  # never drawn as HTML


def test_leaving_stays_left(store):
    """Leave drops the class from the address too: the next run does not join it again."""
    code, _ = store.new_class()
    at = learn(**{"class": code})
    assert membership.KEY in at.session_state
    at = at.button(key="class_leave").click().run()
    at = at.run()
    assert membership.KEY not in at.session_state and "class" not in at.query_params
    assert store.joined(code) == 0


def test_a_link_s_text_in_a_message_is_not_markdown(store):
    at = session(60, **{"class": "[Sign in](//ev.il)", "lang": "[x](//y.z)"}).run()
    shown = [w for w in at.warning if "Sign in" in w.value or "x" in w.value]
    assert shown and all("](//" not in w.value.replace("\\", "") or "\\[" in w.value for w in shown)


def test_a_question_asked_on_another_sentence_is_revealed_there_and_judged_there(store):
    """The teacher asks on one sentence, moves to another and asks there too. The first question's
    answer on the new sentence is not the one to what the class was asked: its panel offers the
    way back in place of Reveal. Revealed back there, it is the class's vote again (the same round),
    so each student's page goes back to it with the pick recorded there, and is judged on it."""
    code, secret = store.new_class()
    teacher = teacher_asks(store, code, secret)
    first = teacher.radio(key="learn_source").value
    student = pick(learn(**{"class": code}))
    teacher = teacher.radio(key="learn_source").set_value("Hello shiny sun!").run()
    teacher = teacher.button(key="check_top_ask").click().run()
    assert store.vote(code).question == "check_top"
    student = student.run()  # the bell's rerun: to the new question's sentence
    assert not teacher.exception and not [b for b in teacher.button if b.key == "check_ids_reveal"]
    assert any("another sentence or other settings" in c.value for c in teacher.caption)
    teacher = teacher.radio(key="learn_source").set_value(first).run()  # back where it was asked
    teacher = teacher.button(key="check_ids_reveal").click().run()
    vote = store.vote(code)
    assert (vote.question, vote.round, vote.revealed) == ("check_ids", 1, True)  # no new round
    student = student.run()  # the bell's rerun: back to that sentence, judged on the pick made there
    assert not student.exception
    assert student.radio(key="learn_source").value == first
    assert student.success or student.error, [i.value for i in student.info]
    # the question the class was on is left open: on its sentence, Ask the class takes the class back
    teacher = teacher.radio(key="learn_source").set_value("Hello shiny sun!").run()
    labels = [y for fig in figures(teacher) for trace in fig["data"] for y in trace.get("y", [])]
    assert not any("✓" in str(y) for y in labels)  # check_ids's answer on this sentence is not its own
    teacher = teacher.button(key="check_top_reopen").click().run()
    vote = store.vote(code)
    assert (vote.question, vote.round, vote.revealed) == ("check_top", 1, False)  # its vote, its answers
