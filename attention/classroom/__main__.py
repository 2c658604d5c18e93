"""python -m attention.classroom: the server's administrator's commands, on the server's store
(open_store(): ATTENTION_CLASS_STORE, else the SQLite file in this account's folder).

    new [--hours H] [--json]               a class: its code, the links' queries, the secret
    export CODE [--nicknames] [--json]     every option's count per round (CSV); the teacher's secret
                                           from ATTENTION_TEACHER_SECRET, else one line of stdin
    close CODE                             the class and its data deleted now (the secret as export)
    list [--json]                          every open class: code, created, expires, students,
                                           questions (never a secret)
    close-all --yes                        every class and its data deleted now
    purge                                  expired classes' data deleted now, the file emptied of it

The secret is never an argument: a command line is in the process list and the shell's history.
(`--teacher -` says "from stdin", as before.) The administrator starts classes without the teacher
key (ATTENTION_TEACHER_KEY is the app's, for visitors).

--json prints one object: new -> {code, join, secret, teacher, expires}; export -> {code, rows:
[{question, round, position, option, count, time[, nickname]}]}; list -> {classes: [{code, created,
expires, students, questions}]}. A refused command prints why on stderr and exits with 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict

from attention import settings
from attention.classroom import codes
from attention.classroom.config import open_store
from attention.classroom.errors import ClassError
from attention.classroom.records import iso, to_csv

SECRET_ENV = "ATTENTION_TEACHER_SECRET"


def new(args: argparse.Namespace) -> None:
    store = open_store()
    code, secret = store.new_class(args.hours, key=settings.teacher_key())
    hours = store.limits.hours if args.hours is None else args.hours
    now = time.time()
    made = {
        "code": code,
        "join": codes.join_query(code),
        "secret": secret,
        "teacher": codes.teacher_query(code, secret),
        # nobody in it yet: it ends soon unless a student joins, then lives to its end
        "expires": iso(now + min(hours, store.limits.empty_hours) * 3600),
        "ends": iso(now + hours * 3600),
    }
    if args.json:
        print(json.dumps(made))
        return
    print(
        f"Class code:     {made['code']}   (ends {made['expires']} unless a student joins, "
        f"then {made['ends']})"
    )
    print(f"Students' link: the app's address + {made['join']}")
    print(f"Teacher's link: the app's address + {made['teacher']}")
    print(f"Teacher's secret: {secret}   (keep it to yourself: whoever has it runs the class)")


def secret() -> str:
    """The teacher's secret: ATTENTION_TEACHER_SECRET, else the first line of standard input."""
    if given := settings.teacher_secret():
        return given
    if sys.stdin.isatty():
        print("The teacher's secret (one line): ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip()


def shown(code: str) -> str:
    found = codes.canonical(code)
    return codes.shown(found) if found else code


def export(args: argparse.Namespace) -> None:
    rows = open_store().export(args.code, secret(), nicknames=args.nicknames)
    if args.json:
        items = [asdict(row) for row in rows]
        if not args.nicknames:
            items = [{k: v for k, v in item.items() if k != "nickname"} for item in items]
        print(json.dumps({"code": shown(args.code), "rows": items}, ensure_ascii=False))
    else:
        sys.stdout.write(to_csv(rows, nicknames=args.nicknames))


def close(args: argparse.Namespace) -> None:
    open_store().close(args.code, secret())
    print(f"Class {shown(args.code)} closed; its data is deleted.")


def listed(args: argparse.Namespace) -> None:
    found = open_store().classes()
    if args.json:
        print(json.dumps({"classes": [asdict(c) for c in found]}))
        return
    print(f"{len(found)} classes open.")
    for c in found:
        counts = f"{c.students} students  {c.questions} questions"
        print(f"{c.code}  created {c.created}  expires {c.expires}  {counts}")


def close_all(args: argparse.Namespace) -> None:
    if not args.yes:
        raise SystemExit("close-all deletes every class and its answers now; run it again with --yes.")
    closed = open_store().close_all()
    print(f"{closed} classes closed; their data is deleted.")


def purge(args: argparse.Namespace) -> None:
    open_store().purge()
    print("Expired classes' data deleted.")


def stdin_only(value: str) -> str:
    """--teacher takes only "-" (standard input): a secret typed on the command line would be in
    the process list and the shell's history."""
    if value != "-":
        raise argparse.ArgumentTypeError(
            f"the secret is not taken on the command line; set {SECRET_ENV} or give it on standard input"
        )
    return value


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m attention.classroom",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = top.add_subparsers(dest="command", required=True)
    made = commands.add_parser("new", help="start a class: its code, the links, the teacher's secret")
    made.add_argument(
        "--hours", type=float, default=None, help="how long it lasts (default: ATTENTION_CLASS_HOURS, 12)"
    )
    made.add_argument("--json", action="store_true", help="one JSON object")
    made.set_defaults(run=new)
    for name, run, what in (
        ("export", export, "every option counted per round, as CSV"),
        ("close", close, "delete it now"),
    ):
        command = commands.add_parser(name, help=what)
        command.add_argument("code", help="the class's code, e.g. K7QX-M2P9R")
        command.add_argument(
            "--teacher",
            type=stdin_only,
            metavar="-",
            help=f"read the teacher's secret from standard input (the default when {SECRET_ENV} is unset)",
        )
        command.set_defaults(run=run)
        if name == "export":
            command.add_argument("--nicknames", action="store_true", help="add each named student's answers")
            command.add_argument("--json", action="store_true", help="one JSON object")
    listing = commands.add_parser("list", help="every open class (never a secret)")
    listing.add_argument("--json", action="store_true", help="one JSON object")
    listing.set_defaults(run=listed)
    everything = commands.add_parser("close-all", help="delete every class now")
    everything.add_argument("--yes", action="store_true", help="yes, every class")
    everything.set_defaults(run=close_all)
    commands.add_parser("purge", help="delete expired classes' data now").set_defaults(run=purge)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.run(args)
    except ClassError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
