"""A class's life on each store (conftest: SQLite and Redis): join, answer, reveal, ask again, the
teacher's view, export, close; answers held until revealed; rounds kept; limits refused politely."""

import pytest

from attention.classroom import ClassError
from attention.i18n import use

Q = "learn.softmax"


def joined(store, code, *students):
    for student in students:
        store.join(code, student, nickname=student.title(), caller=student)


def test_a_class_from_start_to_export(store, a_class):
    code, secret = a_class
    joined(store, code, "ann", "bo", "cy")
    for student, option in (("ann", "A"), ("bo", "B"), ("cy", "A")):
        store.answer(code, student, Q, option)

    hidden = store.tally(code, Q)  # a student's page: how many answered, not what
    assert (hidden.joined, hidden.current.answered, hidden.current.counts) == (3, 3, {})
    assert store.tally(code, Q, secret).current.counts == {"A": 2, "B": 1}
    assert not store.revealed(code, Q)

    store.reveal(code, secret, Q)
    assert store.revealed(code, Q) and store.tally(code, Q).current.counts == {"A": 2, "B": 1}

    assert store.ask_again(code, secret, Q) == 2
    assert not store.revealed(code, Q)
    store.answer(code, "ann", Q, "B")
    first, second = store.tally(code, Q, secret).rounds
    assert (first.number, first.counts, first.revealed) == (1, {"A": 2, "B": 1}, True)  # round 1 kept
    assert (second.number, second.counts, second.answered) == (2, {"B": 1}, 1)
    assert store.current_question(code) == Q

    rows = store.export(code, secret)
    assert [(r.question, r.option, r.count, r.round) for r in rows] == [
        (Q, "A", 2, 1),
        (Q, "B", 1, 1),
        (Q, "B", 1, 2),
    ]
    assert all(r.time.endswith("Z") and r.nickname == "" for r in rows)
    named = store.export(code, secret, nicknames=True)[len(rows) :]
    assert sorted((r.nickname, r.option, r.round, r.count) for r in named) == [
        ("Ann", "A", 1, 1), ("Ann", "B", 2, 1), ("Bo", "B", 1, 1), ("Cy", "A", 1, 1),
    ]  # fmt: skip


def test_the_questions_a_page_holds_are_looked_up_at_once(store, a_class):
    code, secret = a_class
    joined(store, code, "ann")
    store.answer(code, "ann", Q, "A")
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
    for option in ("A", "B", "C", "B"):
        store.answer(code, "ann", Q, option)
    assert store.tally(code, Q, secret).current.counts == {"B": 1}
    assert store.tally(code, Q, secret).current.answered == 1


def test_a_revealed_round_takes_no_more_answers(store, a_class):
    code, secret = a_class
    joined(store, code, "ann", "bo")
    store.answer(code, "ann", Q, "A")
    store.reveal(code, secret, Q)
    with pytest.raises(ClassError) as refused:
        store.answer(code, "bo", Q, "B")
    assert refused.value.kind == "revealed"
    store.ask_again(code, secret, Q)
    store.answer(code, "bo", Q, "B")  # the new round takes it


def test_only_a_joined_student_answers(store, a_class):
    code, secret = a_class
    with pytest.raises(ClassError) as refused:
        store.answer(code, "stranger", Q, "A")
    assert refused.value.kind == "not_joined"
    joined(store, code, "ann", "bo")
    store.answer(code, "ann", Q, "A")
    store.leave(code, "ann")
    tally = store.tally(code, Q, secret)
    assert (tally.joined, tally.current.answered) == (1, 1)  # the answer given stays counted
    with pytest.raises(ClassError):
        store.answer(code, "ann", Q, "B")


def test_the_view_the_teacher_sends(store, a_class):
    code, secret = a_class
    assert store.view(code).version == 0 and store.view(code).page == ""
    assert store.send_view(code, secret, "explorer", {"text": "Your journey starts", "heads": "2"}) == 1
    assert store.send_view(code, secret, "learn", {"step": "3"}) == 2
    view = store.view(code)
    assert (view.version, view.page, view.params) == (2, "learn", {"step": "3"})
    with pytest.raises(ClassError) as refused:
        store.send_view(code, secret, "explorer", {"text": "x" * 30_000})
    assert refused.value.kind == "too_long"
    with pytest.raises(ClassError):
        store.send_view(code, secret, "explorer", {"heads": 2})  # values are URL strings


def test_the_current_question_is_the_one_asked_last(store, a_class):
    code, secret = a_class
    assert store.current_question(code) is None
    assert store.ask(code, secret, Q) == 1
    assert store.ask(code, secret, Q) == 1  # asking it again is not a new round
    store.ask(code, secret, "modern.kv_cache")
    assert store.current_question(code) == "modern.kv_cache"


TEACHER_ONLY = {
    "reveal": lambda s, code, secret: s.reveal(code, secret, Q),
    "ask": lambda s, code, secret: s.ask(code, secret, Q),
    "ask_again": lambda s, code, secret: s.ask_again(code, secret, Q),
    "send_view": lambda s, code, secret: s.send_view(code, secret, "explorer", {}),
    "export": lambda s, code, secret: s.export(code, secret, nicknames=True),
    "close": lambda s, code, secret: s.close(code, secret),
    "tally": lambda s, code, secret: s.tally(code, Q, secret),
}


