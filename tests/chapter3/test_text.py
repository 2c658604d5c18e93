import unicodedata

import pytest

from attention.chapter3.text import graphemes, tokenize
from attention.errors import ConfigError
from tests import book


def test_words_reproduces_the_blog():
    tokens = tokenize(book.BLOG_SENTENCE, "words")
    assert tokens.vocabulary == book.BLOG_VOCABULARY
    assert list(tokens.ids) == book.BLOG_IDS
    assert tokens.texts == ("Life", "is", "short", "eat", "dessert", "first")


def test_words_punct_keeps_marks_as_tokens():
    tokens = tokenize("Hello shiny sun!", "words_punct")
    assert tokens.texts == ("Hello", "shiny", "sun", "!")
    assert tokenize("Hello shiny sun!", "words").texts == ("Hello", "shiny", "sun")


def test_repeated_words_share_an_id_but_keep_positions():
    tokens = tokenize("the cat saw the dog", "words")
    assert len(tokens) == 5 and tokens.ids[0] == tokens.ids[3]
    assert len(tokens.vocab) == 4


def test_characters_keep_single_spaces():
    assert tokenize("  ab  c ", "chars").texts == ("a", "b", " ", "c")


def test_apostrophe_inside_a_word_stays():
    assert tokenize("don't stop", "words").texts == ("don't", "stop")


@pytest.mark.parametrize(
    "text, scheme, expected",
    [
        ("café naïve", "words", ("café", "naïve")),
        ("cafe\u0301", "words", ("café",)),  # combining accent, normalised to NFC
        ("我喜欢你", "words", ("我", "喜", "欢", "你")),  # Han: one token per ideograph
        ("こんにちは 世界", "words", ("こ", "ん", "に", "ち", "は", "世", "界")),
        ("I love 🍕!", "words", ("I", "love", "🍕")),
        ("👩\u200d💻 codes", "words", ("👩\u200d💻", "codes")),  # ZWJ sequence stays whole
        ("👍🏽 ok", "words", ("👍🏽", "ok")),  # skin-tone modifier stays on its emoji
        ("🇺🇦🇯🇵", "chars", ("🇺🇦", "🇯🇵")),  # regional indicator pairs are flags
        ("مرحبا بالعالم", "words", ("مرحبا", "بالعالم")),  # right-to-left
        ("שָׁלוֹם", "words", ("שָׁלוֹם",)),  # Hebrew with points (combining marks)
        ("नमस्ते दुनिया", "words", ("नमस्ते", "दुनिया")),  # Devanagari vowel signs
        ("zero\u200bwidth", "words", ("zerowidth",)),  # zero-width space is invisible: dropped
        ("a\x00b\x07c", "words", ("abc",)),  # control characters dropped
        ("\u202eevil", "words", ("evil",)),  # direction override dropped
        ("กำ", "chars", ("กำ",)),  # Thai sara am stays on its consonant
    ],
)
def test_unicode_tokenizes_sensibly(text, scheme, expected):
    assert tokenize(text, scheme).texts == expected


def test_combining_marks_are_kept_with_their_letter():
    assert graphemes("e\u0301\u0323x") == [unicodedata.normalize("NFC", "e\u0301\u0323"), "x"]


@pytest.mark.parametrize("text", ["", "   ", "\n\t ", "\u200b\u200b"])
def test_empty_text_is_a_config_error(text):
    with pytest.raises(ConfigError, match="empty|no tokens"):
        tokenize(text, "words")


def test_only_punctuation_has_no_words():
    with pytest.raises(ConfigError, match="no tokens"):
        tokenize("?!, ...", "words")


def test_unknown_scheme():
    with pytest.raises(ConfigError, match="tokenizer='bpe'"):
        tokenize("hi", "bpe")


@pytest.mark.parametrize(
    "text, clusters",
    [
        ("क्षत्रिय", ["क्ष", "त्रि", "य"]),  # Devanagari conjuncts (virama joins consonants)
        ("กำ", ["กำ"]),  # Thai consonant + sara am
        ("ক্ষ", ["ক্ষ"]),  # Bengali conjunct
    ],
)
def test_grapheme_clusters_follow_unicode(text, clusters):
    assert graphemes(text) == clusters
