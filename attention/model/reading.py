"""Where the model decided and which tokens mattered, from the command line (lens.py, explain.py).

    python -m attention.model lens --model shakespeare --text "…" [--top 5] [--json]
    python -m attention.model explain --model bundled --text "…" [--position N]
        [--baseline mean|zero] [--json]

--json prints one object (schema version 1; fields are only ever added), with schema
"attention-explorer/lens/1" or "attention-explorer/explain/1" and the model, ids and tokens as
ablate's. Stage s is the residual stream after the embeddings (0) or after block s.

lens adds
    stages       int            n_layers + 1
    top          [[[{"id": int, "token": str, "probability": float}]]]   stage x position x --top,
                 each stage's most likely next tokens read through final_norm and out_head
    final        {"ids": [int], "tokens": [str], "logprobs": [[float]]}   the model's own top-1 at
                 each position, and its log-probability read at each stage (stage x position)
    commit       [int]          per position, the first stage from which the top-1 stays the final one
    logit_parts  {"position": int, "token": {"id": int, "token": str}, "logit": float,
                  "embeddings": float, "heads": grid (L x H), "attention_bias": [float] (L),
                  "mlps": [float] (L), "norm_shift": float, "scale": float, "total": float}
                 the last position's top logit split into direct contributions (lens.py)

explain adds
    position     int            the prediction explained: the token after this position
    target       {"id": int, "token": str, "logprob": float}   the model's top-1 there
    baseline     "mean" | "zero"   what an ablated token's embedding became
    flow         {"capped": bool, "max_tokens": int}   capped: flow left out (position + 1 > max_tokens)
    scores       {method: [float] | null}   "attention", "rollout", "flow", "gradient", "ablation",
                 one score per token 0..position, higher = mattered more; "ablation" is the
                 fall in the target's log-probability when that token alone is replaced
    correlations {method: float | null}   Spearman's ρ of each method with "ablation" (null: undefined)
    summary      str            a short paragraph from the numbers
"""

from __future__ import annotations

import numpy as np

from attention.model import sentence
from attention.model.explain import FLOW_MAX_TOKENS, METHODS, explain, summary
from attention.model.lens import logit_lens, logit_parts

COMMANDS = {
    "lens": "the logit lens: each layer's next-token guess, and the last logit split by head",
    "explain": "which tokens mattered: attention, rollout, flow, gradient x input vs ablation",
}
SCHEMA = "attention-explorer/{}/1"


def add_arguments(commands) -> None:
    """The two commands' own options (the shared ones are __main__'s)."""
    commands.choices["lens"].add_argument("--top", type=int, default=5, help="tokens per stage and position")
    explain_parser = commands.choices["explain"]
    explain_parser.add_argument(
        "--position", type=int, help="the prediction after this token (default: last)"
    )
    explain_parser.add_argument("--baseline", choices=("mean", "zero"), default="mean")


def _token(info, token_id: int) -> str:
    return sentence.shown_tokens(info, [token_id])[0]


def lens(args, model, info, ids, tokens, described) -> dict:
    read = logit_lens(model, ids, args.top)
    parts = logit_parts(model, ids)
    shown = {int(i): _token(info, int(i)) for i in read.top_ids.unique().tolist()}
    top = [
        [
            [
                {"id": int(i), "token": shown[int(i)], "probability": float(p)}
                for i, p in zip(ids_, probs, strict=True)
            ]
            for ids_, probs in zip(stage_ids, stage_probs, strict=True)
        ]
        for stage_ids, stage_probs in zip(read.top_ids.tolist(), read.top_probs.tolist(), strict=True)
    ]
    return {
        "schema": SCHEMA.format("lens"),
        "model": described,
        "ids": ids,
        "tokens": list(tokens),
        "stages": read.stages,
        "top": top,
        "final": {
            "ids": read.final_ids.tolist(),
            "tokens": [shown[int(i)] for i in read.final_ids.tolist()],
            "logprobs": read.final_logprobs.numpy(),
        },
        "commit": read.commit.tolist(),
        "logit_parts": {
            "position": parts.position,
            "token": {"id": parts.token, "token": _token(info, parts.token)},
            "logit": parts.logit,
            "embeddings": parts.embeddings,
            "heads": parts.heads.numpy(),
            "attention_bias": parts.attention_bias.numpy(),
            "mlps": parts.mlps.numpy(),
            "norm_shift": parts.norm_shift,
            "scale": parts.scale,
            "total": parts.total,
        },
    }


