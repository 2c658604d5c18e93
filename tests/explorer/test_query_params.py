"""query_params: untrusted strings -> a config and notes on what was corrected, and back.

The whole bad-input matrix of a classroom lives here (fast): every numeric knob at 0, negative,
huge, NaN, junk; hostile names; repeated keys; impossible combinations. tests/app/test_bad_input.py
checks a few of them on the page.
"""

import pytest

from attention.chapter3.trace import STEPS
from attention.explorer import run
from attention.explorer.config import MAX_D_OUT, MAX_TOKENS, ExplorerConfig
from attention.explorer.query_params import (
    ALL_STEPS,
    PARAMS,
    VIEW_PARAMS,
    explorer_view_values,
    from_values,
    to_query_params,
)

RANDOM = dict(embedding="random", text="a quick brown fox jumps", d_in=8)


@pytest.mark.parametrize(
    "config",
    [
        ExplorerConfig(),
        ExplorerConfig(variant="simplified", text="Hello shiny sun!"),
        ExplorerConfig(
            **dict(RANDOM, variant="wrapper", d_out=3, heads=4, dropout=0.25, train=True, bias=True)
        ),
        ExplorerConfig(
            **dict(RANDOM, variant="stacked_heads", d_out=4, d_v=5, heads=3, seed=9, tokenizer="chars")
        ),
        ExplorerConfig(text="a b", embedding="custom", d_in=2, matrix=((0.1, -2.0), (1e-7, 3.5))),
        ExplorerConfig(text="<b>x</b> & 'q' 🍕 مرحبا", embedding="random", causal=False, device="cpu"),
    ],
)
def test_query_params_round_trip(config):
    params = to_query_params(config)
    assert set(params) <= set(PARAMS) and all(isinstance(v, str) for v in params.values())
    again, notes = from_values(params)
    assert again == config.normalised() and notes == []


def test_query_params_omit_knobs_the_variant_lacks():
    params = to_query_params(ExplorerConfig(variant="v1"))
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
        ({"text": ""}, {"text": "Your journey starts with one step"}, "The text is empty"),
        (
            {"text": "my own words", "embedding": "book"},
            {"embedding": "random"},
            "only for its example sentences",
        ),
        ({"text": "x" * 100_000}, {}, "had 100,000 characters"),
        ({"d_in": "16"}, {"d_in": 3}, "d_in follows the book embedding's vectors; ignored d_in=16"),
        ({"variant": "v1", "bias": "1"}, {"bias": False}, "bias does not apply to SelfAttention_v1"),
        ({"embedding": "1, 2; x"}, {"embedding": "book"}, "is neither random, book nor a matrix"),
    ],
)
def test_from_values_corrects_and_says_what_it_changed(raw, expected, note):
    config, notes = from_values(raw)
    for key, value in expected.items():
        assert getattr(config, key) == value
    assert any(note in n for n in notes), notes


def test_too_many_tokens_keeps_the_first_ones():
    text = " ".join(f"w{i}" for i in range(1000))
    config, notes = from_values({"text": text, "embedding": "random"})
    assert len(config.tokens) == MAX_TOKENS and config.tokens.texts[0] == "w0"
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
            config, _ = from_values({key: value})
            assert isinstance(config, ExplorerConfig)


def test_links_made_before_the_variants_were_renamed_still_work():
    for old, new in (("blog", "separate_dv"), ("blog_heads", "stacked_heads")):
        config, notes = from_values({"variant": old, "embedding": "random", "text": "a b c", "d_in": "4"})
        assert config.variant == new and notes == []


# --- the classroom's bad-input matrix -----------------------------------------------------------

NUMERIC = ["d_in", "d_out", "d_v", "heads", "seed", "dropout"]


@pytest.mark.parametrize("knob", NUMERIC)
@pytest.mark.parametrize(
    "value", ["0", "-5", "1e309", "nan", "inf", "abc", "99999999999999999999", "2.5", ""]
)
def test_every_numeric_knob_survives_any_value(knob, value):
    params = {"embedding": "random", "variant": "stacked_heads" if knob == "d_v" else "mha", knob: value}
    config, notes = from_values(params)
    run(config)  # computes
    valid = value == "0" and knob in ("seed", "dropout")
    assert valid or any(f"{knob}=" in n for n in notes), f"{knob}={value!r} gave no note"


@pytest.mark.parametrize(
    "params, note",
    [
        ({"variant": "gpt4"}, "variant='gpt4' is not one of"),
        ({"device": "tpu"}, "device='tpu' is not one of"),
        ({"device": "<script>alert(1)</script>"}, "is not one of"),
        ({"tokenizer": "bpe"}, "tokenizer='bpe' is not one of"),
        ({"embedding": "<img src=x>"}, "is neither random, book nor a matrix"),
        ({"causal": "maybe"}, "is not on/off"),
        ({"heads": ["2", "4"]}, "heads was given 2 times; used the last one"),
        ({"d_out": "10", "heads": "3"}, "not divisible by num_heads=3; try 2 or 5 heads"),
        ({"dropout": "1.0", "train": "1"}, "dropout=1.0 must be in [0, 1)"),
        ({"dropout": "1"}, "used 0.0 (no dropout)"),
    ],
)
def test_hostile_names_and_impossible_settings(params, note):
    config, notes = from_values({"embedding": "random", **params})
    run(config)
    assert any(note in n for n in notes), notes


def test_unknown_parameters_and_own_text_need_no_note():
    """A learning platform's utm_source, and the learner's own sentence (the seeded
    embedding, quietly: the book's vectors exist for its sentences only)."""
    config, notes = from_values({"utm_source": "moodle", "evil<b>": "<script>", "text": "my own words"})
    assert notes == [] and config.embedding == "random"


def test_the_explorers_view_takes_a_step_of_the_step_table_and_a_head_the_config_has():
    config = ExplorerConfig()  # MultiHeadAttention, 2 heads, 6 tokens
    raw = {"view": "query", "step": "all", "head": "1", "query": "5", "numbers": "0", "fitted": "1"}
    values, notes = explorer_view_values(raw, config)
    assert values == raw | {"step": ALL_STEPS, "head": 1, "query": 5}
    assert notes == [] and set(raw) == set(VIEW_PARAMS)
    for step in STEPS:
        assert explorer_view_values({"step": step}, config) == ({"step": step}, [])
    values, notes = explorer_view_values({"step": "softmax", "head": "2", "view": "<b>"}, config)
    assert values == {} and len(notes) == 3
    assert "head='2' is not a whole number 0..1" in notes[2] and "step='softmax' is not one of" in notes[1]
