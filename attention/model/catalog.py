"""The model catalogue: which models there are (bundled, the hub's, runs trained here), what each
one is, and loading one. The one caller of hub.download (download, which load calls).

A model is a folder in Hugging Face's layout: GPT-2's, Llama's, Qwen3's or Gemma 3's
(checkpoint.load_model reads config.json's model_type). Its config.json may carry an
"attention_explorer" entry: a name, what it was trained on, and its tokenizer: GPT-2's BPE
(default) or "symbols", a list of token texts typed with spaces between them (the small models
Watch it learn trains). A folder of another vocabulary than GPT-2's tokenizes with its own
tokenizer.json (Qwen3-0.6B, SmolLM2, Gemma 3).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import time
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

import torch

from attention.errors import ConfigError
from attention.i18n import DEFAULT, N_, language, tr
from attention.model import hub, tokenizer
from attention.model.checkpoint import load_model
from attention.model.gpt import GPTModel
from attention.model.hub import HUB_MODELS
from attention.settings import ASSETS, current, runs_dir

BUNDLED = "bundled"  # the copy model: random tokens, no language
BUNDLED_PATH = ASSETS / "model"
SHAKESPEARE = "shakespeare"  # a language model: Shakespeare's plays (attention/training/shakespeare.py)
SHAKESPEARE_PATH = ASSETS / "shakespeare"
SHAKESPEARE_QWEN3 = "shakespeare-qwen3"  # the same plays in Qwen3's layout (shakespeare_qwen3.py)
SHAKESPEARE_QWEN3_PATH = ASSETS / "shakespeare-qwen3"
SHIPPED = {SHAKESPEARE: SHAKESPEARE_PATH, SHAKESPEARE_QWEN3: SHAKESPEARE_QWEN3_PATH, BUNDLED: BUNDLED_PATH}
RUNS = runs_dir()  # models Watch it learn trained: this account's own folder (private_runs), read at start
RUN = re.compile(r"run:([0-9a-f]{12})")  # a run's source; nothing else names a folder in RUNS
ENGLISH_HUB = {"HuggingFaceTB/SmolLM2-135M"}  # hub models of today's layouts that read English only
KEEP_RUNS = 20  # per machine (every replica shares RUNS); older runs are deleted as new ones are saved


@dataclass(frozen=True)
class ModelInfo:
    source: str  # BUNDLED, a hub repo id, or a folder
    name: str
    trained_on: str = ""
    symbols: tuple[str, ...] = ()  # a small model's token texts; empty: GPT-2's BPE or tokenizer_file
    extra: dict = field(default_factory=dict)
    tokenizer_file: str = ""  # the folder's tokenizer.json, where its vocabulary is not GPT-2's
    layout: str = "gpt2"  # config.json's model_type: gpt2, llama, qwen3, gemma3_text
    model_vocab: int = 0  # config.json's vocab_size (0: not given): ids at or past it are refused

    @property
    def words(self):
        """The vocabulary text goes through (encode, labels, shown, ...): GPT-2's BPE, or the
        folder's tokenizer.json (tokenizer.FolderTokenizer); not for a symbols model."""
        return tokenizer.from_file(self.tokenizer_file) if self.tokenizer_file else tokenizer.GPT2

    @property
    def vocab_size(self) -> int:
        return len(self.symbols) if self.symbols else self.words.size

    @property
    def shown_name(self) -> str:
        """The name as a page shows it: a hub model's label in this rerun's language ("distilgpt2
        (6 layers)"); any other name as it is (`name`, language-free, is what a cache keeps)."""
        known = HUB_MODELS.get(self.source)
        return tr(known.label) if known and self.name == known.label else self.name

    @property
    def trained_on_shown(self) -> str:
        """What it learned from, as a page shows it: in this rerun's language where the text is one
        this app's own training wrote (recorded); `trained_on` itself stays as config.json has it."""
        return recorded(self.trained_on)

    @property
    def start_token(self) -> int:
        return int(self.extra.get("start_token", len(self.symbols) - 1 if self.symbols else self.words.start))

    @property
    def probe_vocab(self) -> range:
        low, high = self.extra.get("probe_tokens", (0, self.vocab_size - 1))
        return range(int(low), int(high))

    @property
    def reads_language(self) -> bool:
        """Trained on text (GPT-2's vocabulary and not the copy model's repeats of random tokens)."""
        return not self.symbols and not any(w in self.trained_on.lower() for w in ("repeat", "copy"))

    @property
    def english_only(self) -> bool:
        """Learned from English text only: the Shakespeare models, a run of Watch it learn, the GPT-2
        family (WebText, English by design) and SmolLM2 (its card: English only). Qwen3, Gemma 3 and
        Llama 3.2 are multilingual; a folder of another layout is not assumed either way."""
        return self.reads_language and (
            self.layout == "gpt2" or self.source in SHIPPED or self.source in ENGLISH_HUB
        )

    @property
    def is_gpt2_small(self) -> bool:
        return self.source == "openai-community/gpt2"


