"""The interface's languages: gettext catalogs, one language per session.

    tr("Heads: {n}", n=4)      this rerun's language's words for the message, its values by name
    tr_n("one head", "{n} heads", n, n=n)   the plural form the language uses for n
    N_("Causal mask")          marks a message that is translated where it is shown (tables of
                               labels built at import time)
    use("uk")                  every tr() in this thread speaks Ukrainian until the next use()

Every session's reruns run in one process, each on its own thread: the language is a context
variable set at the top of each rerun (ui/language.py), never gettext.install, so one student's
language never changes another's. A translation is a dictionary lookup in a catalog compiled by
Babel (assets/locales/<lang>/LC_MESSAGES/messages.mo, loaded once per process); English is the
messages themselves. `python -m attention.i18n` extracts, updates, compiles and checks them.
"""

from __future__ import annotations

import functools
import gettext
import numbers
import string
from contextvars import ContextVar

from babel.numbers import format_decimal, get_group_symbol

from attention.settings import ASSETS

LOCALES = ASSETS / "locales"
DOMAIN = "messages"
DEFAULT = "en"
# code -> the language's own name, as the picker shows it
LANGUAGES = {
    "en": "English",
    "uk": "Українська",
    "pl": "Polski",
    "ja": "日本語",
    "ko": "한국어",
    "af": "Afrikaans",
}

# Not a language: every message wrapped in «», so a test can see what a page writes without
# going through the catalogs (tests/i18n). Accepted by use() and ?lang=, never listed.
PSEUDO = "pseudo"

_language: ContextVar[str] = ContextVar("language", default=DEFAULT)


def use(code: str) -> str:
    """Speak `code` (a key of LANGUAGES; anything else is English) in this thread from now on."""
    code = code if code in LANGUAGES or code == PSEUDO else DEFAULT
    _language.set(code)
    return code


def language() -> str:
    """The language this thread speaks now."""
    return _language.get()


# CLDR's minimum grouping digits where it is not 1 (Babel does not apply it): Polish writes 1000 and
# 12 345, Ukrainian and Afrikaans 1 000.
MIN_GROUPING = {"pl": 2}


def number(value: float, decimals: int = 0) -> str:
    """A quantity as this thread's language writes it (Babel: 114,688 in English, 114 688 in
    Ukrainian, 1000 and 12 345 in Polish, 1 520,5 in Afrikaans), to go into a message already
    formatted. tr() does this itself for a placeholder whose format groups thousands ("{n:,}")."""
    code = language() if language() in LANGUAGES else DEFAULT
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    grouped = abs(value) >= 10 ** (2 + MIN_GROUPING.get(code, 1))
    return format_decimal(value, format=pattern, locale=code, group_separator=grouped)


def separators() -> str:
    """Plotly's `separators` for this thread's language: the decimal point as the matrices and the
    book print it, thousands grouped as the language groups them."""
    code = language() if language() in LANGUAGES else DEFAULT
    return "." + get_group_symbol(code)


class _Formatter(string.Formatter):
    """str.format, except that a number whose format groups thousands ("{n:,}", "{mb:,.1f}") is
    a quantity, written as the session's language writes it (number()). Numbers with only a
    precision ("{p:.3f}") are the matrices' values and keep the point the book prints."""

    def format_field(self, value: object, format_spec: str) -> str:
        # numbers.Real: numpy's integers and floats too (a count read off an array)
        if "," in format_spec and isinstance(value, numbers.Real) and not isinstance(value, bool):
            precision = format_spec.split(".", 1)[1].rstrip("f") if "." in format_spec else ""
            return number(value, int(precision or 0))
        return super().format_field(value, format_spec)


_FORMATTER = _Formatter()


def _format(text: str, values: dict) -> str:
    """str.format (C, fast) unless a placeholder groups thousands ("{n:,}"): _Formatter's Python
    loop only where it changes something (a page formats hundreds of messages a load)."""
    if not values:
        return text
    return _FORMATTER.format(text, **values) if ":," in text else text.format(**values)


@functools.cache
def catalog(code: str) -> gettext.NullTranslations:
    """The compiled catalog of `code`; English, and a language without a catalog, read the
    messages as they are written."""
    if code == DEFAULT:
        return gettext.NullTranslations()
    if code == PSEUDO:
        return Pseudo()
    return gettext.translation(DOMAIN, localedir=LOCALES, languages=[code], fallback=True)


class Pseudo(gettext.NullTranslations):
    """«every message», placeholders untouched."""

    def gettext(self, message: str) -> str:
        return f"«{message}»"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"«{singular if n == 1 else plural}»"


def tr(message: str, /, **values: object) -> str:
    """`message` in this thread's language, with `values` put in by name ("{n} tokens")."""
    return _format(catalog(_language.get()).gettext(message), values)


def tr_n(singular: str, plural: str, count: int, /, **values: object) -> str:
    """The form of the message its language uses for `count` (Ukrainian and Polish have three)."""
    return _format(catalog(_language.get()).ngettext(singular, plural, count), values)


def N_(message: str) -> str:
    """Marks `message` for the catalogs; it is translated (tr) where it is shown."""
    return message


def match(accept: str | None) -> str | None:
    """The first of our languages in a browser's locale ("uk-UA", "ko", "pt-BR" -> None)."""
    if not accept:
        return None
    code = accept.replace("_", "-").split("-")[0].lower()
    return code if code in LANGUAGES else None
