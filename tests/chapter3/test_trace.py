"""Invariants of every trace (the container in attention/chapter3/trace.py, filled by every module), and
trace == forward for the same module state and dropout draw."""

from dataclasses import fields

import pytest
import torch

from attention.chapter3.blog_modules import MultiHeadSelfAttentionQKV, SelfAttentionQKV
from attention.chapter3.modules import (
    CausalAttention,
    MultiHeadAttention,
    MultiHeadAttentionWrapper,
    SelfAttention_v1,
    SelfAttention_v2,
    SimplifiedSelfAttention,
)
from attention.chapter3.trace import PER_HEAD, STEPS, TENSORS

T = 7
MODULES = {
    "simplified": (SimplifiedSelfAttention, (), False),
    "v1": (SelfAttention_v1, (5, 4), False),
    "v2": (SelfAttention_v2, (5, 4, True), False),
    "causal": (CausalAttention, (5, 4, T, 0.3), True),
    "wrapper": (MultiHeadAttentionWrapper, (5, 4, T, 0.3, 3), True),
    "mha": (MultiHeadAttention, (5, 6, T, 0.3, 3), True),
    "separate_dv": (SelfAttentionQKV, (5, 4, 6), False),
    "stacked_heads": (MultiHeadSelfAttentionQKV, (5, 4, 6, 2), False),
}


def make(name, train=False):
    cls, args, batched = MODULES[name]
    torch.manual_seed(0)
    module = cls(*args).train(train)
    x = torch.randn(2, T, 5) if batched else torch.randn(T, 5)
    return module, x


@pytest.mark.parametrize("name", MODULES)
def test_trace_output_equals_forward_in_eval(name):
    module, x = make(name)
    trace = module.trace(x)
    out = module(x)
    expected = out if out.dim() == 3 else out.unsqueeze(0)
    assert torch.equal(trace.output, expected)


@pytest.mark.parametrize("name", ["causal", "wrapper", "mha"])
def test_trace_output_equals_forward_with_the_same_dropout_draw(name):
    module, x = make(name, train=True)
    torch.manual_seed(7)
    forward = module(x)
    torch.manual_seed(7)
    trace = module.trace(x)  # generator=None draws from the global RNG, as nn.Dropout does
    assert trace.dropout_mask is not None
    assert torch.equal(trace.output, forward)


@pytest.mark.parametrize("name", MODULES)
def test_shapes_and_row_sums(name):
    module, x = make(name)
    trace = module.trace(x)
    B, H, t, _ = trace.weights.shape
    assert t == T and trace.scores.shape == (B, H, T, T)
    assert trace.queries.shape[:3] == (B, H, T) and trace.context.shape[:3] == (B, H, T)
    assert trace.x.shape[:2] == (B, T) and trace.output.shape[:2] == (B, T)
    torch.testing.assert_close(trace.weights.sum(-1), torch.ones(B, H, T))
    torch.testing.assert_close(trace.scaled_scores, trace.scores / trace.divisor)


@pytest.mark.parametrize("name", ["causal", "wrapper", "mha"])
def test_causal_upper_triangle_is_exactly_zero(name):
    module, x = make(name)
    trace = module.trace(x)
    upper = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    assert torch.equal(trace.mask, upper)
    assert (trace.weights[..., upper] == 0).all()
    assert torch.isneginf(trace.masked_scores[..., upper]).all()
    assert torch.isfinite(trace.scaled_scores).all()  # the kept scaled scores are not overwritten


def test_non_causal_has_no_mask():
    module = MultiHeadAttention(5, 6, T, 0.0, 3, causal=False)
    trace = module.trace(torch.randn(1, T, 5))
    assert trace.mask is None and (trace.weights > 0).all()


def test_dropout_scaling_and_mask():
    torch.manual_seed(3)
    p = 0.4
    module = MultiHeadAttention(8, 8, 16, p, num_heads=2).train()
    trace = module.trace(torch.randn(1, 16, 8), generator=torch.Generator().manual_seed(5))
    keep = trace.dropout_mask
    assert keep.dtype == torch.bool and keep.shape == trace.weights.shape
    torch.testing.assert_close(trace.dropped_weights[keep], trace.weights[keep] / (1 - p))
    assert (trace.dropped_weights[~keep] == 0).all()
    assert 0.4 < keep.float().mean() < 0.8  # about 1 - p of 512 cells
    assert trace.dropout == p


