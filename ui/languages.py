"""What does my language cost? The book's sentence in the six languages (and the reader's own),
counted: characters, words, GPT-2 tokens, tokens per word, attention cells."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from attention.figures.languages import cost_bars
from attention.i18n import LANGUAGES, language, tr, tr_n
from attention.i18n.sentences import JOURNEY
from attention.lessons.languages import Cost, costs
from ui.classroom.questions import predict
from ui.widgets import chart, chart_width

MAX_CHARS = 300  # a sentence, not a document: GPT-2 tokenises it on every rerun


def sentences(own: str) -> dict[str, str]:
    """The reader's language first, then the others, then their own sentence."""
    first = language() if language() in JOURNEY else "en"
    order = [first, *[code for code in JOURNEY if code != first]]
    return {code: JOURNEY[code] for code in order} | ({"yours": own} if own.strip() else {})


def name(key: str) -> str:
    return tr("Your sentence") if key == "yours" else LANGUAGES[key]


def predicted(counted: dict[str, Cost]) -> bool:
    """Predict first: which language's sentence costs GPT-2 the most tokens? (The options in one
    order for every reader: in a class, an answer is its option's position.)"""
    names = [LANGUAGES[code] for code in JOURNEY]
    most = max(JOURNEY, key=lambda code: counted[code].tokens)
    why = tr_n(
        "{name} costs {n} token for what English says in {english}.",
        "{name} costs {n} tokens for what English says in {english}.",
        counted[most].tokens,
        name=LANGUAGES[most],
        n=counted[most].tokens,
        english=counted["en"].tokens,
    )
    question = tr("The same sentence in six languages. Which one costs GPT-2 the most tokens?")
    return predict("languages_predict", question, names, LANGUAGES[most], why, everything=False)


def table(counted: dict[str, Cost]) -> None:
    english = counted["en"]
    rows = [
        {
            tr("Language"): name(key),
            tr("Characters"): c.characters,
            tr("Words (by spaces)"): c.words,
            tr("GPT-2 tokens"): c.tokens,
            tr("Pieces of a character"): c.pieces,
            tr("Tokens per word"): f"{c.tokens_per_word:.1f}" if c.has_spaces else "—",
            tr("Attention cells (T²)"): c.cells,
            tr("× English"): round(c.cells / english.cells, 1),
            tr("Explorer: words"): c.explorer_words,
            tr("Explorer: characters"): c.explorer_chars,
        }
        for key, c in counted.items()
    ]
    # a table, not a data grid: its headers wrap, so the ten columns fit the page in any language
    st.table(pd.DataFrame(rows).style.format({tr("× English"): "{:.1f}"}), hide_index=True)


MARKUP = {ord(c): f"&#{ord(c)};" for c in "&<>\"'*_`$[]:~\\#|"}  # HTML's and markdown's


def inert(text: str) -> str:
    """Text that neither HTML nor markdown reads as markup (a reader's own sentence's tokens)."""
    return text.translate(MARKUP)


def token_strips(counted: dict[str, Cost]) -> None:
    """Each sentence's GPT-2 tokens as Inside a model labels them."""
    for key, c in counted.items():
        chips = " ".join(f"<code>{inert(label)}</code>" for label in c.labels)
        st.markdown(f"**{html.escape(name(key))}** · {chips}", unsafe_allow_html=True)


def bars(counted: dict[str, Cost]) -> None:
    keys = list(counted)
    fig = cost_bars(
        [name(k) for k in keys],
        [counted[k].tokens for k in keys],
        [counted[k].cells for k in keys],
        tr("One sentence, six languages: GPT-2 tokens and attention cells"),
        (tr("GPT-2 tokens"), tr("attention cells (T²)")),
        tr("%{y} (× %{customdata} the first)<extra></extra>"),
    )
    fig.update_layout(width=chart_width(900))
    chart(fig, key="languages_bars")


def page() -> None:
    st.title(tr("What does my language cost?"))
    st.markdown(
        tr(
            "GPT-2 learned its tokens from web text that is mostly English. Its tokenizer works on UTF-8 "
            "bytes. A word it saw often becomes one token; a letter it rarely saw is split into the bytes "
            "that spell it. Below is the book's first sentence, *Your journey starts with one step*, in "
            "each of its translations, counted in each way this app tokenises text."
        )
    )
    own = st.text_input(
        tr("Add your own sentence"),
        key="languages_own",
        max_chars=MAX_CHARS,
        placeholder=tr("Type a sentence in any language"),
    )
    counted = costs(sentences(own))
    if predicted(counted):
        table(counted)
        bars(counted)
    st.header(tr("What GPT-2 reads"))
    st.caption(
        tr(
            "Each token is labelled as on the Inside a model page: · is a space, and “한 1/2” is the first "
            "of the two tokens that spell 한. Hover over a token there to see its bytes."
        )
    )
    token_strips(counted)
    st.header(tr("Why it matters"))
    st.markdown(
        tr(
            "Every head computes T × T attention weights. A sentence that needs 7 times the tokens "
            "therefore needs about 49 times the attention cells, and it fills the model's context window 7 "
            "times sooner. The Explorer's tokenizers split at spaces (words) or into single characters, "
            "which costs the same for every language. A language written without spaces, such as Japanese, "
            "has no words to split at, so the words tokenizer falls back to characters."
        )
    )
