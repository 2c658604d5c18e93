"""A class's life on each store (conftest: SQLite and Redis): join, ask, answer, reveal, ask again,
the teacher's view, export, close; answers held until revealed; rounds kept; limits refused politely."""

import time

import pytest

from attention.classroom import ClassError
from attention.i18n import use

Q = "learn.softmax"
AB = ("A", "B")


def joined(store, code, *students):
    for student in students:
        store.join(code, student, nickname=student.title(), caller=student)


def kind(operation) -> str:
    """The kind of ClassError `operation()` raises."""
    with pytest.raises(ClassError) as refused:
        operation()
    return refused.value.kind


def test_a_class_from_start_to_export(store, a_class):
    code, secret = a_class
    joined(store, code, "ann", "bo", "cy")
    assert store.vote(code) is None
    number = store.ask(code, secret, Q, AB, "learn", {"step": "3"})
    assert number == 1
    vote = store.vote(code)
    assert (vote.question, vote.round, vote.options, vote.page, vote.params, vote.revealed) == (
        Q, 1, AB, "learn", {"step": "3"}, False,
    )  # fmt: skip
    for student, option in (("ann", 0), ("bo", 1), ("cy", 0)):
        store.answer(code, student, Q, option, number)

    hidden = store.tally(code, Q)  # a student's page: how many answered, not what
    assert (hidden.joined, hidden.current.answered, hidden.current.counts) == (3, 3, {})
    assert hidden.current.options == AB
    assert store.tally(code, Q, secret).current.counts == {0: 2, 1: 1}
    assert not store.revealed(code, Q)

    store.reveal(code, secret, Q)
    assert store.revealed(code, Q) and store.tally(code, Q).current.counts == {0: 2, 1: 1}
    assert store.vote(code).revealed

    assert store.ask_again(code, secret, Q, AB) == 2
    assert not store.revealed(code, Q) and store.vote(code).round == 2
    store.answer(code, "ann", Q, 1, 2)
    first, second = store.tally(code, Q, secret).rounds
    assert (first.number, first.counts, first.revealed) == (1, {0: 2, 1: 1}, True)  # round 1 kept
    assert (second.number, second.counts, second.answered) == (2, {1: 1}, 1)
    assert store.current_question(code) == Q

    rows = store.export(code, secret)
    assert [(r.question, r.round, r.position, r.option, r.count) for r in rows] == [
        (Q, 1, 0, "A", 2), (Q, 1, 1, "B", 1), (Q, 2, 0, "A", 0), (Q, 2, 1, "B", 1),
    ]  # fmt: skip
    assert all(r.time.endswith("Z") and r.nickname == "" for r in rows)
    named = store.export(code, secret, nicknames=True)[len(rows) :]
    assert [(r.nickname, r.option, r.round, r.count) for r in named] == [
        ("Ann", "A", 1, 1), ("Bo", "B", 1, 1), ("Cy", "A", 1, 1), ("Ann", "B", 2, 1),
    ]  # fmt: skip


def test_a_reload_or_a_second_tab_is_the_same_student(store, a_class):
    """A student is the browser's token: joining again re-attaches, and its answer is one."""
    code, secret = a_class
    number = store.ask(code, secret, Q, AB)
    for tab in range(3):  # a reload, a second tab, a phone back from sleep
        store.join(code, "browser-1", nickname=None if tab else "Ann", caller=f"tab{tab}")
        store.answer(code, "browser-1", Q, tab % 2, number)
    tally = store.tally(code, Q, secret)
    assert (tally.joined, tally.current.answered, tally.current.counts) == (1, 1, {0: 1})
    assert [r.nickname for r in store.export(code, secret, nicknames=True) if r.nickname] == ["Ann"]
    store.join(code, "browser-1", nickname="Annie")  # a nickname given replaces the stored one
    assert [r.nickname for r in store.export(code, secret, nicknames=True) if r.nickname] == ["Annie"]
    assert store.is_student(code, "browser-1", caller="t") and not store.is_student(code, "other", caller="t")
    store.leave(code, "browser-1")
    assert not store.is_student(code, "browser-1", caller="t")
    assert kind(lambda: store.is_student("ZZZZ-ZZZZZ", "browser-1", caller="t")) == "unknown"


