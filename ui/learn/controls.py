"""The Learn page's controls and its address: which sentence, which seed, whether every answer
shows; the whole view kept in the URL (sentence, text, seed, query, p, heads, d_out)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attention.chapter3 import AttentionTrace
from attention.chapter3.embeddings import presets
from attention.errors import ConfigError
from attention.explorer import ExplorerConfig
from attention.explorer.config import MAX_SEED
from attention.explorer.query_params import view_values
from attention.i18n import DEFAULT, N_, tr, tr_n
from attention.i18n.sentences import JOURNEY, journey
from attention.lessons import chapter3 as lesson
from ui import url, widgets
from ui.widgets import literal, row

BOOK = [p for p in presets() if "vectors" in p]  # the book's sentences with their printed vectors
OWN = "my own sentence"  # the radio's value (kept in session state and tests); shown through tr()
SEED_PX = 200  # the seed box: ten digits and its − + buttons
HEADS, D_OUTS, PS = [1, 2, 3, 4, 6], [12, 24, 48], [round(0.1 * i, 1) for i in range(10)]
# TRANSLATORS: the sentence the learner's own-sentence box starts with, in the reader's language
EXAMPLE = N_("The cat sat on the mat")
DEFAULTS = {
    "learn_source": BOOK[0]["text"],
    "learn_text": EXAMPLE,
    "learn_seed": 123,
    "learn_query": 1,
    "learn_p": 0.5,
    "learn_heads": 3,
    "learn_d_out": 12,
}
WIDGETS = list(DEFAULTS)  # kept across runs by url.sync, "learn_source" first
# The book's first sentence as the reader's translation writes it: a sentence of its own (seeded
# random embedding: the book's vectors belong to its English words), where the page opens.
TRANSLATED = frozenset(JOURNEY.values()) - {JOURNEY[DEFAULT]}


def opening_source() -> str:
    """Where the page opens: the book's sentence in the reader's language, the book's own in English."""
    return journey() if journey() in TRANSLATED else BOOK[0]["text"]


def sources() -> list[str]:
    """The radio's options: the book's sentences, the reader's language's, the learner's own."""
    mine = [journey()] if journey() in TRANSLATED else []
    return [p["text"] for p in BOOK] + mine + [OWN]


PARAMS = ("seed", "query", "p", "heads", "d_out")  # each the value of widget learn_<name>
QUERIES = 64  # a query position the address may name: more than any sentence Learn shows (the picker clamps)


@dataclass(frozen=True)
class Lesson:
    """What every step draws from: the learner's sentence as a config, its trace, and whether
    every answer shows without predicting."""

    config: ExplorerConfig
    trace: AttentionTrace
    source: str  # the picked book sentence, or OWN
    everything: bool
    view: dict[str, str] | None = None  # what its questions are computed from (exact_params)

    @property
    def own(self) -> bool:
        return self.source == OWN or self.source in TRANSLATED

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.config.tokens.texts

    @property
    def labels(self) -> list[str]:
        return [f"{i}: {t}" for i, t in enumerate(self.tokens)]


def reset_predictions() -> None:
    """A new sentence or seed: every question is asked afresh."""
    widgets.reset_predictions("check_")


def sentence_controls() -> tuple[str, str, int, bool]:
    """The sentence picker, the learner's own sentence, the seed and the show-everything switch:
    (the picked book sentence or OWN, the own sentence, seed, everything)."""
    own = tr("my own sentence")  # put in now: a format_func may be called off this rerun's thread
    if st.session_state.get("learn_source") not in sources():  # another language's sentence
        st.session_state["learn_source"] = opening_source()
    choice = st.radio(
        tr("Sentence"),
        sources(),
        key="learn_source",
        horizontal=True,
        on_change=reset_predictions,
        format_func=lambda source: own if source == OWN else source,
    )
    sentence = row("bottom")
    text = sentence.text_input(
        tr("Your sentence"), key="learn_text", disabled=choice != OWN, on_change=reset_predictions
    )
    seed = sentence.number_input(
        # TRANSLATORS: the random seed (a number) that draws the weights
        tr("seed"),
        0,
        MAX_SEED,
        key="learn_seed",
        on_change=reset_predictions,
        help=tr("Seeds the weights, and the embedding of your own sentence."),
        width=SEED_PX,
    )
    everything = st.toggle(
        tr("Show every answer without predicting"),
        key="learn_everything",
        help=tr("For a teacher preparing a lesson, or a second reading."),
    )
    return choice, text, int(seed), everything


