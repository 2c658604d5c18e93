"""The one table of variants: every consumer's view of a variant comes from it."""

import inspect

import pytest

from attention.chapter3.config import ExplorerConfig
from attention.chapter3.engine import build_module, module_input
from attention.chapter3.variants import KNOBS, VARIANTS

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
    x = torch.randn(len(config.tokens), config.d_in)
    out = module(module_input(config, x))
    assert out.dim() == (3 if VARIANTS[key].batched else 2)
    assert out.shape[-1] == config.output_width
    assert module.trace(module_input(config, x)).queries.shape[-1] == config.head_dim


def test_labels_say_what_a_variant_computes():
    labels = [v.label for v in VARIANTS.values()]
    assert len(set(labels)) == len(labels)
    assert not any("document" in label.lower() or "blog_heads" in label for label in labels)
    assert all(len(label) <= 40 for label in labels)  # fits the sidebar
