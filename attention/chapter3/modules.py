"""The book's attention modules (chapter 3 of "Build a Large Language Model (From Scratch)") and
the attention step they share, written out with every intermediate kept.

`__init__` and `forward` follow the book line for line, so that after `torch.manual_seed(s)` each
class reproduces the printed numbers. Two changes, both value-preserving:
  * forward masks with `masked_fill` (a copy) where the book uses the in-place `masked_fill_`;
  * CausalAttention, MultiHeadAttentionWrapper and MultiHeadAttention take a keyword-only
    `causal=True`, so the explorer can switch the mask off; the default is the book's.

Every class also has `.trace(x, generator=None) -> AttentionTrace`: the same computation through
`attend()`, with every intermediate kept, shaped (B, H, T, ...). `reset_parameters(module,
generator)` redraws the parameters from a local generator exactly as construction after
torch.manual_seed would. The blog's two variants (separate d_v, stacked heads) are in
blog_modules.py.
"""

from __future__ import annotations

import inspect
import math

import torch
import torch.nn as nn

from attention.chapter3.trace import PER_HEAD, AttentionSteps, AttentionTrace

# --- the attention step, one named function per intermediate --------------------------------


def attention_scores(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    return queries @ keys.transpose(-2, -1)  # (B, H, T, T)


def causal_mask(num_tokens: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """(T, T) bool, True above the diagonal: the keys a query may not look at (later tokens)."""
    return torch.triu(torch.ones(num_tokens, num_tokens, device=device), diagonal=1).bool()


def apply_causal_mask(scaled_scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return scaled_scores.masked_fill(mask, -torch.inf)  # (B, H, T, T), a copy: the trace keeps both


def apply_dropout(
    weights: torch.Tensor, p: float, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """(dropped_weights, kept) as nn.Dropout draws them on the CPU: bernoulli_(1 - p) on an empty
    tensor, then / (1 - p). Drawn on the CPU from `generator` (the global RNG when None), so every
    device gets the same mask for the same seed."""
    noise = torch.empty(weights.shape).bernoulli_(1 - p, generator=generator)
    noise = noise.div_(1 - p).to(weights.device)  # (B, H, T, T): 0 or 1/(1-p)
    return weights * noise, noise > 0


def attend(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    *,
    divisor: float | None = None,
    causal: bool = False,
    dropout: float = 0.0,
    training: bool = False,
    generator: torch.Generator | None = None,
    mask: torch.Tensor | None = None,
) -> AttentionSteps:
    """Scaled dot-product attention over (B, H, T, d) tensors, keeping every intermediate.

    `divisor` is what the scores are divided by: sqrt(d_k) as the book computes it
    (d_k ** 0.5), or None for no scaling at all (section 3.3). The ops mirror the book's forward
    (matmul, divide by sqrt(d_k), -inf mask, softmax, dropout) so that a trace and a forward of the
    same module agree. A `mask` (T_q, T_k) bool, True where a query may not look, replaces the
    causal one (attention.modern: a sliding window; the new rows of a KV-cached step).
    """
    scores = attention_scores(queries, keys)  # (B, H, T, T)
    scaled = divisor is not None
    divisor = 1.0 if divisor is None else divisor
    scaled_scores = scores if divisor == 1.0 else scores / divisor  # (B, H, T, T)
    if mask is None and causal:
        mask = causal_mask(scores.shape[-1], scores.device)  # (T, T)
    masked_scores = scaled_scores if mask is None else apply_causal_mask(scaled_scores, mask)
    weights = torch.softmax(masked_scores, dim=-1)  # (B, H, T, T)
    dropout_mask, dropped_weights = None, weights
    if training and dropout > 0.0:
        dropped_weights, dropout_mask = apply_dropout(weights, dropout, generator)  # (B, H, T, T)
    context = dropped_weights @ values  # (B, H, T, d_v)
    return AttentionSteps(
        queries=queries,
        keys=keys,
        values=values,
        scores=scores,
        scaled_scores=scaled_scores,
        mask=mask,
        masked_scores=masked_scores,
        weights=weights,
        dropout_mask=dropout_mask,
        dropped_weights=dropped_weights,
        context=context,
        divisor=divisor,
        dropout=dropout if dropout_mask is not None else 0.0,
        scaled=scaled,
    )


def attend_as(module: nn.Module, queries, keys, values, generator=None) -> AttentionSteps:
    """attend() as the masked classes (3.5 on) run it: scaled by sqrt(head_dim), with the
    module's own causal setting, dropout rate and train/eval mode."""
    return attend(
        queries,
        keys,
        values,
        divisor=keys.shape[-1] ** 0.5,
        causal=module.causal,
        dropout=module.dropout.p,
        training=module.training,
        generator=generator,
    )


def lift(t: torch.Tensor, dims: int) -> torch.Tensor:
    """(T, d) or (h, T, d) -> (1, ..., T, d) with `dims` axes. Unbatched modules compute on their
    own shapes, exactly as their forward does (so the floats agree bit for bit); their traces
    gain leading axes to the trace's (B, H, T, ...) and (B, T, ...) shapes."""
    return t if t.dim() == dims else t.reshape((1,) * (dims - t.dim()) + tuple(t.shape))


def assemble_trace(
    module: nn.Module, x: torch.Tensor, steps: AttentionSteps, output: torch.Tensor
) -> AttentionTrace:
    """The trace of `module` on `x`: its steps lifted to (B, H, T, ...), the output to (B, T, ...)."""
    lifted = {name: lift(t, 4) for name in PER_HEAD if (t := getattr(steps, name)) is not None}
    # aliases stay aliases (dropped_weights is weights without dropout; nbytes counts them once)
    for name, same in (("masked_scores", "scaled_scores"), ("dropped_weights", "weights")):
        if getattr(steps, name) is getattr(steps, same):
            lifted[name] = lifted[same]
    steps = AttentionSteps(**{**steps.__dict__, **lifted})
    return AttentionTrace.of(
        steps, x=lift(x, 3), output=lift(output, 3), module=type(module).__name__, device=str(x.device)
    )


# --- 3.3 Simplified self-attention: no trainable weights -------------------------------------


class SimplifiedSelfAttention(nn.Module):
    """Section 3.3: scores = x x^T, weights = softmax(scores), context = weights x."""

    def forward(self, x):  # x: (T, d_in)
        attn_scores = x @ x.T  # (T, T)
        attn_weights = torch.softmax(attn_scores, dim=-1)  # (T, T)
        all_context_vecs = attn_weights @ x  # (T, d_in)
        return all_context_vecs

    def trace(self, x, generator=None) -> AttentionTrace:
        # queries = keys = values = x: (T, d_in)
        steps = attend(x, x, x)  # no weights, no scaling, no mask
        return assemble_trace(self, x, steps, steps.context)


# --- 3.4 Self-attention with trainable weights -----------------------------------------------


class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):  # x: (T, d_in)
        keys = x @ self.W_key  # (T, d_out)
        queries = x @ self.W_query  # (T, d_out)
        values = x @ self.W_value  # (T, d_out)
        attn_scores = queries @ keys.T  # (T, T), omega
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (T, T)
        context_vec = attn_weights @ values  # (T, d_out)
        return context_vec

    def trace(self, x, generator=None) -> AttentionTrace:
        keys = x @ self.W_key  # (T, d_out)
        queries = x @ self.W_query  # (T, d_out)
        values = x @ self.W_value  # (T, d_out)
        steps = attend(queries, keys, values, divisor=keys.shape[-1] ** 0.5)  # no mask, no dropout
        return assemble_trace(self, x, steps, steps.context)


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):  # x: (T, d_in)
        keys = self.W_key(x)  # (T, d_out)
        queries = self.W_query(x)  # (T, d_out)
        values = self.W_value(x)  # (T, d_out)
        attn_scores = queries @ keys.T  # (T, T)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (T, T)
        context_vec = attn_weights @ values  # (T, d_out)
        return context_vec

    def trace(self, x, generator=None) -> AttentionTrace:
        keys = self.W_key(x)  # (T, d_out)
        queries = self.W_query(x)  # (T, d_out)
        values = self.W_value(x)  # (T, d_out)
        steps = attend(queries, keys, values, divisor=keys.shape[-1] ** 0.5)  # no mask, no dropout
        return assemble_trace(self, x, steps, steps.context)


# --- 3.5 Causal attention --------------------------------------------------------------------


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False, *, causal=True):
        super().__init__()
        self.d_out = d_out
        self.causal = causal
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):  # x: (B, T, d_in)
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)  # (B, T, d_out)
        queries = self.W_query(x)  # (B, T, d_out)
        values = self.W_value(x)  # (B, T, d_out)
        attn_scores = queries @ keys.transpose(1, 2)  # (B, T, T)
        if self.causal:
            attn_scores = attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (B, T, T)
        attn_weights = self.dropout(attn_weights)  # (B, T, T)
        context_vec = attn_weights @ values  # (B, T, d_out)
        return context_vec

    def trace(self, x, generator=None) -> AttentionTrace:
        keys = self.W_key(x).unsqueeze(1)  # (B, 1, T, d_out)
        queries = self.W_query(x).unsqueeze(1)  # (B, 1, T, d_out)
        values = self.W_value(x).unsqueeze(1)  # (B, 1, T, d_out)
        steps = attend_as(self, queries, keys, values, generator)
        return assemble_trace(self, x, steps, steps.context[:, 0])


