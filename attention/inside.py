"""Inside a model: which models there are, a loaded model's tokenizer, one sentence's view of all
its heads, and what it predicts next. No Streamlit.

A model is a folder in GPT-2's checkpoint layout (gpt.load_gpt2). Its config.json may carry an
"attention_explorer" entry: a name, what it was trained on, and its tokenizer: GPT-2's BPE
(default) or "symbols", a list of token texts typed with spaces between them (the small models
Watch it learn trains).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from attention import bpe
from attention.errors import ConfigError
from attention.gpt import GPTModel, ModelTrace, load_gpt2
from attention.hub import HUB_MODELS
from attention.settings import flag

BUNDLED = "bundled"
BUNDLED_PATH = Path(__file__).resolve().parent.parent / "assets" / "model"
RUNS = Path(tempfile.gettempdir()) / "attention-explorer-runs"  # models Watch it learn trained
RUN = re.compile(r"run:([0-9a-f]{12})")  # a run's source; nothing else names a folder in RUNS
KEEP_RUNS = 20  # per machine (every replica shares RUNS); older runs are deleted as new ones are saved
MAX_TOKENS = 128  # per sentence on the page: a GPT-2-small trace at 128 tokens holds ~70 MB
SENTENCE = (
    "Alice was beginning to get very tired of sitting by her sister on the bank. "
    "Alice was beginning to get very tired of sitting by her sister on the bank."
)  # a repeated phrase: induction heads show on the second copy
# Published roles of GPT-2 small's heads, to set beside what the page measures (layer.head):
# induction heads (Olsson et al. 2022; the IOI paper, Wang et al. 2022) and previous-token heads.
PUBLISHED = {"induction": ("5.5", "6.9", "7.10", "5.1"), "previous": ("2.2", "4.11")}


@dataclass(frozen=True)
class ModelInfo:
    source: str  # BUNDLED, a hub repo id, or a folder
    name: str
    trained_on: str = ""
    symbols: tuple[str, ...] = ()  # a small model's token texts; empty: GPT-2's BPE
    extra: dict = field(default_factory=dict)

    @property
    def start_token(self) -> int:
        return int(self.extra.get("start_token", len(self.symbols) - 1 if self.symbols else 50256))

    @property
    def probe_vocab(self) -> range:
        low, high = self.extra.get("probe_tokens", (0, len(self.symbols) - 1 if self.symbols else 50256))
        return range(int(low), int(high))

    @property
    def is_gpt2_small(self) -> bool:
        return self.source == "openai-community/gpt2"


def choices() -> dict[str, str]:
    """source -> label, for the picker: the bundled model first (offline), then the hub's."""
    out = {BUNDLED: "Bundled: a small trained GPTModel (offline)"}
    out |= {repo: f"{m.label} from the hub ({m.megabytes:,} MB download)" for repo, m in HUB_MODELS.items()}
    if os.environ.get("ATTENTION_MODEL_PATH"):
        out[os.environ["ATTENTION_MODEL_PATH"]] = f"Local: {os.environ['ATTENTION_MODEL_PATH']}"
    for folder, name in runs():
        out[f"run:{folder.name}"] = f"Trained here: {name}"
    return out


def listed_only() -> bool:
    """ATTENTION_LISTED_MODELS_ONLY=1, for a class server: visitors open only the picker's models
    (no folder on the server, no other hub repo, whatever the URL says)."""
    return flag("ATTENTION_LISTED_MODELS_ONLY")


def check_source(source: str) -> None:
    """ConfigError for a model this server does not open for visitors."""
    if listed_only() and source not in choices():
        raise ConfigError(
            f"This server opens only the models in its Model list, not {source[:80]!r}.", "source"
        )


def runs() -> list[tuple[Path, str]]:
    """The models Watch it learn saved on this server (folder, name), newest first. Another
    session may be deleting the oldest right now (new_run): a folder that cannot be read is
    skipped."""
    found = []
    for folder in (f for f in RUNS.glob("*") if RUN.fullmatch(f"run:{f.name}")):
        try:
            config = json.loads((folder / "config.json").read_text())
            name = config.get("attention_explorer", {}).get("name") or folder.name
            found.append((folder.stat().st_mtime, folder, name))
        except (OSError, ValueError, AttributeError):
            continue
    return [(folder, name) for _, folder, name in sorted(found, reverse=True)]


def new_run() -> tuple[str, Path]:
    """A fresh folder for a trained model, and the source that names it; the oldest beyond
    KEEP_RUNS are deleted (a classroom's runs must not fill the disk)."""
    import shutil

    for old, _ in runs()[KEEP_RUNS - 1 :]:
        shutil.rmtree(old, ignore_errors=True)
    name = uuid.uuid4().hex[:12]
    return f"run:{name}", RUNS / name


