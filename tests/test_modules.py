"""The documents' and the book's printed numbers, and equivalences between the variants."""

import pytest
import torch
import torch.nn.functional as F

from attention.modules import (
    CausalAttention,
    MultiHeadAttention,
    MultiHeadAttentionWrapper,
    MultiHeadSelfAttentionQKV,
    SelfAttention_v1,
    SelfAttention_v2,
    SelfAttentionQKV,
    SimplifiedSelfAttention,
    reset_parameters,
)
from tests.conftest import BOOK_MHA_OUTPUT


def close(actual, expected, atol=1e-4):
    """Equal to the printed digits (4 decimals)."""
    torch.testing.assert_close(actual, torch.tensor(expected), atol=atol, rtol=0)


# --- Section 3.3 (document 002) and document 000: no trainable weights ----------------------


def test_simplified_attention_for_journey(inputs):
    trace = SimplifiedSelfAttention().trace(inputs)
    close(trace.scores[0, 0, 1], [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])
    close(trace.weights[0, 0, 1], [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])
    close(trace.output[0, 1], [0.4419, 0.6515, 0.5683])


def test_simplified_all_context_vectors(inputs):
    expected = [
        [0.4421, 0.5931, 0.5790],
        [0.4419, 0.6515, 0.5683],
        [0.4431, 0.6496, 0.5671],
        [0.4304, 0.6298, 0.5510],
        [0.4671, 0.5910, 0.5266],
        [0.4177, 0.6503, 0.5645],
    ]
    close(SimplifiedSelfAttention()(inputs), expected)


def test_naive_normalisation_and_naive_softmax_match_the_book(inputs):
    scores = SimplifiedSelfAttention().trace(inputs).scores[0, 0, 1]
    close(scores / scores.sum(), [0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])
    naive = torch.exp(scores) / torch.exp(scores).sum()
    torch.testing.assert_close(naive, torch.softmax(scores, dim=0))


def test_hello_shiny_sun_exact_float32():
    # Document 000 prints [0.3992, 0.3858, 0.8610] from hand-rounded terms; float32 gives this.
    x = torch.tensor([[0.34, 0.22, 0.54], [0.53, 0.34, 0.98], [0.29, 0.54, 0.93]])
    close(SimplifiedSelfAttention()(x)[1], [0.3990, 0.3854, 0.8610])


# --- Section 3.4: trainable weights ---------------------------------------------------------


def test_self_attention_v1_seed_123(inputs):
    torch.manual_seed(123)
    sa_v1 = SelfAttention_v1(3, 2)
    expected = [
        [0.2996, 0.8053],
        [0.3061, 0.8210],
        [0.3058, 0.8203],
        [0.2948, 0.7939],
        [0.2927, 0.7891],
        [0.2990, 0.8040],
    ]
    close(sa_v1(inputs), expected)
    trace = sa_v1.trace(inputs)
    close(trace.queries[0, 0, 1], [0.4306, 1.4551])
    close(trace.scores[0, 0, 1], [1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440])
    close(trace.weights[0, 0, 1], [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])


def test_self_attention_v2_seed_789(inputs):
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    expected = [
        [-0.0739, 0.0713],
        [-0.0748, 0.0703],
        [-0.0749, 0.0702],
        [-0.0760, 0.0685],
        [-0.0763, 0.0679],
        [-0.0754, 0.0693],
    ]
    close(sa_v2(inputs), expected)
    close(sa_v2.trace(inputs).weights[0, 0, 0], [0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510])


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
    close(weights[1, :2], [0.5517, 0.4483])
    close(weights[2, :3], [0.3800, 0.3097, 0.3103])
    close(weights[5], [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529])


def test_minus_inf_mask_equals_tril_multiply_and_renormalise(inputs):
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    plain = sa_v2.trace(inputs).weights[0, 0]  # (T, T) without a mask
    masked_simple = plain * torch.tril(torch.ones(6, 6))
    renormalised = masked_simple / masked_simple.sum(dim=-1, keepdim=True)
    ca = CausalAttention(3, 2, 6, 0.0)
    ca.load_state_dict(sa_v2.state_dict(), strict=False)
    torch.testing.assert_close(ca.trace(inputs[None]).weights[0, 0], renormalised)


def test_book_dropout_example_seed_123():
    torch.manual_seed(123)
    example = torch.nn.Dropout(0.5)(torch.ones(6, 6))
    expected = [
        [2, 2, 0, 2, 2, 0],
        [0, 0, 0, 2, 0, 2],
        [2, 2, 2, 2, 0, 2],
        [0, 2, 2, 0, 0, 2],
        [0, 2, 0, 2, 0, 2],
        [0, 2, 2, 2, 2, 0],
    ]
    assert example.tolist() == expected


def test_causal_attention_seed_123(batch):
    torch.manual_seed(123)
    ca = CausalAttention(3, 2, 6, 0.0)
    expected = [
        [-0.4519, 0.2216],
        [-0.5874, 0.0058],
        [-0.6300, -0.0632],
        [-0.5675, -0.0843],
        [-0.5526, -0.0981],
        [-0.5299, -0.1081],
    ]
    out = ca(batch)
    assert out.shape == (2, 6, 2)
    close(out[0], expected)
    close(out[1], expected)


# --- Section 3.6: multi-head ----------------------------------------------------------------


def test_wrapper_seed_123(batch):
    torch.manual_seed(123)
    mha = MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)
    expected = [
        [-0.4519, 0.2216, 0.4772, 0.1063],
        [-0.5874, 0.0058, 0.5891, 0.3257],
        [-0.6300, -0.0632, 0.6202, 0.3860],
        [-0.5675, -0.0843, 0.5478, 0.3589],
        [-0.5526, -0.0981, 0.5321, 0.3428],
        [-0.5299, -0.1081, 0.5077, 0.3493],
    ]
    out = mha(batch)
    assert out.shape == (2, 6, 4)
    close(out[0], expected)


def test_exercise_3_2_d_out_1_gives_width_2(batch):
    torch.manual_seed(123)
    mha = MultiHeadAttentionWrapper(3, 1, 6, 0.0, num_heads=2)
    out = mha(batch)
    assert out.shape == (2, 6, 2)
    close(out[0, 0], [-0.5740, 0.2216])


def test_multi_head_attention_seed_123(batch):
    torch.manual_seed(123)
    mha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    close(mha(batch)[0], BOOK_MHA_OUTPUT)


def test_exercise_3_3_gpt2_sized_parameter_count():
    mha = MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)
    assert sum(p.numel() for p in mha.parameters()) == 2_360_064


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


# --- Document 001: separate d_k and d_v ----------------------------------------------------


def test_blog_variants_shapes():
    torch.manual_seed(123)
    x = torch.randn(6, 16)
    single = SelfAttentionQKV(16, 24, 28)
    assert single(x).shape == (6, 28)
    multi = MultiHeadSelfAttentionQKV(16, 24, 28, num_heads=3)
    assert multi.multihead_W_query.shape == (3, 24, 16)
    trace = multi.trace(x)
    assert trace.queries.shape == (1, 3, 6, 24) and trace.values.shape == (1, 3, 6, 28)
    assert multi(x).shape == (6, 84)
    torch.testing.assert_close(trace.output[0], multi(x))


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
