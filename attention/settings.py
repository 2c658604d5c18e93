"""The server's settings, every ATTENTION_* variable read here and nowhere else, in one dataclass.

A value that cannot be used falls back to the default instead of stopping the app from starting.
`current()` reads the environment when called (cheap), so a test or a restarted server sees a
change; what is sized once at import (the slots, checkpoint.MAX_MODEL_MB, hub.TIMEOUT) reads it
once, when the server starts.
"""

from __future__ import annotations

import os
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


def listed_only() -> bool:
    """Whether visitors may open only the Model list's models (no folder on the server, no other
    hub repo). ATTENTION_LISTED_MODELS_ONLY=1 or 0 decides; unset, only a server that listens on
    loopback alone (`streamlit run app.py --server.address localhost`: nobody else can reach it)
    opens anything. ATTENTION_SERVER_ADDRESS is Streamlit's server.address, which app.py copies."""
    if os.environ.get("ATTENTION_LISTED_MODELS_ONLY", "").strip():
        return flag("ATTENTION_LISTED_MODELS_ONLY")
    return os.environ.get("ATTENTION_SERVER_ADDRESS", "").strip().lower().strip("[]") not in LOOPBACK


def note_server(address: str | None, headers) -> None:
    """What app.py knows of who can reach this process, for listed_only: Streamlit's
    server.address (once; a test's own setting stays), and, for good, a visitor who came through a
    proxy or a tunnel."""
    os.environ.setdefault("ATTENTION_SERVER_ADDRESS", address or "")
    if reached_from_elsewhere(headers):
        os.environ["ATTENTION_SERVER_ADDRESS"] = "proxied"


def reached_from_elsewhere(headers) -> bool:
    """A request that came through a proxy or a tunnel (nginx, ngrok, port forwarding) to a server
    that listens on loopback: someone else can reach it after all. An empty Host (a test) says
    nothing."""
    host = str(headers.get("Host") or "").rsplit(":", 1)[0].strip("[]").lower()
    forwarded = any(headers.get(h) for h in ("X-Forwarded-For", "X-Forwarded-Host", "Forwarded", "X-Real-Ip"))
    return forwarded or bool(host and host not in LOOPBACK)


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
        hub_offline=flag("HF_HUB_OFFLINE"),
        hub_endpoint=os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/"),
    )
