"""ExplorerConfig: every ConfigError path, the derived widths, and the normalisation step."""

import math

import pytest

from attention.errors import ConfigError
from attention.explorer.config import (
    MAX_ATTENTION_CELLS,
    MAX_D_OUT,
    MAX_HEADS,
    MAX_SEED,
    MAX_TEXT_CHARS,
    MAX_TOKENS,
    ExplorerConfig,
)
from attention.explorer.query_params import to_query_params

RANDOM = dict(embedding="random", text="a quick brown fox jumps", d_in=8)


def test_defaults_are_the_books_multi_head_example():
    c = ExplorerConfig()
    assert (c.variant, c.d_in, c.d_out, c.heads, c.seed, c.embedding) == ("mha", 3, 2, 2, 123, "book")
    assert c.text == "Your journey starts with one step"


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(d_out=10, heads=3), "d_out=10 is not divisible by num_heads=3; try 2 or 5 heads"),
        (dict(d_out=7, heads=2), "d_out=7 is not divisible by num_heads=2; try 1 or 7 heads"),
        (dict(dropout=1.0), "dropout=1.0 is out of range"),
        (dict(dropout=-0.1), "dropout=-0.1 is out of range"),
        (dict(dropout=math.nan), "dropout=nan is out of range"),
        (dict(dropout="x"), "dropout='x' must be a number"),
        (dict(d_in=0), "d_in=0 is out of range; use a whole number from 1 to 1024"),
        (dict(d_out=MAX_D_OUT + 1), "d_out=1025 is out of range"),
        (dict(heads=MAX_HEADS + 1, d_out=17), "heads=17 is out of range"),
        (dict(seed=-1), "seed=-1 is out of range"),
        (dict(seed=MAX_SEED + 1), "seed=4294967296 is out of range"),
        (dict(d_in=2.5), "d_in=2.5 must be a whole number"),
        (dict(heads=True), "heads=True must be a whole number"),
        (dict(variant="gpt"), "variant='gpt' is unknown"),
        (dict(tokenizer="bpe"), "tokenizer='bpe' is unknown"),
        (dict(embedding="glove"), "embedding='glove' is unknown"),
        (dict(device="tpu"), "device='tpu' is unknown"),
        (dict(text=""), "The text is empty"),
        (dict(text=" \n "), "The text is empty"),
        (dict(text="?!"), "has no tokens"),
        (dict(text="x" * (MAX_TEXT_CHARS + 1)), "characters; the limit is 5,000"),
        (dict(text="w " * (MAX_TOKENS + 1)), "257 tokens"),
        (dict(text="my own words"), "exist only for its example sentences"),
        (dict(embedding="custom"), "needs a matrix"),
        (dict(RANDOM, variant="wrapper", heads=16, d_out=100), "= 1600, over the limit of 1024"),
    ],
)
def test_config_errors_name_the_values(changes, message):
    with pytest.raises(ConfigError) as info:
        ExplorerConfig(**changes)
    assert message in str(info.value)


def test_attention_cell_cap():
    text = " ".join(f"w{i}" for i in range(MAX_TOKENS))
    assert 16 * MAX_TOKENS**2 <= MAX_ATTENTION_CELLS  # the token cap at 16 heads fits exactly
    ExplorerConfig(**dict(RANDOM, text=text, variant="mha", heads=16, d_out=16))


def test_the_constructor_changes_no_value():
    c = ExplorerConfig(variant="v1", bias=True, causal=True, dropout=0.5, heads=4, train=True, d_in=16)
    assert (c.bias, c.causal, c.dropout, c.heads, c.train, c.d_in) == (True, True, 0.5, 4, True, 16)


def test_normalisation_sets_inapplicable_knobs_to_neutral():
    c = ExplorerConfig(variant="v1", bias=True, causal=True, dropout=0.5, heads=4, train=True).normalised()
    assert (c.bias, c.causal, c.dropout, c.heads, c.train) == (False, False, 0.0, 1, False)
    assert ExplorerConfig(variant="simplified", d_out=7).normalised().d_out == 3  # the context has width d_in
    assert c == ExplorerConfig(variant="v1").normalised()
    canonical = ExplorerConfig().normalised()
    assert canonical.normalised() is canonical  # already canonical: no copy


def test_tokenizing_happens_once():
    c = ExplorerConfig(text="the cat saw the dog", embedding="random")
    assert c.tokens is c.tokens and c.normalised().tokens is c.tokens  # cached, and shared by copies


def test_fixed_vectors_decide_d_in():
    assert ExplorerConfig(d_in=16).normalised().d_in == 3
    custom = ExplorerConfig(text="a b", embedding="custom", d_in=9, matrix=((1, 2, 3, 4), (5, 6, 7, 8)))
    assert custom.input_width == 4 and custom.normalised().d_in == 4
    assert "d_in" not in to_query_params(ExplorerConfig())


def test_widths():
    assert ExplorerConfig(**dict(RANDOM, variant="wrapper", d_out=3, heads=4)).output_width == 12
    assert ExplorerConfig(**dict(RANDOM, variant="mha", d_out=12, heads=4)).head_dim == 3
    assert ExplorerConfig(**dict(RANDOM, variant="separate_dv", d_out=4, d_v=5)).output_width == 5
    assert ExplorerConfig(**dict(RANDOM, variant="stacked_heads", d_out=4, d_v=5, heads=3)).output_width == 15
