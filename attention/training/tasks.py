"""Tasks whose correct attention pattern is known, for Watch it learn: each samples batches of
(inputs, targets) and says which keys the right attention looks at.

    previous  copy the previous token         first   find the first token
    reverse   reverse a sequence              sort    sort small numbers
    text      next character of Alice in Wonderland (public domain; no single right pattern)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import torch

from attention.i18n import N_
from attention.settings import ASSETS

TEXT_FILE = ASSETS / "alice.txt"
IGNORE = -100  # target of positions without one (cross_entropy's ignore_index)


@dataclass(frozen=True)
class Task:
    key: str
    label: str  # in English (the command line); marked for the catalogs: tr(label) on a page
    goal: str  # what the right attention does, in words (likewise)
    vocab: list[str]  # token texts; ids are indices
    defaults: dict = field(default_factory=dict)  # TrainConfig values that suit this task

    def sample(self, n: int, length: int, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """n sequences -> (inputs (n, T), targets (n, T) with IGNORE where nothing is asked)."""
        raise NotImplementedError

    def expected(self, inputs: torch.Tensor) -> np.ndarray | None:
        """(T, T) attention that solves the task for one input sequence: each asked row sums to
        1 over the right keys; rows with nothing asked are NaN. None: no known pattern."""
        raise NotImplementedError


def _symbols(n: int) -> list[str]:
    return [chr(ord("a") + i) for i in range(n)]


class Previous(Task):
    def sample(self, n, length, g):
        x = torch.randint(len(self.vocab), (n, length), generator=g)  # (n, T)
        y = torch.full_like(x, IGNORE)
        y[:, 1:] = x[:, :-1]
        return x, y

    def expected(self, inputs):
        t = inputs.shape[-1]
        e = np.zeros((t, t))
        e[np.arange(1, t), np.arange(t - 1)] = 1.0
        e[0] = np.nan  # nothing before the first token
        return e


class First(Task):
    def sample(self, n, length, g):
        x = torch.randint(len(self.vocab), (n, length), generator=g)
        y = x[:, :1].expand(n, length).clone()
        y[:, 0] = IGNORE  # the first token is its own answer: nothing to find
        return x, y

    def expected(self, inputs):
        t = inputs.shape[-1]
        e = np.zeros((t, t))
        e[:, 0] = 1.0
        e[0] = np.nan
        return e


class _AfterSeparator(Task):
    """items x, then SEP, then the answer one token at a time: y_i is asked at position n + i
    (the SEP, then each answer token so far), so inputs are x + [SEP] + y[:-1]."""

    def answer(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(answers (n, L), source position of each answer in x (n, L))."""
        raise NotImplementedError

    def sample(self, n, length, g):
        sep = len(self.vocab) - 1
        x = self.items(n, length, g)
        y, _ = self.answer(x)
        inputs = torch.cat([x, torch.full((n, 1), sep), y[:, :-1]], dim=1)  # (n, 2L)
        targets = torch.cat([torch.full((n, length), IGNORE), y], dim=1)  # (n, 2L)
        return inputs, targets

    def items(self, n, length, g):
        return torch.randint(len(self.vocab) - 1, (n, length), generator=g)

    def expected(self, inputs):
        t = inputs.shape[-1]
        length = t // 2
        _, source = self.answer(inputs[None, :length])
        e = np.full((t, t), np.nan)
        for i, j in enumerate(source[0].tolist()):
            e[length + i] = 0.0
            e[length + i, j] = 1.0
        return e


class Reverse(_AfterSeparator):
    def answer(self, x):
        source = torch.arange(x.shape[1] - 1, -1, -1).expand_as(x)
        return x.flip(1), source


class Sort(_AfterSeparator):
    def items(self, n, length, g):  # distinct numbers, so each answer has one source
        return torch.argsort(torch.rand(n, len(self.vocab) - 1, generator=g), dim=1)[:, :length]

    def answer(self, x):
        values, source = torch.sort(x, dim=1)
        return values, source


class Text(Task):
    def sample(self, n, length, g):
        ids = _text_ids()
        start = torch.randint(len(ids) - length - 1, (n,), generator=g)
        windows = ids[start[:, None] + torch.arange(length + 1)]  # (n, T + 1)
        return windows[:, :-1], windows[:, 1:]

    def expected(self, inputs):
        return None


@functools.cache  # read once, not at every training step
def _text() -> str:
    return TEXT_FILE.read_text(encoding="utf-8")


@functools.cache
def _text_ids() -> torch.Tensor:
    text = _text()
    vocab = sorted(set(text))
    index = {c: i for i, c in enumerate(vocab)}
    return torch.tensor([index[c] for c in text])


TASKS: dict[str, Task] = {
    t.key: t
    for t in (
        Previous(
            "previous",
            N_("copy the previous token"),
            N_("each token looks at the one before it"),
            _symbols(8),
        ),
        First("first", N_("find the first token"), N_("every token looks at position 0"), _symbols(8)),
        Reverse(
            "reverse",
            N_("reverse a sequence"),
            N_("answer i looks at item L − 1 − i (an anti-diagonal)"),
            [*map(str, range(8)), "|"],
            {"steps": 400},
        ),
        Sort(
            "sort",
            N_("sort small numbers"),
            N_("answer i looks at where the i-th smallest number sits (the model may find another way)"),
            [*map(str, range(10)), "|"],
            {"steps": 1500, "heads": 2, "d_model": 32},
        ),
        Text(
            "text",
            N_("next character of Alice in Wonderland"),
            N_("no single right pattern: watch what emerges"),
            sorted(set(_text())),
            {"steps": 1500, "heads": 2, "d_model": 32},
        ),
    )
}
