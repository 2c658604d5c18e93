"""ExplorerConfig: every knob of the explorer, validated in one place.

`ExplorerConfig(...)` checks every value and raises ConfigError naming the one at fault; it never
changes a value. Untrusted strings (URL query parameters, widget state) go through
query_params.from_values, which repairs what it can and says what it changed.

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
        if isinstance(self.dropout, bool) or not isinstance(self.dropout, (int, float)):
            raise ConfigError(f"dropout={self.dropout!r} must be a number in [0, 1)", "dropout")
        if not (math.isfinite(self.dropout) and 0.0 <= self.dropout < 1.0):
            raise ConfigError(
                f"dropout={self.dropout} is out of range; it must be at least 0 and below 1 "
                "(p = 1 would drop every weight and divide by 1 - p = 0)",
                "dropout",
            )
        if self.window is not None:
            if isinstance(self.window, bool) or not isinstance(self.window, int):
                raise ConfigError(
                    f"window={self.window!r} must be a whole number (or None: no window)", "window"
                )
            if self.window < 1:
                raise ConfigError(
                    f"window={self.window} is out of range: a window holds the query itself and the keys "
                    f"before it, 1..{MAX_WINDOW} tokens (a window of 0 would leave a query nothing to "
                    "look at).",
                    "window",
                )
            if self.window > MAX_WINDOW:
                raise ConfigError(
                    f"window={self.window} is over the limit of {MAX_WINDOW} tokens (a window as long as the "
                    "sentence is the causal mask itself).",
                    "window",
                )
        if len(self.text) > MAX_TEXT_CHARS:
            raise ConfigError(
                f"The text has {len(self.text):,} characters; the limit is {MAX_TEXT_CHARS:,}.", "text"
            )
        if len(self.tokens) > MAX_TOKENS:  # tokenizing raises on an empty text
            raise ConfigError(
                f"The text has {len(self.tokens)} tokens under the {self.tokenizer!r} tokenizer; "
                f"the limit is {MAX_TOKENS}. Shorten it.",
                "tokens",
            )
        if self.embedding == "custom" and self.matrix is None:
            raise ConfigError(
                "embedding='custom' needs a matrix: one row of d_in numbers per token", "embedding"
            )
        # (self.vectors is fixed_vectors', which checks there is one row per token)
        if self.vectors is not None and not 1 <= self.input_width <= MAX_D_IN:
            raise ConfigError(
                f"The matrix has {self.input_width} columns; the limit is {MAX_D_IN}.", "embedding"
            )
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


def _check_combination(config: ExplorerConfig) -> None:
    """Settings that are valid one by one but not together."""
    c = config.effective_values()
    if config.spec.splits_d_out and c["d_out"] % c["heads"]:
        divisors = [h for h in range(1, min(c["d_out"], MAX_HEADS) + 1) if c["d_out"] % h == 0]
        options = nearest(divisors, c["heads"])
        multiple = -(-c["d_out"] // c["heads"]) * c["heads"]
        raise ConfigError(
            f"d_out={c['d_out']} is not divisible by num_heads={c['heads']}; "
            f"try {' or '.join(map(str, options))} head{'' if options == [1] else 's'}, or first raise d_out "
            f"to a multiple of {c['heads']} (e.g. {multiple}).",
            "heads",
        )
    if config.has("kv_groups") and c["heads"] % c["kv_groups"]:
        divisors = [g for g in range(1, c["heads"] + 1) if c["heads"] % g == 0]
        options = nearest(divisors, c["kv_groups"])
        raise ConfigError(
            f"num_heads={c['heads']} is not divisible by num_kv_groups={c['kv_groups']}: every key/value "
            f"group serves the same number of query heads; try {' or '.join(map(str, options))} "
            f"group{'' if options == [1] else 's'}.",
            "kv_groups",
        )
    if c["rope"] and (c["d_out"] // c["heads"]) % 2:
        raise ConfigError(
            f"RoPE turns each query's and key's coordinates in pairs, so head_dim = d_out / heads must be "
            f"even; it is {c['d_out']} / {c['heads']} = {c['d_out'] // c['heads']}: "
            + (
                f"set d_out to {even} for RoPE."
                if (even := c["heads"] * (c["d_out"] // c["heads"] + 1)) <= MAX_D_OUT
                else "use fewer heads for RoPE."
            ),
            "rope",
        )
    if c["window"] is not None and not c["causal"]:
        raise ConfigError(
            f"A sliding window (window={c['window']}) limits how far back a query looks: it needs the "
            "causal mask on.",
            "window",
        )
    if config.output_width > MAX_D_OUT:
        raise ConfigError(
            f"num_heads={c['heads']} x d_out={c['d_out']} = {config.output_width} output columns; "
            f"the limit is {MAX_D_OUT}",
            "d_out",
        )
    cells = c["heads"] * len(config.tokens) ** 2
    if cells > MAX_ATTENTION_CELLS:
        raise ConfigError(
            f"{c['heads']} heads x {len(config.tokens)}^2 tokens = {cells:,} attention weights; "
            f"the limit is {MAX_ATTENTION_CELLS:,}. Use fewer heads or a shorter text.",
            "tokens",
        )


def _check_choice(name: str, value: object, choices) -> None:
    if value not in choices:
        raise ConfigError(f"{name}={value!r} is unknown; choose one of {', '.join(choices)}", name)


def nearest(candidates: list[int], target: int) -> list[int]:
    """The one or two candidates closest to target (below and above)."""
    below = [c for c in candidates if c <= target]
    above = [c for c in candidates if c >= target]
    return sorted({*(below[-1:]), *(above[:1])})
