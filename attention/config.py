"""ExplorerConfig: every knob of the explorer, validated in one place.

Two ways in:
  ExplorerConfig(...)           strict: a bad value raises ConfigError naming it
  ExplorerConfig.from_values()  lenient, for untrusted strings (URL query parameters) and UI
                                state: parses, clamps and corrects, and lists what it changed

Knobs that a variant does not have (qkv bias on SelfAttention_v1, heads on CausalAttention)
are set to their neutral value, so that equal computations have equal configs (one cache
entry, one URL).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields

from attention.embeddings import EMBEDDINGS, book_vectors, embed, format_matrix, parse_matrix
from attention.errors import ConfigError
from attention.text import SCHEMES, tokenize

# Hard caps that protect a shared server: one rerun's trace stays a few MB.
MAX_TEXT_CHARS = 5_000
MAX_TOKENS = 256
MAX_D_IN = 1024
MAX_D_OUT = 1024  # also the cap on the output width (num_heads * d_out for the wrapper)
MAX_HEADS = 16
MAX_ATTENTION_CELLS = 2**20  # H * T * T of each attention matrix (16 heads at 256 tokens)
MAX_SEED = 2**32 - 1
DEVICES = ("auto", "cpu", "cuda", "mps")
RANGES = {"d_in": (1, MAX_D_IN), "d_out": (1, MAX_D_OUT), "d_v": (1, MAX_D_OUT), "heads": (1, MAX_HEADS),
          "seed": (0, MAX_SEED)}  # fmt: skip


@dataclass(frozen=True)
class Variant:
    key: str
    class_name: str
    label: str
    knobs: frozenset[str]  # which of d_out, d_v, heads, dropout, causal, bias, train apply


_MHA_KNOBS = frozenset({"d_out", "heads", "dropout", "causal", "bias", "train"})
_V = Variant
VARIANTS: dict[str, Variant] = {
    v.key: v
    for v in (
        _V("simplified", "SimplifiedSelfAttention", "Simplified (3.3, no weights)", frozenset()),
        _V("v1", "SelfAttention_v1", "SelfAttention_v1 (3.4, nn.Parameter)", frozenset({"d_out"})),
        _V("v2", "SelfAttention_v2", "SelfAttention_v2 (3.4, nn.Linear)", frozenset({"d_out", "bias"})),
        _V("causal", "CausalAttention", "CausalAttention (3.5)", _MHA_KNOBS - {"heads"}),
        _V("wrapper", "MultiHeadAttentionWrapper", "MultiHeadAttentionWrapper (3.6.1)", _MHA_KNOBS),
        _V("mha", "MultiHeadAttention", "MultiHeadAttention (3.6.2, split heads)", _MHA_KNOBS),
        _V("blog", "SelfAttentionQKV", "Document 001: separate d_k, d_v", frozenset({"d_out", "d_v"})),
        _V(
            "blog_heads",
            "MultiHeadSelfAttentionQKV",
            "Document 001: stacked heads",
            frozenset({"d_out", "d_v", "heads"}),
        ),
    )
}

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
    "dropout",
    "causal",
    "bias",
    "seed",
    "train",
    "device",
)
_TRUE = {"1", "true", "yes", "on", "t", "y"}
_FALSE = {"0", "false", "no", "off", "f", "n", ""}


@dataclass(frozen=True)
class ExplorerConfig:
    """One explorer view. d_out is per head for the wrapper, the total for MultiHeadAttention,
    and d_q = d_k for document 001's variants (whose values have width d_v)."""

    text: str = "Your journey starts with one step"
    tokenizer: str = "words"
    embedding: str = "book"  # random | book | custom
    variant: str = "mha"
    d_in: int = 3
    d_out: int = 2
    d_v: int = 2
    heads: int = 2
    dropout: float = 0.0
    causal: bool = True
    bias: bool = False
    seed: int = 123
    train: bool = False
    device: str = "auto"
    matrix: tuple[tuple[float, ...], ...] | None = None  # rows of the custom embedding

    def __post_init__(self):
        _check_choice("variant", self.variant, VARIANTS)
        _check_choice("tokenizer", self.tokenizer, SCHEMES)
        _check_choice("embedding", self.embedding, EMBEDDINGS)
        _check_choice("device", self.device, DEVICES)
        for name, (low, high) in RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{name}={value!r} must be a whole number", name)
            if not low <= value <= high:
                raise ConfigError(f"{name}={value} is out of range; use {low}..{high}", name)
        if isinstance(self.dropout, bool) or not isinstance(self.dropout, (int, float)):
            raise ConfigError(f"dropout={self.dropout!r} must be a number in [0, 1)", "dropout")
        if not (math.isfinite(self.dropout) and 0.0 <= self.dropout < 1.0):
            raise ConfigError(
                f"dropout={self.dropout} is out of range; it must be at least 0 and below 1 "
                "(p = 1 would drop every weight and divide by 1 - p = 0)",
                "dropout",
            )
        if len(self.text) > MAX_TEXT_CHARS:
            raise ConfigError(
                f"The text has {len(self.text):,} characters; the limit is {MAX_TEXT_CHARS:,}.", "text"
            )
        tokens = self.tokens()  # raises on empty text
        if len(tokens) > MAX_TOKENS:
            raise ConfigError(
                f"The text has {len(tokens)} tokens under the {self.tokenizer!r} tokenizer; "
                f"the limit is {MAX_TOKENS}. Shorten it.",
                "tokens",
            )
        if self.embedding != "random":  # fixed vectors decide d_in
            if self.embedding == "custom" and self.matrix is None:
                raise ConfigError(
                    "embedding='custom' needs a matrix: one row of d_in numbers per token", "embedding"
                )
            rows = book_vectors(tokens) if self.embedding == "book" else self.matrix
            if not 1 <= len(rows[0]) <= MAX_D_IN:
                raise ConfigError(
                    f"The matrix has {len(rows[0])} columns; the limit is {MAX_D_IN}.", "embedding"
                )
            object.__setattr__(self, "d_in", len(rows[0]))
            embed(tokens, self.embedding, self.d_in, self.seed, self.matrix)  # checks the row count
        self._canonicalise()
        self._check_combination(len(tokens))

    def _canonicalise(self):
        knobs = VARIANTS[self.variant].knobs
        neutral = {
            "d_out": self.d_in,
            "d_v": self.d_out,
            "heads": 1,
            "dropout": 0.0,
            "causal": False,
            "bias": False,
            "train": False,
        }
        for knob, value in neutral.items():
            if knob not in knobs:
                object.__setattr__(self, knob, value)
        object.__setattr__(self, "dropout", float(self.dropout))
        if self.embedding != "custom":
            object.__setattr__(self, "matrix", None)
        elif self.matrix is not None:
            object.__setattr__(self, "matrix", tuple(tuple(float(v) for v in r) for r in self.matrix))

    def _check_combination(self, num_tokens: int):
        if self.variant == "mha" and self.d_out % self.heads:
            divisors = [h for h in range(1, min(self.d_out, MAX_HEADS) + 1) if self.d_out % h == 0]
            raise ConfigError(
                f"d_out={self.d_out} is not divisible by num_heads={self.heads}; "
                f"try {' or '.join(map(str, _nearest(divisors, self.heads)))} heads",
                "heads",
            )
        if self.output_width > MAX_D_OUT:
            raise ConfigError(
                f"num_heads={self.heads} x d_out={self.d_out} = {self.output_width} output columns; "
                f"the limit is {MAX_D_OUT}",
                "d_out",
            )
        cells = self.heads * num_tokens**2
        if cells > MAX_ATTENTION_CELLS:
            raise ConfigError(
                f"{self.heads} heads x {num_tokens}^2 tokens = {cells:,} attention weights; "
                f"the limit is {MAX_ATTENTION_CELLS:,}. Use fewer heads or a shorter text.",
                "tokens",
            )

    # --- derived values ---------------------------------------------------------------------

    def tokens(self):
        return tokenize(self.text, self.tokenizer)

    @property
    def head_dim(self) -> int:
        if self.variant == "mha":
            return self.d_out // self.heads
        return self.d_in if self.variant == "simplified" else self.d_out

    @property
    def output_width(self) -> int:
        if self.variant in ("wrapper",):
            return self.heads * self.d_out
        if self.variant == "blog_heads":
            return self.heads * self.d_v
        return self.d_v if self.variant == "blog" else self.d_out

    def has(self, knob: str) -> bool:
        """Whether `knob` changes this variant's computation."""
        return knob in VARIANTS[self.variant].knobs

    # --- URL query parameters ---------------------------------------------------------------

    def to_query_params(self) -> dict[str, str]:
        """The knobs this variant has, as strings; from_values(to_query_params()) == self."""
        out = {}
        for name in PARAMS:
            if name in ("d_out", "d_v", "heads", "dropout", "causal", "bias", "train") and not self.has(name):
                continue
            if name == "d_in" and self.embedding != "random":
                continue  # the vectors decide it
            value = getattr(self, name)
            if name == "embedding" and self.embedding == "custom":
                value = format_matrix(self.matrix)
            out[name] = ("1" if value else "0") if isinstance(value, bool) else str(value)
        return out

    @classmethod
    def from_values(cls, raw: Mapping[str, object]) -> tuple[ExplorerConfig, list[str]]:
        """Lenient construction from untrusted values (strings, lists of strings, or typed).

        Returns the config and a list of plain-English notes, one per value that was ignored
        or corrected. Never raises for bad values; falls back to defaults instead.
        """
        notes: list[str] = []
        default = cls()
        values: dict[str, object] = {}
        for key, value in raw.items():
            if key not in PARAMS:
                notes.append(f"Ignored the unknown parameter {_show(key)}.")
                continue
            if isinstance(value, (list, tuple)):
                if not value:
                    continue
                if len(value) > 1:
                    notes.append(f"{key} was given {len(value)} times; used the last one.")
                value = value[-1]
            values[key] = value

        typed = {f.name: getattr(default, f.name) for f in fields(cls)}
        for key, value in values.items():
            parsed = _parse(key, value, default)
            if isinstance(parsed, _Bad):
                notes.append(f"{key}={_show(value)} {parsed.why}; used {getattr(default, key)!r} instead.")
            elif key == "embedding" and isinstance(parsed, tuple):
                typed["embedding"], typed["matrix"] = "custom", parsed
            else:
                typed[key] = parsed

        # Clamp the numeric knobs into range, then fix combinations one at a time.
        for name, (low, high) in RANGES.items():
            if not low <= typed[name] <= high:
                clamped = min(max(typed[name], low), high)
                notes.append(f"{name}={typed[name]} is out of range {low}..{high}; used {clamped}.")
                typed[name] = clamped
        if not 0.0 <= typed["dropout"] < 1.0:
            notes.append(f"dropout={typed['dropout']} must be in [0, 1); used 0.0 (no dropout).")
            typed["dropout"] = 0.0
        if len(typed["text"]) > MAX_TEXT_CHARS:
            notes.append(
                f"The text had {len(typed['text']):,} characters; kept the first {MAX_TEXT_CHARS:,}."
            )
            typed["text"] = typed["text"][:MAX_TEXT_CHARS]
        variant = VARIANTS[typed["variant"]]
        for knob in ("d_out", "d_v", "heads", "dropout", "causal", "bias", "train"):
            if knob in values and knob not in variant.knobs and typed[knob] != getattr(default, knob):
                notes.append(f"{knob} does not apply to {variant.class_name}; ignored it.")
        if "d_in" in values and typed["embedding"] != "random":
            notes.append(
                f"d_in follows the {typed['embedding']} embedding's vectors; ignored d_in={typed['d_in']}."
            )
        return cls._repair(typed, notes), notes

    @classmethod
    def _repair(cls, typed: dict, notes: list[str]) -> ExplorerConfig:
        """Build the config, fixing one ConfigError at a time with the closest valid value."""
        for _ in range(8):
            try:
                return cls(**typed)
            except ConfigError as e:
                fix = _fix(typed, e)
                notes.append(f"{e} Used {fix} instead.")
        return cls()  # unreachable in practice: every fix moves toward the defaults