def test_eval_mode_turns_dropout_off():
    module = MultiHeadAttention(8, 8, 4, 0.5, num_heads=2).eval()
    trace = module.trace(torch.randn(1, 4, 8))
    assert trace.dropout_mask is None and trace.dropped_weights is trace.weights and trace.dropout == 0.0


def test_wrapper_stacks_heads_in_order():
    module, x = make("wrapper")
    trace = module.trace(x)
    assert trace.num_heads == 3
    for h, head in enumerate(module.heads):
        assert torch.equal(trace.weights[:, h], head.trace(x).weights[:, 0])


def test_shapes_and_nbytes():
    module, x = make("mha")
    trace = module.trace(x)
    shapes = trace.shapes()
    assert shapes["weights"] == (2, 3, T, T) and shapes["output"] == (2, T, 6)
    assert shapes["dropout_mask"] is None
    # float32 (4 bytes): x (2, T, 5); queries, keys, values, context (2, 3, T, 2); scores,
    # scaled_scores, masked_scores, weights (2, 3, T, T); output (2, T, 6). The mask (T, T) is bool
    # (1 byte); dropped_weights is weights (eval: no dropout), counted once.
    floats = 2 * T * 5 + 4 * (2 * 3 * T * 2) + 4 * (2 * 3 * T * T) + 2 * T * 6
    assert trace.dropped_weights is trace.weights
    assert trace.nbytes() == 4 * floats + T * T == 6713


# --- the step table ----------------------------------------------------------------------------


def test_every_step_is_a_per_head_T_by_T_field_of_the_trace():
    module, x = make("mha", train=True)
    trace = module.trace(x, generator=torch.Generator().manual_seed(0))
    assert trace.step_names() == list(STEPS)  # causal, with dropout: every step
    for name, step in STEPS.items():
        assert step.name == name and name in PER_HEAD and name in TENSORS
        assert getattr(trace, name).shape == (2, 3, T, T)
        assert step.kind in ("scores", "weights") and step.title.startswith(name) and step.words
    assert {name for name, step in STEPS.items() if step.kind == "weights"} == {"weights", "dropped_weights"}
    # the mask's cells are drawn hatched from the step that applies it on
    assert {name for name, step in STEPS.items() if step.masked} == {
        "masked_scores",
        "weights",
        "dropped_weights",
    }


def test_tensors_are_every_tensor_field_of_the_trace():
    trace = make("mha")[0].trace(make("mha")[1])
    tensors = {f.name for f in fields(trace) if isinstance(getattr(trace, f.name), torch.Tensor)}
    assert tensors <= set(TENSORS) and set(TENSORS) - tensors == {"dropout_mask"}  # None without dropout
    assert set(PER_HEAD) == {n for n in tensors | {"dropout_mask"} if n not in ("x", "mask", "output")}


@pytest.mark.parametrize(
    "name, train, steps",
    [
        ("simplified", False, ["scores", "weights"]),  # section 3.3: no scaling, no mask
        ("v1", False, ["scores", "scaled_scores", "weights"]),
        ("separate_dv", False, ["scores", "scaled_scores", "weights"]),
        ("causal", False, ["scores", "scaled_scores", "masked_scores", "weights"]),
        ("wrapper", True, ["scores", "scaled_scores", "masked_scores", "weights", "dropped_weights"]),
    ],
)
def test_a_trace_names_the_steps_it_went_through(name, train, steps):
    module, x = make(name, train)
    assert module.trace(x).step_names() == steps


def test_scaling_by_one_is_still_a_step():
    """d_k = 1 divides by √1 = 1: the step is shown (section 3.3's attention has none at all)."""
    trace = SelfAttention_v1(5, 1).trace(torch.randn(T, 5))
    assert trace.divisor == 1.0 and trace.scaled and "scaled_scores" in trace.step_names()
