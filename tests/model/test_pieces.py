"""Tokens that are pieces of a character: labels, groups, and grouped attention."""

import numpy as np
import pytest

from attention.i18n.sentences import JOURNEY
from attention.model import pieces
from attention.model.tokenizer import encode, gpt2

SENTENCES = JOURNEY  # the book's first sentence in each interface language


def token_bytes(text):
    return [gpt2().decode_single_token_bytes(i) for i in encode(text)]


@pytest.mark.parametrize("lang", SENTENCES)
def test_no_label_is_a_byte_code_or_a_replacement_character(lang):
    labels = pieces.labels(token_bytes(SENTENCES[lang]))
    assert not [label for label in labels if "<0x" in label or "�" in label or "\\x" in label]


def test_the_issue_counts_and_the_korean_labels():
    counts = {lang: len(encode(s)) for lang, s in SENTENCES.items()}
    assert counts["ko"] == 43 and counts["uk"] == 42 and counts["ja"] == 18
    labels = pieces.labels(token_bytes(SENTENCES["ko"]))
    assert labels[:5] == ("당 1/2", "당 2/2", "신 1/3", "신 2/3", "신 3/3")
    assert labels[7] == "·여 1/3"  # the space before it is the "·"


def test_a_token_holding_a_whole_character_and_part_of_the_next():
    labels = pieces.labels(token_bytes("あなたの旅"))
    assert "の+旅 1/3" in labels


def test_every_byte_alone_has_a_label_without_byte_codes():
    """GPT-2's 256 single-byte tokens, each alone: a byte that is not a whole character says so
    in hex words of our own, never <0x..> or U+FFFD."""
    for b in range(256):
        label = pieces.labels([bytes([b])])[0]
        assert "<0x" not in label and "�" not in label and label


@pytest.mark.parametrize("lang", SENTENCES)
@pytest.mark.parametrize("by", ["character", "word"])
def test_groups_cover_every_token_once_in_order_and_spell_the_sentence(lang, by):
    raw = token_bytes(SENTENCES[lang])
    members, texts = pieces.groups(raw, by)
    assert [t for g in members for t in g] == list(range(len(raw)))
    assert "".join(texts) == pieces.readable(SENTENCES[lang])
    assert "�" not in "".join(texts)


def test_groups_by_word_join_bpe_pieces_of_an_english_word():
    members, texts = pieces.groups(token_bytes("unbelievable, he said"), "word")
    assert texts == ["unbelievable,", "·he", "·said"] and len(members[0]) == 5  # un|bel|iev|able|,
    members, texts = pieces.groups(token_bytes(SENTENCES["uk"]), "word")
    assert texts == ["Твоя", "·подорож", "·починається", "·з", "·одного", "·кроку"]


def causal_weights(rng, heads, t):
    scores = rng.normal(size=(heads, t, t))
    scores[:, np.triu(np.ones((t, t), bool), 1)] = -np.inf
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("lang", ["ko", "uk", "ja"])
@pytest.mark.parametrize("by", ["character", "word"])
def test_grouped_rows_sum_to_one_and_equal_sums_of_the_token_view(lang, by):
    raw = token_bytes(SENTENCES[lang])
    weights = causal_weights(np.random.default_rng(0), 3, len(raw))
    members, _ = pieces.groups(raw, by)
    g = pieces.grouped(weights, members)
    assert g.shape == (3, len(members), len(members))
    np.testing.assert_allclose(g.sum(-1), 1.0, atol=1e-5)
    for qi, q in enumerate(members):
        for ki, k in enumerate(members):
            np.testing.assert_allclose(g[:, qi, ki], weights[:, q[-1]][:, k].sum(-1), rtol=1e-6)
    # causal: a group never attends to a later group
    assert np.all(np.triu(g, 1) == 0)


def test_partial_marks_the_tokens_labelled_as_parts():
    raw = token_bytes(SENTENCES["ko"])
    flags = pieces.partial(raw)
    assert sum(flags) == 41  # the issue's count: 41 of 43 are pieces of a character
    assert all(("/" in label) == flag for label, flag in zip(pieces.labels(raw), flags, strict=True))
