"""Untrusted strings <-> ExplorerConfig: URL query parameters and widget state.

    to_query_params(config) -> {name: str}     the knobs its variant has, as strings
    from_values(raw) -> (config, notes)        lenient: parses, clamps, repairs, never raises;
                                               notes say in plain words what was changed (in the
                                               language of the rerun: attention.i18n)
    view_values(raw, spec) -> (values, notes)  what a page shows (a view, a head, a token), same way
    explorer_view_values(raw, config)          the Explorer's view (view, step, head, query, ...)

from_values(to_query_params(c)) == c.normalised(), with no notes. Parameters neither knows are
ignored without a note: learning platforms add their own (utm_source, ...).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import fields

from attention.chapter3.embeddings import EMBEDDINGS, format_matrix, has_book_vectors, parse_matrix
from attention.chapter3.text import SCHEMES, tokenize
from attention.chapter3.trace import STEPS
from attention.errors import ConfigError
from attention.explorer.config import (
    DEVICES,
    MAX_ATTENTION_CELLS,
    MAX_D_OUT,
    MAX_HEADS,
    MAX_TEXT_CHARS,
    MAX_TOKENS,
    MAX_WINDOW,
    RANGES,
    ExplorerConfig,
    nearest,
)
from attention.explorer.variants import FORMER_KEYS, KNOBS, VARIANTS
from attention.i18n import N_, tr, tr_n

# URL query parameter names, in the order they are written.
PARAMS = (
    "text",
    "tokenizer",
    "embedding",
    "variant",
    "d_in",
    "d_out",
    "d_v",
    "heads",
    "kv_groups",
    "window",
    "rope",
    "tile",
    "dropout",
    "causal",
    "bias",
    "seed",
    "train",
    "device",
)
# The Explorer's view, written after the knobs: which view, which step (of STEPS, or all of them
# side by side), head and query token, and whether numbers are in the cells and colours fitted.
VIEWS = ("steps", "heads", "vectors", "query", "tokens", "share")
ALL_STEPS = "all"
VIEW_PARAMS = ("view", "step", "head", "query", "numbers", "fitted")
# the note on a d_in a fixed embedding overrides, per embedding (one whole sentence each)
_FIXED_D_IN = {
    "book": N_("d_in follows the book embedding's vectors; ignored d_in={d_in}."),
    "custom": N_("d_in follows the custom embedding's vectors; ignored d_in={d_in}."),
}
_TRUE = {"1", "true", "yes", "on", "t", "y"}
_FALSE = {"0", "false", "no", "off", "f", "n", ""}


def to_query_params(config: ExplorerConfig) -> dict[str, str]:
    """The knobs this variant has, as strings; d_in only where the embedding does not fix it."""
    c = config.normalised()
    out = {}
    for name in PARAMS:
        if (name in KNOBS and not c.has(name)) or (name == "d_in" and c.embedding != "random"):
            continue
        value = getattr(c, name)
        if name == "window" and value is None:
            continue  # no window: the parameter's absence
        if name == "embedding" and c.embedding == "custom":
            value = format_matrix(c.matrix)
        out[name] = ("1" if value else "0") if isinstance(value, bool) else str(value)
    return out


def from_values(raw: Mapping[str, object]) -> tuple[ExplorerConfig, list[str]]:
    """Lenient construction from untrusted values (strings, lists of strings, or typed).

    Returns the normalised config and a list of plain-language notes, one per value that was
    ignored or corrected. Never raises for bad values; falls back to defaults instead.
    """
    notes: list[str] = []
    default = ExplorerConfig()
    values: dict[str, object] = {}
    for key, value in raw.items():
        if key in PARAMS and (value := _last(key, value, notes)) is not None:
            values[key] = value

    typed = {f.name: getattr(default, f.name) for f in fields(ExplorerConfig)}
    for key, value in values.items():
        parsed = _parse(key, value, default)
        if isinstance(parsed, _Bad):
            used = tr("no window") if key == "window" else repr(getattr(default, key))
            notes.append(tr(parsed.message, name=key, value=_show(value), used=used, **parsed.values))
        elif key == "embedding" and isinstance(parsed, tuple):
            typed["embedding"], typed["matrix"] = "custom", parsed
        else:
            typed[key] = parsed

    variant = VARIANTS[typed["variant"]]
    for knob in KNOBS:  # a knob the variant lacks is not checked further: it computes nothing
        if knob in values and not variant.has(knob) and typed[knob] != getattr(default, knob):
            notes.append(
                tr("{knob} does not apply to {module}; ignored it.", knob=knob, module=variant.cls.__name__)
            )
            typed[knob] = getattr(default, knob)
    # Clamp the numeric knobs into range, then fix combinations one at a time.
    for name, (low, high) in RANGES.items():
        if not low <= typed[name] <= high:
            clamped = min(max(typed[name], low), high)
            notes.append(
                tr(
                    "{name}={value} is out of range {low}..{high}; used {used}.",
                    name=name,
                    value=typed[name],
                    low=low,
                    high=high,
                    used=clamped,
                )
            )
            typed[name] = clamped
    if not 0.0 <= typed["dropout"] < 1.0:
        notes.append(tr("dropout={value} must be in [0, 1); used 0.0 (no dropout).", value=typed["dropout"]))
        typed["dropout"] = 0.0
    if len(typed["text"]) > MAX_TEXT_CHARS:
        n = len(typed["text"])
        notes.append(
            tr_n(
                "The text had {n:,} character; kept the first {limit:,}.",
                "The text had {n:,} characters; kept the first {limit:,}.",
                n,
                n=n,
                limit=MAX_TEXT_CHARS,
            )
        )
        typed["text"] = typed["text"][:MAX_TEXT_CHARS]
    if "embedding" not in values and typed["embedding"] == "book" and _own_text(typed):
        typed["embedding"] = "random"  # the learner's own sentence: the seeded embedding, quietly
    if "d_in" in values and typed["embedding"] != "random":
        fixed = _FIXED_D_IN[typed["embedding"]]  # (not inside tr(): the catalogs would take its key)
        notes.append(tr(fixed, d_in=typed["d_in"]))
    return _repair(typed, notes).normalised(), notes


def view_values(
    raw: Mapping[str, object], spec: Mapping[str, Sequence[str] | int | range]
) -> tuple[dict, list[str]]:
    """What a page shows, from untrusted values: each name in `spec` is one of a list of choices,
    a position 0..n-1 (an int n), or a whole number in a range. Absent or bad values are left out
    (the page uses its default); bad ones get a note. Names not in `spec` are ignored."""
    values, notes = {}, []
    for name, allowed in spec.items():
        if name not in raw or (value := _last(name, raw[name], notes)) is None:
            continue
        if isinstance(allowed, (int, range)):
            allowed = range(allowed) if isinstance(allowed, int) else allowed
            number = _number(value, whole=True)
            if not isinstance(number, _Bad) and number in allowed:
                values[name] = number
            else:
                notes.append(
                    tr(
                        "{name}={value} is not a whole number {low}..{high}; showed the default.",
                        name=name,
                        value=_show(value),
                        low=allowed.start,
                        high=allowed.stop - 1,
                    )
                )
        elif str(value) in allowed:
            values[name] = str(value)
        else:
            notes.append(
                tr(
                    "{name}={value} is not one of {choices}; showed the default.",
                    name=name,
                    value=_show(value),
                    choices=", ".join(allowed),
                )
            )
    return values, notes


def explorer_view_values(raw: Mapping[str, object], config: ExplorerConfig) -> tuple[dict, list[str]]:
    """The Explorer's view (VIEW_PARAMS) from untrusted values, as view_values reads them: a head
    and a query token that `config` has; numbers and fitted as "0" or "1"."""
    spec = {
        "view": VIEWS,
        "step": [*STEPS, ALL_STEPS],
        "head": config.heads,
        "query": len(config.tokens),
        "numbers": ["0", "1"],
        "fitted": ["0", "1"],
    }
    return view_values(raw, spec)


def _last(key: str, value: object, notes: list[str]) -> object | None:
    """A repeated parameter (?heads=2&heads=4) counts once, the last one, with a note."""
    if not isinstance(value, (list, tuple)):
        return value
    if len(value) > 1:
        n = len(value)
        notes.append(
            tr_n(
                "{name} was given {n} time; used the last one.",
                "{name} was given {n} times; used the last one.",
                n,
                name=key,
                n=n,
            )
        )
    return value[-1] if value else None


def _own_text(typed: dict) -> bool:
    """A text (that tokenizes) the book has no vectors for."""
    try:
        return not has_book_vectors(tokenize(typed["text"], typed["tokenizer"]))
    except ConfigError:
        return False  # no tokens: repaired below, with a note


def _repair(typed: dict, notes: list[str]) -> ExplorerConfig:
    """Build the config, fixing one ConfigError at a time with the closest valid value."""
    for _ in range(8):
        try:
            return ExplorerConfig(**typed)
        except ConfigError as e:
            fix = _fix(typed, e)
            # TRANSLATORS: {error} is a whole sentence saying what is wrong; {fix} names the value used
            notes.append(tr("{error} Used {fix} instead.", error=e, fix=fix))
    return ExplorerConfig()  # unreachable in practice: every fix moves toward the defaults


class _Bad:
    """A value that cannot be used: the note's message (its {name}, {value} and {used} filled in
    where the note is written) and any other values it names."""

    def __init__(self, message: str, **values: object):
        self.message = message
        self.values = values


def _show(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…'"


def _parse(key: str, value: object, default: ExplorerConfig) -> object:
    """One raw value -> its type, or _Bad(reason)."""
    want = type(getattr(default, key))
    if key == "text":
        return str(value)
    if key == "window":  # a whole number, or none (no window)
        return None if str(value).strip().lower() in ("", "none", "off") else _number(value, whole=True)
    if key == "embedding":
        text = str(value).strip().lower()
        if text in EMBEDDINGS and text != "custom":
            return text
        try:
            return tuple(tuple(r) for r in parse_matrix(str(value)))
        except ConfigError:
            return _Bad(
                N_(
                    "{name}={value} is neither random, book nor a matrix like '0.1, 0.2; 0.3, 0.4'; "
                    "used {used} instead."
                )
            )
    if want is str:
        text = str(value).strip().lower()
        if key == "variant":
            text = FORMER_KEYS.get(text, text)  # links made before the variants were renamed
        choices = {"variant": VARIANTS, "tokenizer": SCHEMES, "device": DEVICES}[key]
        if text in choices:
            return text
        return _Bad(
            N_("{name}={value} is not one of {choices}; used {used} instead."), choices=", ".join(choices)
        )
    if want is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE | _FALSE:
            return text in _TRUE
        return _Bad(N_("{name}={value} is not on/off (1 or 0); used {used} instead."))
    return _number(value, whole=want is int)


def _number(value: object, whole: bool) -> float | int | _Bad:
    try:
        number = float(value) if not isinstance(value, (int, float)) else value
    except (TypeError, ValueError):
        return _Bad(N_("{name}={value} is not a number; used {used} instead."))
    if not math.isfinite(number):
        return _Bad(N_("{name}={value} is not a finite number; used {used} instead."))
    if whole:
        return (
            int(number)
            if number == int(number)
            else _Bad(N_("{name}={value} is not a whole number; used {used} instead."))
        )
    return float(number)


def _fix(typed: dict, error: ConfigError) -> str:
    """Change `typed` in place to remove `error`; say what was used instead."""
    if error.field == "heads":  # d_out not divisible: the nearest head count that divides
        divisors = [h for h in range(1, MAX_HEADS + 1) if typed["d_out"] % h == 0]
        typed["heads"] = nearest(divisors, typed["heads"])[0]
        return f"heads={typed['heads']}"
    if error.field == "kv_groups":  # groups that do not divide the heads: the nearest that does
        divisors = [g for g in range(1, typed["heads"] + 1) if typed["heads"] % g == 0]
        typed["kv_groups"] = nearest(divisors, typed["kv_groups"])[0]
        return f"kv_groups={typed['kv_groups']}"
    if error.field == "rope":  # an odd head_dim
        typed["rope"] = False
        return tr("no RoPE")
    if error.field == "window":  # below 1, too large, or without the causal mask
        if isinstance(typed["window"], int) and typed["window"] > MAX_WINDOW and typed["causal"]:
            typed["window"] = MAX_WINDOW
            return f"window={MAX_WINDOW}"
        typed["window"] = None
        return tr("no window")
    if error.field == "d_out":  # output too wide
        typed["d_out"] = max(1, MAX_D_OUT // typed["heads"])
        return f"d_out={typed['d_out']}"
    if error.field == "tokens":  # too many tokens: keep the first ones that fit
        heads = typed["heads"] if VARIANTS[typed["variant"]].has("heads") else 1
        limit = MAX_TOKENS
        while heads * limit * limit > MAX_ATTENTION_CELLS:
            limit -= 1
        keep = tokenize(typed["text"], typed["tokenizer"]).texts[:limit]
        typed["text"] = ("" if typed["tokenizer"] == "chars" else " ").join(keep)
        return tr_n("the first {n} token", "the first {n} tokens", limit, n=limit)
    if error.field == "embedding":
        typed.update(embedding="random", matrix=None)
        return tr("the random (seeded nn.Embedding) embedding")
    default = ExplorerConfig()  # the text itself is unusable (empty, only punctuation)
    typed.update(
        text=default.text,
        tokenizer=default.tokenizer,
        embedding=default.embedding,
        d_in=default.d_in,
        matrix=None,
    )
    return tr("the example sentence {sentence}", sentence=repr(default.text))
