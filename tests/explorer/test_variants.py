"""The one table of variants: every consumer's view of a variant comes from it."""

import inspect
from contextlib import nullcontext
from dataclasses import replace
from types import SimpleNamespace

import pytest

from attention.errors import ConfigError
from attention.explorer.config import ExplorerConfig
from attention.explorer.engine import build_module, module_input
from attention.explorer.variants import KNOBS, VARIANTS

RANDOM = dict(embedding="random", text="one two three four five", d_in=6, d_out=6, d_v=4, heads=3)


@pytest.mark.parametrize("key", VARIANTS)
def test_each_row_builds_its_class_with_the_books_signature(key):
    v = VARIANTS[key]
    assert v.knobs <= set(KNOBS) and v.label and v.help
    config = ExplorerConfig(variant=key, **RANDOM).normalised()
    arguments = v.arguments(config, 5)
    inspect.signature(v.cls).bind(**arguments)  # only parameters the class really has
    module, _ = build_module(config)
    assert type(module) is v.cls
    assert v.constructor(config, 5).startswith(v.cls.__name__ + "(")


@pytest.mark.parametrize("key", VARIANTS)
def test_batched_and_widths_match_what_the_module_computes(key):
    import torch

    config = ExplorerConfig(variant=key, **RANDOM).normalised()
    module, _ = build_module(config)
    v = VARIANTS[key]
    x = module_input(config, torch.randn(len(config.tokens), config.d_in))
    out = v.call(module, config, x)
    assert out.dim() == (3 if v.batched else 2)
    assert out.shape[-1] == config.output_width
    trace = v.trace(module, config, x)
    assert trace.queries.shape[-1] == config.head_dim
    assert torch.allclose(trace.output, out if out.dim() == 3 else out.unsqueeze(0), atol=1e-6)


def test_labels_say_what_a_variant_computes():
    labels = [v.label for v in VARIANTS.values()]
    assert len(set(labels)) == len(labels)
    assert not any("document" in label.lower() or "blog_heads" in label for label in labels)
    assert all(len(label) <= 40 for label in labels)  # fits the sidebar


@pytest.mark.parametrize("key", VARIANTS)
def test_the_rows_fields_say_what_the_class_does(key):
    """trainable: it has parameters; splits_d_out: the class refuses heads that do not divide d_out
    (and the config refuses them first); builds_on: the classes its source needs."""
    v = VARIANTS[key]
    config = ExplorerConfig(variant=key, **RANDOM).normalised()
    module, _ = build_module(config)
    assert v.trainable == bool(list(module.parameters()))
    if v.has("heads"):
        uneven = SimpleNamespace(**(config.effective_values() | {"d_out": 5, "heads": 2}))
        try:
            v.cls(**v.arguments(uneven, 5))
            refused = False
        except ValueError:
            refused = True
        assert refused == v.splits_d_out
        with pytest.raises(ConfigError, match="not divisible") if v.splits_d_out else nullcontext():
            ExplorerConfig(variant=key, **(RANDOM | {"d_out": 5, "heads": 2}))
    else:
        assert not v.splits_d_out
    # each piece is used by the class, by a piece after it, or beside the call (RoPE's cos and sin)
    calls = [*v.call_code(config.normalised(), 5)]
    if v.has("rope"):
        calls += v.call_code(replace(config, rope=True, d_out=6, heads=3, kv_groups=1), 5)
    for i, piece in enumerate(v.builds_on):
        users = [inspect.getsource(later) for later in (*v.builds_on[i + 1 :], v.cls)]
        assert piece.__name__ in "\n".join(users + calls), piece
