"""The code expander's script, run as a reader would run it, gives the displayed numbers."""

import contextlib
import io

import pytest
import torch

from attention.explorer import ExplorerConfig, run
from attention.explorer.engine import build_module
from attention.explorer.snippet import pytorch_script

CONFIGS = [
    ExplorerConfig(),
    ExplorerConfig(variant="simplified", text="Hello shiny sun!"),
    ExplorerConfig(variant="v1", seed=123),
    ExplorerConfig(variant="v2", bias=True, seed=789),
    ExplorerConfig(variant="causal", dropout=0.5, train=True, causal=False),
    ExplorerConfig(variant="wrapper", heads=3, d_out=2, dropout=0.3, train=True),
    ExplorerConfig(
        text="Life is short, eat dessert first",
        embedding="random",
        d_in=16,
        variant="separate_dv",
        d_out=24,
        d_v=28,
    ),
    ExplorerConfig(text="the cat saw the dog", embedding="random", d_in=5, variant="stacked_heads", heads=3),
    ExplorerConfig(text="a b", embedding="custom", matrix=((0.1, 0.2), (0.3, 0.4)), variant="mha", d_out=4),
    ExplorerConfig(
        variant="gqa", d_in=16, embedding="random", d_out=8, heads=4, kv_groups=2, window=3, rope=True
    ),
    ExplorerConfig(variant="gqa", d_out=4, heads=2, kv_groups=2, causal=False),
    ExplorerConfig(variant="kv_cache", d_out=4, heads=2, bias=True),
    ExplorerConfig(variant="online", d_out=4, heads=2, tile=4, causal=True),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.variant)
def test_script_reproduces_the_trace(config):
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(pytorch_script(config), "<snippet>", "exec"), namespace)  # noqa: S102
    trace = run(config)
    out = namespace["out"]
    assert torch.equal(out if out.dim() == 3 else out.unsqueeze(0), trace.output)
    for (name, a), (_, b) in zip(
        namespace["module"].named_parameters(), build_module(config)[0].named_parameters(), strict=True
    ):
        assert torch.equal(a, b), name
    assert "tensor(" in printed.getvalue()
