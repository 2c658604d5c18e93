"""ExplorerConfig: every ConfigError path, canonical forms, and URL query parameters."""

import math

import pytest

from attention.config import (
    MAX_ATTENTION_CELLS,
    MAX_D_OUT,
    MAX_HEADS,
    MAX_SEED,
    MAX_TEXT_CHARS,
    MAX_TOKENS,
    PARAMS,
    VARIANTS,
    ExplorerConfig,
)
from attention.errors import ConfigError

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
        (dict(d_in=0), "d_in=0 is out of range; use 1..1024"),
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
        (dict(text="my own words"), "only for the documents' sentences"),
        (dict(embedding="custom"), "needs a matrix"),
        (dict(RANDOM, variant="wrapper", heads=16, d_out=100), "output columns; the limit is 1024"),
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


def test_inapplicable_knobs_become_neutral():
    c = ExplorerConfig(variant="v1", bias=True, causal=True, dropout=0.5, heads=4, train=True)
    assert (c.bias, c.causal, c.dropout, c.heads, c.train) == (False, False, 0.0, 1, False)
    assert ExplorerConfig(variant="simplified", d_out=7).d_out == 3  # the context has width d_in
    assert c == ExplorerConfig(variant="v1")


def test_fixed_vectors_decide_d_in():
    assert ExplorerConfig(d_in=16).d_in == 3
    assert (
        ExplorerConfig(text="a b", embedding="custom", d_in=9, matrix=((1, 2, 3, 4), (5, 6, 7, 8))).d_in == 4
    )
    assert "d_in" not in ExplorerConfig().to_query_params()


def test_widths():
    assert ExplorerConfig(**dict(RANDOM, variant="wrapper", d_out=3, heads=4)).output_width == 12
    assert ExplorerConfig(**dict(RANDOM, variant="mha", d_out=12, heads=4)).head_dim == 3
    assert ExplorerConfig(**dict(RANDOM, variant="blog", d_out=4, d_v=5)).output_width == 5
    assert ExplorerConfig(**dict(RANDOM, variant="blog_heads", d_out=4, d_v=5, heads=3)).output_width == 15


def test_every_variant_has_a_class_and_knobs():
    from attention import modules

    for v in VARIANTS.values():
        assert hasattr(modules, v.class_name)
        assert v.knobs <= {"d_out", "d_v", "heads", "dropout", "causal", "bias", "train"}


# --- URL query parameters -------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        ExplorerConfig(),
        ExplorerConfig(variant="simplified", text="Hello shiny sun!"),
        ExplorerConfig(
            **dict(RANDOM, variant="wrapper", d_out=3, heads=4, dropout=0.25, train=True, bias=True)
        ),
        ExplorerConfig(
            **dict(RANDOM, variant="blog_heads", d_out=4, d_v=5, heads=3, seed=9, tokenizer="chars")
        ),
        ExplorerConfig(text="a b", embedding="custom", d_in=2, matrix=((0.1, -2.0), (1e-7, 3.5))),
        ExplorerConfig(text="<b>x</b> & 'q' 🍕 مرحبا", embedding="random", causal=False, device="cpu"),
    ],
)
def test_query_params_round_trip(config):
    params = config.to_query_params()
    assert set(params) <= set(PARAMS) and all(isinstance(v, str) for v in params.values())
    again, notes = ExplorerConfig.from_values(params)
    assert again == config and notes == []


def test_query_params_omit_knobs_the_variant_lacks():
    params = ExplorerConfig(variant="v1").to_query_params()
    assert "heads" not in params and "bias" not in params and "d_out" in params


@pytest.mark.parametrize(
    "raw, expected, note",
    [
        (
            {"heads": "3", "d_out": "10", "variant": "mha", "embedding": "random", "d_in": "4"},
            {"heads": 2},
            "not divisible by num_heads=3",
        ),
        ({"dropout": "1.0"}, {"dropout": 0.0}, "dropout=1.0 must be in [0, 1)"),
        ({"dropout": "nan"}, {"dropout": 0.0}, "is not a finite number"),
        ({"d_in": "-5", "embedding": "random"}, {"d_in": 1}, "d_in=-5 is out of range"),
        ({"d_out": "1e9"}, {"d_out": MAX_D_OUT}, "d_out=1000000000 is out of range"),
        ({"seed": "abc"}, {"seed": 123}, "seed='abc' is not a number"),
        ({"seed": "1.5"}, {"seed": 123}, "is not a whole number"),
        ({"variant": "gpt5"}, {"variant": "mha"}, "variant='gpt5' is not one of"),
        ({"device": "tpu"}, {"device": "auto"}, "device='tpu' is not one of"),
        ({"causal": "maybe"}, {"causal": True}, "is not on/off"),
        ({"heads": ["2", "1"]}, {"heads": 1}, "heads was given 2 times"),
        ({"evil": "<script>"}, {}, "Ignored the unknown parameter 'evil'"),
        ({"text": ""}, {"text": "Your journey starts with one step"}, "The text is empty"),
        ({"text": "my own words"}, {"embedding": "random"}, "only for the documents' sentences"),
        ({"text": "x" * 100_000}, {}, "had 100,000 characters"),
        ({"d_in": "16"}, {"d_in": 3}, "d_in follows the book embedding's vectors; ignored d_in=16"),
        ({"variant": "v1", "bias": "1"}, {"bias": False}, "bias does not apply to SelfAttention_v1"),
        ({"embedding": "1, 2; x"}, {"embedding": "book"}, "is neither random, book nor a matrix"),
    ],
)
def test_from_values_corrects_and_says_what_it_changed(raw, expected, note):
    config, notes = ExplorerConfig.from_values(raw)
    for key, value in expected.items():
        assert getattr(config, key) == value
    assert any(note in n for n in notes), notes


def test_too_many_tokens_keeps_the_first_ones():
    text = " ".join(f"w{i}" for i in range(1000))
    config, notes = ExplorerConfig.from_values({"text": text, "embedding": "random"})
    assert len(config.tokens()) == MAX_TOKENS and config.tokens().texts[0] == "w0"
    assert any("the first 256 tokens" in n for n in notes)


def test_from_values_never_raises_on_garbage():
    garbage = [
        "",
        " ",
        "nan",
        "inf",
        "-inf",
        "1e309",
        "-0",
        "0x10",
        "None",
        "[]",
        "{}",
        "\x00",
        "🍕",
        "1" * 400,
    ]
    for key in PARAMS:
        for value in garbage:
            config, _ = ExplorerConfig.from_values({key: value})
            assert isinstance(config, ExplorerConfig)
