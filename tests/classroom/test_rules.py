"""Codes, secrets and nicknames: what a class accepts from outside (attention/classroom/codes.py,
rules.py), and how a store keeps it."""

import math
import unicodedata
from collections import Counter

import pytest

from attention.classroom import codes, rules, to_csv
from attention.classroom.records import Row


def test_a_code_has_45_random_bits_in_crockfords_alphabet():
    assert len(codes.ALPHABET) == 32 and not set("ILOU") & set(codes.ALPHABET)
    assert codes.BITS == codes.LENGTH * math.log2(len(codes.ALPHABET)) >= 40
    drawn = [codes.new_code() for _ in range(4000)]
    assert all(len(c) == 10 and c[4] == "-" for c in drawn) and len(set(drawn)) == len(drawn)
    letters = Counter("".join(c.replace("-", "") for c in drawn))
    assert set(letters) == set(codes.ALPHABET)
    expected = 4000 * 9 / 32  # each character equally likely: 1125 per character
    assert all(abs(n - expected) < 0.2 * expected for n in letters.values())


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("K7QX-M2P9R", "K7QXM2P9R"),
        ("k7qx-m2p9r", "K7QXM2P9R"),
        (" k7qx m2p9r\n", "K7QXM2P9R"),
        ("K7QXM2P9R", "K7QXM2P9R"),
        ("O1IL-ABCDE", "0111ABCDE"),  # O is 0; I and L are 1
        ("K7QX-M2P9", None),  # one short
        ("K7QX-M2P9RR", None),
        ("U7QX-M2P9R", None),  # not in the alphabet
        ("K7QX_M2P9R", None),
        ("", None),
        ("x" * 10_000, None),
        (None, None),
        (12345, None),
    ],
)
def test_a_code_is_read_as_people_type_it(typed, read):
    assert codes.canonical(typed) == read


def test_a_teachers_secret_is_long_and_only_its_hash_is_kept(store):
    code, secret = store.new_class()
    seat = store.seat(code, secret)
    assert len(secret) >= 22 and codes.SECRET_BYTES * 8 >= 128  # token_urlsafe: 6 bits a character
    assert codes.same_secret(secret, codes.hashed(secret)) and not codes.same_secret(
        secret[:-1], codes.hashed(secret)
    )
    assert not codes.same_secret(None, codes.hashed(secret)) and not codes.same_secret("", codes.hashed(""))
    if hasattr(store, "redis"):  # every value of every key (DUMP compresses a long hash)
        read = {"hash": store.redis.hgetall, "zset": lambda k: store.redis.zrange(k, 0, -1, withscores=True)}
        keys = store.redis.scan_iter(store.prefix + "*")
        kept = "".join(str(read.get(store.redis.type(k), store.redis.dump)(k)) for k in keys)
    else:
        kept = "".join(
            path.read_bytes().decode("latin-1") for path in store.path.parent.glob("classes.sqlite3*")
        )
    assert secret not in kept and codes.hashed(secret) in kept
    assert seat not in kept and codes.hashed(seat) in kept


def test_the_links():
    assert codes.join_query("K7QX-M2P9R") == "?class=K7QX-M2P9R"
    assert codes.teacher_query("K7QX-M2P9R", "a-b_c") == "?class=K7QX-M2P9R&teacher=a-b_c"


HOSTILE = [
    "<script>alert(1)</script>",
    "**bold** [link](http://x) `code` # heading",
    "Robert'); DROP TABLE students;--",
    "x" * 10_000,
    "ann\x00\x07\x1b[31mred\r\nnext",
    "\u202egnp.exe",  # an RTL override: shows as "exe.png"
    "a\u2066b\u2069c\u200fd\u061c",
    "\u2028line\u2029para",
    "👩‍👩‍👧‍👦" * 10,  # 7 code points each
    "e\u0301" * 40,  # e + a combining accent: never split
    "   spaced   ",
    "{name} %s {0}",
]


@pytest.mark.parametrize("typed", HOSTILE)
def test_a_nickname_is_stored_inert_and_short(store, typed):
    code, secret = store.new_class()
    store.join(code, "s", nickname=typed, caller="s")
    store.answer(code, "s", "learn.q", 0, store.ask(code, secret, "learn.q", ["A"]))
    [row] = [r for r in store.export(code, secret, nicknames=True) if r.nickname] or [
        Row("", 0, 0, "", 0, "")
    ]
    kept = row.nickname
    assert kept == rules.nickname(typed) and len(kept) <= rules.NICKNAME_CHARS and kept == kept.strip()
    assert not [c for c in kept if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") or c in rules.BIDI]
    source = rules.visible(typed).strip()
    assert kept and source.startswith(kept)  # what was typed, cut: nothing added
    after = source[len(kept) : len(kept) + 1]
    assert (
        after == "" or after.isspace() or unicodedata.category(after) != "Mn" and after != "\u200d"
    )  # whole


def test_a_nickname_keeps_what_people_write():
    assert rules.nickname("<b>Ann</b>") == "<b>Ann</b>"  # escaped where it is shown, never here
    assert rules.nickname("  Зоя 🌻 ") == "Зоя 🌻"
    assert rules.nickname("\u202eevil") == "evil"
    assert rules.nickname(None) == "" and rules.nickname(42) == ""


def test_csv_cells_never_run_as_formulas():
    rows = [Row("q", 1, 0, '=HYPERLINK("http://x")', 1, "t", "+1-2"), Row("q", 1, 1, "A", 2, "t", "@SUM(A1)")]
    text = to_csv(rows, nicknames=True)
    assert text.splitlines() == [
        "question,round,position,option,count,time,nickname",
        'q,1,0,"\'=HYPERLINK(""http://x"")",1,t,\'+1-2',
        "q,1,1,A,2,t,'@SUM(A1)",
    ]
    assert to_csv(rows).splitlines()[0] == "question,round,position,option,count,time"


@pytest.mark.parametrize("hours", [0, -1, 24 * 8, float("nan"), float("inf"), "12", True])
def test_a_class_lasts_a_second_to_a_week(store, hours):
    from attention.classroom import ClassError

    with pytest.raises(ClassError) as refused:
        store.new_class(hours)
    assert refused.value.kind == "invalid"


def test_limits_come_from_the_settings(monkeypatch):
    monkeypatch.setenv("ATTENTION_MAX_CLASSES", "7")
    monkeypatch.setenv("ATTENTION_MAX_STUDENTS", "30")
    monkeypatch.setenv("ATTENTION_CLASS_HOURS", "2")
    limits = rules.Limits.from_settings()
    assert (limits.classes, limits.students, limits.hours) == (7, 30, 2.0)
    monkeypatch.setenv("ATTENTION_MAX_STUDENTS", "many")  # not a number: the default
    monkeypatch.setenv("ATTENTION_CLASS_HOURS", "1000")  # past a week: a week
    limits = rules.Limits.from_settings()
    assert (limits.students, limits.hours) == (500, 24 * 7)
