"""python -m attention.classroom new | export | close: a class from the shell, in the server's store
(open_store(): ATTENTION_CLASS_STORE, else the SQLite file in this account's folder).

    new [--hours H] [--json]                             a class: its code, the links' queries, the secret
    export CODE --teacher SECRET [--nicknames] [--json]  every question's counts per option and round (CSV)
    close CODE --teacher SECRET                          the class and its data deleted now

--json prints one object: new -> {code, join, secret, teacher, expires}; export -> {code, rows: [{question,
option, count, round, time[, nickname]}]}. A refused command prints why on stderr and exits with 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict

from attention.classroom import codes
from attention.classroom.config import open_store
from attention.classroom.errors import ClassError
from attention.classroom.records import iso, to_csv


def new(args: argparse.Namespace) -> None:
    store = open_store()
    code, secret = store.new_class(args.hours)
    hours = store.limits.hours if args.hours is None else args.hours
    made = {
        "code": code,
        "join": codes.join_query(code),
        "secret": secret,
        "teacher": codes.teacher_query(code, secret),
        "expires": iso(time.time() + hours * 3600),
    }
    if args.json:
        print(json.dumps(made))
        return
    print(f"Class code:     {made['code']}   (open until {made['expires']})")
    print(f"Students' link: the app's address + {made['join']}")
    print(f"Teacher's link: the app's address + {made['teacher']}")
    print(f"Teacher's secret: {secret}   (keep it to yourself: whoever has it runs the class)")


def export(args: argparse.Namespace) -> None:
    rows = open_store().export(args.code, args.teacher, nicknames=args.nicknames)
    if args.json:
        items = [asdict(row) for row in rows]
        if not args.nicknames:
            items = [{k: v for k, v in item.items() if k != "nickname"} for item in items]
        print(
            json.dumps({"code": codes.shown(codes.canonical(args.code)), "rows": items}, ensure_ascii=False)
        )
    else:
        sys.stdout.write(to_csv(rows, nicknames=args.nicknames))


def close(args: argparse.Namespace) -> None:
    open_store().close(args.code, args.teacher)
    print(f"Class {codes.shown(codes.canonical(args.code))} closed; its data is deleted.")


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
        ("export", export, "every answer counted, as CSV"),
        ("close", close, "delete it now"),
    ):
        command = commands.add_parser(name, help=what)
        command.add_argument("code", help="the class's code, e.g. K7QX-M2P9R")
        command.add_argument("--teacher", required=True, metavar="SECRET", help="the teacher's secret")
        command.set_defaults(run=run)
        if name == "export":
            command.add_argument("--nicknames", action="store_true", help="add each named student's answers")
            command.add_argument("--json", action="store_true", help="one JSON object")
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
