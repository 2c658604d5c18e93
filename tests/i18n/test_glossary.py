"""The project's glossary (assets/locales/glossary.toml) kept by every catalog: a message that names
a concept uses that concept's term, never the word reserved for another (the lab's head knock-out
is not a token's ablation, nor is patching), nor a word a reviewer ruled out (Korean 지도 for a
heatmap reads as a geographic map)."""

import re
import tomllib

import pytest
from babel.messages.pofile import read_po

from attention import i18n
from attention.i18n import __main__ as upkeep

GLOSSARY = tomllib.loads((i18n.LOCALES / "glossary.toml").read_text(encoding="utf-8"))
LANGUAGES = [c for c in i18n.LANGUAGES if c != "en"]
PLACEHOLDER = re.compile(r"%?\{[^{}]*\}")  # {name}, {n:.2f}, plotly's %{y}: not words


def messages(code: str) -> list[tuple[str, str]]:
    """(English, translation) of every translated message in `code`'s catalog, placeholders out."""
    with upkeep.po_path(code).open("rb") as f:
        catalog = read_po(f)
    pairs = []
    for m in catalog:
        english = m.id if isinstance(m.id, tuple) else (m.id,)
        texts = m.string if isinstance(m.string, tuple) else (m.string,)
        if m.id and all(texts):
            pairs.append((PLACEHOLDER.sub(" ", " ".join(english)), PLACEHOLDER.sub(" ", " ".join(texts))))
    return pairs


def names(concept: dict, english: str) -> bool:
    return re.search(concept["en"], english, re.IGNORECASE) is not None


def uses(concept: dict, code: str, text: str) -> bool:
    return any(stem.lower() in text.lower() for stem in concept.get("stems", {}).get(code, ()))


def problems(code: str, pairs: list[tuple[str, str]]) -> list[str]:
    found = []
    for english, text in pairs:
        for key, concept in GLOSSARY.items():
            if not names(concept, english):
                continue
            if concept.get("stems", {}).get(code) and not uses(concept, code, text):
                found.append(f"{key}: not {concept[code]!r} in {text!r} ({english!r})")
            for other in concept.get("apart", ()):
                if not names(GLOSSARY[other], english) and uses(GLOSSARY[other], code, text):
                    found.append(f"{key}: {other}'s word in {text!r} ({english!r})")
            for word in concept.get("never", {}).get(code, ()):
                if word in text:
                    found.append(f"{key}: {word!r} in {text!r} ({english!r})")
    return found


def test_every_concept_has_a_term_in_every_language():
    for key, concept in GLOSSARY.items():
        re.compile(concept["en"])
        for code in LANGUAGES:
            assert concept.get(code), f"{key}: no {code} term"
        for other in concept.get("apart", ()):
            assert other in GLOSSARY, f"{key}: apart from an unknown concept {other}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_catalog_keeps_one_term_per_concept(code):
    found = problems(code, messages(code))
    assert not found, f"{len(found)} messages in {code}:\n" + "\n".join(found[:40])


def test_the_check_finds_a_knockouts_word_in_an_ablation_message():
    """The reviewers' finding, as it was in the Ukrainian catalog: the ablation called вимкнення."""
    bad = [
        ("Pointing at the same token as the ablation: .", "На той самий токен, що й вимкнення, вказують: .")
    ]
    found = problems("uk", bad)
    assert any("knockout's word" in f for f in found) and any("not 'абляція'" in f for f in found)
    assert problems("uk", [("Pointing at the same token as the ablation: .", "Як і абляція: .")]) == []
    assert problems("ko", [("heatmap of weights", "가중치 지도")]) != []
