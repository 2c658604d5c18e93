"""Test what a head does, from the command line (interventions.py): ablate heads, or map every head.

    python -m attention.model ablate --model bundled --text "<|endoftext|>A b c. A b c." --heads 1.1,1.3
        [--mode zero|mean] [--reference TEXT ...] [--top 5] [--json]
    python -m attention.model importance --model bundled --text "…" [--positions 18:33]
        [--mode zero|mean] [--corrupted TEXT [--answers RIGHT WRONG]] [--method exact|attribution] [--json]
    python -m attention.model lens|explain …    where it decided, which tokens mattered (reading.py, below)
    python -m attention.model weights …         every head's weights, the next token (weights_cli.py)

Every command reads --text or --ids (token ids in place of a text: 1,2,3); importance's
--corrupted-ids is --corrupted's.

--model: "bundled" (the shipped model, offline), a folder in GPT-2's layout, or a hub repo id
(downloaded on first use). Token positions count from 0; position t's loss is −log p(token t |
tokens before it), so position 0 has none. GPT-2's vocabulary reads "<|endoftext|>" in the text as
its start token (the bundled model was trained with one at position 0). A bad input (an unknown
head, an empty text, too many tokens, inputs of different lengths) prints "error: …" and exits 2.

--json prints one object (schema version 1; fields are only ever added). Numbers are floats;
(L, H) grids are lists of L rows of H; NaN is written null. Both commands share

    schema     "attention-explorer/ablate/1" or "attention-explorer/importance/1"
    model      {"source": str, "name": str, "layers": int, "heads": int}
    ids        [int]          the input's token ids
    tokens     [str]          the same tokens as text ("·" a leading space)

ablate adds
    ablation   {"heads": ["1.1", ...], "mode": "zero"|"mean",
                "reference": "input"|"given"}     what a mean ran over: the input's positions or --reference
    loss       {"before": [float|null], "after": [...]}    per position; null at 0
    mean_loss  {"positions": [int], "before": float, "after": float}    over positions 1..T-1
    next       {"before": [{"id": int, "token": str, "probability": float}], "after": [...]}
               the top next tokens after the last position, most likely first
    scores     {"before": {role: grid}, "after": {role: grid}}    roles.py's pattern scores of
               every head on this input (roles "previous", "first", "duplicate", "induction")

importance adds
    method     "exact" | "attribution"    every head run (default), or attribution.py's first-order
               estimate (one backward pass: seconds for GPT-2 small; approximate, see there)
    positions  [int]          where the loss counts (--positions; default 1..T-1)
    ablation   {"mode": str, "loss": float, "change": grid}   the untouched mean loss, and each
               head alone ablated: its mean loss minus the untouched one
    patching   null, or {"corrupted_ids": [int], "corrupted_tokens": [str],
               "metric": "loss"|"logit_diff", "answers": [int, int]|null,
               "clean": float, "corrupted": float, "recovery": grid}
               each head alone patched from the clean run (--text) into the corrupted one:
               (patched − corrupted) / (clean − corrupted), 0 corrupted .. 1 clean, not clipped;
               the metric is the loss on the clean tokens at `positions`, or with --answers the
               logit difference RIGHT − WRONG at the last position
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np
import torch

from attention.errors import ConfigError
from attention.i18n import tr, tr_n
from attention.model import catalog, reading, roles, sentence, weights_cli
from attention.model.attribution import attribution_map, attribution_patching_map
from attention.model.interventions import (
    MODES,
    Ablation,
    Metric,
    ablation_map,
    parse_heads,
    patching_map,
    run_with,
    token_losses,
)

SCHEMA = "attention-explorer/{}/1"


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        model, info = catalog.load(args.model)
        ids, tokens = weights_cli.given(info, model, args.text, args.ids)
        out = COMMANDS[args.command][0](args, model, info, ids, tokens)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        out = weights_cli.as_json(out) if args.command == "weights" else out
        print(json.dumps(plain(out), ensure_ascii=False))
    else:
        print("\n".join(COMMANDS[args.command][1](out)))
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m attention.model",
        description=__doc__ + "\n" + reading.__doc__ + "\n" + weights_cli.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = top.add_subparsers(dest="command", required=True)
    for name, words in (
        ("ablate", "ablate heads: loss, next tokens, pattern scores"),
        ("importance", "L x H map"),
        *reading.COMMANDS.items(),
        ("weights", "every head's attention weights, the next token's log-probabilities"),
    ):
        sub = commands.add_parser(name, help=words)
        sub.add_argument("--model", default=catalog.BUNDLED, help='"bundled" (default), a folder, a hub id')
        given = sub.add_mutually_exclusive_group(required=True)
        given.add_argument("--text")
        given.add_argument("--ids", help="token ids in place of a text, comma-separated: 1,2,3")
        if name in ("ablate", "importance"):
            sub.add_argument("--mode", choices=MODES, default="zero")
        sub.add_argument(
            "--json", action="store_true", help="one JSON object (schema: python -m attention.model --help)"
        )
        sub.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's own choice)")
    reading.add_arguments(commands)
    ablate_parser, importance_parser = commands.choices["ablate"], commands.choices["importance"]
    ablate_parser.add_argument("--heads", required=True, help="layer.head, comma-separated: 1.1,1.3")
    ablate_parser.add_argument("--reference", nargs="+", help="mean mode: texts to average over")
    ablate_parser.add_argument("--top", type=int, default=5, help="next tokens shown")
    importance_parser.add_argument("--positions", help="where the loss counts: A:B or a,b,c")
    corrupted = importance_parser.add_mutually_exclusive_group()
    corrupted.add_argument("--corrupted", help="a corrupted input as long as --text: add a patching map")
    corrupted.add_argument("--corrupted-ids", help="the corrupted input as token ids: 1,2,3")
    importance_parser.add_argument("--answers", nargs=2, metavar=("RIGHT", "WRONG"), help="one token each")
    importance_parser.add_argument(
        "--method", choices=("exact", "attribution"), default="exact", help="attribution: a fast estimate"
    )
    return top


def described(args, model, info) -> dict:
    return {"source": args.model, "name": info.name, "layers": model.layers, "heads": model.heads}


def ablate(args, model, info, ids, tokens) -> dict:
    reference = [sentence.encode(info, t, model.cfg["context_length"])[0] for t in args.reference or ()]
    ablation = Ablation(parse_heads(args.heads), args.mode, tuple(reference))
    before, after = run_with(model, ids, tokens=tokens), run_with(model, ids, ablation, tokens=tokens)
    loss = {"before": token_losses(before), "after": token_losses(after)}

    def top(trace):
        best = sentence.next_tokens(trace.logits[0, -1].numpy(), info, top=args.top)
        return [{"id": i, "token": text, "probability": p} for i, text, p in best]

    def role_scores(trace):
        return roles.scores_of(trace.weights.numpy(), ids)

    return {
        "schema": SCHEMA.format("ablate"),
        "model": described(args, model, info),
        "ids": ids,
        "tokens": list(tokens),
        "ablation": {
            "heads": [f"{layer}.{head}" for layer, head in ablation.heads],
            "mode": ablation.mode,
            "reference": "given" if reference else "input",
        },
        "loss": loss,
        "mean_loss": {
            "positions": list(range(1, len(ids))),
            **{when: float(np.nanmean(v)) if len(ids) > 1 else None for when, v in loss.items()},
        },
        "next": {"before": top(before), "after": top(after)},
        "scores": {"before": role_scores(before), "after": role_scores(after)},
    }


def importance(args, model, info, ids, tokens) -> dict:
    positions = parse_positions(args.positions, len(ids))
    fast = args.method == "attribution"
    ablated = (attribution_map if fast else ablation_map)(model, ids, Metric(positions), args.mode)
    out = {
        "schema": SCHEMA.format("importance"),
        "method": args.method,
        "model": described(args, model, info),
        "ids": ids,
        "tokens": list(tokens),
        "positions": list(ablated.positions),
        "ablation": {"mode": args.mode, "loss": ablated.base, "change": ablated.values},
        "patching": None,
    }
    if args.corrupted or args.corrupted_ids:
        corrupted, shown = weights_cli.given(info, model, args.corrupted, args.corrupted_ids)
        answers = tuple(one_token(info, a) for a in args.answers) if args.answers else None
        patched = (attribution_patching_map if fast else patching_map)(
            model, ids, corrupted, Metric(positions, answers)
        )
        out["patching"] = {
            "corrupted_ids": corrupted,
            "corrupted_tokens": list(shown),
            "metric": patched.metric.name,
            "answers": list(answers) if answers else None,
            "clean": patched.clean,
            "corrupted": patched.base,
            "recovery": patched.values,
        }
    elif args.answers:
        raise ConfigError(tr("--answers scores a patching map: give --corrupted too."), "answers")
    return out


def parse_positions(text: str | None, length: int) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        if ":" in text:
            start, _, stop = text.partition(":")
            return tuple(range(int(start or 1), int(stop or length)))
        return tuple(int(p) for p in text.split(","))
    except ValueError:
        raise ConfigError(
            tr("--positions {given}: write A:B or a,b,c (token positions)", given=repr(text[:30])),
            "positions",
        ) from None


def one_token(info, text: str) -> int:
    if info.symbols:
        ids = [info.symbols.index(text)] if text in info.symbols else []
    else:
        ids = info.words.encode(text)
    if len(ids) != 1:
        raise ConfigError(
            tr_n(
                "{text} is {n} token for this model; an answer must be one.",
                "{text} is {n} tokens for this model; an answer must be one.",
                len(ids),
                text=repr(text[:30]),
                n=len(ids),
            ),
            "answers",
        )
    return ids[0]


def plain(value):
    """JSON-ready: arrays as lists, NaN as None."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray | list | tuple):
        return [plain(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    return value


# --- text output -------------------------------------------------------------------------------


def _grid(grid: np.ndarray, fmt: str) -> list[str]:
    lines = ["layer " + "".join(f"{h:>8}" for h in range(grid.shape[1]))]
    return lines + [f"{layer:>5} " + "".join(f"{v:{fmt}}" for v in row) for layer, row in enumerate(grid)]


def ablate_text(out: dict) -> list[str]:
    model, ablation, loss = out["model"], out["ablation"], out["loss"]
    lines = [
        f"{model['name']}: {model['layers']} layers x {model['heads']} heads; ablated "
        f"{', '.join(ablation['heads'])} ({ablation['mode']}"
        + (f", mean over the {ablation['reference']} text)" if ablation["mode"] == "mean" else ")"),
        f"{'pos':>4}  {'token':<20}{'loss before':>12}{'after':>10}{'change':>10}",
    ]
    for t, token in enumerate(out["tokens"]):
        b, a = loss["before"][t], loss["after"][t]
        numbers = "" if t == 0 else f"{b:12.3f}{a:10.3f}{a - b:+10.3f}"
        lines.append(f"{t:>4}  {token[:20]:<20}{numbers}")
    mean = out["mean_loss"]
    if mean["before"] is not None:
        lines.append(
            f"mean loss: {mean['before']:.3f} -> {mean['after']:.3f} ({mean['after'] - mean['before']:+.3f})"
        )
    lines.append("next token after the last position (before | after):")
    for b, a in zip(out["next"]["before"], out["next"]["after"], strict=True):
        pair = (f"{x['token'][:16]:<16} {x['probability']:6.3f}" for x in (b, a))
        lines.append("  " + "  |  ".join(pair))
    before, after = out["scores"]["before"], out["scores"]["after"]
    changes = sorted(
        (
            (abs(after[role][lh] - v), f"{lh[0]}.{lh[1]}", role)
            for role in before
            for lh, v in np.ndenumerate(before[role])
        ),
        key=lambda c: (-np.nan_to_num(c[0]), c[1]),
    )
    best = {
        f"{lh[0]}.{lh[1]}": max(before, key=lambda r: np.nan_to_num(before[r][lh]))
        for lh in np.ndindex(before["previous"].shape)
    }
    shown = [
        (name, best[name]) for name in ablation["heads"]
    ]  # an ablated head's own pattern does not change
    shown += [(name, role) for change, name, role in changes if change > 1e-3][:8]
    lines.append(
        "pattern scores (roles.py) of the ablated heads, then of the heads whose pattern changed most:"
    )
    for name, role in shown:
        layer, head = map(int, name.split("."))
        lines.append(
            f"  {name:<6}{role:<10}{before[role][layer, head]:7.3f} -> {after[role][layer, head]:6.3f}"
        )
    if len(shown) == len(ablation["heads"]):
        lines.append("  no other head's pattern changed (only heads in later layers can)")
    return lines


def importance_text(out: dict) -> list[str]:
    model, ablation, positions = out["model"], out["ablation"], out["positions"]
    lines = [
        f"{model['name']}: {model['layers']} layers x {model['heads']} heads, {len(out['ids'])} tokens; "
        f"loss on positions {positions[0]}..{positions[-1]} ({len(positions)}), "
        f"untouched {ablation['loss']:.3f}",
        f"change in that loss when each head alone is {ablation['mode']}-ablated"
        + (" (attribution: a first-order estimate):" if out["method"] == "attribution" else ":"),
        *_grid(ablation["change"], "+8.3f"),
    ]
    if patching := out["patching"]:
        what = "loss" if patching["metric"] == "loss" else "logit difference"
        lines += [
            f"patching: {what} clean {patching['clean']:.3f}, corrupted {patching['corrupted']:.3f}; "
            "recovery when each head alone is patched from the clean run (0 corrupted, 1 clean):",
            *_grid(patching["recovery"], "8.3f"),
        ]
    return lines


def _reading(run):
    return lambda args, model, info, ids, tokens: run(
        args, model, info, ids, tokens, described(args, model, info)
    )


# command -> (what it computes, its text report)
COMMANDS = {
    "ablate": (ablate, ablate_text),
    "importance": (importance, importance_text),
    "lens": (_reading(reading.lens), reading.lens_text),
    "explain": (_reading(reading.explained), reading.explain_text),
    "weights": (weights_cli.weights, weights_cli.weights_text),
}


if __name__ == "__main__":
    sys.exit(main())
