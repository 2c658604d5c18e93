import pytest
import torch

from attention.chapter3.embeddings import embed, format_matrix, parse_matrix, random_embedding
from attention.chapter3.text import tokenize
from attention.errors import ConfigError
from tests import book


def test_seeded_embedding_reproduces_the_blog():
    tokens = tokenize(book.BLOG_SENTENCE, "words")
    x = random_embedding(tokens, 16, 123)
    assert x.shape == (6, 16)
    torch.testing.assert_close(x[0], torch.tensor(book.BLOG_EMBEDDING_ROW_0), atol=1e-4, rtol=0)
    torch.testing.assert_close(x[5], torch.tensor(book.BLOG_EMBEDDING_ROW_5), atol=1e-4, rtol=0)
    torch.manual_seed(123)
    notebook = torch.nn.Embedding(6, 16)(torch.tensor(tokens.ids)).detach()
    assert torch.equal(x, notebook)


def test_repeated_tokens_get_the_same_vector():
    x = random_embedding(tokenize("the cat saw the dog", "words"), 4, 1)
    assert torch.equal(x[0], x[3]) and not torch.equal(x[0], x[1])


def test_book_vectors():
    x = embed(tokenize("Your journey starts with one step", "words"), "book", 3, 0)
    assert x.shape == (6, 3) and x[1].tolist() == pytest.approx([0.55, 0.87, 0.66])
    x = embed(tokenize("Hello shiny sun!", "words"), "book", 3, 0)
    assert x.shape == (3, 3) and x[1].tolist() == pytest.approx([0.53, 0.34, 0.98])


def test_book_vectors_only_for_the_books_sentences():
    with pytest.raises(ConfigError, match="only for its example sentences"):
        embed(tokenize("my own sentence", "words"), "book", 3, 0)


def test_custom_matrix_round_trip_and_validation():
    rows = parse_matrix("0.1, 0.2; 0.3 0.4\n-1e-3, 5")
    assert rows == [[0.1, 0.2], [0.3, 0.4], [-0.001, 5.0]]
    assert parse_matrix(format_matrix(rows)) == rows
    x = embed(tokenize("a b c", "words"), "custom", 2, 0, rows)
    assert x.shape == (3, 2)
    with pytest.raises(ConfigError, match="different lengths"):
        parse_matrix("1, 2; 3")
    with pytest.raises(ConfigError, match="non-finite"):
        parse_matrix("1, nan")
    with pytest.raises(ConfigError, match="not a list of numbers"):
        parse_matrix("1, x")
    with pytest.raises(ConfigError, match="empty"):
        parse_matrix(" ; ")
    with pytest.raises(ConfigError, match="needs one row per token"):
        embed(tokenize("a b", "words"), "custom", 2, 0, rows)
    with pytest.raises(ConfigError, match="does not match"):
        embed(tokenize("a b c", "words"), "custom", 3, 0, rows)
