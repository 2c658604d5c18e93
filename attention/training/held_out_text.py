"""How well a language model reads the held-out plays, position by position: the loss at each
position of a window read as the text is or with <|endoftext|> first, its means over bands of BAND
positions beside a unigram model's, and each role's best head both ways. `shakespeare-check`
compares a retrained model with the shipped one on these numbers.

    python -m attention.training shakespeare-check DIR [--against assets/shakespeare]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from attention.i18n import N_
from attention.model import roles
from attention.model.checkpoint import load_model
from attention.model.gpt import GPTModel
from attention.training import plays

BAND = 16  # positions per band of the per-position loss curve


@torch.no_grad()
def position_losses(model: GPTModel, windows: torch.Tensor, start: bool) -> torch.Tensor:
    """(W, n) the loss at each position of each window (W, n + 1) of text: read as it is (position t
    predicts token t + 1), or with <|endoftext|> first (position 0 is the start token, which
    predicts the text's first token; the window's last token is left out)."""
    if start:
        windows = torch.cat([torch.full((len(windows), 1), plays.START), windows[:, :-1]], 1)
    device = next(model.parameters()).device
    out = []
    for w in windows.split(8):  # (8, n, 50,257) logits at a time: 200 MB
        w = w.to(device)
        logits = model(w[:, :-1]).float()  # (8, n, V)
        out.append(F.cross_entropy(logits.transpose(1, 2), w[:, 1:], reduction="none").cpu())
    return torch.cat(out)  # (W, n)


def bands(losses: torch.Tensor) -> list[float]:
    """(W, n) per-position losses -> the mean of each band of BAND positions (0-15, 16-31, ...)."""
    return [round(b.mean().item(), 4) for b in losses.split(BAND, dim=1)]


@torch.no_grad()
def measure(folder: Path) -> dict:
    """What a retrained model is compared on, over every whole window of the model's context in both
    held-out plays: the mean loss, and the loss per band of BAND positions read as the text is and
    with <|endoftext|> first, beside a unigram model's on the same targets; each role's best head on
    natural-text probes, both ways (the probes' first token is the text's own, or <|endoftext|>)."""
    model = load_model(Path(folder))  # GPT-2's layout or Qwen3's (shakespeare_qwen3)
    train_ids, held = plays.corpus("scenes")
    n = model.cfg["context_length"]
    windows = held[: (len(held) - 1) // n * n + 1].unfold(0, n + 1, n)  # (W, n + 1), overlapping by 1
    unigram = -plays.unigram_log_probs(train_ids)  # (V,) a unigram model's loss of each id
    curves = {}
    for way, start in (("text", False), ("start", True)):
        losses = position_losses(model, windows, start)  # (W, n)
        targets = windows[:, :-1] if start else windows[:, 1:]  # (W, n)
        curves[way] = {
            "model": bands(losses),
            "unigram": bands(unigram[targets]),
            "mean": losses.mean().item(),
            "unigram_mean": unigram[targets].mean().item(),
        }
    heads = {}
    for way, first in (("start", plays.START), ("text", None)):
        scores = roles.text_roles(model, plays.passages(held, 64, 8, seed=2), first)
        heads[way] = {}
        for role in ("previous", "induction"):
            layer, head = np.unravel_index(np.nanargmax(scores[role]), scores[role].shape)
            heads[way][role] = (f"{layer}.{head}", float(scores[role][layer, head]))
    return {"held_out_loss": curves["text"]["mean"], "bands": curves, "heads": heads}


# What measure() reads, in words: written in English beside the numbers (training.json,
# config.json); a page that quotes them shows tr(MEASURED_ON, context=...) when they match.
MEASURED_ON = N_(
    "every whole {context}-token window of the two held-out plays (Julius Caesar, The Comedy of "
    "Errors); heads on 8 held-out passages of 64 tokens (induction: each passage's first 12, 18 or 24 "
    "tokens twice)"
)


def measured_on(context: int) -> str:
    """What measure() reads, in words (English), for the pages that quote its numbers."""
    return MEASURED_ON.format(context=context)


def write_measures(folder: Path, measured: dict) -> None:
    """The one set of numbers the pages show for a recipe's model: its config.json's held-out loss and
    `measured`, and its training record's `measured`, each naming what it was measured on."""
    config = json.loads((folder / "config.json").read_text())
    context = config.get("n_positions") or config["max_position_embeddings"]  # GPT-2's name, or Qwen3's
    summary = {"on": measured_on(context), **measured}
    config = folder / "config.json"
    data = json.loads(config.read_text())
    data["attention_explorer"] |= {"held_out_loss": measured["held_out_loss"], "measured": summary}
    config.write_text(json.dumps(data, indent=2) + "\n")
    record = folder / "training.json"
    if record.is_file():
        data = json.loads(record.read_text())
        record.write_text(json.dumps(data | {"measured": summary}))


def check(argv: list[str] | None = None) -> int:
    """python -m attention.training shakespeare-check DIR [--against assets/shakespeare]: DIR's held-out
    loss and best heads beside the shipped model's; exit status 1 if any differs by more than 5%."""
    parser = argparse.ArgumentParser(description=check.__doc__)
    parser.add_argument("folder")
    parser.add_argument("--against", default=str(Path(__file__).parents[2] / "assets" / "shakespeare"))
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    for folder in (args.folder, args.against):
        if not (Path(folder) / "model.safetensors").is_file():
            raise SystemExit(f"{folder} holds no model.safetensors: nothing to compare")
    new, old = measure(Path(args.folder)), measure(Path(args.against))
    pairs = [("held-out loss", new["held_out_loss"], old["held_out_loss"], "")]
    after = ("loss after <|endoftext|>", new["bands"]["start"]["mean"], old["bands"]["start"]["mean"], "")
    pairs.append(after)
    for way in ("start", "text"):
        for role in ("previous", "induction"):
            a, b = new["heads"][way][role], old["heads"][way][role]
            pairs.append((f"best {role} head ({way} first)", a[1], b[1], f" ({a[0]} vs {b[0]})"))
    worst = 0.0
    for label, a, b, heads in pairs:
        apart = abs(a - b) / max(abs(b), 1e-9)
        worst = max(worst, apart)
        print(f"{label}: {a:.3f} here, {b:.3f} shipped, {100 * apart:.1f}% apart{heads}")
    for way in ("text", "start"):
        print(f"loss per band of {BAND} positions, {way} first: "
              f"{new['bands'][way]['model']} here, unigram {new['bands'][way]['unigram']}")  # fmt: skip
    print("within 5%" if worst <= 0.05 else "MORE than 5% apart")
    return 0 if worst <= 0.05 else 1