def test_join_answer_leave_cycles_never_grow_a_class(make_store):
    """A student who leaves is deleted with their answers in open rounds: the cap counts rows, so
    50 join/answer/leave cycles under a cap of 3 leave at most 3 rows, and the teacher never sees
    "50 of 0 students have answered"."""
    store = make_store(students=3)
    code, secret = store.new_class()
    number = store.ask(code, secret, Q, AB)
    joined(store, code, "stays")
    store.answer(code, "stays", Q, 0, number)
    for i in range(50):
        store.join(code, f"bot-{i}", nickname=f"bot {i}")
        store.answer(code, f"bot-{i}", Q, 1, number)
        tally = store.tally(code, Q, secret)
        assert tally.current.answered <= tally.joined <= 3
        store.leave(code, f"bot-{i}")
    tally = store.tally(code, Q, secret)
    assert (tally.joined, tally.current.answered, tally.current.counts) == (1, 1, {0: 1})
    assert rows_of(store, code) <= 3 + 1  # the student's row and answer, and the class's own
    assert [r.nickname for r in store.export(code, secret, nicknames=True) if r.nickname] == ["Stays"]


def test_a_revealed_round_keeps_the_answers_of_a_student_who_leaves(store, a_class):
    code, secret = a_class
    joined(store, code, "ann", "bo")
    store.ask(code, secret, Q, AB)
    store.answer(code, "ann", Q, 0, 1)
    store.reveal(code, secret, Q)
    store.ask_again(code, secret, Q, AB)
    store.answer(code, "ann", Q, 1, 2)
    store.leave(code, "ann")
    first, second = store.tally(code, Q, secret).rounds
    assert (first.counts, second.counts, store.joined(code)) == ({0: 1}, {}, 1)  # round 1 is final
    assert kind(lambda: store.answer(code, "ann", Q, 0, 2)) == "not_joined"


def test_the_questions_a_page_holds_are_looked_up_at_once(store, a_class):
    code, secret = a_class
    joined(store, code, "ann")
    store.ask(code, secret, Q, AB)
    store.answer(code, "ann", Q, 0, 1)
    store.ask(code, secret, "other")
    assert store.revealed_among(code, {Q, "other", "never.asked"}) == set()
    store.reveal(code, secret, Q)
    assert store.revealed_among(code, [Q, "other", "never.asked"]) == {Q}
    store.ask_again(code, secret, Q)  # its new round is held again
    store.reveal(code, secret, "other")
    assert store.revealed_among(code, {Q, "other"}) == {"other"}
    assert store.revealed_among(code, set()) == set()
    store.close(code, secret)
    for asked in ({Q}, set()):
        with pytest.raises(ClassError):
            store.revealed_among(code, asked)


def test_an_answer_replaced_is_counted_once(store, a_class):
    code, secret = a_class
    joined(store, code, "ann")
    number = store.ask(code, secret, Q, ("A", "B", "C"))
    for option in (0, 1, 2, 1):
        store.answer(code, "ann", Q, option, number)
    assert store.tally(code, Q, secret).current.counts == {1: 1}
    assert store.tally(code, Q, secret).current.answered == 1


def test_a_revealed_round_takes_no_more_answers(store, a_class):
    code, secret = a_class
    joined(store, code, "ann", "bo")
    store.ask(code, secret, Q, AB)
    store.answer(code, "ann", Q, 0, 1)
    store.reveal(code, secret, Q)
    assert kind(lambda: store.answer(code, "bo", Q, 1, 1)) == "revealed"
    store.ask_again(code, secret, Q, AB)
    store.answer(code, "bo", Q, 1, 2)  # the new round takes it


def test_students_answer_only_after_the_teacher_asks(store, a_class):
    """Answering no longer opens a round: the teacher asks first."""
    code, secret = a_class
    joined(store, code, "ann")
    use("en")
    with pytest.raises(ClassError) as refused:
        store.answer(code, "ann", Q, 0, 1)
    assert refused.value.kind == "not_asked" and "not asked" in str(refused.value)
    assert kind(lambda: store.reveal(code, secret, Q)) == "not_asked"
    assert store.tally(code, Q, secret).rounds == () and store.vote(code) is None


