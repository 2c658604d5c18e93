"""One sentence through a model: the text as the model's tokens, every head's weights, and what it
predicts next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from attention.errors import ConfigError
from attention.i18n import tr, tr_n
from attention.model import catalog, tokenizer
from attention.model.catalog import ModelInfo
from attention.model.gpt import GPTModel, ModelTrace

MAX_TOKENS = 128  # per sentence on the page: a GPT-2-small trace at 128 tokens holds ~70 MB
SENTENCE = (
    "Alice was beginning to get very tired of sitting by her sister on the bank. "
    "Alice was beginning to get very tired of sitting by her sister on the bank."
)  # a repeated phrase: induction heads show on the second copy
# For the Shakespeare model: Antony's lines from Julius Caesar, a play it never read (held out), the
# phrase said twice as Antony does, so what its heads do with the repeat is not memory of the play
SHAKESPEARE_SENTENCE = (
    "But Brutus says he was ambitious; And Brutus is an honourable man. He was my friend, faithful and "
    "just to me: But Brutus says he was ambitious; And Brutus is an honourable man."
)


# Natural-text probes for a language model's head roles (roles.text_roles): lines of public-domain
# English, each read as it is and, cut to a span, twice
NATURAL_LINES = (
    "Now is the winter of our discontent made glorious summer by this sun of York, and all the clouds "
    "that lour'd upon our house in the deep bosom of the ocean buried.",
    "If music be the food of love, play on; give me excess of it, that, surfeiting, the appetite may "
    "sicken, and so die.",
    "All the world's a stage, and all the men and women merely players; they have their exits and "
    "their entrances, and one man in his time plays many parts.",
    "The quality of mercy is not strain'd, it droppeth as the gentle rain from heaven upon the place "
    "beneath: it is twice blest.",
    "Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing "
    "to do: once or twice she had peeped into the book her sister was reading.",
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of "
    "foolishness, it was the epoch of belief.",
)


def natural_probes(model_info: ModelInfo | None = None) -> list[list[int]]:
    """NATURAL_LINES in the model's tokens (GPT-2's when no model is named)."""
    words = model_info.words if model_info else tokenizer.GPT2
    return [words.encode(line) for line in NATURAL_LINES]


def opening_text(source: str) -> str:
    """The sentence a model opens on."""
    return SHAKESPEARE_SENTENCE if source in (catalog.SHAKESPEARE, catalog.SHAKESPEARE_QWEN3) else SENTENCE


def example(model_info: ModelInfo) -> str:
    """A sentence whose second half repeats its first, in the model's own tokens: induction heads
    show there, and the lab's experiments run on it. A small model's: its start token, then ten of
    its probe tokens twice (as Watch it learn's runs were trained)."""
    if not model_info.symbols:
        return opening_text(model_info.source)
    span = [model_info.symbols[i] for i in list(model_info.probe_vocab)[:10]]
    return " ".join([model_info.symbols[model_info.start_token], *span, *span])


def encode(
    model_info: ModelInfo, text: str, context_length: int, appended: Sequence[int] = (), cut: bool = False
) -> tuple[list[int], tuple[str, ...]]:
    """A sentence (and token ids appended after it) -> token ids and their display texts;
    ConfigError for what cannot be used. `cut`: a text over the limit is cut to it (the example
    sentence, on a model whose context is shorter than it)."""
    if not text.strip():
        raise ConfigError(tr("The text is empty; type a sentence."), "text")
    if model_info.symbols:
        index = {s: i for i, s in enumerate(model_info.symbols)}
        words = text.split()
        unknown = list(dict.fromkeys(w for w in words if w not in index))  # as typed, each once
        if unknown:
            raise ConfigError(
                tr_n(
                    "This model knows {n} token: {tokens}; {typed} is not one of them. Type known tokens "
                    "with spaces between.",
                    "This model knows {n} tokens: {tokens}; {typed} is not one of them. Type known tokens "
                    "with spaces between.",
                    len(index),
                    n=len(index),
                    tokens=" ".join(model_info.symbols[:40]),
                    typed=repr(" ".join(unknown[:8])[:80]),
                ),
                "text",
            )
        ids, shown = [index[w] for w in words], tuple(words)
    else:
        # a folder's own tokenizer puts the model's start token first where the model expects one
        ids = (
            model_info.words.encode(text, start=True)
            if model_info.tokenizer_file
            else model_info.words.encode(text)
        )
        shown = ()
    if any(not 0 <= i < model_info.vocab_size for i in appended):
        raise ConfigError(
            tr("An appended token id is not in the model's vocabulary; appended nothing."), "next"
        )
    ids = [*ids, *appended]
    if model_info.model_vocab and any(
        i >= model_info.model_vocab for i in ids
    ):  # a tokenizer the model outgrew
        raise ConfigError(
            tr(
                "The text has a token (id {id}) outside this model's vocabulary (0 to {last}).",
                id=max(ids),
                last=model_info.model_vocab - 1,
            ),
            "text",
        )
    # GPT-2's labels read the sentence as a whole: a piece of a character says which ("한 1/2")
    shown = shown + shown_tokens(model_info, appended) if model_info.symbols else model_info.words.labels(ids)
    limit = min(MAX_TOKENS, context_length)
    if cut:
        ids, shown = ids[:limit], shown[:limit]
    if len(ids) > limit:
        raise ConfigError(
            tr_n(
                "The text has {n} token; this page shows at most {most}. Shorten it.",
                "The text has {n} tokens; this page shows at most {most}. Shorten it.",
                len(ids),
                n=len(ids),
                most=limit,
            ),
            "tokens",
        )
    return ids, shown


def from_ids(model_info: ModelInfo, ids: Sequence[int], vocab_size: int, context_length: int):
    """Token ids given as they are (the command line's --ids) -> the ids and their display texts,
    as encode gives them for the same tokens typed as text; ConfigError for an id outside the
    vocabulary (the tokenizer's and the model's both) or more ids than encode allows."""
    if not ids:
        raise ConfigError(tr("No token ids were given; give at least one."), "ids")
    vocab = min(vocab_size, model_info.vocab_size)
    if bad := [i for i in ids if not 0 <= i < vocab]:
        raise ConfigError(
            tr(
                "Token id {id} is not in this model's vocabulary: its ids run from 0 to {last:,}.",
                id=bad[0],
                last=vocab - 1,
            ),
            "ids",
        )
    if len(ids) > (limit := min(MAX_TOKENS, context_length)):
        raise ConfigError(
            tr_n(
                "{n} token id was given; this model reads at most {most} here.",
                "{n} token ids were given; this model reads at most {most} here.",
                len(ids),
                n=len(ids),
                most=limit,
            ),
            "tokens",
        )
    ids = [int(i) for i in ids]
    return ids, shown_tokens(model_info, ids) if model_info.symbols else model_info.words.labels(ids)


# A sentence in English takes about 1.3 of GPT-2's tokens a word; Polish, Ukrainian, Japanese and
# Korean take 3 to 8 (the Languages page). Above this, or with this share of letters outside ASCII,
# a sentence is taken as not English. Afrikaans, close to English in both, can pass as English.
TOKENS_A_WORD = 2.0
FOREIGN_LETTERS = 0.25


def looks_english(text: str, tokens: int) -> bool:
    """Whether `text` (read as `tokens` tokens) looks like English, for a model that learned from
    English only (ModelInfo.english_only): a rough test of script and token cost, not a detector."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return True
    foreign = sum(not c.isascii() for c in letters) / len(letters)
    return foreign <= FOREIGN_LETTERS and tokens <= TOKENS_A_WORD * max(len(text.split()), 1)


def shown_tokens(model_info: ModelInfo, ids: Sequence[int]) -> tuple[str, ...]:
    """Token ids as the page shows them (GPT-2's: "·" a leading space, "한 1/2" a piece of 한)."""
    return tuple(model_info.symbols[i] for i in ids) if model_info.symbols else model_info.words.labels(ids)


@dataclass(frozen=True, eq=False)
class SentenceView:
    """What the page draws for one sentence: every head's weights and the next-token logits."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    weights: np.ndarray  # (L, H, T, T) float32
    next_logits: np.ndarray  # (vocab,) at the last position
    losses: np.ndarray  # (T,) float64: −log p(ids[t] | ids[:t]), NaN at position 0 (nothing predicts it)


@torch.no_grad()
def sentence_view(model: GPTModel, ids: list[int], tokens: tuple[str, ...]) -> SentenceView:
    """The trace's weights and logits, without the rest of it: each block's trace is dropped as
    soon as its weights are copied out (run_blocks' keep), so a large model's pass holds one
    block's intermediates at a time, not all of them (Qwen3-0.6B: ~10 MB, not ~0.3 GB), and a
    server's allocator, which keeps what it peaked at, peaks lower."""
    device = next(model.parameters()).device
    in_idx = torch.tensor([ids], device=device)
    weights = []  # (H, T, T) a block, float32 (numpy has no bfloat16)
    x = model.run_blocks(in_idx, keep=lambda layer: weights.append(layer.weights[0].to("cpu", torch.float32)))
    logits = model.out_head(model.final_norm(x))[0].to("cpu", torch.float32)  # (T, vocab)
    last = logits[-1].clone().numpy()  # clone: a view would keep all (T, vocab) in the page's cache
    return SentenceView(
        tuple(ids), tokens, torch.stack(weights).numpy(), last, losses_of(logits, in_idx[0].cpu())
    )


def reading_losses(trace: ModelTrace) -> np.ndarray:
    """(T,) −log p(ids[t] | ids[:t]), NaN at 0, from a trace (losses_of)."""
    return losses_of(trace.logits[0].float(), trace.ids[0])


def losses_of(logits: torch.Tensor, ids: torch.Tensor) -> np.ndarray:
    """(T,) −log p(ids[t] | ids[:t]) from the (T, vocab) logits, NaN at 0, in float32
    (interventions.token_losses' float64 copy of the logits is 51 MB at 128 tokens, and a server's
    allocator keeps what it peaked at)."""
    logits, ids = logits[:-1], ids[1:]  # (T - 1, vocab), (T - 1,)
    losses = torch.logsumexp(logits, -1) - logits.gather(-1, ids[:, None])[:, 0]  # (T - 1,)
    return np.concatenate([[np.nan], losses.double().numpy()])


def starts_a_document(ids: Sequence[int], start: int = tokenizer.ENDOFTEXT_ID) -> bool:
    """The sentence begins with the model's start token (GPT-2's <|endoftext|>, as every document
    GPT-2 read did)."""
    return len(ids) > 0 and ids[0] == start


def trace_of(model: GPTModel, ids: list[int], tokens: tuple[str, ...] = ()) -> ModelTrace:
    device = next(model.parameters()).device
    return model.trace(torch.tensor([ids], device=device), tokens)


def next_tokens(logits: np.ndarray, model_info: ModelInfo, temperature: float = 1.0, top: int = 10):
    """The `top` most likely next tokens: [(id, shown text, probability)], softmax(logits / T)."""
    scaled = torch.tensor(logits, dtype=torch.float64) / max(temperature, 1e-6)
    probabilities = torch.softmax(scaled, dim=-1)
    best = torch.topk(probabilities, min(top, len(probabilities)))
    shown = (lambda i: model_info.symbols[i]) if model_info.symbols else model_info.words.shown
    return [(int(i), shown(int(i)), float(p)) for p, i in zip(best.values, best.indices, strict=True)]
