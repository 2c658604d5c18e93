"""The book's chapter-4 GPTModel, built from chapter 3's MultiHeadAttention, traced layer by layer.

    model = GPTModel(cfg)                      # or checkpoint.load_gpt2("assets/model")
    trace = model.trace(idx)                   # ModelTrace: logits and one AttentionTrace per block

The classes keep the book's names and structure (tok_emb, pos_emb, drop_emb, trf_blocks of
TransformerBlock(att, ff, norm1, norm2, drop_shortcut), final_norm, out_head) and its config keys
(vocab_size, context_length, emb_dim, n_heads, n_layers, drop_rate, qkv_bias).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import torch
import torch.nn as nn

from attention.chapter3.modules import MultiHeadAttention
from attention.chapter3.trace import PER_HEAD, AttentionTrace
from attention.errors import ConfigError
from attention.i18n import tr

CONFIG_KEYS = ("vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "drop_rate", "qkv_bias")


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Ones and zeros, as the constructor makes them: no random draw (the generator goes
        unused, so chapter3.modules.reset_parameters draws the rest of the model as torch would)."""
        self.scale.fill_(1.0)
        self.shift.zero_()


class GELU(nn.Module):  # the tanh approximation GPT-2 was trained with, laid out as the book prints it
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(
            torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))
        ))  # fmt: skip


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]),
            GELU(),
            nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]),
        )

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(
            d_in=cfg["emb_dim"],
            d_out=cfg["emb_dim"],
            context_length=cfg["context_length"],
            num_heads=cfg["n_heads"],
            dropout=cfg["drop_rate"],
            qkv_bias=cfg["qkv_bias"],
        )
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):  # x: (B, T, emb_dim)
        shortcut = x
        x = self.norm1(x)
        x = self.att(x)
        x = self.drop_shortcut(x)
        x = x + shortcut  # the shortcut around attention
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = self.drop_shortcut(x)
        x = x + shortcut  # and around the feed-forward
        return x

    def parts(self, attended, shortcut):
        """What forward adds to the residual stream `shortcut` (B, T, d) once att gave `attended`:
        the attention's part and the feed-forward's, (B, T, d) each (the lens adds them up)."""
        attention = self.drop_shortcut(attended)
        return attention, self.drop_shortcut(self.ff(self.norm2(shortcut + attention)))

    def attention_gain(self, attended):
        """None: what attention adds is its output itself (Gemma's blocks norm it first)."""
        return None


# An intervention's hook (GPTModel.run_blocks): (layer, attention) -> None, or (context (N, H, T,
# head_dim), rows (N,) or None).
Edit = Callable[[int, AttentionTrace], "tuple[torch.Tensor, torch.Tensor | None] | None"]


def with_context(
    att: MultiHeadAttention,
    attention: AttentionTrace,
    context: torch.Tensor,
    rows: torch.Tensor | None = None,
    steps_too: bool = True,
) -> AttentionTrace:
    """`attention` with `context` (N, H, T, head_dim) going into out_proj instead of its own, the
    output recomputed as in MultiHeadAttention.forward. Where the batch branches (rows (N,)), the
    steps before the context follow the rows too (steps_too; a run that keeps no trace skips it)."""
    n, _, num_tokens, _ = context.shape
    merged = context.transpose(1, 2).contiguous().view(n, num_tokens, att.d_out)  # (N, T, d_out)
    changed = {"context": context, "output": att.out_proj(merged)}  # output (N, T, d_out)
    if rows is not None and steps_too:
        steps = {name: getattr(attention, name) for name in ("x", *PER_HEAD) if name != "context"}
        changed |= {name: t[rows] for name, t in steps.items() if t is not None}  # (N, ...)
    return replace(attention, **changed)