def explained(args, model, info, ids, tokens, described) -> dict:
    e = explain(model, ids, args.position, args.baseline)
    target = _token(info, e.target)
    return {
        "schema": SCHEMA.format("explain"),
        "model": described,
        "ids": ids,
        "tokens": list(tokens),
        "position": e.position,
        "target": {"id": e.target, "token": target, "logprob": e.logprob},
        "baseline": e.baseline,
        "flow": {"capped": e.scores["flow"] is None, "max_tokens": FLOW_MAX_TOKENS},
        "scores": e.scores,
        "correlations": e.correlations,
        "summary": summary(e, tokens, target),
    }


# --- text output -------------------------------------------------------------------------------


def lens_text(out: dict) -> list[str]:
    model, final, stages = out["model"], out["final"], out["stages"]
    lines = [
        f"{model['name']}: {model['layers']} layers; stage 0 = after the embeddings, s = after block s",
        "log-probability of the model's final top-1, read at each stage; commit = the first stage from "
        "which it stays top-1",
        f"{'pos':>4}  {'token':<16}{'predicts':<16}"
        + "".join(f"{s:>8}" for s in range(stages))
        + f"{'commit':>8}",
    ]
    for t, token in enumerate(out["tokens"]):
        logprobs = "".join(f"{final['logprobs'][s][t]:8.2f}" for s in range(stages))
        lines.append(f"{t:>4}  {token[:15]:<16}{final['tokens'][t][:15]:<16}{logprobs}{out['commit'][t]:>8}")
    parts = out["logit_parts"]
    lines += [
        f"the logit of {parts['token']['token']!r} after position {parts['position']}: {parts['logit']:.3f} "
        f"= embeddings {parts['embeddings']:+.3f} + heads {float(np.sum(parts['heads'])):+.3f} "
        f"+ out_proj biases {sum(parts['attention_bias']):+.3f} "
        f"+ MLPs {sum(parts['mlps']):+.3f} + final_norm's shift {parts['norm_shift']:+.3f}",
        "each head's direct part:",
        "layer " + "".join(f"{h:>8}" for h in range(len(parts["heads"][0]))) + f"{'MLP':>8}",
        *(
            f"{layer:>5} " + "".join(f"{v:+8.3f}" for v in row) + f"{parts['mlps'][layer]:+8.3f}"
            for layer, row in enumerate(parts["heads"])
        ),
    ]
    return lines


def explain_text(out: dict) -> list[str]:
    scores, target = out["scores"], out["target"]
    shown = [m for m in METHODS if scores[m] is not None]
    lines = [
        f"the prediction after position {out['position']}: {target['token']!r} "
        f"(log-probability {target['logprob']:.3f}); ablation baseline: {out['baseline']}",
        f"{'pos':>4}  {'token':<16}" + "".join(f"{m:>11}" for m in shown),
    ]
    for t in range(out["position"] + 1):
        lines.append(f"{t:>4}  {out['tokens'][t][:15]:<16}" + "".join(f"{scores[m][t]:11.4f}" for m in shown))
    rho = out["correlations"]
    lines.append(
        "Spearman ρ with the ablation: "
        + ", ".join(f"{m} {'n/a' if np.isnan(rho[m]) else f'{rho[m]:+.2f}'}" for m in METHODS[:-1])
    )
    if out["flow"]["capped"]:
        lines.append(f"(attention flow is left out over {out['flow']['max_tokens']} tokens)")
    return [*lines, out["summary"]]
