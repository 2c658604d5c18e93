"""The book's printed numbers, and equivalences between the variants."""

import pytest
import torch
import torch.nn.functional as F

from attention.chapter3.blog_modules import MultiHeadSelfAttentionQKV, SelfAttentionQKV
from attention.chapter3.modules import (
    CausalAttention,
    MultiHeadAttention,
    MultiHeadAttentionWrapper,
    SelfAttention_v1,
    SelfAttention_v2,
    SimplifiedSelfAttention,
    apply_causal_mask,
    apply_dropout,
    attend,
    causal_mask,
    reset_parameters,
)
from tests import book


def close(actual, expected, atol=1e-4):
    """Equal to the printed digits (4 decimals)."""
    torch.testing.assert_close(actual, torch.tensor(expected), atol=atol, rtol=0)


# --- Section 3.3 and the 'Hello shiny sun!' notes: no trainable weights ----------------------


def test_simplified_attention_for_journey(inputs):
    trace = SimplifiedSelfAttention().trace(inputs)
    close(trace.scores[0, 0, 1], book.JOURNEY_SCORES)
    close(trace.weights[0, 0, 1], book.JOURNEY_WEIGHTS)
    close(trace.output[0, 1], book.JOURNEY_CONTEXT)


def test_simplified_all_context_vectors(inputs):
    close(SimplifiedSelfAttention()(inputs), book.ALL_CONTEXT_VECTORS)


def test_naive_normalisation_matches_the_book(inputs):
    scores = SimplifiedSelfAttention().trace(inputs).scores[0, 0, 1]
    close(scores / scores.sum(), book.JOURNEY_NAIVE_WEIGHTS)


def test_hello_shiny_sun_exact_float32():
    # The 'Hello shiny sun!' notes print their hand-rounded terms' sum; float32 gives the exact value.
    out = SimplifiedSelfAttention()(torch.tensor(book.HELLO_INPUTS))[1]
    close(out, book.HELLO_CONTEXT_EXACT)
    assert not torch.allclose(out, torch.tensor(book.HELLO_CONTEXT_PRINTED), atol=1e-4, rtol=0)


# --- Section 3.4: trainable weights ---------------------------------------------------------


def test_self_attention_v1_seed_123(inputs):
    torch.manual_seed(123)
    sa_v1 = SelfAttention_v1(3, 2)
    close(sa_v1(inputs), book.V1_SEED_123_OUTPUT)
    trace = sa_v1.trace(inputs)
    close(trace.queries[0, 0, 1], book.V1_SEED_123_QUERY_2)
    close(trace.scores[0, 0, 1], book.V1_SEED_123_SCORES_2)
    close(trace.weights[0, 0, 1], book.V1_SEED_123_WEIGHTS_2)


def test_self_attention_v2_seed_789(inputs):
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    close(sa_v2(inputs), book.V2_SEED_789_OUTPUT)
    close(sa_v2.trace(inputs).weights[0, 0, 0], book.V2_SEED_789_WEIGHTS_1)


def test_exercise_3_1_v1_with_v2_weights(inputs):
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    sa_v1 = SelfAttention_v1(3, 2)
    sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)
    sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)
    sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)
    torch.testing.assert_close(sa_v1(inputs), sa_v2(inputs))


# --- Section 3.5: causal mask and dropout ---------------------------------------------------


def test_causal_weights_match_the_book(inputs):
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    ca = CausalAttention(3, 2, 6, 0.0)
    ca.load_state_dict(sa_v2.state_dict(), strict=False)
    weights = ca.trace(inputs[None]).weights[0, 0]
    for row, expected in book.CAUSAL_WEIGHTS_ROWS.items():
        close(weights[row, : len(expected)], expected)


def test_minus_inf_mask_equals_tril_multiply_and_renormalise(inputs):
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    plain = sa_v2.trace(inputs).weights[0, 0]  # (T, T) without a mask
    masked_simple = plain * torch.tril(torch.ones(6, 6))
    renormalised = masked_simple / masked_simple.sum(dim=-1, keepdim=True)
    ca = CausalAttention(3, 2, 6, 0.0)
    ca.load_state_dict(sa_v2.state_dict(), strict=False)
    torch.testing.assert_close(ca.trace(inputs[None]).weights[0, 0], renormalised)


def test_our_dropout_draws_the_books_example_seed_123():
    """apply_dropout, from a local generator, draws what nn.Dropout(0.5) printed after
    torch.manual_seed(123): the same mask, kept weights scaled by 1 / (1 - p) = 2."""
    dropped, kept = apply_dropout(torch.ones(6, 6), 0.5, torch.Generator().manual_seed(123))
    assert dropped.tolist() == book.DROPOUT_SEED_123_ONES
    assert torch.equal(kept, dropped > 0)


def test_causal_attention_seed_123(batch):
    torch.manual_seed(123)
    ca = CausalAttention(3, 2, 6, 0.0)
    out = ca(batch)
    assert out.shape == (2, 6, 2)
    close(out[0], book.CAUSAL_ATTENTION_SEED_123_OUTPUT)
    close(out[1], book.CAUSAL_ATTENTION_SEED_123_OUTPUT)


# --- Section 3.6: multi-head ----------------------------------------------------------------


def test_wrapper_seed_123(batch):
    torch.manual_seed(123)
    mha = MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)
    out = mha(batch)
    assert out.shape == (2, 6, 4)
    close(out[0], book.WRAPPER_SEED_123_OUTPUT)


