"""Where in the stack a GPTModel decides: the logit lens and direct logit attribution.

    lens = logit_lens(model, ids)          # every stage's top tokens, and when the final top-1 commits
    parts = logit_parts(model, ids)        # the last position's top logit split into what wrote it

The residual stream has S = n_layers + 1 stages: 0 right after the embeddings (tok_emb + pos_emb),
l after block l (so stage n_layers is what final_norm and out_head read). The logit lens (nostalgebraist
2020) reads every stage through final_norm and out_head as if it were the last: what the model
would predict if it stopped there.

Direct logit attribution splits the final logit of one token at one position into the pieces added
to the residual stream: the embeddings, each head (its context through its slice of out_proj's
weight), each block's out_proj bias and each feed-forward. final_norm is not linear (it divides by
the final residual's σ): as TransformerLens's `apply_ln_to_stack` does, σ is taken from the final
residual and each piece is centred and divided by it, so the pieces add up to the logit exactly.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import torch

from attention.errors import ConfigError
from attention.i18n import tr
from attention.model.checks import check_ids
from attention.model.gpt import GPTModel

LENS_TOP = 5


@dataclass(frozen=True, eq=False)
class Lens:
    """The logit lens over one sequence: S = n_layers + 1 stages, T positions."""

    top_ids: torch.Tensor  # (S, T, k) each stage's k most likely next tokens at each position
    top_probs: torch.Tensor  # (S, T, k) their probabilities
    final_ids: torch.Tensor  # (T,) the model's own top-1 (the last stage's)
    final_logprobs: torch.Tensor  # (S, T) log-probability of final_ids[t] read at each stage
    commit: torch.Tensor  # (T,) long: first stage from which every later stage's top-1 is final_ids[t]

    @property
    def stages(self) -> int:
        return self.top_ids.shape[0]


@dataclass(frozen=True, eq=False)
class LogitParts:
    """The final logit of `token` at `position`, split into direct contributions (module doc)."""

    position: int
    token: int
    logit: float  # the model's own logit
    embeddings: float  # tok_emb + pos_emb
    heads: torch.Tensor  # (L, H) each head's context through its slice of out_proj's weight
    attention_bias: torch.Tensor  # (L,) out_proj's bias
    mlps: torch.Tensor  # (L,) each block's feed-forward
    norm_shift: float  # final_norm's shift · out_head.weight[token] (out_head has no bias)
    scale: float  # σ of the final residual at `position`: every part was divided by it

    @property
    def total(self) -> float:
        """Everything added up: the logit, within float error."""
        rest = self.heads.sum() + self.attention_bias.sum() + self.mlps.sum()
        return self.embeddings + float(rest) + self.norm_shift


@dataclass(frozen=True, eq=False)
class Stream:
    """What one pass adds to the residual stream of the first sequence, piece by piece."""

    embeddings: torch.Tensor  # (T, emb_dim) tok_emb + pos_emb
    contexts: torch.Tensor  # (L, H, T, head_dim) each head's context, before out_proj
    attention: torch.Tensor  # (L, T, emb_dim) each block's out_proj output (heads and bias)
    mlps: torch.Tensor  # (L, T, emb_dim) each block's feed-forward output
    gains: torch.Tensor  # (L, T, emb_dim) what each head's share is multiplied by on its way in:
    # ones, or Gemma's post-attention norm with its 1/rms frozen at this run's value

    def stages(self) -> torch.Tensor:
        """(S, T, emb_dim): the residual after the embeddings and after every block."""
        added = torch.stack([self.attention, self.mlps], 1).sum(1)  # (L, T, emb_dim)
        return torch.cat([self.embeddings[None], self.embeddings + added.cumsum(0)])  # (S, T, emb_dim)


@torch.no_grad()
def stream(model: GPTModel, ids: torch.Tensor) -> Stream:
    """run_blocks' pass, keeping what each block adds (eval mode: dropout adds nothing). Any model
    of this package: GPTModel's and the others' walks name the same pieces (start, attend, parts)."""
    ids = check_ids(model, ids)[:1]  # (1, T)
    x = model.start(model.tok_emb(ids))  # (1, T, emb_dim)
    embeddings, contexts, attention, gains, mlps = x[0], [], [], [], []
    for block in model.trf_blocks:
        trace = model.attend(block, x)
        added, mlp = block.parts(trace.output, x)  # (1, T, emb_dim) each
        gain = block.attention_gain(trace.output)  # None, or Gemma's post-norm frozen (1, T, emb_dim)
        contexts.append(trace.context[0])  # (H, T, head_dim)
        attention.append(added[0])
        # float32 whatever the model's dtype: the heads' parts are summed in float32 (logit_parts)
        gains.append(torch.ones(added[0].shape) if gain is None else gain[0].to("cpu", torch.float32))
        mlps.append(mlp[0])
        x = x + added + mlp
    return Stream(
        embeddings, torch.stack(contexts), torch.stack(attention), torch.stack(mlps), torch.stack(gains)
    )


@torch.no_grad()
def logit_lens(model: GPTModel, ids: torch.Tensor, k: int = LENS_TOP) -> Lens:
    """Every stage read through final_norm and out_head: ids (1, T) or (T,). One stage's (T, vocab)
    logits at a time (all S at once would be hundreds of MB for GPT-2 small at 128 tokens)."""
    if not _whole(k) or not 1 <= k <= model.cfg["vocab_size"]:
        raise ConfigError(
            tr("top={k}: give a whole number in 1..{most}.", k=repr(k), most=model.cfg["vocab_size"]), "top"
        )
    stages = stream(model, ids).stages()  # (S, T, emb_dim)

    def read(stage: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        logp = torch.log_softmax(model.out_head(model.final_norm(stage)).float(), -1)  # (T, vocab), float32
        return logp, *logp.topk(int(k), -1)  # and the top k's values and indices, (T, k) each

    # the final top-1 as the last stage's own top-k ranks it: a tie between two logits broken the
    # same way there and here, so the last stage always agrees with itself (commit < S)
    final_ids = read(stages[-1])[2][:, 0]  # (T,)
    top_ids, top_probs, logprobs, best = [], [], [], []
    for stage in stages:
        logp, values, indices = read(stage)
        top_ids.append(indices)
        top_probs.append(values.exp())
        logprobs.append(logp.gather(-1, final_ids[:, None])[:, 0])  # (T,)
        best.append(indices[:, 0])
    agrees = torch.stack(best) == final_ids  # (S, T)
    trailing = agrees.flip(0).long().cumprod(0).sum(0)  # (T,) how many last stages agree (≥ 1)
    return Lens(
        top_ids=torch.stack(top_ids).cpu(),
        top_probs=torch.stack(top_probs).cpu(),
        final_ids=final_ids.cpu(),
        final_logprobs=torch.stack(logprobs).cpu(),
        commit=(len(stages) - trailing).cpu(),
    )


def _whole(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)  # numpy's ints too


def check_position(position: int, length: int) -> int:
    """position in -length..length-1 (negative counts from the end) -> 0..length-1."""
    if not _whole(position) or not -length <= position < length:
        raise ConfigError(
            tr(
                "position={position} is not a token of this input; use 0..{last}.",
                position=repr(position),
                last=length - 1,
            ),
            "position",
        )
    return int(position) % length


@torch.no_grad()
def logit_parts(
    model: GPTModel, ids: torch.Tensor, position: int = -1, token: int | None = None
) -> LogitParts:
    """The final logit of `token` (None: the model's top-1) at `position` as direct contributions."""
    parts = stream(model, ids)
    position = check_position(position, parts.embeddings.shape[0])
    final = parts.stages()[-1, position]  # (emb_dim,)
    norm = model.final_norm
    if token is None:
        token = int(model.out_head(norm(final)).argmax())
    if not _whole(token) or not 0 <= token < model.cfg["vocab_size"]:
        raise ConfigError(
            tr("A token id is outside the vocabulary (0..{last}).", last=model.cfg["vocab_size"] - 1), "token"
        )
    centred = hasattr(norm, "shift")  # LayerNorm (GPT) centres and shifts; RMSNorm does neither
    if centred:
        sigma = torch.sqrt(final.var(unbiased=False) + norm.eps)
    else:
        sigma = torch.sqrt(final.float().pow(2).mean() + norm.eps)
    direction = (gain_of(norm) * model.out_head.weight[token]).float() / sigma  # (emb_dim,)

    def read(vectors: torch.Tensor) -> torch.Tensor:  # (..., emb_dim) -> (...,), float32 (a bf16 model's too)
        vectors = vectors.float()
        return (vectors - vectors.mean(-1, keepdim=True) if centred else vectors) @ direction

    heads, head_dim = model.heads, model.trf_blocks[0].att.head_dim
    weights = torch.stack(
        [block.att.out_proj.weight for block in model.trf_blocks]
    ).float()  # (L, emb, H x hd)
    weights = weights.view(model.layers, -1, heads, head_dim)  # (L, emb_dim, H, head_dim)
    contexts = parts.contexts[:, :, position].float()  # (L, H, head_dim)
    written = torch.einsum("lhd,lehd->lhe", contexts, weights)  # (L, H, emb_dim), float32
    written = written * parts.gains[:, position, None]  # through Gemma's post-norm, frozen
    biases = torch.stack([_bias(block.att.out_proj, final) for block in model.trf_blocks])  # (L, emb_dim)
    biases = biases.float() * parts.gains[:, position]
    return LogitParts(
        position=position,
        token=int(token),
        logit=float(model.out_head(norm(final))[token]),
        embeddings=float(read(parts.embeddings[position])),
        heads=read(written).cpu(),
        attention_bias=read(biases).cpu(),
        mlps=read(parts.mlps[:, position]).cpu(),
        norm_shift=float(norm.shift @ model.out_head.weight[token]) if centred else 0.0,
        scale=float(sigma),
    )


def gain_of(norm) -> torch.Tensor:
    """(emb_dim,): what a norm multiplies the normalised vector by: LayerNorm's and Qwen's scale,
    Gemma's 1 + scale (its RMSNorm keeps the scale's offset from 1)."""
    from attention.model import gemma3

    return 1.0 + norm.scale if isinstance(norm, gemma3.RMSNorm) else norm.scale


def _bias(linear: torch.nn.Linear, like: torch.Tensor) -> torch.Tensor:
    return linear.bias if linear.bias is not None else torch.zeros_like(like)
