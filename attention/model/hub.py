"""GPT-2 checkpoints from the Hugging Face hub, downloaded only when a learner picks one.

Files land in Hugging Face's usual cache (HF_HOME, ~/.cache/huggingface) and are read from there
afterwards, with no network. What this app downloads there stays within a disk budget
(ATTENTION_HUB_BUDGET_MB, default 4 GB; the rest of the cache is not counted, nor touched): its
own downloads are evicted oldest first to make room, and a model that cannot fit is refused
before a byte of its weights is fetched. Without a network
the download fails within seconds with a message that says which file, how large, and how to
place it by hand; it never hangs a page.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from attention.errors import ConfigError
from attention.i18n import N_, tr
from attention.model.checkpoint import model_bytes, read_config
from attention.settings import current

FILES = ("config.json", "model.safetensors")
TIMEOUT = current().hub_timeout  # seconds to wait for the hub to answer


@dataclass(frozen=True)
class HubModel:
    repo: str
    label: str  # in English (N_): catalog shows it through tr
    parameters: str
    megabytes: int  # model.safetensors
    memory: str  # resident, as the book's GPTModel in float32


HUB_MODELS = {
    m.repo: m
    for m in (
        # TRANSLATORS: a model's name, kept as OpenAI wrote it in most languages
        HubModel("openai-community/gpt2", N_("GPT-2 small"), "124 M", 548, "~0.6 GB"),
        # TRANSLATORS: a model's name: keep "distilgpt2", translate the words in parentheses
        HubModel("distilbert/distilgpt2", N_("distilgpt2 (6 layers)"), "82 M", 353, "~0.4 GB"),
        # TRANSLATORS: a model's name, kept as OpenAI wrote it in most languages
        HubModel("openai-community/gpt2-medium", N_("GPT-2 medium"), "355 M", 1520, "~1.6 GB"),
    )
}
_REPO = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,95}$")


def is_repo_id(source: str) -> bool:
    """ "owner/name", as the hub spells repositories (a local path starts with / . or ~)."""
    return bool(_REPO.match(source)) and not Path(source).exists()


def cached(repo: str) -> Path | None:
    """The folder holding the repo's files in the local cache, or None (no network used)."""
    from huggingface_hub import try_to_load_from_cache

    paths = [try_to_load_from_cache(repo, name) for name in FILES]
    if all(isinstance(p, str) for p in paths):
        return Path(paths[0]).parent
    return None


LEDGER = "attention-explorer-downloads.json"  # in the hub cache: the repos we fetched, oldest first


def cache_dir() -> Path:
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def disk_usage(folder: Path) -> int:
    """Bytes of the files under `folder` (the cache's blobs; its snapshot links counted once)."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def _ledger() -> list[str]:
    try:
        return [r for r in json.loads((cache_dir() / LEDGER).read_text()) if _REPO.match(r)]
    except (OSError, ValueError, TypeError):
        return []


def _write_ledger(repos: list[str]) -> None:
    """Atomically: a replica reading it meanwhile sees the old list or the new, never half."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    part = cache_dir() / f"{LEDGER}.{os.getpid()}.part"
    part.write_text(json.dumps(repos))
    os.replace(part, cache_dir() / LEDGER)


def _folder(repo: str) -> Path:
    return cache_dir() / f"models--{repo.replace('/', '--')}"


def make_room(repo: str, size: int) -> None:
    """Evict this app's own downloads, oldest first, until theirs and `size` more bytes fit in the
    budget, then note `repo` as ours before its weights arrive (a download cut short by a rerun is
    still ours to evict). ConfigError, nothing evicted, for a model larger than the whole budget.
    Only repos this app fetched whole are ever deleted; the rest of the cache is someone else's."""
    budget = current().hub_budget_mb * 2**20
    if size > budget:
        raise ConfigError(
            tr(
                "{repo} would not fit: its weights take {mb:,.1f} MB and this server keeps hub models within "
                "{budget:,.0f} MB (ATTENTION_HUB_BUDGET_MB); it is not downloaded.",
                repo=repo,
                mb=size / 2**20,
                budget=budget / 2**20,
            ),
            "source",
        )
    from filelock import FileLock

    with FileLock(str(cache_dir() / f"{LEDGER}.lock")):  # replicas share the cache
        ours = [r for r in _ledger() if r != repo]
        sizes = {r: disk_usage(_folder(r)) if _folder(r).is_dir() else 0 for r in ours}
        while ours and sum(sizes[r] for r in ours) + size > budget:
            shutil.rmtree(_folder(ours.pop(0)), ignore_errors=True)
        _write_ledger(ours + [repo])