def test_an_answer_to_a_round_the_teacher_replaced_is_refused(store, a_class):
    """A pick made just before Ask again names the round its page showed: refused, not counted in
    the new round."""
    code, secret = a_class
    joined(store, code, "ann")
    store.ask(code, secret, Q, AB)
    store.ask_again(code, secret, Q, AB)
    use("en")
    with pytest.raises(ClassError) as refused:
        store.answer(code, "ann", Q, 0, 1)
    assert refused.value.kind == "stale" and "pick your answer again" in str(refused.value)
    assert kind(lambda: store.answer(code, "ann", Q, 0, 3)) == "stale"
    assert [r.answered for r in store.tally(code, Q, secret).rounds] == [0, 0]
    store.answer(code, "ann", Q, 0, 2)


def test_an_answer_is_a_position_among_the_rounds_options(store, a_class):
    code, secret = a_class
    joined(store, code, "ann")
    store.ask(code, secret, Q, AB)
    for wrong in (2, -1, "0", True, 0.0):
        assert kind(lambda wrong=wrong: store.answer(code, "ann", Q, wrong, 1)) == "invalid"
    store.ask(code, secret, "no.texts")  # a round without texts takes positions up to limits.options
    store.answer(code, "ann", "no.texts", store.limits.options - 1, 1)
    assert kind(lambda: store.answer(code, "ann", "no.texts", store.limits.options, 1)) == "invalid"


def test_the_export_has_the_teachers_texts_and_every_option(store, a_class):
    """One row per option per round, count 0 for nobody's pick; questions in the order first asked,
    options by position (10 after 9, never as strings)."""
    code, secret = a_class
    joined(store, code, "ann", "bo")
    twelve = [f"option {i}" for i in range(12)]
    store.ask(code, secret, "z.first", ["=1+1", "yes"])
    store.ask(code, secret, "a.second", twelve)
    store.answer(code, "ann", "a.second", 10, 1)
    store.answer(code, "bo", "z.first", 1, 1)
    rows = store.export(code, secret)
    assert [(r.question, r.position, r.option, r.count) for r in rows[:2]] == [
        ("z.first", 0, "=1+1", 0), ("z.first", 1, "yes", 1),
    ]  # fmt: skip
    assert [r.position for r in rows[2:]] == list(range(12))
    assert [r.count for r in rows[2:]] == [0] * 10 + [1, 0] and rows[12].option == "option 10"
    named = [
        (r.nickname, r.question, r.option) for r in store.export(code, secret, nicknames=True) if r.nickname
    ]
    assert named == [("Bo", "z.first", "yes"), ("Ann", "a.second", "option 10")]


def test_asking_again_the_same_vote_changes_nothing(store, a_class):
    code, secret = a_class
    assert store.ask(code, secret, Q, AB) == 1
    assert store.ask(code, secret, Q, ("other", "texts")) == 1  # the current, open round: unchanged
    assert store.vote(code).options == AB
    store.ask(code, secret, "other.question")
    assert store.ask(code, secret, Q, AB) == 1 and store.current_question(code) == Q  # back to it
    store.ask(code, secret, "other.question")
    assert store.ask(code, secret, Q, ("new", "options")) == 2  # other options: a new vote
    assert store.vote(code).options == ("new", "options")
    store.reveal(code, secret, Q)
    assert store.ask(code, secret, Q, ("new", "options")) == 2  # revealed, same vote: kept
    assert store.ask(code, secret, Q, ("newer",)) == 3


def test_each_round_keeps_the_view_it_was_asked_on_and_asking_it_there_is_that_vote_again(store, a_class):
    """A teacher who asked a question on one sentence and moved on reveals it where it was asked:
    the round says where (ui/classroom/panel.py), for the teacher and for each student."""
    code, secret = a_class
    joined(store, code, "ann")
    view = {"sentence": "0", "seed": "123"}
    store.ask(code, secret, Q, AB, "learn", view)
    store.ask(code, secret, "other.question", ("x", "y"), "learn", {"sentence": "1"})
    (kept,) = store.tally(code, Q, secret).rounds
    assert (kept.page, kept.params, kept.options) == ("learn", view, AB)
    assert store.tally(code, Q).rounds[0].params == view  # a student's tally too
    assert store.ask(code, secret, Q, kept.options, kept.page, kept.params) == 1  # the class's vote again
    vote = store.vote(code)
    assert (vote.question, vote.round, vote.page, vote.params) == (Q, 1, "learn", view)
    store.ask(code, secret, "no.view")
    assert (
        store.tally(code, "no.view", secret).rounds[0].page == ""
        and store.tally(code, "no.view").rounds[0].params == {}
    )


