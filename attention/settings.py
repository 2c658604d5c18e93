"""The server's settings, every ATTENTION_* variable read here and nowhere else, in one dataclass;
and `REACH`, who can reach this process (set by the app, read by the model catalog).

A value that cannot be used falls back to the default instead of stopping the app from starting.
`current()` reads the environment when called (cheap), so a test or a restarted server sees a
change; what is sized once at import (the slots, checkpoint.MAX_MODEL_MB, hub.TIMEOUT) reads it
once, when the server starts. Nothing here writes into os.environ: the environment is the
administrator's, and request threads share it.

Process-wide state. A Streamlit server runs every session in a thread of one process, so each of
these is shared by every student at once; each line says why that is safe.

    attention.settings.REACH           who can reach this process: one lock; set once per process
                                       (the address) and per rerun (a proxied visitor, for good)
    attention.slots.TRAININGS, SWEEPS, MODEL_LOADS
                                       lines for heavy work: each Slots holds its own lock;
    attention.slots.TRACES             a bounded semaphore
    attention.training.shared.SHARED   the shared-runs registry: its lock guards the dicts; a run
                                       locks its own steps; a snapshot is frozen (read-only arrays)
                                       as it is kept (attention.readonly.freeze in Run)
    attention.training.run._leases, attention.slots._ids
                                       itertools.count: next() is atomic under the GIL
    functools caches: chapter3.text (tokenising: Tokens is immutable), model.tokenizer.gpt2 (an
                                       Encoding nobody changes), training.tasks (a text, its ids),
                                       training.replay.record (a training.json, only read)
    ui.cache: the trace cache, its figures
                                       a lock around the dicts; a trace is never written (frozen
                                       dataclass; figures read it through read-only views, f32);
                                       figures are frozen JSON (ui/cache.py)
    ui.model.caches (st.cache_resource)
                                       models (requires_grad off, never trained there), sentence
                                       views, roles, knockouts, maps: their arrays frozen as they
                                       enter; _downloading is a lock; _loaded a weak dict
    ui.scaling's kept sweeps           copies in and out (a session never holds the kept rows)
    st.cache_data (ui.compare, ui.train.player, ui.learn.steps)
                                       Streamlit hands each caller its own unpickled copy
    ui.chrome: per_process, the pages  once per process (torch's thread pool, wake-ups, gc.freeze);
                                       st.Page objects copied per session
    ui.wakeups                         its lock around the event loop's patch
    torch's global RNG is never used (a local torch.Generator per run); torch's thread pool is
    sized once (attention.devices.configure_torch_threads).
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[1] / "assets"  # presets, the bundled model, alice.txt, CSS
LOOPBACK = ("localhost", "127.0.0.1", "::1")  # a server listening here only is no one else's


def number(name: str, default: float, low: float = 1) -> float:
    """A number setting, at least `low`; the default when unset or not a number."""
    try:
        return max(low, type(default)(os.environ.get(name, default)))
    except ValueError:
        return default


def flag(name: str) -> bool:
    """A yes/no setting: off when unset, empty, 0, false, no or off."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


