"""The gettext catalogs: they match the code, every message is translated in every language with
the same placeholders, and each .mo is compiled from its .po."""

import ast
import gettext

import pytest

from attention import i18n
from attention.i18n import __main__ as upkeep


def test_catalogs_match_the_code_and_are_complete():
    found = upkeep.problems()
    assert not found, f"{len(found)} problems (python -m attention.i18n check):\n" + "\n".join(found[:60])


def unseen(tree: ast.AST) -> set[tuple[int, str]]:
    """(line, message) of each message Babel's extractor cannot see: a tr/tr_n/N_ call (by name or
    as an attribute: i18n.tr) with a literal message inside an f-string, or a message that is an
    f-string or a sum itself."""
    names = {k.split(":")[0] for k in upkeep.KEYWORDS}

    def calls(node):
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)
            if name in names and call.args:
                yield call, call.args[0]

    found = {(c.lineno, ast.unparse(m)) for c, m in calls(tree) if isinstance(m, ast.JoinedStr | ast.BinOp)}
    for fstring in (n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)):
        found |= {(c.lineno, m.value) for c, m in calls(fstring) if isinstance(m, ast.Constant)}
    return found


def test_no_message_hides_inside_an_f_string():
    """Babel's extractor reads an f-string as one token on this Python: a tr("...") inside one never
    reaches the catalogs, and every language shows it in English ("Right." and "Not quite." did)."""
    for code, line in [
        ("f\"{tr('Right.')} {x}\"", "Right."),
        ("f'{i18n.tr(\"A\")}'", "A"),
        ("tr(f'{n} x')", "f'{n} x'"),
    ]:
        assert unseen(ast.parse(code)) == {(1, line)}  # it finds each kind
    files = [
        p
        for s in upkeep.SOURCES
        for p in ([upkeep.ROOT / s] if s.endswith(".py") else (upkeep.ROOT / s).rglob("*.py"))
    ]
    hidden = sorted(
        f"{path.relative_to(upkeep.ROOT)}:{line}: {message!r}"
        for path in files
        for line, message in unseen(ast.parse(path.read_text(), str(path)))
    )
    assert not hidden, "Babel cannot see these messages:\n" + "\n".join(hidden)


def test_fields_reads_named_placeholders():
    assert upkeep.fields("{n} of {total:.2f} (%{y})") == ["n", "total", "y"]
    assert upkeep.fields("{unclosed") == ["<unbalanced braces>"]


@pytest.mark.parametrize("code", [c for c in i18n.LANGUAGES if c != "en"])
def test_each_language_loads_a_compiled_catalog(code):
    catalog = i18n.catalog(code)
    assert isinstance(catalog, gettext.GNUTranslations)
    i18n.use(code)
    try:
        assert i18n.tr("Language") != "Language"
    finally:
        i18n.use("en")


def test_languages_are_per_thread():
    """Each session's reruns run on their own thread: a language set on one is not seen on another."""
    import threading

    seen = {}

    def rerun(code):
        i18n.use(code)
        seen[code] = i18n.tr("Language")

    threads = [threading.Thread(target=rerun, args=(c,)) for c in ("uk", "ko", "en")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert i18n.language() == "en"
    assert seen["en"] == "Language" and len(set(seen.values())) == 3


def test_an_unknown_language_is_english():
    assert i18n.use("../../etc/passwd") == "en"
    assert i18n.match("uk-UA") == "uk" and i18n.match("ko_KR") == "ko" and i18n.match("pt-BR") is None
    assert i18n.match(None) is None and i18n.match("") is None


def test_plural_forms_follow_each_language():
    """Ukrainian and Polish have three forms: 1, 2-4, 5+ (and 22 like 2, 25 like 5)."""
    import babel.messages.pofile as pofile

    for code, expected in {"uk": 3, "pl": 3, "ja": 1, "ko": 1, "af": 2}.items():
        with upkeep.po_path(code).open("rb") as f:
            assert pofile.read_po(f).num_plurals == expected, code