def test_the_view_the_teacher_sends(store, a_class):
    code, secret = a_class
    assert store.view(code).version == 0 and store.view(code).page == ""
    assert store.send_view(code, secret, "explorer", {"text": "Your journey starts", "heads": "2"}) == 1
    assert store.send_view(code, secret, "learn", {"step": "3"}) == 2
    view = store.view(code)
    assert (view.version, view.page, view.params) == (2, "learn", {"step": "3"})
    assert kind(lambda: store.send_view(code, secret, "explorer", {"text": "x" * 30_000})) == "too_long"
    with pytest.raises(ClassError):
        store.send_view(code, secret, "explorer", {"heads": 2})  # values are URL strings
    with pytest.raises(ClassError):
        store.ask(code, secret, Q, AB, "explorer", {"heads": 2})  # a vote's view too


def test_the_current_question_is_the_one_asked_last(store, a_class):
    code, secret = a_class
    assert store.current_question(code) is None
    assert store.ask(code, secret, Q) == 1
    assert store.ask(code, secret, Q) == 1  # asking it again is not a new round
    store.ask(code, secret, "modern.kv_cache")
    assert store.current_question(code) == "modern.kv_cache"


TEACHER_ONLY = {
    "reveal": lambda s, code, secret: s.reveal(code, secret, Q),
    "ask": lambda s, code, secret: s.ask(code, secret, "another", AB),
    "ask_again": lambda s, code, secret: s.ask_again(code, secret, Q, AB),
    "send_view": lambda s, code, secret: s.send_view(code, secret, "explorer", {}),
    "export": lambda s, code, secret: s.export(code, secret, nicknames=True),
    "close": lambda s, code, secret: s.close(code, secret),
    "tally": lambda s, code, secret: s.tally(code, Q, secret),
    "seat": lambda s, code, secret: s.seat(code, secret),
}


@pytest.mark.parametrize("operation", TEACHER_ONLY)
@pytest.mark.parametrize("wrong", [None, "", "wrong", "other class's", "other class's seat", 123])
def test_a_teachers_operation_refuses_a_wrong_or_missing_secret(store, a_class, operation, wrong):
    code, secret = a_class
    joined(store, code, "ann")
    store.ask(code, secret, Q, AB)
    store.answer(code, "ann", Q, 0, 1)
    if wrong == "other class's":
        wrong = store.new_class()[1]
    if wrong == "other class's seat":
        other, other_secret = store.new_class()
        wrong = store.seat(other, other_secret)
    if operation == "tally" and wrong is None:
        return  # None is a student's tally: the counts stay hidden (test_a_class_from_start_to_export)
    with pytest.raises(ClassError) as refused:
        TEACHER_ONLY[operation](store, code, wrong)
    assert refused.value.kind == "teacher"
    assert "teacher" in str(refused.value)
    assert not store.revealed(code, Q) and store.view(code).version == 0  # nothing changed
    assert store.tally(code, Q, secret).current.number == 1 and store.current_question(code) == Q
    assert not store.is_teacher(code, wrong, caller="t") and store.is_teacher(code, secret, caller="t")


@pytest.mark.parametrize("operation", TEACHER_ONLY)
def test_a_seat_does_what_the_secret_does(store, a_class, operation):
    code, secret = a_class
    joined(store, code, "ann")
    store.ask(code, secret, Q, AB)
    seat = store.seat(code, secret)
    assert seat != secret and len(seat) >= 32
    assert store.is_teacher(code, seat, caller="t")
    TEACHER_ONLY[operation](store, code, seat)


def test_a_class_keeps_its_newest_seats(make_store):
    store = make_store(seats=2)
    code, secret = store.new_class()
    first = store.seat(code, secret)
    second = store.seat(code, first)  # a seat mints a seat (a teacher's second device)
    third = store.seat(code, secret)
    assert not store.is_teacher(code, first, caller="t")  # the oldest went
    assert all(store.is_teacher(code, s, caller="t") for s in (second, third, secret))
    assert kind(lambda: store.send_view(code, first, "learn", {})) == "teacher"


