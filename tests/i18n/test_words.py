"""What the code does to a language's words: quantities grouped as the language groups them (Babel;
in Ukrainian, Polish and Afrikaans a comma is the decimal mark, so "5,000" reads as 5), counts in
the language's plural forms (ngettext), no sentence put inside another's frame, a TRANSLATORS note
where a placeholder holds words, and every message's place in the code shown to translators."""

import json
import re

import pytest
from babel.messages.pofile import read_po

from attention import i18n
from attention.errors import ConfigError
from attention.explorer.config import MAX_TEXT_CHARS, ExplorerConfig
from attention.i18n import __main__ as upkeep
from tests.app.conftest import answer
from tests.i18n.walk import opened

# Countable things a message counts: a placeholder right before one (an adjective between allowed)
# is a count, and a count goes through tr_n, whose forms each language fills (uk and pl have three).
NOUNS = " ".join(
    (
        "tokens token steps heads head layers layer students student hours characters character bytes "
        "rows parameters copies questions answers times numbers products sequences windows classes "
        "dimensions groups minutes seconds draws sentences words positions keys queries values cells columns "
        "models votes options entries",
    )
).split()
COUNT = re.compile(r"(?<!%)\{(\w+)(:[^}]*)?\}\**\s+(?:[a-z/-]+\s+)?(" + "|".join(NOUNS) + r")\b")
# Placeholders that hold a whole sentence (an option's text, an error, a reason): put in a message only
# at its start, or after a colon or an opening bracket, never inside running text ("the answer is
# {answer}" reads 「正解は 1 に近づく です」).
SENTENCES = {"answer", "why", "error", "reason"}
# Placeholders that hold words: a translator needs to know what they hold (a TRANSLATORS: note).
WORDS = SENTENCES | {"what", "role", "label", "kind", "verdict", "goal", "where", "fix", "method", "methods"}


def pot() -> list:
    with upkeep.POT.open("rb") as f:
        return [m for m in read_po(f) if m.id]


def singular(message) -> str:
    return message.id[0] if isinstance(message.id, tuple) else message.id


def counts_without_plural(messages) -> list[str]:
    found = []
    for m in messages:
        if isinstance(m.id, tuple):
            continue
        for name, spec, noun in COUNT.findall(m.id):
            if name in WORDS or name == "button":  # words, not a number ("the best {role} head")
                continue
            if not re.search(r"\.\d*[fge%]|[fge%]$", spec or ""):  # a float is a measure, not a count
                found.append(f"{{{name}}} {noun}: {m.id[:100]!r}")
    return found


def test_every_count_goes_through_ngettext():
    found = counts_without_plural(pot())
    assert not found, f"{len(found)} counts said with tr, not tr_n:\n" + "\n".join(found)


def test_the_count_check_sees_a_count_without_a_plural():
    class M:
        id = "{name} costs {n} tokens for what English says in {english}."

    class F:
        id = "Loss {loss:.2f} nats on {n} (tokens)"

    assert counts_without_plural([M]) and not counts_without_plural([F])


def framed(message: str) -> list[str]:
    """Sentence placeholders of `message` that sit inside running text."""
    bad = []
    for found in re.finditer(r"(?<!%)\{(\w+)[^}]*\}", message):
        before = message[: found.start()].rstrip()
        if found.group(1) in SENTENCES and before and not before.endswith((":", "(", "—", ".", "?", "!")):
            bad.append(found.group(1))
    return bad


def test_no_sentence_is_put_inside_another_sentence():
    found = [singular(m) for m in pot() if framed(singular(m))]
    assert not found, "\n".join(found)
    assert framed("Not quite: the answer is {answer}. {why}") == ["answer"]
    assert framed("Answer: {answer}") == framed("{error} Used {fix} instead.") == []


def test_a_placeholder_that_holds_words_is_explained_to_translators():
    found = []
    for m in pot():
        held = {n for n in re.findall(r"(?<!%)\{(\w+)", singular(m)) if n in WORDS}
        if held and not any(c.startswith("TRANSLATORS:") for c in m.auto_comments):
            found.append(f"{sorted(held)}: {singular(m)[:100]!r} ({', '.join(p for p, _ in m.locations)})")
    assert not found, f"{len(found)} messages without a TRANSLATORS: note:\n" + "\n".join(found)


def test_translators_see_where_each_message_is_used():
    missing = [singular(m)[:80] for m in pot() if not m.locations]
    assert not missing, missing[:10]
    assert all(not path.startswith("/") for m in pot() for path, _ in m.locations)  # the repo's paths


