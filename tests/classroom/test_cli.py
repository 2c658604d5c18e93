"""python -m attention.classroom new | export | close, as a teacher would run them, on the store
ATTENTION_CLASS_STORE names (a fresh SQLite file here)."""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention.classroom import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cli(tmp_path):
    path = tmp_path / "c.sqlite3"
    env = {**os.environ, "ATTENTION_CLASS_STORE": f"sqlite://{path}", "PYTHONPATH": str(ROOT)}

    def run(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "attention.classroom", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)

    run.path = path
    return run


def test_new_prints_the_code_the_links_and_the_secret(cli):
    made = cli("new", "--json", "--hours", "2")
    assert made.returncode == 0, made.stderr
    found = json.loads(made.stdout)
    code, secret = found["code"], found["secret"]
    assert found["join"] == f"?class={code}" and found["teacher"] == f"?class={code}&teacher={secret}"
    assert found["expires"].endswith("Z")
    assert SQLiteStore(cli.path).is_teacher(code, secret, caller="t")
    text = cli("new").stdout
    assert "Class code:" in text and "?class=" in text and "&teacher=" in text


def test_export_and_close(cli):
    made = json.loads(cli("new", "--json").stdout)
    code, secret = made["code"], made["secret"]
    store = SQLiteStore(cli.path)
    for student, option in (("a", "Yes"), ("b", "No"), ("c", "Yes")):
        store.join(code, student, nickname=f"=cmd|{student}", caller=student)
        store.answer(code, student, "learn.masks", option)
    store.ask_again(code, secret, "learn.masks")
    store.answer(code, "a", "learn.masks", "No")

    table = list(csv.DictReader(io.StringIO(cli("export", code, "--teacher", secret).stdout)))
    assert [(r["question"], r["option"], r["count"], r["round"]) for r in table] == [
        ("learn.masks", "No", "1", "1"), ("learn.masks", "Yes", "2", "1"), ("learn.masks", "No", "1", "2"),
    ]  # fmt: skip
    assert set(table[0]) == {"question", "option", "count", "round", "time"}  # no nicknames unless asked

    named = list(csv.DictReader(io.StringIO(cli("export", code, "--teacher", secret, "--nicknames").stdout)))
    assert sorted(r["nickname"] for r in named if r["nickname"]) == [
        "'=cmd|a",
        "'=cmd|a",
        "'=cmd|b",
        "'=cmd|c",
    ]

    found = json.loads(cli("export", code.lower(), "--teacher", secret, "--json").stdout)
    assert found["code"] == code and len(found["rows"]) == 3 and "nickname" not in found["rows"][0]
    assert found["rows"][1] == {**found["rows"][1], "option": "Yes", "count": 2, "round": 1}

    closed = cli("close", code, "--teacher", secret)
    assert closed.returncode == 0 and "closed" in closed.stdout
    gone = cli("export", code, "--teacher", secret)
    assert gone.returncode == 1 and "No class has the code" in gone.stderr


def test_a_wrong_secret_is_refused(cli):
    code = json.loads(cli("new", "--json").stdout)["code"]
    for command in ("export", "close"):
        refused = cli(command, code, "--teacher", "guess")
        assert refused.returncode == 1 and "teacher" in refused.stderr and refused.stdout == ""
    assert SQLiteStore(cli.path).find(code, caller="t") == code  # still open


def test_a_bad_lifetime_is_refused(cli):
    refused = cli("new", "--hours", "0")
    assert refused.returncode == 1 and "hours" in refused.stderr


def test_help(cli):
    for args in ((), ("new",), ("export",), ("close",)):
        shown = cli(*args, "--help")
        assert shown.returncode == 0 and "usage:" in shown.stdout
