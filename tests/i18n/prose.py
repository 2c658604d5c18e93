"""What a page shows a reader, as prose: every string in every element AppTest holds (markdown,
labels, help, options, captions, table headers) and every chart's titles and hover text, split
into units of three words or more, with markup, code and numbers taken out."""

from __future__ import annotations

import json
import re
import unicodedata

from google.protobuf.json_format import MessageToDict

from attention.chapter3.embeddings import presets
from attention.chapter3.trace import STEPS
from attention.i18n.sentences import JOURNEY
from attention.model.sentence import SENTENCE, SHAKESPEARE_SENTENCE

# chart keys whose strings a reader reads (not colours, fonts, data)
CHART_KEYS = {"text", "title", "hovertemplate", "name", "label", "ticktext", "subtitle"}
# the book's own English example sentences, and its first sentence as each translation writes
# it: content, not interface (shown as they are in every language)
BOOK_SENTENCES = (
    *JOURNEY.values(),
    "Life is short, eat dessert first",
    "Hello shiny sun",
    "Build a Large Language Model (From Scratch)",  # the book's title
    *(example["text"] for example in presets()),
    SENTENCE,  # Inside a model's opening sentences: the models read English (and Shakespeare)
    SHAKESPEARE_SENTENCE,
)
_LATEX = re.compile(r"\\(frac|mathrm|text|qquad|quad|sum|top|tilde|sqrt|alpha|omega|cdot|left|right|infty)\b")
_CODE = re.compile(
    r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b|<code[^>]*>.*?</code>|:[a-z]+\[|\b\w+_\w+\b|`[^`]*`|\$\$?[^$]*\$\$?|<[^>]+>|:material/\w+:|\{[^}]*\}|%\{[^}]*\}|https?://\S+|\]\([^)]*\)"
)
# the trace's tensors by their code names ("scores = queries @ keysᵀ" is a formula, not prose)
CODE_WORDS = {*STEPS, "queries", "keys", "values", "context", "output", "keysᵀ", "x"}
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_CODE_NAME = re.compile(r"^[A-Za-z]+(?:_[A-Za-z0-9]+)+$|^[a-z]+[A-Z]\w*$|^[A-Z]\w*[a-z][A-Z]\w*$")


# element fields a reader reads (not ids, hashes, user input, code, arrow data)
ELEMENT_KEYS = {"body", "label", "help", "options", "placeholder", "caption", "title", "message", "spec"}
ELEMENT_KEYS |= {"text"}


def _strings(value, chart: bool = False):
    if isinstance(value, dict):
        keys = CHART_KEYS if chart else ELEMENT_KEYS
        for k, v in value.items():
            if k in keys or (chart and isinstance(v, dict | list) and k != "data") or (chart and k == "data"):
                yield from _strings(v, chart)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, chart)
    elif isinstance(value, str):
        if value[:1] in "{[" and ('"data"' in value[:200] or '"layout"' in value[:400]):
            try:
                yield from _strings(json.loads(value), chart=True)
                return
            except ValueError:
                pass
        yield value


def page_strings(at) -> list[str]:
    """Every string in what the page drew (AppTest's element tree, charts opened)."""
    found = []

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None:
            found.extend(_strings(MessageToDict(proto)))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    for kind in ("dataframe", "table"):
        for element in at.get(kind):
            try:
                frame = element.value
            except Exception:  # an element AppTest cannot decode: its proto strings were read
                continue
            found.extend(str(c) for c in frame.columns)
            found.extend(v for col in frame.columns for v in frame[col] if isinstance(v, str))
    return found


def units(text: str) -> list[str]:
    """The prose in one string: its lines and cells with markup, code and numbers out, kept where
    three words or more remain."""
    if _LATEX.search(text) or text.lstrip().startswith(("<style", "<script")):  # code: assets/*.css, a11y.js
        return []
    out = []
    text = text.replace("\\_", "_")
    for part in re.split(r"\n|<br>|\|", text):
        part = _CODE.sub(" ", part)
        for sentence in BOOK_SENTENCES:
            part = part.replace(sentence, " ")
        words = [
            w for w in _WORD.findall(part) if len(w) > 1 and not _CODE_NAME.match(w) and w not in CODE_WORDS
        ]
        if len(words) >= 3:
            out.append(" ".join(words))
    return out


def prose(at) -> list[str]:
    return sorted({u for s in page_strings(at) for u in units(s)})


SCRIPTS = {"uk": ("CYRILLIC",), "ja": ("HIRAGANA", "KATAKANA", "CJK"), "ko": ("HANGUL",)}


def english(unit: str, lang: str) -> bool:
    """Not a letter of the page's script: an English unit on a uk, ja or ko page. (Japanese keeps
    "Attention" and code names in Latin letters inside its sentences: a unit with any kana or kanji
    is Japanese.)"""
    return not any(c.isalpha() and unicodedata.name(c, "").startswith(SCRIPTS[lang]) for c in unit)


def outside_marks(text: str) -> str:
    """Under the pseudo language: what is left of a string once every «message» is taken out."""
    while True:
        stripped = re.sub(r"«[^«»]*»", " ", text, flags=re.S)
        if stripped == text:
            return text
        text = stripped


def leftovers(at) -> list[str]:
    """Under the pseudo language: prose the page wrote without the catalogs."""
    return sorted({u for s in page_strings(at) for u in units(outside_marks(s))})