# What this app's own training writes into a model's config.json (attention/training: trained_on,
# measured.on), each a pattern of the words as written and the same words for the catalogs, its
# numbers and commands put back in by name. English reads the text as written, byte for byte.
RECORDED = (
    (
        re.compile(
            r"36 of Shakespeare's plays \(Julius Caesar and The Comedy of Errors held out\), after "
            r"(?P<copy>[\d,]+) steps of the induction task in their commonest tokens "
            r"\((?P<command>python -m [\w. ]+), (?P<steps>[\d,]+) steps, seed (?P<seed>\d+)\)"
        ),
        # TRANSLATORS: what the Shakespeare model learned from; {command} is a shell command
        N_(
            "36 of Shakespeare's plays (Julius Caesar and The Comedy of Errors held out), after a first "
            "stage on the induction task in their commonest tokens. Steps: {copy:,} on the task, {steps:,} "
            "in all; seed {seed}; command: {command}"
        ),
    ),
    (
        re.compile(
            r"synthetic sequences of random GPT-2 tokens in which a stretch repeats; its token embeddings "
            r"are random and frozen, so it has learned to copy, not language "
            r"\((?P<command>python -m [\w. ]+), seed (?P<seed>\d+)\)"
        ),
        # TRANSLATORS: what the copy model learned from; {command} is a shell command
        N_(
            "synthetic sequences of random GPT-2 tokens in which a stretch repeats; its token embeddings are "
            "random and frozen, so it has learned to copy, not language ({command}, seed {seed})"
        ),
    ),
    (
        re.compile(r"repeated spans of random tokens \(Watch it learn's induction task\)"),
        # TRANSLATORS: what a model trained on the Watch it learn page learned from
        N_("repeated spans of random tokens (Watch it learn's induction task)"),
    ),
    (
        re.compile(
            r"every whole (?P<context>\d+)-token window of the two held-out plays \(Julius Caesar, The "
            r"Comedy of Errors\); heads on 8 held-out passages of 64 tokens \(induction: each passage's "
            r"first 12, 18 or 24 tokens twice\)"
        ),
        # TRANSLATORS: what the Shakespeare model's loss and heads were measured on
        N_(
            "every whole {context}-token window of the two held-out plays (Julius Caesar, The Comedy of "
            "Errors); heads on 8 held-out passages of 64 tokens (induction: each passage's first 12, 18 or "
            "24 tokens twice)"
        ),
    ),
)


def recorded(text: str) -> str:
    """A text this app's training wrote into config.json (what a model learned from, what it was
    measured on) in this rerun's language; any other text (a folder's own config.json) as it is."""
    if language() == DEFAULT:
        return text  # as written
    for pattern, words in RECORDED:
        if found := pattern.fullmatch(text):
            # its counts as numbers ("2,500" -> 2500), written as the language writes them
            values = {
                k: int(v.replace(",", "")) if re.fullmatch(r"[\d,]+", v) else v
                for k, v in found.groupdict().items()
            }
            return tr(words, **values)
    return text


