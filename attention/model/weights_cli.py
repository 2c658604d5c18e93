"""Every head's attention weights and the next token's log-probabilities, from the command line;
and --ids, token ids given in place of a text, for every command (__main__).

    python -m attention.model weights --model shakespeare-qwen3 (--text "…" | --ids 1,2,3) [--json]

--ids: token ids separated by commas, each a whole number in the model's vocabulary, as many as
--text may have; the same ids typed as text give the same output. weights' --json prints exactly

    {"ids": [int], "weights": [layer][head][query][key], "kv_heads": G,
     "next": [{"id": int, "logprob": float, "token": str}]}

weights[l][h][q][k]: how much head h of layer l at query position q attends to key position k
(each row sums to 1; 0 where the query may not look). kv_heads: the model's key/value heads G
(grouped-query attention: query head h reads key/value head h // (H / G); GPT-2: G = H). next: the
10 most likely tokens after the last position, most likely first, with their natural-log
probabilities (log_softmax of the model's logits there).
"""

from __future__ import annotations

import re

import numpy as np
import torch

from attention.errors import ConfigError
from attention.i18n import tr, tr_n
from attention.model import sentence

TOP = 10  # next tokens shown
FULL_ROWS = 12  # up to this many tokens a head's rows are written whole; past it, the last rows' best keys
BEST_KEYS = 3
_IDS = re.compile(r"\s*-?\d+\s*(,\s*-?\d+\s*)*,?\s*")


def parse_ids(text: str) -> list[int]:
    """ "1, 2,3" -> [1, 2, 3]; ConfigError for anything but whole numbers separated by commas."""
    if not text.strip():
        raise ConfigError(tr("No token ids were given; give at least one."), "ids")
    if not _IDS.fullmatch(text):
        raise ConfigError(
            tr(
                "--ids {given}: write token ids as whole numbers separated by commas, such as 1,2,3.",
                given=repr(text[:40]),
            ),
            "ids",
        )
    return [int(i) for i in text.split(",") if i.strip()]


def given(info, model, text: str | None, ids: str | None) -> tuple[list[int], tuple[str, ...]]:
    """The input a command reads: --text through the model's tokenizer, or --ids as they are."""
    context = model.cfg["context_length"]
    if ids is None:
        return sentence.encode(info, text, context)
    return sentence.from_ids(info, parse_ids(ids), model.cfg["vocab_size"], context)


def weights(args, model, info, ids, tokens) -> dict:
    """The weights command's output: as_json's fields, and the model's name and the tokens for the
    text form."""
    trace = sentence.trace_of(model, ids, tokens)
    logprobs = torch.log_softmax(trace.logits[0, -1].double(), dim=-1)  # (vocab,)
    best = torch.topk(logprobs, min(TOP, len(logprobs)))
    show = (lambda i: info.symbols[i]) if info.symbols else info.words.shown
    return {
        "ids": list(ids),
        "weights": trace.weights.numpy(),  # (L, H, T, T)
        "kv_heads": len(set(model.kv_heads)),
        "next": [
            {"id": int(i), "logprob": float(v), "token": show(int(i))}
            for v, i in zip(best.values, best.indices, strict=True)
        ],
        "name": info.shown_name,
        "tokens": list(tokens),
        "kv_head_of": list(model.kv_heads),  # each query head's key/value head
    }


def as_json(out: dict) -> dict:
    """What --json prints: exactly ids, weights, kv_heads, next."""
    return {key: out[key] for key in ("ids", "weights", "kv_heads", "next")}


def _label(t: int, token: str) -> str:
    return f"{t:>4} {token[:12]:<12}"


def _head_rows(grid: np.ndarray, tokens: list[str]) -> list[str]:
    """One head's (T, T) weights: every row whole for a short input; else the last FULL_ROWS
    queries, each with its BEST_KEYS largest weights."""
    n = len(tokens)
    if n <= FULL_ROWS:
        return [_label(q, tokens[q]) + "".join(f"{w:6.2f}" for w in grid[q, : q + 1]) for q in range(n)]
    lines = []
    for q in range(n - FULL_ROWS, n):
        best = np.argsort(-grid[q], kind="stable")[:BEST_KEYS]
        lines.append(
            _label(q, tokens[q]) + "  " + "   ".join(f"{k} {tokens[k][:12]} {grid[q, k]:.2f}" for k in best)
        )
    return lines


def weights_text(out: dict) -> list[str]:
    grid, tokens = np.asarray(out["weights"]), out["tokens"]
    layers, heads, n = grid.shape[0], grid.shape[1], len(tokens)
    lines = [
        tr_n(
            "{name}: {layers} layers x {heads} heads ({groups} key/value heads), {n} token",
            "{name}: {layers} layers x {heads} heads ({groups} key/value heads), {n} tokens",
            n,
            name=out["name"],
            layers=layers,
            heads=heads,
            groups=out["kv_heads"],
            n=n,
        )
    ]
    if n > FULL_ROWS:
        lines.append(
            tr_n(
                "Each head: the last {rows} of {n} query, each with its {keys} largest weights (--json "
                "has every weight).",
                "Each head: the last {rows} of {n} queries, each with its {keys} largest weights (--json "
                "has every weight).",
                n,
                rows=FULL_ROWS,
                n=n,
                keys=BEST_KEYS,
            )
        )
    for layer in range(layers):
        for head in range(heads):
            lines.append(
                tr(
                    "layer {layer}, head {head} (key/value head {group}):",
                    layer=layer,
                    head=head,
                    group=out["kv_head_of"][head],
                )
            )
            if n <= FULL_ROWS:
                lines.append(" " * 17 + "".join(f"{k:>6}" for k in range(n)))
            lines += _head_rows(grid[layer, head], tokens)
    shown = len(out["next"])
    lines.append(
        tr_n(
            "Next token after the last position: the {n} most likely, its log-probability:",
            "Next token after the last position: the {n} most likely, log-probabilities:",
            shown,
            n=shown,
        )
    )
    lines += [f"  {x['token'][:20]:<20}{x['logprob']:9.3f}   id {x['id']}" for x in out["next"]]
    return lines
