"""A short, self-contained PyTorch script that reproduces a config's numbers in a notebook."""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np

from attention.chapter3.embeddings import embed
from attention.explorer.config import ExplorerConfig


@cache
def _class_source(cls) -> str:
    """The book's class without the explorer's .trace method."""
    source = inspect.getsource(cls)
    cut = source.find("    def trace(")
    return (source[:cut] if cut >= 0 else source).rstrip() + "\n"


def pytorch_script(config: ExplorerConfig) -> str:
    """Runnable code: the class as the book writes it, the same input x, the same seeds."""
    c = config.normalised()
    tokens = c.tokens
    classes = [*c.spec.builds_on, c.spec.cls]
    lines = [*c.spec.imports, "import torch", "import torch.nn as nn", "", ""]
    lines += ["\n\n".join(_class_source(cls) for cls in classes), ""]
    lines.append(f"tokens = {list(tokens.texts)!r}  # tokenizer: {c.tokenizer}")
    if c.embedding == "random":
        lines += [
            "vocab = sorted(set(tokens))  # ids index the sorted vocabulary, as in Raschka's blog",
            "ids = torch.tensor([vocab.index(t) for t in tokens])",
            f"torch.manual_seed({c.seed})",
            f"x = nn.Embedding(len(vocab), {c.d_in})(ids).detach()  # (T, d_in)",
        ]
    else:
        rows = embed(tokens, c.embedding, c.d_in, c.seed, c.matrix).tolist()
        # str(np.float32) is the shortest text that parses back to the same float32
        body = ",\n    ".join("[" + ", ".join(str(np.float32(v)) for v in row) + "]" for row in rows)
        lines.append(f"x = torch.tensor([\n    {body},\n])  # (T, d_in): the {c.embedding} embedding")
    batched, call = c.spec.batched, c.spec.call_code(c, len(tokens))
    lines += [
        "",
        f"torch.manual_seed({c.seed})",
        f"module = {c.spec.constructor(c, len(tokens))}",
        f"module.{'train' if c.train else 'eval'}()"
        + ("  # dropout on: draws after the weights" if c.train else ""),
        "with torch.no_grad():",
        *(f"    {line}" for line in call[:-1]),
        f"    {call[-1]}  # ({'1, ' if batched else ''}{len(tokens)}, {c.output_width})",
        "print(out)",
    ]
    return "\n".join(lines) + "\n"