def unavailable(repo: str, why: str) -> ConfigError:
    """Why `repo` cannot be downloaded (`why`, in the rerun's language) and how to place it by hand."""
    known = HUB_MODELS.get(repo)
    values = {"repo": repo, "why": why, "url": f"https://huggingface.co/{repo}"}
    return ConfigError(
        tr(
            "Could not download {repo}: {why}. It needs config.json and model.safetensors ({mb:,} MB) from "
            "{url}. Without a network here: download those two files elsewhere, put them in one folder on "
            "this machine, and enter its path as the model (or set ATTENTION_MODEL_PATH); or copy a Hugging "
            "Face cache (~/.cache/huggingface/hub) that has them.",
            mb=known.megabytes,
            **values,
        )
        if known
        else tr(
            "Could not download {repo}: {why}. It needs config.json and model.safetensors from {url}. "
            "Without a network here: download those two files elsewhere, put them in one folder on this "
            "machine, and enter its path as the model (or set ATTENTION_MODEL_PATH); or copy a Hugging Face "
            "cache (~/.cache/huggingface/hub) that has them.",
            **values,
        ),
        "source",
    )


def reachable(repo: str, timeout: float = TIMEOUT) -> None:
    """One request to the hub, no retries: raises `unavailable` within `timeout` seconds when
    there is no network (refused, unroutable, or a proxy that never answers)."""
    import urllib.error
    import urllib.request

    endpoint = current().hub_endpoint
    if current().hub_offline:
        # TRANSLATORS: why a download failed, in "Could not download {repo}: {why}."
        raise unavailable(repo, tr("HF_HUB_OFFLINE is set"))
    request = urllib.request.Request(f"{endpoint}/{repo}/resolve/main/config.json", method="HEAD")
    try:
        urllib.request.urlopen(request, timeout=timeout).close()
    except urllib.error.HTTPError as error:
        if error.code in (401, 403, 404):
            why = tr("the hub has no such public model (HTTP {code})", code=error.code)
            raise unavailable(repo, why) from error
    except (OSError, ValueError) as error:  # refused, DNS, timeout
        why = tr("no network connection to the hub ({error})", error=type(error).__name__)
        raise unavailable(repo, why) from error


def download(repo: str, progress: Callable[[int, int], None] | None = None, timeout: float = TIMEOUT) -> Path:
    """The folder of `repo`'s config.json and model.safetensors: from the cache, else from the hub
    (progress(done_bytes, total_bytes) as the weights arrive)."""
    if (folder := cached(repo)) is not None:
        return folder
    from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    tqdm_class = None
    if progress is not None:
        from tqdm.auto import tqdm

        class Reporter(tqdm):  # huggingface_hub reports bytes through a tqdm
            def update(self, n=1):
                super().update(n)
                progress(int(self.n), int(self.total or 0))

        tqdm_class = Reporter
    reachable(repo, timeout)  # huggingface_hub itself retries for minutes; one quick probe first
    try:
        # Any visitor can name any repo: its config.json (a few hundred bytes) comes first and must
        # describe a GPT-2 this server opens (checkpoint.MAX_MODEL_MB), and the weights file must be no
        # larger than that model (plus 1 MiB of header), before a byte of the weights is downloaded.
        endpoint = current().hub_endpoint
        weights_before = _folder(repo).is_dir()  # before config.json lands in it
        config = hf_hub_download(repo, FILES[0], etag_timeout=timeout, endpoint=endpoint)
        limit = model_bytes(read_config(config)) + 2**20
        size = get_hf_file_metadata(hf_hub_url(repo, FILES[1], endpoint=endpoint), timeout=timeout).size or 0
        if size > limit:
            raise ConfigError(
                tr(
                    "{repo}'s model.safetensors is {mb:,.0f} MB, more than its config.json's model can weigh "
                    "in float32 ({most:,.0f} MB); it is not downloaded.",
                    repo=repo,
                    mb=size / 2**20,
                    most=limit / 2**20,
                ),
                "source",
            )
        if not weights_before or repo in _ledger():  # a repo another tool put here is not ours
            make_room(repo, size)  # to budget or to evict
        weights = hf_hub_download(
            repo, FILES[1], etag_timeout=timeout, tqdm_class=tqdm_class, endpoint=endpoint
        )
    except ConfigError:
        raise
    except LocalEntryNotFoundError as error:  # no connection, and not in the cache
        raise unavailable(repo, tr("no network connection to the hub")) from error
    except HfHubHTTPError as error:
        why = tr("the hub answered {status}", status=getattr(error.response, "status_code", "?"))
        raise unavailable(repo, why) from error
    except (OSError, ValueError) as error:  # timeouts, DNS, proxies: a message, not a traceback
        raise unavailable(repo, type(error).__name__) from error
    return Path(weights).parent
