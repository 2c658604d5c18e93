"""ExplorerConfig: every knob of the explorer, validated in one place.

`ExplorerConfig(...)` checks every value and raises ConfigError naming the one at fault, in the
rerun's language (attention.i18n: a note shows it); it never changes a value. Untrusted strings
(URL query parameters, widget state) go through query_params.from_values, which repairs what it
can and says what it changed.

One documented normalisation step, `config.normalised()`, gives the canonical config of the same
computation: the knobs its variant does not have at their neutral values, and d_in set by the
fixed vectors where the embedding has them. Equal computations then have equal configs (one
cache entry, one URL); engine.run() and from_values() both apply it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import cached_property
from types import SimpleNamespace

from attention.chapter3.embeddings import EMBEDDINGS, fixed_vectors
from attention.chapter3.text import SCHEMES, Tokens, tokenize
from attention.errors import ConfigError, check_whole_numbers
from attention.explorer.variants import KNOBS, VARIANTS, Variant
from attention.i18n import tr, tr_n

# Hard caps that protect a shared server: one rerun's trace stays a few MB.
MAX_TEXT_CHARS = 5_000
MAX_TOKENS = 256
MAX_D_IN = 1024
MAX_D_OUT = 1024  # also the cap on the output width (num_heads * d_out for the wrapper)
MAX_HEADS = 16
MAX_ATTENTION_CELLS = 2**20  # H * T * T of each attention matrix (16 heads at 256 tokens)
MAX_SEED = 2**32 - 1
DEVICES = ("auto", "cpu", "cuda", "mps")
RANGES = {
    "d_in": (1, MAX_D_IN),
    "d_out": (1, MAX_D_OUT),
    "d_v": (1, MAX_D_OUT),
    "heads": (1, MAX_HEADS),
    "kv_groups": (1, MAX_HEADS),
    "tile": (1, MAX_TOKENS),
    "seed": (0, MAX_SEED),
}
MAX_WINDOW = MAX_TOKENS  # a window of T or more over T tokens is the causal mask itself


@dataclass(frozen=True)
class ExplorerConfig:
    """One explorer view. d_out is per head for the wrapper, the total for MultiHeadAttention,
    and d_q = d_k for the blog's variants (whose values have width d_v)."""

    text: str = "Your journey starts with one step"
    tokenizer: str = "words"
    embedding: str = "book"  # random | book | custom
    variant: str = "mha"
    d_in: int = 3
    d_out: int = 2
    d_v: int = 2
    heads: int = 2
    kv_groups: int = 1  # grouped-query attention: key/value heads, each shared by heads / kv_groups
    window: int | None = None  # sliding window: a query sees itself and window - 1 keys back; None: all
    rope: bool = False  # rotary position embeddings on queries and keys
    tile: int = 4  # online softmax: keys per tile
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
        check_whole_numbers(self, RANGES)
        _check_dropout(self.dropout)
        _check_window(self.window)
        _check_size(self)
        _check_combination(self)

    # --- derived values (computed once: the dataclass is frozen) ------------------------------

    @cached_property
    def tokens(self) -> Tokens:
        return tokenize(self.text, self.tokenizer)

    @cached_property
    def vectors(self) -> tuple[tuple[float, ...], ...] | None:
        """The fixed embedding's rows (book or custom), None for the seeded random embedding."""
        if self.embedding == "random":
            return None
        return fixed_vectors(self.tokens, self.embedding, self.matrix)

    @property
    def input_width(self) -> int:
        """d_in as the computation sees it: the fixed vectors' width, or the d_in knob."""
        return self.d_in if self.vectors is None else len(self.vectors[0])

    @property
    def spec(self) -> Variant:
        return VARIANTS[self.variant]

    def has(self, knob: str) -> bool:
        """Whether `knob` changes this variant's computation."""
        return self.spec.has(knob)

    @property
    def head_dim(self) -> int:
        return self.spec.head_dim(SimpleNamespace(**self.effective_values()))

    @property
    def output_width(self) -> int:
        return self.spec.output_width(SimpleNamespace(**self.effective_values()))

    # --- the normalisation step -----------------------------------------------------------------

    def effective_values(self) -> dict:
        """Every field as the computation uses it: knobs the variant lacks at their neutral values
        (d_out = d_in, d_v = d_out, one head, no dropout, mask, bias or train mode), d_in from the
        fixed vectors where the embedding has them, the matrix only for a custom embedding."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["d_in"] = self.input_width
        d_out = self.d_out if self.has("d_out") else values["d_in"]
        neutral = {
            "d_out": d_out,
            "d_v": d_out,
            "heads": 1,
            "kv_groups": 1,
            "window": None,
            "rope": False,
            "tile": ExplorerConfig.tile,
            "dropout": 0.0,
            "causal": False,
            "bias": False,
            "train": False,
        }
        values |= {knob: neutral[knob] for knob in KNOBS if not self.has(knob)} | dict(self.spec.fixed)
        values["dropout"] = float(values["dropout"])
        matrix = self.matrix if self.embedding == "custom" else None
        values["matrix"] = None if matrix is None else tuple(tuple(float(v) for v in row) for row in matrix)
        return values

    def normalised(self) -> ExplorerConfig:
        """The canonical config of the same computation (see the module docstring)."""
        values = self.effective_values()
        if all(type(values[k]) is type(getattr(self, k)) and values[k] == getattr(self, k) for k in values):
            return self
        return replace(self, **values)


def _check_dropout(dropout: object) -> None:
    """A probability that keeps some weight: 0 <= p < 1."""
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
        raise ConfigError(tr("dropout={value} must be a number in [0, 1)", value=repr(dropout)), "dropout")
    if not (math.isfinite(dropout) and 0.0 <= dropout < 1.0):
        raise ConfigError(
            tr(
                "dropout={value} is out of range; it must be at least 0 and below 1 "
                "(p = 1 would drop every weight and divide by 1 - p = 0)",
                value=dropout,
            ),
            "dropout",
        )


def _check_window(window: object) -> None:
    """No window (None), or one of 1..MAX_WINDOW tokens."""
    if window is None:
        return
    if isinstance(window, bool) or not isinstance(window, int):
        raise ConfigError(
            tr("window={value} must be a whole number (or None: no window)", value=repr(window)),
            "window",
        )
    if window < 1:
        raise ConfigError(
            tr(
                "window={value} is out of range: a window holds the query itself and the keys "
                "before it, from 1 to {limit} (a window of 0 would leave a query nothing to "
                "look at).",
                value=window,
                limit=MAX_WINDOW,
            ),
            "window",
        )
    if window > MAX_WINDOW:
        raise ConfigError(
            tr(
                "window={value} is over the limit, {limit} (a window as long as the "
                "sentence is the causal mask itself).",
                value=window,
                limit=MAX_WINDOW,
            ),
            "window",
        )


def _check_size(config: ExplorerConfig) -> None:
    """The text and a fixed embedding within the caps that protect a shared server."""
    if len(config.text) > MAX_TEXT_CHARS:
        n = len(config.text)
        raise ConfigError(
            tr_n(
                "The text has {n:,} character; the limit is {limit:,}.",
                "The text has {n:,} characters; the limit is {limit:,}.",
                n,
                n=n,
                limit=MAX_TEXT_CHARS,
            ),
            "text",
        )
    if len(config.tokens) > MAX_TOKENS:  # tokenizing raises on an empty text
        n = len(config.tokens)
        raise ConfigError(
            tr_n(
                "The text has {n} token under the {tokenizer} tokenizer; the limit is {limit}. Shorten it.",
                "The text has {n} tokens under the {tokenizer} tokenizer; the limit is {limit}. Shorten it.",
                n,
                n=n,
                tokenizer=repr(config.tokenizer),
                limit=MAX_TOKENS,
            ),
            "tokens",
        )
    if config.embedding == "custom" and config.matrix is None:
        raise ConfigError(
            tr("embedding='custom' needs a matrix: one row of d_in numbers per token"), "embedding"
        )
    # (config.vectors is fixed_vectors', which checks there is one row per token)
    if config.vectors is not None and not 1 <= config.input_width <= MAX_D_IN:
        raise ConfigError(
            tr_n(
                "The matrix has {n} column; the limit is {limit}.",
                "The matrix has {n} columns; the limit is {limit}.",
                config.input_width,
                n=config.input_width,
                limit=MAX_D_IN,
            ),
            "embedding",
        )


def _check_combination(config: ExplorerConfig) -> None:
    """Settings that are valid one by one but not together."""
    c = config.effective_values()
    if config.spec.splits_d_out and c["d_out"] % c["heads"]:
        raise ConfigError(_indivisible_heads(c), "heads")
    if config.has("kv_groups") and c["heads"] % c["kv_groups"]:
        raise ConfigError(_indivisible_groups(c), "kv_groups")
    if c["rope"] and (c["d_out"] // c["heads"]) % 2:
        raise ConfigError(_odd_head_dim(c), "rope")
    if c["window"] is not None and not c["causal"]:
        raise ConfigError(
            tr(
                "A sliding window (window={window}) limits how far back a query looks: it needs the "
                "causal mask on.",
                window=c["window"],
            ),
            "window",
        )
    if config.output_width > MAX_D_OUT:
        raise ConfigError(
            tr(
                "Output columns, num_heads × d_out = {heads} × {d_out} = {width}, over the limit of {limit}.",
                heads=c["heads"],
                d_out=c["d_out"],
                width=config.output_width,
                limit=MAX_D_OUT,
            ),
            "d_out",
        )
    cells = c["heads"] * len(config.tokens) ** 2
    if cells > MAX_ATTENTION_CELLS:
        raise ConfigError(
            tr(
                "Heads × tokens² = {heads} × {tokens}² = {cells:,} attention weights, over the limit of "
                "{limit:,}. Use fewer heads or a shorter text.",
                heads=c["heads"],
                tokens=len(config.tokens),
                cells=cells,
                limit=MAX_ATTENTION_CELLS,
            ),
            "tokens",
        )


def _indivisible_heads(c: dict) -> str:
    """d_out that `heads` heads cannot split evenly: the nearest head counts that can, or a d_out."""
    divisors = [h for h in range(1, min(c["d_out"], MAX_HEADS) + 1) if c["d_out"] % h == 0]
    options = nearest(divisors, c["heads"])
    values = {"d_out": c["d_out"], "heads": c["heads"], "multiple": -(-c["d_out"] // c["heads"]) * c["heads"]}
    if len(options) == 1:
        return tr_n(
            "d_out={d_out} is not divisible by num_heads={heads}; try {a} head, or first raise d_out "
            "to a multiple of {heads} (e.g. {multiple}).",
            "d_out={d_out} is not divisible by num_heads={heads}; try {a} heads, or first raise d_out "
            "to a multiple of {heads} (e.g. {multiple}).",
            options[0],
            a=options[0],
            **values,
        )
    return tr_n(
        "d_out={d_out} is not divisible by num_heads={heads}; try {a} or {b} head, or first raise d_out "
        "to a multiple of {heads} (e.g. {multiple}).",
        "d_out={d_out} is not divisible by num_heads={heads}; try {a} or {b} heads, or first raise d_out "
        "to a multiple of {heads} (e.g. {multiple}).",
        options[1],
        a=options[0],
        b=options[1],
        **values,
    )


def _indivisible_groups(c: dict) -> str:
    """Key/value groups that do not divide the heads: the nearest group counts that do."""
    divisors = [g for g in range(1, c["heads"] + 1) if c["heads"] % g == 0]
    options = nearest(divisors, c["kv_groups"])
    values = {"heads": c["heads"], "groups": c["kv_groups"]}
    if len(options) == 1:
        return tr_n(
            "num_heads={heads} is not divisible by num_kv_groups={groups}: every key/value group serves "
            "the same number of query heads; try {a} group.",
            "num_heads={heads} is not divisible by num_kv_groups={groups}: every key/value group serves "
            "the same number of query heads; try {a} groups.",
            options[0],
            a=options[0],
            **values,
        )
    return tr_n(
        "num_heads={heads} is not divisible by num_kv_groups={groups}: every key/value group serves "
        "the same number of query heads; try {a} or {b} group.",
        "num_heads={heads} is not divisible by num_kv_groups={groups}: every key/value group serves "
        "the same number of query heads; try {a} or {b} groups.",
        options[1],
        a=options[0],
        b=options[1],
        **values,
    )


def _odd_head_dim(c: dict) -> str:
    """RoPE with an odd head_dim: the next d_out that makes it even, or fewer heads."""
    values = {"d_out": c["d_out"], "heads": c["heads"], "head_dim": c["d_out"] // c["heads"]}
    even = c["heads"] * (c["d_out"] // c["heads"] + 1)
    if even <= MAX_D_OUT:
        return tr(
            "RoPE turns each query's and key's coordinates in pairs, so head_dim = d_out / heads must be "
            "even; it is {d_out} / {heads} = {head_dim}: set d_out to {even} for RoPE.",
            even=even,
            **values,
        )
    return tr(
        "RoPE turns each query's and key's coordinates in pairs, so head_dim = d_out / heads must be "
        "even; it is {d_out} / {heads} = {head_dim}: use fewer heads for RoPE.",
        **values,
    )


def _check_choice(name: str, value: object, choices) -> None:
    if value not in choices:
        raise ConfigError(
            tr(
                "{name}={value} is unknown; choose one of {choices}",
                name=name,
                value=repr(value),
                choices=", ".join(choices),
            ),
            name,
        )


def nearest(candidates: list[int], target: int) -> list[int]:
    """The one or two candidates closest to target (below and above)."""
    below = [c for c in candidates if c <= target]
    above = [c for c in candidates if c >= target]
    return sorted({*(below[-1:]), *(above[:1])})