def lesson_config(choice: str, text: str, seed: int) -> ExplorerConfig:
    """The lesson's config for the picked sentence; a sentence that cannot be used is said so and
    the book's is shown, a long one is cut to its first lesson.MAX_TOKENS tokens."""
    own = choice == OWN or choice in TRANSLATED
    try:
        config = lesson.sentence_config(text if choice == OWN else choice, seed, own)
    except ConfigError as error:
        # TRANSLATORS: {error} is a whole sentence saying what is wrong with the text
        st.error(literal(tr("{error} Showing the book's sentence instead.", error=error)))
        config = lesson.sentence_config(BOOK[0]["text"], seed, own=False)
    if choice in TRANSLATED or (choice == OWN and text in TRANSLATED):
        return config  # a language's own example sentence is never cut (Japanese's has 15 tokens)
    short = lesson.first_tokens(config)
    if short is not config:
        n = lesson.MAX_TOKENS
        st.warning(
            tr_n(
                "Long sentences make the worked sums hard to read; the first {n} token is used.",
                "Long sentences make the worked sums hard to read; the first {n} tokens are used.",
                n,
                n=n,
            )
        )
    return short


def load_url(raw: dict[str, tuple[str, ...]]) -> None:
    """The URL's view into the widgets (url.sync's `load`); what could not be used is noted."""
    s = st.session_state
    spec = {
        "sentence": [str(i) for i in range(len(BOOK))] + ["journey", "own"],
        "seed": range(MAX_SEED + 1),
        "query": QUERIES,
        "p": [str(p) for p in PS],
        "heads": [str(h) for h in HEADS],
        "d_out": [str(d) for d in D_OUTS],
    }
    view, notes = view_values(raw, spec)
    s.update(DEFAULTS, learn_source=opening_source(), learn_text=tr(EXAMPLE))
    if "sentence" in view:
        named = {"own": OWN, "journey": journey()}
        s["learn_source"] = named.get(view["sentence"]) or BOOK[int(view["sentence"])]["text"]
    if raw.get("text"):
        s["learn_text"] = str(raw["text"][-1])[:500]
    s.update({f"learn_{k}": view[k] for k in ("seed", "query") if k in view})
    s.update(
        {f"learn_{k}": type(DEFAULTS[f"learn_{k}"])(view[k]) for k in ("p", "heads", "d_out") if k in view}
    )
    s["_learn_notes"] = notes
    reset_predictions()


def url_params() -> dict[str, str]:
    """The view as URL parameters: those at their defaults left out (the text always kept)."""
    s = st.session_state
    source = s["learn_source"]
    own = source == OWN
    books = [b["text"] for b in BOOK]
    params = {"sentence": "own" if own else str(books.index(source)) if source in books else "journey"}
    params |= {"text": s["learn_text"]} if own else {}
    params |= {k: str(s[f"learn_{k}"]) for k in PARAMS}
    opening = "journey" if journey() in TRANSLATED else "0"
    defaults = {"sentence": opening} | {k: str(DEFAULTS[f"learn_{k}"]) for k in PARAMS}
    return {k: v for k, v in params.items() if k == "text" or v != defaults[k]}


def exact_params() -> dict[str, str]:
    """The view as URL parameters that give the same lesson in every language: nothing left to a
    default, the reader's language's own sentence written out (a class's question is computed on
    every phone from the teacher's sentence)."""
    s = st.session_state
    source, books = s["learn_source"], [b["text"] for b in BOOK]
    if source in books:
        params = {"sentence": str(books.index(source))}
    else:
        params = {"sentence": "own", "text": s["learn_text"] if source == OWN else source}
    return params | {k: str(s[f"learn_{k}"]) for k in PARAMS}


def sync_url() -> None:
    """At the top of the page: the widgets from the URL when it is not the page's own."""
    url.sync("learn", WIDGETS, load_url)


def keep_url() -> None:
    """At the end of the page: the view into the URL."""
    url.keep("learn", url_params(), exact_params())