def choices(own: Collection[str] = ()) -> dict[str, str]:
    """source -> label, for the picker: the shipped models first (offline), then the hub's, then
    the runs in `own` (a session's own, trained on Watch it learn) still on this server: what one
    visitor trains is not listed for everyone."""
    # The labels are written at each rerun, in its language; ui.model.picker cuts a label at " ("
    # for the model's short name, so every translation keeps " (" before its parenthesis.
    out = {SHAKESPEARE: tr("Shakespeare: has read 36 plays (offline)")} if installed(SHAKESPEARE) else {}
    if installed(SHAKESPEARE_QWEN3):
        # TRANSLATORS: the same plays in a model laid out as Qwen3 is (grouped-query attention, RoPE)
        out[SHAKESPEARE_QWEN3] = tr("Shakespeare, Qwen3 layout: the same plays (offline)")
    out[BUNDLED] = tr("Copy model: learned to copy random tokens (offline)")
    for repo, m in HUB_MODELS.items():
        out[repo] = tr("{model} from the hub ({mb:,} MB download)", model=tr(m.label), mb=m.megabytes)
        if m.gated:  # its download needs a token (hub.token_for)
            # TRANSLATORS: a gated hub model (its licence accepted on the hub, a token in HF_TOKEN)
            out[repo] = tr(
                "{model} from the hub ({mb:,} MB download; needs HF_TOKEN)", model=tr(m.label), mb=m.megabytes
            )
    if path := current().model_path:
        # TRANSLATORS: a model in a folder on the server; {name} is the folder's name
        out[path] = tr("Local: {name}", name=Path(path).name)  # the administrator's folder, by name only
    for folder, name in runs():
        if f"run:{folder.name}" in own:
            out[f"run:{folder.name}"] = _your_run(folder, name)
    return out


def _your_run(folder: Path, name: str) -> str:
    """ "Your run: <name>, saved 14:02:31": two runs of the same settings told apart by the time."""
    try:
        saved = time.strftime("%H:%M:%S", time.localtime(folder.stat().st_mtime))
    except OSError:  # deleted just now (new_run)
        return tr("Your run: {name}", name=name)
    # TRANSLATORS: a model trained on the Watch it learn page; {time} is when it was saved (14:02:31)
    return tr("Your run: {name}, saved {time}", name=name, time=saved)


def installed(source: str) -> bool:
    """A shipped model whose files are all there (a partial copy is no default)."""
    return all((SHIPPED[source] / name).is_file() for name in ("config.json", "model.safetensors"))


def default() -> str:
    """The model a page opens with: the Shakespeare model where it is installed, else the copy model."""
    return SHAKESPEARE if installed(SHAKESPEARE) else BUNDLED


# Students read this; the rule for administrators (a server on localhost opens any folder or hub
# repo) is in docs/classroom.md, where administrators look.
LISTED_ONLY = N_("This server opens only the models in its Model list.")


def listed_only() -> bool:
    """Visitors open only the picker's models (no folder on the server, no other hub repo, whatever
    the URL says): the default wherever others can reach the server (settings.listed_only)."""
    return current().listed_models_only


def check_source(source: str) -> None:
    """ConfigError for a model this server does not open for visitors: one message, whatever the
    source is (nothing on the server is looked at before this, so nothing about it is told)."""
    if listed_only() and source not in choices() and not RUN.fullmatch(source):
        raise ConfigError(tr(LISTED_ONLY), "source")  # a run's link (12 hex digits, unguessed) opens


NOT_PRIVATE = N_(
    "This server cannot keep trained models: their folder is not its account's alone (another account "
    "owns it, or others may read or write it). Its administrator can set ATTENTION_RUNS_DIR."
)


def private_runs() -> Path:
    """RUNS, made (mode 0700) if it is missing; ConfigError if it is not this account's alone: a
    link, not a folder, owned by another account, or open to others (any group or other bit). What
    new_run deletes is under it, so no path in it is one another account chose."""
    RUNS.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # made before, by this account or (refused below) another
        RUNS.mkdir(mode=0o700)
    mine = os.getuid() if hasattr(os, "getuid") else None  # POSIX; elsewhere the owner is not checked
    found = os.lstat(RUNS)
    if (
        not stat.S_ISDIR(found.st_mode)  # a symlink is no folder to lstat
        or (mine is not None and found.st_uid != mine)
        or found.st_mode & 0o077
    ):
        raise ConfigError(tr(NOT_PRIVATE), "runs")
    return RUNS


def _own_runs() -> Path | None:
    try:
        return private_runs()
    except (ConfigError, OSError):
        return None  # nothing in a folder someone else controls is listed or opened


def runs() -> list[tuple[Path, str]]:
    """The models Watch it learn saved on this server (folder, name), newest first. Another
    session may be deleting the oldest right now (new_run): a folder that cannot be read is
    skipped. None when the runs' folder is not this account's alone (private_runs)."""
    found = []
    own = _own_runs()
    for folder in (f for f in (own.glob("*") if own else ()) if RUN.fullmatch(f"run:{f.name}")):
        try:
            config = json.loads((folder / "config.json").read_text())
            name = config.get("attention_explorer", {}).get("name") or folder.name
            found.append((folder.stat().st_mtime, folder, name))
        except (OSError, ValueError, AttributeError):
            continue
    return [(folder, name) for _, folder, name in sorted(found, reverse=True)]