def test_a_wrong_code_says_so_clearly(store, a_class):
    use("en")
    for wrong in ("ZZZZ-ZZZZZ", "nonsense", "", "x" * 10_000):
        with pytest.raises(ClassError) as refused:
            store.join(wrong, "ann", caller=f"c{len(wrong)}")
        assert refused.value.kind == "unknown"
        assert "check it with your teacher" in str(refused.value) and len(str(refused.value)) < 100
    assert "ZZZZ-ZZZZZ" in str(pytest.raises(ClassError, store.view, "ZZZZ-ZZZZZ").value)
    assert kind(lambda: store.vote("ZZZZ-ZZZZZ")) == "unknown"


def test_a_code_is_read_back_as_people_type_it(store, a_class):
    code, _ = a_class
    typed = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert store.join(f"  {typed} ", "ann", caller="ann") == code
    assert store.find(code.replace("-", ""), caller="bo") == code


def test_an_expired_class_is_unknown_and_its_data_deleted(store):
    code, secret = store.new_class(hours=1 / 3600)  # one second
    joined(store, code, "ann")
    store.ask(code, secret, Q, AB)
    store.answer(code, "ann", Q, 0, 1)
    seat = store.seat(code, secret)
    store.send_view(code, secret, "learn", {"step": "2"})
    time.sleep(1.3)
    for operation in (
        lambda: store.view(code),
        lambda: store.tally(code, Q),
        lambda: store.vote(code),
        lambda: store.export(code, seat),
    ):
        assert kind(operation) == "unknown"
    store.purge()
    assert left_over(store, code) == []


def test_an_empty_class_ends_soon_and_a_joined_one_lives_on(make_store):
    """A class nobody joins ends after limits.empty_hours; the first join extends it to its end."""
    store = make_store(empty_hours=1 / 3600)  # one second
    empty, _ = store.new_class()
    used, secret = store.new_class()
    store.ask(used, secret, Q, AB)  # asked before anyone joined: its keys live on too
    joined(store, used, "ann")
    listed = {c.code: c for c in store.classes()}
    assert listed[empty].expires < listed[used].expires
    time.sleep(1.3)
    assert kind(lambda: store.find(empty, caller="t")) == "unknown"
    assert store.find(used, caller="t") == used
    store.answer(used, "ann", Q, 1, 1)
    store.purge()
    assert [c.code for c in store.classes()] == [used] and left_over(store, empty) == []
    assert store.tally(used, Q, secret).current.counts == {1: 1}


def left_over(store, code):
    """Whatever a store still keeps of the class `code`."""
    canonical = code.replace("-", "")
    if hasattr(store, "redis"):
        listed = store.redis.zscore(store.prefix + "classes", canonical) is not None
        return [k for k in store.redis.scan_iter(store.prefix + "*") if canonical in k] + ["classes"] * listed
    tables = ("classes", "seats", "students", "rounds", "answers")
    with store._db() as db:
        return [t for t in tables if db.execute(f"SELECT 1 FROM {t} WHERE code = ?", (canonical,)).fetchone()]


def rows_of(store, code) -> int:
    """Students and answers a store keeps for the class `code` (rows, or hash fields on Redis)."""
    canonical = code.replace("-", "")
    if hasattr(store, "redis"):
        students = store.redis.hlen(store.prefix + canonical + ":students")
        answers = sum(store.redis.hlen(k) for k in store.redis.scan_iter(f"{store.prefix}{canonical}:a:*"))
        return students + answers // 2  # an answer is two fields: the position and when
    with store._db() as db:
        return sum(
            db.execute(f"SELECT COUNT(*) FROM {t} WHERE code = ?", (canonical,)).fetchone()[0]
            for t in ("students", "answers")
        )


def test_close_deletes_the_class(store, a_class):
    code, secret = a_class
    joined(store, code, "ann")
    store.ask(code, secret, Q, AB)
    store.answer(code, "ann", Q, 0, 1)
    store.seat(code, secret)
    store.close(code, secret)
    assert left_over(store, code) == []
    with pytest.raises(ClassError):
        store.join(code, "bo", caller="bo")


