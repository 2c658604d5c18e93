"""The catalogs' upkeep, with Babel (a development dependency: the app reads the compiled .mo).

python -m attention.i18n extract   the code's messages -> assets/locales/messages.pot
python -m attention.i18n update    every language's .po gains the new messages (empty) and
                                   loses the ones the code no longer has
python -m attention.i18n compile   every .po -> its .mo, which the app reads
python -m attention.i18n check     what the tests check: the .pot matches the code, every
                                   message is translated in every catalog with the same
                                   placeholders, every .mo is compiled from its .po
python -m attention.i18n add xx    a new language: assets/locales/xx/LC_MESSAGES/messages.po
"""

from __future__ import annotations

import argparse
import io
import os
import string
import sys
import tempfile
from pathlib import Path

from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from attention.i18n import DOMAIN, LANGUAGES, LOCALES

ROOT = LOCALES.parents[1]
POT = LOCALES / f"{DOMAIN}.pot"
SOURCES = ("app.py", "pages", "ui", "attention")
KEYWORDS = ("tr", "tr_n:1,2", "N_")


def po_path(code: str) -> Path:
    return LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def babel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])


def extract(output: Path = POT) -> None:
    """The code's messages -> `output`, each with the files it is used in ("#: ui/learn/steps.py",
    no line numbers: they would change the catalogs at every edit), so a translator sees where a
    message appears."""
    keywords = [arg for k in KEYWORDS for arg in ("-k", k)]
    here = Path.cwd()
    os.chdir(ROOT)  # the locations are written as the source paths are given: relative to the repo
    try:
        babel(
            "extract", "--no-default-keywords", *keywords, "--add-location", "file", "--sort-output",
            "--no-wrap", "--add-comments", "TRANSLATORS:", "--project", "Attention Explorer",
            "--copyright-holder", "Attention Explorer", "-o", str(output), *SOURCES,
        )  # fmt: skip
    finally:
        os.chdir(here)


def codes() -> list[str]:
    return sorted(p.name for p in LOCALES.iterdir() if (p / "LC_MESSAGES").is_dir())


def update() -> None:
    for code in codes():
        po = str(po_path(code))
        babel(
            "update",
            "--no-wrap",
            "--ignore-obsolete",
            "--no-fuzzy-matching",
            "-i",
            str(POT),
            "-o",
            po,
            "-l",
            code,
        )  # noqa: E501


def add(code: str) -> None:
    po_path(code).parent.mkdir(parents=True, exist_ok=True)
    babel("init", "--no-wrap", "-i", str(POT), "-o", str(po_path(code)), "-l", code)


def merge(code: str, sources: list[str]) -> int:
    """Fill `code`'s catalog from other .po files, for its messages that have no translation yet
    (a translation already there is a translator's: kept); returns how many were filled."""
    with po_path(code).open("rb") as f:
        catalog = read_po(f)
    filled = 0
    for source in sources:
        with open(source, "rb") as f:
            for message in read_po(f):
                texts = message.string if isinstance(message.string, tuple) else (message.string,)
                target = catalog.get(message.id) if message.id else None
                if target is None or message.fuzzy or not all(texts):
                    continue
                done = target.string if isinstance(target.string, tuple) else (target.string,)
                if all(done) and "fuzzy" not in target.flags:
                    continue
                target.string, filled = message.string, filled + 1
                target.flags.discard("fuzzy")
    with po_path(code).open("wb") as f:
        write_po(f, catalog, width=0, omit_header=False)
    return filled


def compiled(po: Path) -> bytes:
    with po.open("rb") as f:
        catalog = read_po(f)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def compile_all() -> None:
    for code in codes():
        po = po_path(code)
        po.with_suffix(".mo").write_bytes(compiled(po))


def fields(text: str) -> list[str]:
    """The placeholders of a message, sorted ("{n} of {total:.2f}" -> ["n", "total"])."""
    try:
        return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)
    except ValueError:
        return ["<unbalanced braces>"]


def ids(path: Path) -> set[str | tuple]:
    with path.open("rb") as f:
        return {m.id for m in read_po(f) if m.id}


def problems() -> list[str]:
    """What is wrong with the catalogs, one line each (empty: all is well)."""
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "fresh.pot"
        extract(fresh)
        code_ids, pot_ids = ids(fresh), ids(POT)
    for message in sorted(map(str, code_ids - pot_ids)):
        found.append(f"messages.pot lacks a message the code has (run extract): {message!r}")
    for message in sorted(map(str, pot_ids - code_ids)):
        found.append(f"messages.pot has a message the code no longer has (run extract): {message!r}")
    for code in LANGUAGES:
        if code == "en":
            continue
        po = po_path(code)
        if not po.exists():
            found.append(f"{code}: no catalog at {po.relative_to(ROOT)}")
            continue
        with po.open("rb") as f:
            catalog = read_po(f)
        for message_id in sorted(code_ids, key=str):
            message = catalog.get(message_id)
            singular = message_id[0] if isinstance(message_id, tuple) else message_id
            if message is None:
                found.append(f"{code}: missing {singular!r} (run update)")
                continue
            texts = message.string if isinstance(message.string, tuple) else (message.string,)
            if message.fuzzy or not all(texts):
                found.append(f"{code}: untranslated {singular!r}")
                continue
            for text in texts:
                if fields(text) != fields(singular):
                    found.append(f"{code}: placeholders {fields(text)} differ from English in {singular!r}")
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != compiled(po):
            found.append(f"{code}: messages.mo is not compiled from messages.po (run compile)")
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m attention.i18n",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "command",
        nargs="?",
        default="check",
        choices=("extract", "update", "compile", "check", "add", "merge"),
    )
    parser.add_argument(
        "args", nargs="*", help="add: a language code; merge: a language code, then .po files"
    )
    a = parser.parse_args(argv)
    if a.command == "extract":
        extract()
    elif a.command == "update":
        update()
    elif a.command == "compile":
        compile_all()
    elif a.command == "add" and len(a.args) == 1:
        add(a.args[0])
    elif a.command == "merge" and len(a.args) >= 2:
        print(f"{a.args[0]}: {merge(a.args[0], a.args[1:])} messages filled")
    elif a.command == "check":
        found = problems()
        print("\n".join(found) or "catalogs: all messages translated, placeholders match, compiled")
        return 1 if found else 0
    else:
        parser.error(f"{a.command}: wrong arguments")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