def new_run() -> tuple[str, Path]:
    """A fresh folder for a trained model, and the source that names it; the oldest beyond
    KEEP_RUNS are deleted (a classroom's runs must not fill the disk). ConfigError when the runs'
    folder is not this account's alone: nothing is deleted then."""
    import shutil

    private_runs()
    for old, _ in runs()[KEEP_RUNS - 1 :]:
        shutil.rmtree(old, ignore_errors=True)
    name = uuid.uuid4().hex[:12]
    return f"run:{name}", RUNS / name


def resolve(source: str) -> Path | str:
    """The folder (or file) load_model takes for a picker source that is no hub model."""
    if source in SHIPPED:
        return SHIPPED[source]
    run = RUN.fullmatch(source)
    if run and (own := _own_runs()) and (own / run.group(1) / "config.json").is_file():
        return own / run.group(1)
    if source.startswith("run:"):  # no server path in the message
        raise no_run(source[:40])
    return source


def no_run(source: str) -> ConfigError:
    """A run's source that names no folder this server keeps (none: it was never here, or deleted)."""
    return ConfigError(
        tr(
            "{source} names no run trained here (this server keeps its last {n}).",
            source=repr(source),
            n=KEEP_RUNS,
        ),
        "model",
    )


def info(source: str, folder: Path | None) -> ModelInfo:
    """What config.json says about the model (its "attention_explorer" entry, its model_type, its
    start token) and which tokenizer reads text for it."""
    hf, where = {}, Path(folder or resolve(source))
    config = where / "config.json"
    if config.exists():
        hf = json.loads(config.read_text())
    extra = dict(hf.get("attention_explorer", {}))
    known = HUB_MODELS.get(source)
    name = extra.get("name") or (known.label if known else Path(str(source)).name)
    words, layout = where / "tokenizer.json", hf.get("model_type", "gpt2")
    # a folder in today's layouts reads text with its own tokenizer.json, unless it is GPT-2's BPE
    # (the bundled Qwen3-layout model: GPT-2's 50,257 tokens, read faster by tiktoken)
    own = layout != "gpt2" and words.is_file() and hf.get("vocab_size") != tokenizer.GPT2.size
    if layout != "gpt2" and not words.is_file() and hf.get("vocab_size") != tokenizer.GPT2.size:
        raise ConfigError(
            tr(
                "This model has no tokenizer.json beside its config.json: nothing here can turn text into "
                "its tokens. Put the repo's tokenizer.json in the folder."
            ),
            "source",
        )
    if own and "start_token" not in extra and isinstance(hf.get("bos_token_id"), int):
        extra["start_token"] = hf["bos_token_id"]
    return ModelInfo(
        source,
        name,
        extra.get("trained_on", ""),
        tuple(extra.get("vocab", ())),
        extra,
        tokenizer_file=str(words) if own else "",
        layout=layout,
        model_vocab=hf["vocab_size"] if isinstance(hf.get("vocab_size"), int) else 0,
    )


def is_hub(source: str) -> bool:
    """A hub repo id ("owner/name"), not a folder on this machine."""
    return hub.is_repo_id(source)


def needs_download(source: str) -> bool:
    """A hub model whose files are not on this machine yet (the local cache is asked, not the
    network): opening it downloads them first."""
    return hub.is_repo_id(source) and hub.cached(source) is None


def download(source: str, progress: Callable[[int, int], None] | None = None) -> Path | None:
    """A hub model's folder, its files downloaded first if they are not on disk yet (progress(done,
    total) in bytes as the weights arrive); None for a source that is no hub model. Every hub
    download of the app happens here."""
    return hub.download(source, progress=progress) if hub.is_repo_id(source) else None


def load(source: str, progress: Callable[[int, int], None] | None = None) -> tuple[GPTModel, ModelInfo]:
    """A model and what it is; ConfigError with a clear message for anything unusable."""
    check_source(source)
    folder = download(source, progress)
    try:
        model = load_model(folder or resolve(source), hub.DTYPE if folder else torch.float32)
    except ConfigError:
        if RUN.fullmatch(source):  # deleted as it was opened (new_run): no server path in the words
            raise no_run(source) from None
        raise
    return model, info(source, folder)
