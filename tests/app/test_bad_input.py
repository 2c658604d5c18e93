"""The classroom's bad-input matrix: every case shows a clear message, goes on with safe values,
renders nothing the user typed as markup, and leaves the app answering the next rerun."""

import unicodedata

import pytest
from streamlit.testing.v1 import AppTest

from attention.devices import available_devices
from attention.explorer.config import MAX_TEXT_CHARS
from tests.app.conftest import answer, messages, open_page, session, show, step_names, steps_figure

HOSTILE = (
    "<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) **bold** "
    "$x^2$ :red[red] <b>b</b>"
)
RAW = ["<script", "<img", "](javascript:", "**bold**", "$x^2$", ":red[", "<b>"]


def markup(at) -> list[str]:
    """Every text Streamlit renders as markdown: markdown, captions, alerts, widget labels, and
    the options of radios and pills (which render markdown too)."""
    texts = [
        e.value
        for kind in ("markdown", "caption", "success", "info", "warning", "error")
        for e in getattr(at, kind)
    ]
    texts += [
        w.label
        for kind in ("radio", "button_group", "selectbox", "text_area", "text_input")
        for w in at.get(kind)
    ]
    texts += [option for kind in ("radio", "button_group") for w in at.get(kind) for option in w.options]
    return texts


def assert_literal(at) -> None:
    for text in markup(at):
        for raw in RAW:
            assert raw not in text, f"{raw!r} would render as markup in {text!r}"


def url_run(params: dict) -> AppTest:
    at = session()
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def healthy(at) -> str:
    """No traceback, the steps still drawn, and the next rerun works. Returns the first run's
    messages (URL notes show once)."""
    assert not at.exception, at.exception
    assert step_names(at)
    shown = messages(at) if at.warning else ""
    assert not at.run().exception
    return shown


# --- text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, note",
    [
        ("", "The text is empty"),
        ("   \n\t  ", "The text is empty"),
        ("a " * 50_000, f"kept the first {MAX_TEXT_CHARS:,}"),
        ("x" * 10_000, f"kept the first {MAX_TEXT_CHARS:,}"),
        ("w " * 300, "the limit is 256"),
        ("\u200b\u200b\u2066", "only punctuation or invisible characters"),
    ],
)
def test_text_that_cannot_be_used_as_is_gets_a_note(text, note):
    assert note in healthy(url_run({"text": text, "embedding": "random"}))


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("I ❤️ 🍕 👩‍💻 🇫🇷", ["I", "❤️", "🍕", "👩‍💻", "🇫🇷"]),
        ("我喜欢你", ["我", "喜", "欢", "你"]),
        ("مرحبا بالعالم", ["مرحبا", "بالعالم"]),
        ("e\u0301 cafe\u0301", ["e\u0301", "cafe\u0301"]),
        ("zero\u200bwidth \x07bell\x00", ["zerowidth", "bell"]),
        ("\u202eevil\u202c text", ["evil", "text"]),
    ],
)
def test_unicode_is_tokenised_whole_and_drawn_safely(text, tokens):
    at = url_run({"text": text, "embedding": "random"})
    healthy(at)
    labels = steps_figure(at)["layout"]["yaxis"]["ticktext"]
    assert [unicodedata.normalize("NFC", t) for t in labels] == [
        unicodedata.normalize("NFC", t) for t in tokens
    ]


@pytest.mark.parametrize("view", ["steps", "tokens", "query", "share"])
def test_html_and_markdown_in_the_text_stay_literal_in_every_view(view):
    at = url_run({"text": HOSTILE, "embedding": "random", "tokenizer": "words_punct"})
    at = show(at, view)
    assert not at.exception
    assert_literal(at)


@pytest.mark.slow  # ~3.5 s: two pages, hostile text each
def test_html_and_markdown_stay_literal_on_learn_and_compare():
    at = open_page("pages/learn.py")
    at.session_state["learn_source"] = "my own sentence"
    at.session_state["learn_text"] = "**bold** <img src=x onerror=alert(1)> $x^2$ :red[r]"
    at = at.run()
    assert not at.exception
    first = at.button_group(key="check_top").options[0].replace("\\", "")  # shown escaped; the value is raw
    at = answer(at, "check_top", first)
    assert at.success or at.error
    assert_literal(at)
    at = open_page("pages/compare.py")
    at.text_input(key="cmp_text").set_value(HOSTILE).run()
    assert not at.exception
    assert_literal(at)


# --- numbers and names in the URL: the whole matrix is in tests/explorer/test_query_params.py; here a few
# cases show that the page says so and renders nothing as markup ------------------------------


@pytest.mark.parametrize(
    "params, note",
    [
        ({"heads": "nan", "variant": "mha"}, "heads='nan' is not a finite number"),
        ({"d_v": "-5", "variant": "stacked_heads"}, "d_v=-5 is out of range"),
        ({"device": "<script>alert(1)</script>"}, "is not one of"),
        ({"d_out": "10", "heads": "3"}, "not divisible by num_heads=3; try 2 or 5 heads"),
        ({"dropout": "1"}, "used 0.0 (no dropout)"),
    ],
)
def test_bad_url_values_on_the_page(params, note):
    at = url_run({"embedding": "random", **params})
    assert_literal(at)
    assert note in healthy(at)


def test_cuda_asked_for_without_a_gpu_falls_back_with_a_reason():
    at = url_run({"device": "cuda"})
    healthy(at)
    if "cuda" not in available_devices():
        assert any("No CUDA GPU is available here" in m.value for m in at.caption)
