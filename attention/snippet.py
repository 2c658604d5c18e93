"""A short, self-contained PyTorch script that reproduces a config's numbers in a notebook."""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np

from attention import modules
from attention.config import VARIANTS, ExplorerConfig
from attention.embeddings import embed


@cache
def _class_source(cls) -> str:
    """The book's class without the explorer's .trace method."""
    source = inspect.getsource(cls)
    cut = source.find("    def trace(")
    return (source[:cut] if cut >= 0 else source).rstrip() + "\n"


def _constructor(c: ExplorerConfig, num_tokens: int) -> str:
    name = VARIANTS[c.variant].class_name
    causal = "" if c.causal else ", causal=False"
    return {
        "simplified": f"{name}()",
        "v1": f"{name}(d_in={c.d_in}, d_out={c.d_out})",
        "v2": f"{name}(d_in={c.d_in}, d_out={c.d_out}, qkv_bias={c.bias})",
        "causal": f"{name}(d_in={c.d_in}, d_out={c.d_out}, context_length={num_tokens}, "
        f"dropout={c.dropout}, qkv_bias={c.bias}{causal})",
        "wrapper": f"{name}(d_in={c.d_in}, d_out={c.d_out}, context_length={num_tokens}, "
        f"dropout={c.dropout}, num_heads={c.heads}, qkv_bias={c.bias}{causal})",
        "mha": f"{name}(d_in={c.d_in}, d_out={c.d_out}, context_length={num_tokens}, "
        f"dropout={c.dropout}, num_heads={c.heads}, qkv_bias={c.bias}{causal})",
        "blog": f"{name}(d_in={c.d_in}, d_k={c.d_out}, d_v={c.d_v})",
        "blog_heads": f"{name}(d_in={c.d_in}, d_k={c.d_out}, d_v={c.d_v}, num_heads={c.heads})",
    }[c.variant]


def pytorch_script(config: ExplorerConfig) -> str:
    """Runnable code: the class as the book writes it, the same input x, the same seeds."""
    c = config
    tokens = c.tokens()
    classes = [getattr(modules, VARIANTS[c.variant].class_name)]
    if c.variant == "wrapper":
        classes.insert(0, modules.CausalAttention)
    lines = ["import torch", "import torch.nn as nn", "", ""]
    lines += ["\n\n".join(_class_source(cls) for cls in classes), ""]
    lines.append(f"tokens = {list(tokens.texts)!r}  # tokenizer: {c.tokenizer}")
    if c.embedding == "random":
        lines += [
            "vocab = sorted(set(tokens))  # document 001: ids index the sorted vocabulary",
            "ids = torch.tensor([vocab.index(t) for t in tokens])",
            f"torch.manual_seed({c.seed})",
            f"x = nn.Embedding(len(vocab), {c.d_in})(ids).detach()  # (T, d_in)",
        ]
    else:
        rows = embed(tokens, c.embedding, c.d_in, c.seed, c.matrix).tolist()
        # str(np.float32) is the shortest text that parses back to the same float32
        body = ",\n    ".join("[" + ", ".join(str(np.float32(v)) for v in row) + "]" for row in rows)
        lines.append(f"x = torch.tensor([\n    {body},\n])  # (T, d_in): the {c.embedding} embedding")
    batched = c.variant in ("causal", "wrapper", "mha")
    lines += [
        "",
        f"torch.manual_seed({c.seed})",
        f"module = {_constructor(c, len(tokens))}",
        f"module.{'train' if c.train else 'eval'}()"
        + ("  # dropout on: draws after the weights" if c.train else ""),
        "with torch.no_grad():",
        f"    out = module({'x.unsqueeze(0)' if batched else 'x'})  # "
        + f"({'1, ' if batched else ''}{len(tokens)}, {c.output_width})",
        "print(out)",
    ]
    return "\n".join(lines) + "\n"