# --- 3.6 Multi-head attention ----------------------------------------------------------------


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, *, causal=True):
        super().__init__()
        self.heads = nn.ModuleList(
            [
                CausalAttention(d_in, d_out, context_length, dropout, qkv_bias, causal=causal)
                for _ in range(num_heads)
            ]
        )

    def forward(self, x):  # x: (B, T, d_in) -> (B, T, num_heads * d_out)
        return torch.cat([head(x) for head in self.heads], dim=-1)

    def trace(self, x, generator=None) -> AttentionTrace:
        # Heads run one after another, as in forward, so dropout masks are drawn in the same order.
        per_head = [head.trace(x, generator) for head in self.heads]
        first = per_head[0]

        def stack(name):  # the heads side by side: (B, H, ...)
            parts = [getattr(t, name) for t in per_head]
            return None if parts[0] is None else torch.cat(parts, dim=1)

        steps = AttentionSteps(
            **{name: stack(name) for name in PER_HEAD},
            mask=first.mask,
            divisor=first.divisor,
            dropout=first.dropout,
            scaled=first.scaled,
        )
        output = torch.cat([t.output for t in per_head], dim=-1)  # (B, T, H * d_out)
        return assemble_trace(self, x, steps, output)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, *, causal=True):
        super().__init__()
        if d_out % num_heads != 0:  # the book asserts; an exception survives python -O
            raise ValueError("d_out must be divisible by num_heads")
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.causal = causal
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # combines the heads' outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def _split_heads(self, t, b, num_tokens):  # (B, T, d_out) -> (B, H, T, head_dim)
        return t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x):  # x: (B, T, d_in)
        b, num_tokens, d_in = x.shape
        keys = self._split_heads(self.W_key(x), b, num_tokens)  # (B, H, T, head_dim)
        queries = self._split_heads(self.W_query(x), b, num_tokens)  # (B, H, T, head_dim)
        values = self._split_heads(self.W_value(x), b, num_tokens)  # (B, H, T, head_dim)
        attn_scores = queries @ keys.transpose(2, 3)  # (B, H, T, T)
        if self.causal:
            mask_bool = self.mask.bool()[:num_tokens, :num_tokens]  # (T, T)
            attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # (B, H, T, T)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)  # (B, T, H, head_dim)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)  # (B, T, d_out)
        context_vec = self.out_proj(context_vec)  # (B, T, d_out)
        return context_vec

    def trace(self, x, generator=None) -> AttentionTrace:
        b, num_tokens, d_in = x.shape
        keys = self._split_heads(self.W_key(x), b, num_tokens)  # (B, H, T, head_dim)
        queries = self._split_heads(self.W_query(x), b, num_tokens)  # (B, H, T, head_dim)
        values = self._split_heads(self.W_value(x), b, num_tokens)  # (B, H, T, head_dim)
        steps = attend_as(self, queries, keys, values, generator)
        context_vec = steps.context.transpose(1, 2)  # (B, T, H, head_dim)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)  # (B, T, d_out)
        return assemble_trace(self, x, steps, self.out_proj(context_vec))