def too_long(code: str) -> str:
    i18n.use(code)
    with pytest.raises(ConfigError) as raised:
        ExplorerConfig(text="x" * 12_345)
    return str(raised.value)


@pytest.mark.parametrize(
    ("code", "limit", "n"),
    [
        ("en", "5,000", "12,345"),
        ("uk", "5\xa0000", "12\xa0345"),
        ("pl", "5000", "12\xa0345"),
        ("af", "5\xa0000", "12\xa0345"),
    ],
)
def test_quantities_in_prose_are_grouped_as_each_language_groups_them(code, limit, n):
    assert MAX_TEXT_CHARS == 5000
    said = too_long(code)
    assert limit in said and n in said, said
    assert code == "en" or "5,000" not in said


def test_babel_writes_a_quantity_with_decimals_in_the_language_too():
    i18n.use("uk")
    assert i18n.tr("{mb:,.1f} MB", mb=1520.46) == "1\xa0520,5 MB"
    assert i18n.tr("{p:.3f}", p=0.25) == "0.250"  # a value as the matrices print it: the book's point
    i18n.use("pl")
    assert i18n.number(1000) == "1000" and i18n.number(12345) == "12\xa0345"  # CLDR's minimum grouping


@pytest.mark.parametrize(("code", "marks"), [("en", None), ("uk", ".\xa0"), ("ja", None)])
def test_charts_group_thousands_as_the_language_does(code, marks):
    at = opened("explorer", code)
    assert not at.exception
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    assert specs
    assert {spec["layout"].get("separators") for spec in specs} == {marks}


def why_most_tokens(code: str) -> str:
    """What your language costs: the answer's reason after a wrong pick (Korean costs GPT-2 43
    tokens for the journey sentence)."""
    at = opened("languages", code)
    at = answer(at, "languages_predict", at.button_group(key="languages_predict").options[0])
    assert not at.exception
    return " ".join(e.value for e in at.error)


@pytest.mark.parametrize(("code", "form"), [("uk", "43 токени"), ("pl", "43 tokeny"), ("en", "43 tokens")])
def test_counts_agree_with_the_number_in_each_language(code, form):
    assert form in why_most_tokens(code)


@pytest.mark.parametrize(
    ("code", "wrong", "right"),
    [
        ("uk", "На жаль, ні. Відповідь: ", "Правильно. Відповідь: "),
        ("pl", "Niestety nie. Odpowiedź: ", "Dobrze. Odpowiedź: "),
        ("ja", "残念、不正解です。答え：", "正解です。答え："),
        ("ko", "아쉽지만 틀렸습니다. 정답: ", "맞았습니다. 정답: "),
        ("af", "Ongelukkig nie. Antwoord: ", "Reg. Antwoord: "),
        ("en", "Not quite. Answer: ", "Right. Answer: "),
    ],
)
def test_a_prediction_is_judged_in_the_pages_language(code, wrong, right):
    """The verdict and "Answer: …" as each language joins them (the verdict was English in every
    language: tests/i18n/test_catalogs.py, test_no_message_hides_inside_an_f_string)."""
    assert why_most_tokens(code).startswith(wrong)
    at = opened("languages", code)
    options = at.button_group(key="languages_predict").options
    judged = [" ".join(e.value for e in answer(at, "languages_predict", o).success) for o in options]
    assert sum(bool(j) for j in judged) == 1  # one option is right
    assert next(j for j in judged if j).startswith(right)


def test_plural_forms_of_ukrainian_and_polish():
    """One, few, many: 1 токен, 2–4 токени, 5–20 токенів, 21 токен, 22 токени; Polish 1 token,
    2–4 tokeny, 5–21 tokenów, 22 tokeny."""
    for code, expected in {
        "uk": {1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 21: 0, 22: 1, 43: 1, 45: 2},
        "pl": {1: 0, 2: 1, 4: 1, 5: 2, 12: 2, 21: 2, 22: 1, 43: 1, 45: 2},
    }.items():
        plural = i18n.catalog(code).plural
        assert {n: plural(n) for n in expected} == expected, code


def test_a_count_read_off_an_array_is_grouped_too():
    import numpy as np

    i18n.use("uk")
    assert i18n.tr("{n:,}", n=np.int64(12345)) == i18n.tr("{n:,}", n=12345) == "12\xa0345"
