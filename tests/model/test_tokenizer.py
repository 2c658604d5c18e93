"""GPT-2's tokenizer, offline: the book's chapter-2 example gives the book's ids."""

from attention.model import tokenizer

BOOK_TEXT = "Hello, do you like tea? <|endoftext|> In the sunlit terraces of someunknownPlace."
BOOK_IDS = [
    15496,
    11,
    466,
    345,
    588,
    8887,
    30,
    220,
    50256,
    554,
    262,
    4252,
    18250,
    8812,
    2114,
    286,
    617,
    34680,
    27271,
    13,
]


def test_the_books_example_gives_the_books_ids(monkeypatch, tmp_path):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # nothing cached: the packaged files only
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # and no way out, were anything to try
    tokenizer.gpt2.cache_clear()
    assert tokenizer.encode(BOOK_TEXT) == BOOK_IDS
    assert tokenizer.gpt2().decode(BOOK_IDS) == BOOK_TEXT


def test_tokens_are_shown_as_the_model_sees_them():
    ids = tokenizer.encode("the cat\nsat")
    assert [tokenizer.shown(i) for i in ids] == ["the", "·cat", "⏎", "sat"]
    assert tokenizer.shown(50256) == "<|endoftext|>"
    # a token alone that is part of a character: its bytes, not a broken glyph
    assert tokenizer.shown(tokenizer.encode("🍕")[0]) == "⟨F0 9F⟩"
    # in its sentence: the character it belongs to, and which part
    assert tokenizer.labels(tokenizer.encode("🍕")) == ("🍕 1/3", "🍕 2/3", "🍕 3/3")
    assert tokenizer.hexes(tokenizer.encode("🍕")) == ("F0 9F", "8D", "95")
