"""python -m attention.classroom new | export | close | list | close-all | purge, as an administrator
would run them, on the store ATTENTION_CLASS_STORE names (a fresh SQLite file here). The teacher's
secret comes from ATTENTION_TEACHER_SECRET or standard input, never from the command line."""

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
Q = "learn.masks"


@pytest.fixture
def cli(tmp_path):
    path = tmp_path / "c.sqlite3"
    env = {**os.environ, "ATTENTION_CLASS_STORE": f"sqlite://{path}", "PYTHONPATH": str(ROOT)}
    for name in ("ATTENTION_TEACHER_SECRET", "ATTENTION_TEACHER_KEY"):
        env.pop(name, None)

    def run(*args: str, secret: str | None = None, stdin: str = "") -> subprocess.CompletedProcess:
        """The command; `secret` in ATTENTION_TEACHER_SECRET, `stdin` on its standard input."""
        command = [sys.executable, "-m", "attention.classroom", *args]
        chosen = env if secret is None else {**env, "ATTENTION_TEACHER_SECRET": secret}
        return subprocess.run(
            command, capture_output=True, text=True, env=chosen, timeout=60, cwd=ROOT, input=stdin
        )

    run.path = path
    run.env = env
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


def test_the_administrator_needs_no_teacher_key(cli):
    cli.env["ATTENTION_TEACHER_KEY"] = "the app's key"  # the server's: the CLI runs as its administrator
    made = cli("new", "--json")
    assert made.returncode == 0, made.stderr


def a_class_with_answers(cli):
    made = json.loads(cli("new", "--json").stdout)
    code, secret = made["code"], made["secret"]
    store = SQLiteStore(cli.path)
    store.ask(code, secret, Q, ["Yes", "No", "=cmd|x"])
    for student, option in (("a", 0), ("b", 1), ("c", 0)):
        store.join(code, student, nickname=f"=cmd|{student}", caller=student)
        store.answer(code, student, Q, option, 1)
    store.ask_again(code, secret, Q, ["Yes", "No", "=cmd|x"])
    store.answer(code, "a", Q, 1, 2)
    return code, secret


def test_export_with_the_secret_from_the_environment_or_stdin(cli):
    code, secret = a_class_with_answers(cli)
    table = list(csv.DictReader(io.StringIO(cli("export", code, secret=secret).stdout)))
    assert [(r["question"], r["round"], r["position"], r["option"], r["count"]) for r in table] == [
        (Q, "1", "0", "Yes", "2"), (Q, "1", "1", "No", "1"), (Q, "1", "2", "'=cmd|x", "0"),
        (Q, "2", "0", "Yes", "0"), (Q, "2", "1", "No", "1"), (Q, "2", "2", "'=cmd|x", "0"),
    ]  # fmt: skip
    assert list(table[0]) == ["question", "round", "position", "option", "count", "time"]  # no nicknames
    from_stdin = cli("export", code, stdin=secret + "\n").stdout
    assert from_stdin == cli("export", code, "--teacher", "-", stdin=secret + "\n").stdout
    assert list(csv.DictReader(io.StringIO(from_stdin))) == table

    named = list(csv.DictReader(io.StringIO(cli("export", code, "--nicknames", secret=secret).stdout)))
    assert sorted(r["nickname"] for r in named if r["nickname"]) == [
        "'=cmd|a",
        "'=cmd|a",
        "'=cmd|b",
        "'=cmd|c",
    ]

    found = json.loads(cli("export", code.lower(), "--json", stdin=secret).stdout)
    assert found["code"] == code and len(found["rows"]) == 6
    second = found["rows"][1]
    assert second == {
        "question": Q,
        "round": 1,
        "position": 1,
        "option": "No",
        "count": 1,
        "time": second["time"],
    }
    named = json.loads(cli("export", code, "--json", "--nicknames", secret=secret).stdout)["rows"]
    assert {r["nickname"] for r in named} == {"", "=cmd|a", "=cmd|b", "=cmd|c"}  # JSON is not a spreadsheet


def test_close_with_the_secret_from_stdin(cli):
    code, secret = a_class_with_answers(cli)
    closed = cli("close", code, stdin=secret + "\n")
    assert closed.returncode == 0 and "closed" in closed.stdout
    gone = cli("export", code, secret=secret)
    assert gone.returncode == 1 and "No class has the code" in gone.stderr


def test_a_secret_on_the_command_line_is_refused(cli):
    code, secret = a_class_with_answers(cli)
    for command in ("export", "close"):
        refused = cli(command, code, f"--teacher={secret}")  # "=": a secret may start with "-"
        assert refused.returncode == 2 and "ATTENTION_TEACHER_SECRET" in refused.stderr
        assert secret not in refused.stderr and refused.stdout == ""
    assert SQLiteStore(cli.path).find(code, caller="t") == code  # still open


def test_a_wrong_secret_is_refused(cli):
    code = json.loads(cli("new", "--json").stdout)["code"]
    for command in ("export", "close"):
        for refused in (
            cli(command, code, secret="guess"),
            cli(command, code, stdin="guess\n"),
            cli(command, code),
        ):
            assert refused.returncode == 1 and "teacher" in refused.stderr and refused.stdout == ""
    assert SQLiteStore(cli.path).find(code, caller="t") == code  # still open


def test_list_close_all_and_purge(cli):
    code, secret = a_class_with_answers(cli)
    other = json.loads(cli("new", "--json").stdout)["code"]
    listed = json.loads(cli("list", "--json").stdout)["classes"]
    assert {c["code"]: (c["students"], c["questions"]) for c in listed} == {code: (3, 1), other: (0, 0)}
    assert set(listed[0]) == {"code", "created", "expires", "students", "questions"}
    text = cli("list")
    assert text.returncode == 0 and code in text.stdout and secret not in text.stdout + json.dumps(listed)

    assert cli("purge").returncode == 0
    assert len(json.loads(cli("list", "--json").stdout)["classes"]) == 2  # nothing had expired

    refused = cli("close-all")
    assert refused.returncode != 0 and "--yes" in refused.stderr
    assert len(json.loads(cli("list", "--json").stdout)["classes"]) == 2
    closed = cli("close-all", "--yes")
    assert closed.returncode == 0 and "2 classes closed" in closed.stdout
    assert json.loads(cli("list", "--json").stdout)["classes"] == []
    assert cli("list").stdout.startswith("0 classes open")


def test_a_bad_lifetime_is_refused(cli):
    refused = cli("new", "--hours", "0")
    assert refused.returncode == 1 and "hours" in refused.stderr


def test_help(cli):
    for args in ((), ("new",), ("export",), ("close",), ("list",), ("close-all",), ("purge",)):
        shown = cli(*args, "--help")
        assert shown.returncode == 0 and "usage:" in shown.stdout