def test_the_administrator_lists_and_closes_every_class(store):
    first, secret = store.new_class()
    second, _ = store.new_class()
    joined(store, first, "ann", "bo")
    store.ask(first, secret, Q, AB)
    listed = {c.code: c for c in store.classes()}
    assert set(listed) == {first, second}
    assert (listed[first].students, listed[first].questions) == (2, 1)
    assert listed[first].created.endswith("Z") and listed[first].expires > listed[first].created
    assert secret not in repr(listed)
    assert store.close_all() == 2
    assert store.classes() == [] and left_over(store, first) == [] and left_over(store, second) == []
    store.new_class()  # the store works on


def test_a_full_class_is_refused_politely(make_store):
    store = make_store(students=3)
    code, _ = store.new_class()
    joined(store, code, "ann", "bo", "cy")
    use("en")
    with pytest.raises(ClassError) as refused:
        store.join(code, "dee", caller="dee")
    assert refused.value.kind == "full" and "3 students" in str(refused.value)
    store.join(code, "ann", nickname="Annie")  # already in: joining again only renames
    store.leave(code, "bo")
    store.join(code, "dee")  # a place was freed


def test_too_many_classes_are_refused(make_store):
    store = make_store(classes=2)
    first, secret = store.new_class()
    store.new_class()
    assert kind(store.new_class) == "classes"
    store.close(first, secret)
    store.new_class()  # closing one makes room


def test_the_default_class_limit_is_a_guard_for_the_disk():
    from attention.classroom import Limits

    assert Limits().classes == 5000


def test_one_browser_cannot_start_classes_without_end(make_store):
    """250 starts from one browser: refused after its limit, while another browser still starts,
    until the address they share reaches its own limit."""
    store = make_store()
    results = []
    for _ in range(250):
        try:
            store.new_class(starters={"browser:greedy": 5, "address:10.0.0.1": 8})
            results.append("ok")
        except ClassError as error:
            results.append(error.kind)
    assert results == ["ok"] * 5 + ["starts"] * 245
    use("en")
    with pytest.raises(ClassError) as refused:
        store.new_class(starters={"browser:greedy": 5})
    assert "5 classes were started" in str(refused.value) and "60 min" in str(refused.value)
    for _ in range(3):
        store.new_class(starters={"browser:other": 5, "address:10.0.0.1": 8})
    assert kind(lambda: store.new_class(starters={"browser:third": 5, "address:10.0.0.1": 8})) == "starts"
    store.new_class(starters={"browser:third": 5, "address:10.0.0.2": 8})  # another address
    assert len(store.classes()) == 5 + 3 + 1


def test_starts_are_counted_again_when_the_window_ends(make_store):
    store = make_store(starts_window=1.0)
    store.new_class(starters={"browser:a": 1})
    assert kind(lambda: store.new_class(starters={"browser:a": 1})) == "starts"
    time.sleep(1.1)
    store.purge()
    store.new_class(starters={"browser:a": 1})


def test_the_starts_a_store_remembers_are_bounded(make_store):
    store = make_store(callers=3)
    for i in range(6):
        store.new_class(starters={f"browser:{i}": 1})
    if hasattr(store, "redis"):
        assert store.redis.zcard(store.prefix + "starts") == 3
        assert store.redis.hlen(store.prefix + "starts:n") == 3
    else:
        with store._db() as db:
            assert db.execute("SELECT COUNT(*) FROM starts").fetchone()[0] == 3
    assert kind(lambda: store.new_class(starters={"browser:5": 1})) == "starts"  # the newest kept


@pytest.mark.parametrize(
    "starters", [{"b": 0}, {"b": True}, {"b": "5"}, ["b"], {f"b{i}": 1 for i in range(9)}]
)
def test_odd_starters_are_refused(store, starters):
    assert kind(lambda: store.new_class(starters=starters)) == "invalid"


def test_a_server_with_a_teacher_key_needs_it(store, monkeypatch):
    monkeypatch.setenv("ATTENTION_TEACHER_KEY", "open sesame")
    use("en")
    for wrong in (None, "", "open", "open sesame!", 42):
        with pytest.raises(ClassError) as refused:
            store.new_class(key=wrong)
        assert refused.value.kind == "teacher_key" and "teacher key" in str(refused.value)
    code, _ = store.new_class(key="open sesame")
    assert store.find(code, caller="t") == code
    monkeypatch.delenv("ATTENTION_TEACHER_KEY")
    store.new_class()  # no key set: anyone starts (the starters' limits still hold)