def resolve(source: str) -> Path | str:
    """The path or repo id load_gpt2 takes for a picker source."""
    if source == BUNDLED:
        return BUNDLED_PATH
    run = RUN.fullmatch(source)
    if run:
        return RUNS / run.group(1)
    if source.startswith("run:"):
        raise ConfigError(f"{source[:40]!r} names no run trained here.", "model")
    return source


def info(source: str, folder: Path | None) -> ModelInfo:
    """What config.json says about the model (its "attention_explorer" entry)."""
    extra = {}
    config = Path(folder or resolve(source)) / "config.json"
    if config.exists():
        extra = json.loads(config.read_text()).get("attention_explorer", {})
    known = HUB_MODELS.get(source)
    name = extra.get("name") or (known.label if known else Path(str(source)).name)
    return ModelInfo(source, name, extra.get("trained_on", ""), tuple(extra.get("vocab", ())), extra)


def load(source: str, progress=None) -> tuple[GPTModel, ModelInfo]:
    """A model and what it is; ConfigError with a clear message for anything unusable."""
    from attention import hub

    check_source(source)
    folder = None
    if hub.is_repo_id(source):
        folder = hub.download(source, progress=progress)
    model = load_gpt2(folder or resolve(source))
    return model, info(source, folder)


def encode(model_info: ModelInfo, text: str, context_length: int, appended: Sequence[int] = ()
           ) -> tuple[list[int], tuple[str, ...]]:  # fmt: skip
    """A sentence (and token ids appended after it) -> token ids and their display texts;
    ConfigError for what cannot be used."""
    if not text.strip():
        raise ConfigError("The text is empty; type a sentence.", "text")
    if model_info.symbols:
        index = {s: i for i, s in enumerate(model_info.symbols)}
        words = text.split()
        unknown = sorted({w for w in words if w not in index})
        if unknown:
            raise ConfigError(
                f"This model knows {len(index)} tokens: {' '.join(model_info.symbols[:40])}; "
                f"{' '.join(unknown[:8])[:80]!r} is not one of them. Type known tokens with spaces between.",
                "text",
            )
        ids, shown = [index[w] for w in words], tuple(words)
    else:
        ids = bpe.encode(text)
        shown = tuple(bpe.shown(i) for i in ids)
    if any(not 0 <= i < len(model_info.symbols or range(50257)) for i in appended):
        raise ConfigError("An appended token id is not in the model's vocabulary; appended nothing.", "next")
    ids = [*ids, *appended]
    shown = shown + tuple(model_info.symbols[i] if model_info.symbols else bpe.shown(i) for i in appended)
    limit = min(MAX_TOKENS, context_length)
    if len(ids) > limit:
        raise ConfigError(f"The text has {len(ids)} tokens; this page shows at most {limit}. Shorten it.",
                          "tokens")  # fmt: skip
    return ids, shown


@dataclass(frozen=True, eq=False)
class SentenceView:
    """What the page draws for one sentence: every head's weights and the next-token logits."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    weights: np.ndarray  # (L, H, T, T) float32
    next_logits: np.ndarray  # (vocab,) at the last position


@torch.no_grad()
def sentence_view(model: GPTModel, ids: list[int], tokens: tuple[str, ...]) -> SentenceView:
    trace = trace_of(model, ids, tokens)
    # clone: a view of the last row would keep all (T, vocab) logits alive in the page's cache
    return SentenceView(tuple(ids), tokens, trace.weights.numpy(), trace.logits[0, -1].clone().numpy())


def trace_of(model: GPTModel, ids: list[int], tokens: tuple[str, ...] = ()) -> ModelTrace:
    device = next(model.parameters()).device
    return model.trace(torch.tensor([ids], device=device), tokens)


def next_tokens(logits: np.ndarray, model_info: ModelInfo, temperature: float = 1.0, top: int = 10):
    """The `top` most likely next tokens: [(id, shown text, probability)], softmax(logits / T)."""
    scaled = torch.tensor(logits, dtype=torch.float64) / max(temperature, 1e-6)
    probabilities = torch.softmax(scaled, dim=-1)
    best = torch.topk(probabilities, min(top, len(probabilities)))
    shown = (lambda i: model_info.symbols[i]) if model_info.symbols else bpe.shown
    return [(int(i), shown(int(i)), float(p)) for p, i in zip(best.values, best.indices, strict=True)]
