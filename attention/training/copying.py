"""The bundled model (assets/model): the book's GPTModel with GPT-2's vocabulary and tokenizer,
2 layers x 4 heads, d 64, context 128, trained on repeated random GPT-2 tokens until it has a
clean previous-token head and induction head. It knows nothing of language: it copies. So on
any sentence with a repeated phrase its induction head shows, offline.

    python -m attention.training copying [--out assets/model]     # ~18 min on this 2-core machine

The recipe (found by a sweep on this machine; docs/models.md):
1. tok_emb frozen at its random N(0, 1) init: every id then looks alike to the model, so what it
   learns on a few ids holds for all 50,257.
2. Phase A, 1,500 steps: the circuit forms on 128 ids (T 64, spans 2-23, prefixes 0-8, lr 3e-3,
   softmax over those 128 rows of out_head). Larger subsets or T > d from the start formed no
   induction head, or a shifted one.
3. Least squares: A (d x d) with E_S A ~= W_S on the 128 trained rows; out_head := E A for all.
4. Phase B, 6,000 steps: all ids, T 128 (two repeated segments), spans 2-30, prefixes 0-30,
   out_head kept as E A with A trained, softmax over the batch's ids, lr 1e-3 cosine.
5. Phase C, 500 steps: the same with the full 50,257-way softmax, lr 3e-4 cosine.
"""

from __future__ import annotations

import argparse
import math
import time

import torch
import torch.nn.functional as F

from attention.model import roles
from attention.model.checkpoint import load_gpt2, save_gpt2
from attention.model.gpt import GPTModel
from attention.settings import ASSETS
from attention.training.induction import sample

VOCAB, START = 50257, 50256  # GPT-2's, <|endoftext|> starts every sequence
CONFIG = {
    "vocab_size": VOCAB,
    "context_length": 128,
    "emb_dim": 64,
    "n_heads": 4,
    "n_layers": 2,
    "drop_rate": 0.0,
    "qkv_bias": False,
}
PHASES = {  # steps, length, segments, spans, prefixes, lr, cosine decay
    "A": (1500, 64, 1, (2, 23), (0, 8), 3e-3, False),
    "B": (6000, 128, 2, (2, 30), (0, 30), 1e-3, True),
    "C": (500, 128, 2, (2, 30), (0, 30), 3e-4, True),
}
SUBSET = 128


def train(seed: int = 0, scale: float = 1.0, log=print) -> GPTModel:
    """The bundled model, trained from `seed`; `scale` shortens every phase (tests)."""
    torch.manual_seed(seed)
    model = GPTModel(CONFIG)
    model.tok_emb.weight.requires_grad_(False)
    embeddings = model.tok_emb.weight  # (V, d) frozen
    generator = torch.Generator().manual_seed(10_000 + seed)
    subset = torch.randperm(START, generator=torch.Generator().manual_seed(99 + seed))[:SUBSET].sort().values
    table = torch.cat([subset, torch.tensor([START])])  # phase A's ids: 0..127 -> subset, 128 -> start
    factor = None  # A (d, d): out_head = E A from phase B on
    for name, (steps, length, segments, spans, prefixes, lr, cosine) in PHASES.items():
        steps = max(1, int(steps * scale))
        if name == "B":  # least squares: A with E_S A ~= W_S; then the head is E A for every id
            factor = torch.linalg.lstsq(embeddings[subset], model.out_head.weight.detach()[subset]).solution
            factor.requires_grad_(True)
            model.out_head.weight.requires_grad_(False)
        params = [p for p in model.parameters() if p.requires_grad] + ([factor] if factor is not None else [])
        optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
        started = time.perf_counter()
        for step in range(steps):
            if cosine:
                optimizer.param_groups[0]["lr"] = lr * 0.5 * (1 + math.cos(math.pi * step / steps))
            if name == "A":
                x, y, known, _ = sample(32, length, spans, prefixes, SUBSET, generator, SUBSET, 0, segments)
                target, x = y[known], table[x]  # targets index the subset's rows; inputs are GPT-2 ids
                candidates = subset
            else:
                x, y, known, _ = sample(32, length, spans, prefixes, START, generator, START, 0, segments)
                every = name == "C"
                candidates = None if every else torch.unique(torch.cat([x.flatten(), y.flatten()]))
                target = y[known] if every else torch.searchsorted(candidates, y[known])
            hidden = model.hidden_states(x)[known]  # (N, d): only where the repeat tells the next token
            if factor is None:
                rows = model.out_head.weight[candidates]  # (C, d)
            else:
                rows = (embeddings if candidates is None else embeddings[candidates]) @ factor  # (C, d)
            loss = F.cross_entropy(hidden @ rows.T, target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if (step + 1) % 500 == 0 or step + 1 == steps:
                log(
                    f"phase {name} step {step + 1}/{steps}: loss {loss.item():.3f} "
                    f"({time.perf_counter() - started:.0f} s)"
                )
    with torch.no_grad():
        model.out_head.weight.copy_(embeddings @ factor.detach())
    return model.eval()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", default=str(ASSETS / "model"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    torch.set_num_threads(args.threads)  # process-wide: the command's, not train()'s
    model = train(args.seed)
    extra = {
        "name": "Bundled small GPTModel",
        "trained_on": "synthetic sequences of random GPT-2 tokens in which a stretch repeats; its token "
        "embeddings are random and frozen, so it has learned to copy, not language "
        f"(python -m attention.training copying, seed {args.seed})",
    }
    save_gpt2(model, args.out, dtype=torch.float16, attention_explorer=extra)  # 13 MB
    scores = roles.head_roles(load_gpt2(args.out), range(START), START)  # as the page will load it
    for best in roles.ranked({role: scores[role] for role in ("previous", "induction")}, top=1):
        print(f"best {best['role']} head {best['head']}: {best['score']:.3f}")
    print(f"saved to {args.out} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