def test_exercise_3_2_d_out_1_gives_width_2(batch):
    torch.manual_seed(123)
    mha = MultiHeadAttentionWrapper(3, 1, 6, 0.0, num_heads=2)
    out = mha(batch)
    assert out.shape == (2, 6, 2)
    close(out[0, 0], book.EXERCISE_3_2_FIRST_ROW)


def test_multi_head_attention_seed_123(batch):
    torch.manual_seed(123)
    mha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    close(mha(batch)[0], book.MHA_OUTPUT)


def test_exercise_3_3_gpt2_sized_parameter_count():
    mha = MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)
    assert sum(p.numel() for p in mha.parameters()) == book.GPT2_SMALL_MHA_PARAMETERS


def test_heads_must_divide_d_out():
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(3, 5, 6, 0.0, num_heads=2)


# --- Equivalence with torch's own attention -------------------------------------------------


@pytest.mark.parametrize("qkv_bias", [False, True])
def test_mha_equals_torch_multihead_attention(qkv_bias):
    torch.manual_seed(0)
    d, heads, T = 12, 3, 7
    ours = MultiHeadAttention(d, d, T, 0.0, heads, qkv_bias).eval()
    theirs = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True).eval()
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.W_query.weight, ours.W_key.weight, ours.W_value.weight]))
        if qkv_bias:
            theirs.in_proj_bias.copy_(torch.cat([ours.W_query.bias, ours.W_key.bias, ours.W_value.bias]))
        else:
            theirs.in_proj_bias.zero_()
        theirs.out_proj.weight.copy_(ours.out_proj.weight)
        theirs.out_proj.bias.copy_(ours.out_proj.bias)
    x = torch.randn(2, T, d)
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    expected, expected_weights = theirs(
        x, x, x, attn_mask=causal, need_weights=True, average_attn_weights=False
    )
    trace = ours.trace(x)
    torch.testing.assert_close(ours(x), expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(trace.output, expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(trace.weights, expected_weights, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_mha_context_equals_scaled_dot_product_attention(causal):
    torch.manual_seed(1)
    mha = MultiHeadAttention(8, 8, 5, 0.0, num_heads=4, causal=causal).eval()
    x = torch.randn(1, 5, 8)
    trace = mha.trace(x)
    expected = F.scaled_dot_product_attention(trace.queries, trace.keys, trace.values, is_causal=causal)
    torch.testing.assert_close(trace.context, expected, atol=1e-6, rtol=1e-5)


# --- The attention step, one named function per intermediate --------------------------------


def test_attend_names_every_step_and_divides_by_the_divisor():
    torch.manual_seed(0)
    q, k, v = torch.randn(1, 2, 4, 3), torch.randn(1, 2, 4, 3), torch.randn(1, 2, 4, 5)
    steps = attend(q, k, v, divisor=3**0.5, causal=True)
    torch.testing.assert_close(steps.scores, q @ k.transpose(-2, -1))
    torch.testing.assert_close(steps.scaled_scores, steps.scores / 3**0.5)
    assert torch.equal(steps.mask, causal_mask(4)) and steps.divisor == 3**0.5
    assert torch.equal(steps.masked_scores, apply_causal_mask(steps.scaled_scores, steps.mask))
    torch.testing.assert_close(steps.context, steps.weights @ v)
    assert steps.dropout_mask is None and steps.dropped_weights is steps.weights and steps.dropout == 0.0


def test_no_divisor_means_no_scaling_and_no_copy():
    x = torch.randn(1, 1, 3, 2)
    steps = attend(x, x, x)
    assert steps.scaled_scores is steps.scores and steps.divisor == 1.0 and steps.mask is None


# --- Seeding from a local generator ---------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: SelfAttention_v1(3, 2),
        lambda: SelfAttention_v2(3, 2, qkv_bias=True),
        lambda: CausalAttention(4, 3, 6, 0.1, qkv_bias=True),
        lambda: MultiHeadAttentionWrapper(4, 3, 6, 0.1, num_heads=3, qkv_bias=True),
        lambda: MultiHeadAttention(6, 6, 6, 0.1, num_heads=2, qkv_bias=True),
        lambda: SelfAttentionQKV(16, 24, 28),
        lambda: MultiHeadSelfAttentionQKV(16, 4, 5, num_heads=3),
    ],
)
def test_reset_parameters_equals_construction_after_manual_seed(make):
    torch.manual_seed(42)
    book = make()
    ours = make()  # drawn from wherever the global RNG is now
    reset_parameters(ours, torch.Generator().manual_seed(42))
    for (name, a), (_, b) in zip(book.named_parameters(), ours.named_parameters(), strict=True):
        assert torch.equal(a, b), name


def test_a_module_with_its_own_reset_parameters_resets_itself():
    """A module that draws nothing (the GPT model's LayerNorm: ones and zeros) says so with its
    own reset_parameters(generator); reset_parameters never tells a class by its name."""

    class Norm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.nn.Parameter(torch.ones(3))
            self.asked = []

        def reset_parameters(self, generator=None):
            self.asked.append(generator)
            torch.nn.init.ones_(self.scale)

    model = torch.nn.Sequential(torch.nn.Linear(3, 3), Norm())
    generator = torch.Generator().manual_seed(0)
    torch.nn.init.zeros_(model[1].scale)
    reset_parameters(model, generator)
    assert model[1].asked == [generator] and torch.equal(model[1].scale, torch.ones(3))
    bare = torch.nn.Module()
    bare.weight = torch.nn.Parameter(torch.zeros(4))
    reset_parameters(bare, generator)  # no method of its own: a torch.rand parameter, redrawn
    assert ((bare.weight > 0) & (bare.weight < 1)).all()
