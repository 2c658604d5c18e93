"""Every page in each of the six languages: it renders, and its prose is in that language.

For uk, ja and ko (scripts that are not Latin) at most 5% of a page's prose units (three words or
more) may be mostly Latin letters; pl and af share English's letters, so there no unit may be
identical to one on the English page. The glossary's terms appear where the Explorer and Learn
name those concepts."""

import functools

import pytest

from attention.i18n import LANGUAGES
from tests.i18n.prose import english, page_strings, prose
from tests.i18n.walk import PAGES, opened

OTHER = [code for code in LANGUAGES if code != "en"]


@functools.cache
def shown(page: str, lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(prose units, every string) of `page` opened in `lang`; an exception fails the test."""
    at = opened(page, lang)
    assert not at.exception, f"{page} in {lang}: {at.exception[0].message}"
    return tuple(prose(at)), tuple(page_strings(at))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_in_every_language(page, lang):
    units, _ = shown(page, lang)
    assert units, f"{page} in {lang}: no prose at all"


@pytest.mark.parametrize("lang", ["uk", "ja", "ko"])
@pytest.mark.parametrize("page", PAGES)
def test_at_most_five_percent_of_the_prose_is_english(page, lang):
    units, _ = shown(page, lang)
    left = [u for u in units if english(u, lang)]
    assert len(left) <= 0.05 * len(units), (
        f"{page} in {lang}: {len(left)}/{len(units)} English:\n" + "\n".join(left[:40])
    )


@pytest.mark.parametrize("lang", ["pl", "af"])
@pytest.mark.parametrize("page", PAGES)
def test_no_prose_is_left_as_the_english_page_has_it(page, lang):
    units, _ = shown(page, lang)
    same = sorted(set(units) & set(shown(page, "en")[0]))
    assert not same, f"{page} in {lang}: {len(same)} units as in English:\n" + "\n".join(same[:40])


# The chapter's terms as each translation writes them (../shared/i18n-glossary.md), in the forms a
# sentence inflects them to (Ukrainian and Polish decline nouns: "вектори контексту", "wag uwagi"):
# the Explorer names the weights and the causal mask; Learn the scores, the weights and the context
# vector.
GLOSSARY = {
    "uk": {
        "weights": ("ваги уваги", "ваг уваги", "вагами уваги", "вагах уваги"),
        "scores": ("оцінки уваги", "оцінок уваги", "оцінками уваги"),
        "context": ("вектор контексту", "вектори контексту", "вектора контексту", "векторів контексту"),
        "causal": ("причинн",),
    },
    "pl": {
        "weights": ("wagi uwagi", "wag uwagi", "wagami uwagi", "wagach uwagi"),
        "scores": ("wyniki uwagi", "wyników uwagi", "wynikami uwagi"),
        "context": ("wektor kontekstu", "wektory kontekstu", "wektora kontekstu", "wektorów kontekstu"),
        "causal": ("przyczynow",),
    },
    "ja": {
        "weights": ("Attentionの重み",),
        "scores": ("Attentionスコア",),
        "context": ("コンテキストベクトル",),
        "causal": ("因果",),
    },
    "ko": {
        "weights": ("주의 가중치",),
        "scores": ("주의 점수",),
        "context": ("컨텍스트 벡터",),
        "causal": ("인과적",),
    },
    "af": {
        "weights": ("aandaggewigte",),
        "scores": ("aandagpunte",),
        "context": ("konteksvektor",),
        "causal": ("oorsaaklike",),
    },
}
NAMED = {"explorer": ("weights", "causal"), "learn": ("scores", "weights", "context", "causal")}


@pytest.mark.parametrize("lang", GLOSSARY)
@pytest.mark.parametrize("page", NAMED)
def test_the_glossary_terms_name_the_concepts(page, lang):
    text = "\n".join(shown(page, lang)[1]).lower()
    missing = [
        GLOSSARY[lang][c][0] for c in NAMED[page] if not any(f.lower() in text for f in GLOSSARY[lang][c])
    ]
    assert not missing, f"{page} in {lang} never says {missing}"