# --- Seeding without the global RNG ----------------------------------------------------------


@torch.no_grad()
def reset_parameters(module: nn.Module, generator: torch.Generator) -> nn.Module:
    """Redraw `module`'s parameters from `generator` exactly as its constructor drew them.

    Walks submodules in registration order (the order the constructor drew them in):
    nn.Linear gets its default init (kaiming_uniform_ weight, then uniform bias), nn.Embedding
    normal_; a module that defines its own `reset_parameters(generator)` resets its own
    parameters with it (the GPT model's LayerNorm: ones and zeros, no draw); any other bare
    nn.Parameter was made with torch.rand and gets rand. With `generator` seeded s, the result
    equals construction right after torch.manual_seed(s), and no other thread's RNG use can
    interfere.
    """
    for sub in module.modules():
        if isinstance(sub, nn.Embedding):
            nn.init.normal_(sub.weight, generator=generator)
        elif isinstance(sub, nn.Linear):
            nn.init.kaiming_uniform_(sub.weight, a=math.sqrt(5), generator=generator)
            if sub.bias is not None:
                fan_in = sub.weight.shape[1]
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                nn.init.uniform_(sub.bias, -bound, bound, generator=generator)
        elif "generator" in inspect.signature(getattr(sub, "reset_parameters", lambda: 0)).parameters:
            sub.reset_parameters(generator=generator)  # a module that draws (or sets) its own
        else:
            for p in sub.parameters(recurse=False):
                p.uniform_(0, 1, generator=generator)  # torch.rand's draw
    return module