def test_wrong_codes_are_rate_limited_per_caller(make_store):
    store = make_store(tries=3, window=1.0)
    code, _ = store.new_class()
    for _ in range(3):
        with pytest.raises(ClassError):
            store.find("AAAA-AAAAA", caller="guesser")
    use("en")
    with pytest.raises(ClassError) as refused:
        store.find(code, caller="guesser")  # even the right code, until the window ends
    assert refused.value.kind == "tries" and "wait 1 s" in str(refused.value)
    assert store.find(code, caller="someone else") == code
    assert kind(lambda: store.is_student(code, "ann", caller="guesser")) == "tries"
    time.sleep(1.1)
    assert store.find(code, caller="guesser") == code


@pytest.mark.parametrize(
    ("limit", "operation", "kind"),
    [
        ("questions", lambda s, c, t: [s.ask(c, t, f"q{i}", AB) for i in range(3)], "too_many"),
        ("options", lambda s, c, t: s.ask(c, t, Q, ("X", "Y")), None),
        ("options", lambda s, c, t: s.ask(c, t, Q, ("X", "Y", "Z")), "too_many"),
        ("options", lambda s, c, t: s.ask_again(c, t, Q, ("X", "Y", "Z")), "too_many"),
        ("rounds", lambda s, c, t: [s.ask_again(c, t, Q) for _ in range(3)], "too_many"),
    ],
)
def test_a_class_holds_bounded_questions_options_and_rounds(make_store, limit, operation, kind):
    store = make_store(**{limit: 2})
    code, secret = store.new_class()
    if kind is None:
        operation(store, code, secret)  # two options: within the limit
        return
    with pytest.raises(ClassError) as refused:
        operation(store, code, secret)
    assert refused.value.kind == kind


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (("q" * 65, AB), "too_long"),
        ((Q, ("A" * 121,)), "too_long"),
        (("<b>", AB), "invalid"),
        ((Q, (" \x00 ",)), "invalid"),
        ((Q, "AB"), "invalid"),  # a string is not a list of options
    ],
)
def test_long_or_odd_questions_and_options_are_refused(store, a_class, value, kind):
    code, secret = a_class
    with pytest.raises(ClassError) as refused:
        store.ask(code, secret, *value)
    assert refused.value.kind == kind


def test_options_are_cleaned_like_any_text(store, a_class):
    code, secret = a_class
    store.ask(code, secret, Q, ["  yes ", "n\u202eo"])
    assert store.vote(code).options == ("yes", "no")


def test_a_students_own_pick_is_read_back_per_round(store, a_class):
    """A reload or a second tab shows the student's recorded answer, not an empty question."""
    code, secret = a_class
    joined(store, code, "ann", "bo")
    first = store.ask(code, secret, Q, AB)
    store.answer(code, "ann", Q, 1, first)
    assert store.picked(code, "ann", Q, first) == 1 and store.picked(code, "bo", Q, first) is None
    store.reveal(code, secret, Q)
    second = store.ask_again(code, secret, Q, AB)
    assert store.picked(code, "ann", Q, second) is None and store.picked(code, "ann", Q, first) == 1
    store.close(code, secret)
    assert store.picked(code, "ann", Q, first) is None  # the class and its answers are gone


def test_the_teacher_key_cannot_be_guessed(make_store, monkeypatch):
    monkeypatch.setenv("ATTENTION_TEACHER_KEY", "sesame-1234")
    store = make_store(tries=3)
    guesser = {"address:203.0.113.9": 30}
    for _ in range(3):
        assert kind(lambda: store.new_class(starters=guesser, key="guess")) == "teacher_key"
    assert (
        kind(lambda: store.new_class(starters=guesser, key="sesame-1234")) == "tries"
    )  # locked, right or not
    store.new_class(starters={"address:198.51.100.1": 30}, key="sesame-1234")  # another teacher


def test_a_known_token_or_seat_is_never_locked_out_by_wrong_codes(store, a_class):
    code, secret = a_class
    joined(store, code, "ann")
    seat = store.seat(code, secret)
    for _ in range(store.limits.tries):
        kind(lambda: store.find("ZZZZ-ZZZZZ", caller="school"))
    assert kind(lambda: store.find(code, caller="school")) == "tries"  # a new joiner waits
    assert store.is_student(code, "ann", caller="school") and store.is_teacher(code, seat, caller="school")