@dataclass(frozen=True, eq=False)
class ModelTrace:
    """One forward pass of a GPTModel: its logits, and each block's attention, step by step."""

    ids: torch.Tensor  # (B, T) token ids
    logits: torch.Tensor  # (B, T, vocab_size)
    layers: tuple[AttentionTrace, ...]  # one per block: weights (B, H, T, T), ...
    tokens: tuple[str, ...] = ()  # the tokens as the model sees them (display text), when known

    @property
    def weights(self) -> torch.Tensor:
        """(L, H, T, T): every head's attention weights for the first sequence."""
        return torch.stack([layer.weights[0] for layer in self.layers])

    @property
    def kv_heads(self) -> tuple[int, ...]:
        """(H,): the key/value head each query head reads. Grouped-query attention (kv_groups G of H
        heads): query head h reads key/value head h // (H / G); GPT's heads each read their own."""
        first = self.layers[0]
        heads = first.num_heads
        group = heads // (first.kv_groups or heads)
        return tuple(h // group for h in range(heads))


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        missing = [k for k in CONFIG_KEYS if k not in cfg]
        if missing:
            raise ConfigError(
                f"A GPTModel config needs {', '.join(missing)}", "config"
            )  # code's own slip: English
        self.cfg = dict(cfg)
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)  # (B, T, emb_dim)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))  # (T, emb_dim)
        x = tok_embeds + pos_embeds  # (B, T, emb_dim)
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        logits = self.out_head(x)  # (B, T, vocab_size)
        return logits

    def hidden_states(self, in_idx):
        """forward up to final_norm, before out_head: (B, T, emb_dim). A loss on a few positions
        or vocabulary rows multiplies only those by out_head's weight."""
        return self.final_norm(self.trf_blocks(self.start(self.tok_emb(in_idx))))  # (B, T, emb_dim)

    # The walk's pieces, as every model of this package names them (lens, explain read them):
    def start(self, tok_embeds):
        """The residual stream's start from token embeddings (B, T, emb_dim): + positions."""
        positions = torch.arange(tok_embeds.shape[1], device=tok_embeds.device)
        return self.drop_emb(tok_embeds + self.pos_emb(positions))  # (B, T, emb_dim)

    def attend(self, block, x):
        """block's attention trace on the residual stream x (B, T, emb_dim)."""
        return block.att.trace(block.norm1(x))

    def blocks_from(self, x):
        """Every block on the residual stream x: the stream after the last, before final_norm."""
        return self.trf_blocks(x)

    @torch.no_grad()
    def trace(
        self, in_idx: torch.Tensor, tokens: tuple[str, ...] = (), edit: Edit | None = None
    ) -> ModelTrace:
        """forward(in_idx), keeping every block's attention trace: one pass, the same logits.
        `edit` is where interventions act (interventions.py; see run_blocks)."""
        layers = []
        x = self.run_blocks(in_idx, edit, layers.append)  # (B, T, emb_dim)
        logits = self.out_head(self.final_norm(x))  # (B, T, vocab_size)
        layers = tuple(t.to("cpu") for t in layers)
        return ModelTrace(ids=in_idx.cpu(), logits=logits.cpu(), layers=layers, tokens=tokens)

    def run_blocks(
        self, in_idx: torch.Tensor, edit: Edit | None = None, keep: Callable | None = None
    ) -> torch.Tensor:
        """trace's pass through the blocks (TransformerBlock.forward, with att.trace in place of
        att): the residual stream after the last block, before final_norm, (B, T, emb_dim); each
        block's AttentionTrace goes to keep() when given.

        The hook for interventions: edit(layer, attention) -> None leaves the block as it is;
        (context, rows) puts context (N, H, T, head_dim) in place of the heads' own before
        out_proj (output recomputed as MultiHeadAttention.forward's tail does). rows (N,): the
        batch row each of the N rows continues, so one run can branch into many (rows None: the
        same B rows). Nothing in the model changes: the edit lives in this call only. It runs in
        the caller's grad mode: trace and the maps under no_grad, attribution with gradients.
        """
        if in_idx.shape[1] > self.cfg["context_length"]:
            raise ConfigError(
                tr(
                    "The text has more tokens ({n}) than the model's context length ({most}).",
                    n=in_idx.shape[1],
                    most=self.cfg["context_length"],
                ),
                "tokens",
            )
        x = self.start(self.tok_emb(in_idx))  # (B, T, emb_dim)
        for layer, block in enumerate(self.trf_blocks):
            attention = self.attend(block, x)  # (B, H, T, T) weights and every step before
            if edit is not None and (change := edit(layer, attention)) is not None:
                context, rows = change
                attention = with_context(block.att, attention, context, rows, steps_too=keep is not None)
                x = x if rows is None else x[rows]  # (N, T, emb_dim)
            if keep is not None:
                keep(attention)
            x = block.drop_shortcut(attention.output) + x
            x = block.drop_shortcut(block.ff(block.norm2(x))) + x
        return x

    @property
    def heads(self) -> int:
        return self.cfg["n_heads"]

    @property
    def layers(self) -> int:
        return self.cfg["n_layers"]

    @property
    def kv_heads(self) -> tuple[int, ...]:
        """(H,): the key/value head each query head reads: GPT's heads each read their own."""
        return tuple(range(self.cfg["n_heads"]))