@pytest.mark.parametrize("operation", TEACHER_ONLY)
@pytest.mark.parametrize("wrong", [None, "", "wrong", "other class's", 123])
def test_a_teachers_operation_refuses_a_wrong_or_missing_secret(store, a_class, operation, wrong):
    code, secret = a_class
    joined(store, code, "ann")
    store.answer(code, "ann", Q, "A")
    if wrong == "other class's":
        wrong = store.new_class()[1]
    if operation == "tally" and wrong is None:
        return  # None is a student's tally: the counts stay hidden (test_a_class_from_start_to_export)
    with pytest.raises(ClassError) as refused:
        TEACHER_ONLY[operation](store, code, wrong)
    assert refused.value.kind == "teacher"
    assert "teacher" in str(refused.value)
    assert not store.revealed(code, Q) and store.view(code).version == 0  # nothing changed
    assert store.tally(code, Q, secret).current.number == 1 and store.current_question(code) is None
    assert not store.is_teacher(code, wrong, caller="t") and store.is_teacher(code, secret, caller="t")


def test_a_wrong_code_says_so_clearly(store, a_class):
    use("en")
    for wrong in ("ZZZZ-ZZZZZ", "nonsense", "", "x" * 10_000):
        with pytest.raises(ClassError) as refused:
            store.join(wrong, "ann", caller=f"c{len(wrong)}")
        assert refused.value.kind == "unknown"
        assert "check it with your teacher" in str(refused.value) and len(str(refused.value)) < 100
    assert "ZZZZ-ZZZZZ" in str(pytest.raises(ClassError, store.view, "ZZZZ-ZZZZZ").value)


def test_a_code_is_read_back_as_people_type_it(store, a_class):
    code, _ = a_class
    typed = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert store.join(f"  {typed} ", "ann", caller="ann") == code
    assert store.find(code.replace("-", ""), caller="bo") == code


def test_an_expired_class_is_unknown_and_its_data_deleted(store):
    import time

    code, secret = store.new_class(hours=1 / 3600)  # one second
    joined(store, code, "ann")
    store.answer(code, "ann", Q, "A")
    store.send_view(code, secret, "learn", {"step": "2"})
    time.sleep(1.3)
    for operation in (
        lambda: store.view(code),
        lambda: store.tally(code, Q),
        lambda: store.export(code, secret),
    ):
        with pytest.raises(ClassError) as refused:
            operation()
        assert refused.value.kind == "unknown"
    store.purge()
    assert left_over(store, code) == []


def left_over(store, code):
    """Whatever a store still keeps of the class `code`."""
    canonical = code.replace("-", "")
    if hasattr(store, "redis"):
        listed = store.redis.zscore(store.prefix + "classes", canonical) is not None
        return [k for k in store.redis.scan_iter(store.prefix + "*") if canonical in k] + ["classes"] * listed
    tables = ("classes", "students", "rounds", "answers")
    with store._db() as db:
        return [t for t in tables if db.execute(f"SELECT 1 FROM {t} WHERE code = ?", (canonical,)).fetchone()]


def test_close_deletes_the_class(store, a_class):
    code, secret = a_class
    joined(store, code, "ann")
    store.answer(code, "ann", Q, "A")
    store.close(code, secret)
    assert left_over(store, code) == []
    with pytest.raises(ClassError):
        store.join(code, "bo", caller="bo")


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
    with pytest.raises(ClassError) as refused:
        store.new_class()
    assert refused.value.kind == "classes"
    store.close(first, secret)
    store.new_class()  # closing one makes room


def test_wrong_codes_are_rate_limited_per_caller(make_store):
    import time

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
    time.sleep(1.1)
    assert store.find(code, caller="guesser") == code


@pytest.mark.parametrize(
    ("limit", "operation", "kind"),
    [
        ("questions", lambda s, c, t: [s.answer(c, "ann", f"q{i}", "A") for i in range(3)], "too_many"),
        ("options", lambda s, c, t: [s.answer(c, w, Q, o) for w, o in zip("ab", "XYZ", strict=False)], None),
        (
            "options",
            lambda s, c, t: [s.answer(c, w, Q, o) for w, o in zip("abc", "XYZ", strict=True)],
            "too_many",
        ),
        ("rounds", lambda s, c, t: [s.ask_again(c, t, Q) for _ in range(3)], "too_many"),
    ],
)
def test_a_class_holds_bounded_questions_options_and_rounds(make_store, limit, operation, kind):
    store = make_store(**{limit: 2})
    code, secret = store.new_class()
    joined(store, code, "ann", "a", "b", "c")
    if kind is None:
        operation(store, code, secret)  # two options: within the limit
        store.answer(code, "a", Q, "Y")  # a student changing within the limit
        return
    with pytest.raises(ClassError) as refused:
        operation(store, code, secret)
    assert refused.value.kind == kind


def test_a_freed_option_makes_room(make_store):
    store = make_store(options=2)
    code, secret = store.new_class()
    joined(store, code, "a", "b")
    store.answer(code, "a", Q, "X")
    store.answer(code, "b", Q, "Y")
    store.answer(code, "b", Q, "X")  # Y is no one's answer now
    store.answer(code, "a", Q, "Z")
    assert store.tally(code, Q, secret).current.counts == {"X": 1, "Z": 1}


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (("q" * 65, "A"), "too_long"),
        ((Q, "A" * 121), "too_long"),
        (("<b>", "A"), "invalid"),
        ((Q, " \x00 "), "invalid"),
    ],
)
def test_long_or_odd_questions_and_options_are_refused(store, a_class, value, kind):
    code, _ = a_class
    joined(store, code, "ann")
    with pytest.raises(ClassError) as refused:
        store.answer(code, "ann", *value)
    assert refused.value.kind == kind