def _check_choice(name: str, value: object, choices) -> None:
    if value not in choices:
        raise ConfigError(f"{name}={value!r} is unknown; choose one of {', '.join(choices)}", name)


class _Bad:
    def __init__(self, why: str):
        self.why = why


def _show(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…'"


def _parse(key: str, value: object, default: ExplorerConfig) -> object:
    """One raw value -> its type, or _Bad(reason)."""
    want = type(getattr(default, key))
    if key == "text":
        return str(value)
    if key == "embedding":
        text = str(value).strip().lower()
        if text in EMBEDDINGS and text != "custom":
            return text
        try:
            return tuple(tuple(r) for r in parse_matrix(str(value)))
        except ConfigError:
            return _Bad("is neither random, book nor a matrix like '0.1, 0.2; 0.3, 0.4'")
    if want is str:
        text = str(value).strip().lower()
        choices = {"variant": VARIANTS, "tokenizer": SCHEMES, "device": DEVICES}[key]
        return text if text in choices else _Bad(f"is not one of {', '.join(choices)}")
    if want is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE | _FALSE:
            return text in _TRUE
        return _Bad("is not on/off (1 or 0)")
    try:
        number = float(value) if not isinstance(value, (int, float)) else value
    except (TypeError, ValueError):
        return _Bad("is not a number")
    if not math.isfinite(number):
        return _Bad("is not a finite number")
    if want is int:
        if number != int(number):
            return _Bad("is not a whole number")
        return int(number)
    return float(number)


def _nearest(candidates: list[int], target: int) -> list[int]:
    """The one or two candidates closest to target (below and above)."""
    below = [c for c in candidates if c <= target]
    above = [c for c in candidates if c >= target]
    return sorted({*(below[-1:]), *(above[:1])})


def _fix(typed: dict, error: ConfigError) -> str:
    """Change `typed` in place to remove `error`; say what was used instead."""
    if error.field == "heads":  # d_out not divisible: the nearest head count that divides
        divisors = [h for h in range(1, MAX_HEADS + 1) if typed["d_out"] % h == 0]
        typed["heads"] = _nearest(divisors, typed["heads"])[0]
        return f"heads={typed['heads']}"
    if error.field == "d_out":  # output too wide
        typed["d_out"] = max(1, MAX_D_OUT // typed["heads"])
        return f"d_out={typed['d_out']}"
    if error.field == "tokens":  # too many tokens: keep the first ones that fit
        limit = MAX_TOKENS
        while typed["heads"] * limit * limit > MAX_ATTENTION_CELLS:
            limit -= 1
        keep = tokenize(typed["text"], typed["tokenizer"]).texts[:limit]
        typed["text"] = ("" if typed["tokenizer"] == "chars" else " ").join(keep)
        return f"the first {limit} tokens"
    if error.field == "embedding":
        typed.update(embedding="random", matrix=None)
        return "the random (seeded nn.Embedding) embedding"
    default = ExplorerConfig()  # the text itself is unusable (empty, only punctuation)
    typed.update(
        text=default.text,
        tokenizer=default.tokenizer,
        embedding=default.embedding,
        d_in=default.d_in,
        matrix=None,
    )
    return f"the example sentence {default.text!r}"