class Reach:
    """Who can reach this process, for listed_only. A server's app sets it (ui/chrome.py): the
    address Streamlit listens on, once per process, and, for good, a visitor who came through a
    proxy or a tunnel (per rerun). A process that never set it is not a server (the command line,
    a notebook): nobody else can reach it. One lock: request threads note visitors at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._address: str | None = None  # Streamlit's server.address; None: not a server
        self._proxied = False

    def serve(self, address: str | None) -> None:
        """This process is a server listening on `address` ("" or None: every interface,
        Streamlit's default). The first call stands: the address cannot change in a process."""
        with self._lock:
            if self._address is None:
                self._address = (address or "").strip().lower().strip("[]")

    def visited(self, headers) -> None:
        """A request's headers: one that came through a proxy or a tunnel opens nothing more, ever."""
        if reached_from_elsewhere(headers):
            with self._lock:
                self._proxied = True

    @property
    def by_others(self) -> bool:
        """Whether anyone but this machine's user can reach the process."""
        with self._lock:
            return self._address is not None and (self._proxied or self._address not in LOOPBACK)

    def reset(self, address: str | None = None) -> None:
        """A fresh process's state (tests): a server on `address`, or no server (None)."""
        with self._lock:
            self._address = None if address is None else address.strip().lower().strip("[]")
            self._proxied = False


REACH = Reach()


def listed_only() -> bool:
    """Whether visitors may open only the Model list's models (no folder on the server, no other
    hub repo). ATTENTION_LISTED_MODELS_ONLY=1 or 0 decides (the administrator's word); unset, a
    server others can reach opens its list only (REACH), and a server that listens on loopback
    alone (`streamlit run app.py --server.address localhost`) or a command line opens anything."""
    if os.environ.get("ATTENTION_LISTED_MODELS_ONLY", "").strip():
        return flag("ATTENTION_LISTED_MODELS_ONLY")
    return REACH.by_others


def reached_from_elsewhere(headers) -> bool:
    """A request that came through a proxy or a tunnel (nginx, ngrok, port forwarding) to a server
    that listens on loopback: someone else can reach it after all. An empty Host (a test) says
    nothing."""
    host = str(headers.get("Host") or "").rsplit(":", 1)[0].strip("[]").lower()
    forwarded = any(headers.get(h) for h in ("X-Forwarded-For", "X-Forwarded-Host", "Forwarded", "X-Real-Ip"))
    return forwarded or bool(host and host not in LOOPBACK)


def public_url() -> str:
    """ATTENTION_PUBLIC_URL when it is an http(s) address (without a trailing slash), else ""."""
    value = os.environ.get("ATTENTION_PUBLIC_URL", "").strip().rstrip("/")
    return value if re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", value) else ""


def runs_dir() -> Path:
    """Where Watch it learn keeps the models it trained (and deletes the oldest): ATTENTION_RUNS_DIR,
    else this user's cache folder, $XDG_CACHE_HOME (or ~/.cache)/attention-explorer/runs. Never
    the shared temporary folder: another account could create a fixed path there first and fill it
    (catalog.private_runs refuses a folder that is not this account's alone)."""
    if chosen := os.environ.get("ATTENTION_RUNS_DIR", "").strip():
        return Path(chosen).expanduser()
    return private_cache() / "runs"


def private_cache() -> Path:
    """This user's cache folder for the app, $XDG_CACHE_HOME (or ~/.cache)/attention-explorer."""
    cache = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"  # the XDG rule
    return base / "attention-explorer"


def class_dir() -> Path:
    """Where the classes' SQLite file lives (attention.classroom): ATTENTION_CLASS_DIR, else
    private_cache()/classes, which every replica of a server on one machine shares. A folder of
    its own: it must be this account's alone (made 0700), and the cache folder above it need not be."""
    if chosen := os.environ.get("ATTENTION_CLASS_DIR", "").strip():
        return Path(chosen).expanduser()
    return private_cache() / "classes"


def teacher_key() -> str:
    """ATTENTION_TEACHER_KEY: what starting a class from the app needs ("": nothing). Not in
    Settings: a key has no place in a repr."""
    return os.environ.get("ATTENTION_TEACHER_KEY", "").strip()


def teacher_secret() -> str:
    """ATTENTION_TEACHER_SECRET: a class's teacher's secret for `python -m attention.classroom
    export|close` ("": ask on standard input). Not in Settings: a secret has no place in a repr."""
    return os.environ.get("ATTENTION_TEACHER_SECRET", "").strip()


def hub_token() -> str:
    """HF_TOKEN (Hugging Face's own): the token a gated hub model (Gemma, Llama) downloads with ("":
    none). On Streamlit Community Cloud a secret named HF_TOKEN is one (root-level secrets are set as
    environment variables). Not in Settings: a token has no place in a repr."""
    return os.environ.get("HF_TOKEN", "").strip()


@dataclass(frozen=True)
class Settings:
    torch_threads: int | None  # ATTENTION_TORCH_THREADS; None: the app's own default
    max_concurrent_runs: int  # ATTENTION_MAX_CONCURRENT_RUNS: Explorer traces at once
    training_slots: int  # ATTENTION_TRAINING_SLOTS
    sweep_slots: int  # ATTENTION_SWEEP_SLOTS
    model_load_slots: int  # ATTENTION_MODEL_LOAD_SLOTS
    max_model_mb: int  # ATTENTION_MAX_MODEL_MB: the largest model a config.json may ask for
    hub_timeout: float  # ATTENTION_HUB_TIMEOUT: seconds to wait for the hub to answer
    hub_budget_mb: int  # ATTENTION_HUB_BUDGET_MB: the most hub downloads may take on disk
    model_path: str  # ATTENTION_MODEL_PATH: a folder the Model list offers ("" for none)
    listed_models_only: bool  # visitors open only listed models (listed_only below)
    runs_dir: Path  # ATTENTION_RUNS_DIR: where trained runs are kept (runs_dir above)
    class_store: str  # ATTENTION_CLASS_STORE: redis://host:port/db or sqlite:///path ("": class_dir's file)
    class_dir: Path  # ATTENTION_CLASS_DIR: the folder of the default SQLite class store (class_dir above)
    class_hours: float  # ATTENTION_CLASS_HOURS: how long a class lasts before its data is deleted
    max_classes: int  # ATTENTION_MAX_CLASSES: classes open at once in one store (a guard for the disk)
    max_students: int  # ATTENTION_MAX_STUDENTS: students in one class
    public_url: str  # ATTENTION_PUBLIC_URL: the app's address as students' phones open it ("": found)
    trusted_proxies: frozenset[str]  # ATTENTION_TRUSTED_PROXIES: proxies whose X-Forwarded-For counts
    hub_offline: bool  # HF_HUB_OFFLINE (Hugging Face's own): never reach the hub
    hub_endpoint: str  # HF_ENDPOINT (Hugging Face's own): the hub's address


def current() -> Settings:
    threads = number("ATTENTION_TORCH_THREADS", 0) if os.environ.get("ATTENTION_TORCH_THREADS") else 0
    return Settings(
        torch_threads=threads or None,  # unset or not a number: None
        max_concurrent_runs=number("ATTENTION_MAX_CONCURRENT_RUNS", 4),
        training_slots=number("ATTENTION_TRAINING_SLOTS", 1),
        sweep_slots=number("ATTENTION_SWEEP_SLOTS", 1),
        model_load_slots=number("ATTENTION_MODEL_LOAD_SLOTS", 1),
        max_model_mb=number("ATTENTION_MAX_MODEL_MB", 2048),
        hub_timeout=number("ATTENTION_HUB_TIMEOUT", 5.0, low=0.5),
        hub_budget_mb=number("ATTENTION_HUB_BUDGET_MB", 4096),
        model_path=os.environ.get("ATTENTION_MODEL_PATH", ""),
        listed_models_only=listed_only(),
        runs_dir=runs_dir(),
        class_store=os.environ.get("ATTENTION_CLASS_STORE", "").strip(),
        class_dir=class_dir(),
        class_hours=number("ATTENTION_CLASS_HOURS", 12.0, low=0.01),
        max_classes=number("ATTENTION_MAX_CLASSES", 5000),  # a guard for the disk, far above real use
        max_students=number("ATTENTION_MAX_STUDENTS", 500),
        public_url=public_url(),
        trusted_proxies=frozenset(
            p.strip() for p in os.environ.get("ATTENTION_TRUSTED_PROXIES", "").split(",") if p.strip()
        ),
        hub_offline=flag("HF_HUB_OFFLINE"),
        hub_endpoint=os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/"),
    )
