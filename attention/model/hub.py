"""Checkpoints from the Hugging Face hub (GPT-2's layout, Qwen3's, Llama's, Gemma 3's), downloaded
only when a learner picks one: config.json, the weights (model.safetensors, or the index and the
shards it lists) and, in today's layouts, tokenizer.json.

Files land in Hugging Face's usual cache (HF_HOME, ~/.cache/huggingface) and are read from there
afterwards, with no network. What this app downloads there stays within a disk budget
(ATTENTION_HUB_BUDGET_MB, default 4 GB; the rest of the cache is not counted, nor touched): its
own downloads are evicted oldest first to make room, and a model that cannot fit is refused
before a byte of its weights is fetched. Without a network
the download fails within seconds with a message that says which file, how large, and how to
place it by hand; it never hangs a page. A gated repo (Gemma, Llama: its licence accepted on the
hub first) downloads with the token in HF_TOKEN (settings.hub_token); without one it is refused
before anything is asked of the hub.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import torch

from attention.errors import ConfigError
from attention.i18n import N_, tr
from attention.model.checkpoint import (
    MODERN,
    architecture,
    check_memory,
    config_from_hf,
    model_bytes,
    modern_bytes,
)
from attention.model.hub_list import HUB_MODELS, HubModel  # noqa: F401 (hub.HUB_MODELS)
from attention.settings import current, hub_token

FILES = ("config.json", "model.safetensors")
INDEX, TOKENIZER = "model.safetensors.index.json", "tokenizer.json"
_SHARD = re.compile(r"[\w-][\w.-]{0,200}\.safetensors")  # a file in the repo's top folder
TIMEOUT = current().hub_timeout  # seconds to wait for the hub to answer
# A hub model in today's layouts (Qwen3, Llama, Gemma 3) is built in bfloat16, its weights' own dtype:
# Qwen3-0.6B then takes 1.5 GB, not 3 (a GPT-2 is built in float32 whatever is asked). Traces come
# out in float32 (Qwen3Model.trace), so every view reads them as it reads a float32 model's.
DTYPE = torch.bfloat16


_REPO = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,95}$")


def is_repo_id(source: str) -> bool:
    """ "owner/name", as the hub spells repositories (a local path starts with / . or ~)."""
    return bool(_REPO.match(source)) and not Path(source).exists()


def cached(repo: str) -> Path | None:
    """The folder holding the repo's files in the local cache (config.json, the weights whole or
    in shards, tokenizer.json where the model needs one), or None (no network used)."""
    from huggingface_hub import try_to_load_from_cache

    def one(name: str) -> Path | None:
        path = try_to_load_from_cache(repo, name)
        return Path(path) if isinstance(path, str) else None

    if (config := one(FILES[0])) is None:
        return None
    needed = [one(FILES[1])]
    if needed[0] is None and (index := one(INDEX)) is not None:
        needed = [index, *(one(name) for name in shards_of(index) or [""])]
    if needs_tokenizer(_read_json(config)):
        needed.append(one(TOKENIZER))
    return config.parent if all(needed) else None


def _read_json(path: str | Path) -> dict:
    try:
        found = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def shards_of(index: str | Path) -> list[str]:
    """The shard files an index lists (model.safetensors.index.json's weight_map), each once, in
    order; [] for an index that is unreadable or names a file outside the repo's top folder."""
    weight_map = _read_json(index).get("weight_map")
    names = list(dict.fromkeys(weight_map.values())) if isinstance(weight_map, dict) else []
    return names if all(isinstance(n, str) and _SHARD.fullmatch(n) for n in names) else []


def needs_tokenizer(hf: dict) -> bool:
    """A model in today's layouts reads text with its own tokenizer.json (catalog.info), unless its
    vocabulary is GPT-2's 50,257 tokens."""
    return hf.get("model_type", "gpt2") != "gpt2" and hf.get("vocab_size") != 50257


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


def _claim(repo: str) -> None:
    """Note `repo` in the ledger as this app's, newest, before anything of it is downloaded."""
    from filelock import FileLock

    cache_dir().mkdir(parents=True, exist_ok=True)
    with FileLock(str(cache_dir() / f"{LEDGER}.lock")):
        _write_ledger([r for r in _ledger() if r != repo] + [repo])


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
    if known and known.layout != "gpt2":
        return ConfigError(
            # TRANSLATORS: {why} is the download's error as a short phrase; {url} an address
            tr(
                "Could not download {repo}: {why}. It needs config.json, tokenizer.json and "
                "model.safetensors ({mb:,} MB) from {url}. Without a network here: download those three "
                "files elsewhere, put them in one folder on this machine, and enter its path as the model "
                "(or set ATTENTION_MODEL_PATH); or copy a Hugging Face cache (~/.cache/huggingface/hub) that "
                "has them.",
                mb=known.megabytes,
                **values,
            ),
            "source",
        )
    return ConfigError(
        # TRANSLATORS: {why} is the download's error as a short phrase; {url} an address
        tr(
            "Could not download {repo}: {why}. It needs config.json and model.safetensors ({mb:,} MB) from "
            "{url}. Without a network here: download those two files elsewhere, put them in one folder on "
            "this machine, and enter its path as the model (or set ATTENTION_MODEL_PATH); or copy a Hugging "
            "Face cache (~/.cache/huggingface/hub) that has them.",
            mb=known.megabytes,
            **values,
        )
        if known
        # TRANSLATORS: {why} is the download's error as a short phrase; {url} an address
        else tr(
            "Could not download {repo}: {why}. It needs config.json and model.safetensors from {url}. "
            "Without a network here: download those two files elsewhere, put them in one folder on this "
            "machine, and enter its path as the model (or set ATTENTION_MODEL_PATH); or copy a Hugging Face "
            "cache (~/.cache/huggingface/hub) that has them.",
            **values,
        ),
        "source",
    )


GATED = N_(
    "{repo} is gated: the hub lets it be downloaded only with the token of an account that has accepted "
    "its licence at {url}. Set HF_TOKEN to such a token (on Streamlit Community Cloud: a secret named "
    "HF_TOKEN in the app's settings), then open it again. Nothing was downloaded."
)


def token_for(repo: str) -> str | None:
    """HF_TOKEN (settings.hub_token), or None without one; ConfigError for a gated model without a
    token, before anything is asked of the hub."""
    token = hub_token() or None
    if token is None and (known := HUB_MODELS.get(repo)) and known.gated:
        raise ConfigError(tr(GATED, repo=repo, url=f"https://huggingface.co/{repo}"), "source")
    return token


def reachable(repo: str, timeout: float = TIMEOUT, token: str | None = None) -> None:
    """One request to the hub, no retries: raises `unavailable` within `timeout` seconds when
    there is no network (refused, unroutable, or a proxy that never answers)."""
    import urllib.error
    import urllib.request

    endpoint = current().hub_endpoint
    if current().hub_offline:
        # TRANSLATORS: why a download failed, in "Could not download {repo}: {why}."
        raise unavailable(repo, tr("HF_HUB_OFFLINE is set"))
    request = urllib.request.Request(f"{endpoint}/{repo}/resolve/main/config.json", method="HEAD")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        urllib.request.urlopen(request, timeout=timeout).close()
    except urllib.error.HTTPError as error:
        if error.code in (401, 403) and token:
            # TRANSLATORS: why a download failed, in "Could not download {repo}: {why}."
            why = tr(
                "the hub refused HF_TOKEN (HTTP {code}): accept the model's licence on its page, signed in "
                "to the token's account",
                code=error.code,
            )
            raise unavailable(repo, why) from error
        if error.code in (401, 403, 404):
            why = tr("the hub has no such public model (HTTP {code})", code=error.code)
            raise unavailable(repo, why) from error
    except (OSError, ValueError) as error:  # refused, DNS, timeout
        # TRANSLATORS: {error} is the connection's error as the system wrote it (often English)
        why = tr("no network connection to the hub ({error})", error=type(error).__name__)
        raise unavailable(repo, why) from error


def weights_limit(repo: str, hf: dict) -> int:
    """The most bytes the repo's weights may take, from its config.json `hf`: its model in float32
    (the most a file holds), once the model is known to fit this server (checkpoint.MAX_MODEL_MB)
    in the dtype it is built in (float32 for a GPT-2, DTYPE for today's layouts); ConfigError for
    a config.json that describes no model this app opens."""
    kind = hf.get("model_type", "gpt2")
    if kind == "gpt2":
        return model_bytes(config_from_hf(hf))
    if kind not in MODERN:
        raise ConfigError(
            # TRANSLATORS: {kind} is the model_type a config.json names (e.g. bert); {types}, the ones this
            # app opens
            tr(
                "{repo}'s config.json has model_type {kind}: this app opens gpt2, {types}. It is not "
                "downloaded.",
                repo=repo,
                kind=repr(str(kind)[:40]),
                types=", ".join(MODERN),
            ),
            "source",
        )
    return modern_bytes(check_memory(architecture(kind).config_from_hf(hf), DTYPE))


def weight_files(repo: str, fetch: Callable[[str], str], size_of: Callable[[str], int]) -> dict[str, int]:
    """name -> bytes of the repo's weights: model.safetensors, or, where the repo has none, every
    shard its model.safetensors.index.json lists (the index, a few kB, is downloaded to read them)."""
    from huggingface_hub.errors import EntryNotFoundError

    try:
        return {FILES[1]: size_of(FILES[1])}
    except EntryNotFoundError:
        pass
    if not (shards := shards_of(fetch(INDEX))):
        raise ConfigError(
            tr(
                "{repo}'s {index} lists no shards in the repo's own folder; it is not downloaded.",
                repo=repo,
                index=INDEX,
            ),
            "source",
        )
    return {name: size_of(name) for name in shards}


TOKENIZER_MB = 64  # the most a tokenizer.json may take (Gemma 3's, the largest listed: 33 MB)


def _reporter(progress: Callable[[int, int], None], done: int, total: int):
    """A tqdm that reports the bytes of all the files so far (huggingface_hub reports through one)."""
    from tqdm.auto import tqdm

    class Reporter(tqdm):
        def update(self, n=1):
            super().update(n)
            progress(done + int(self.n), total)

    return Reporter


def download(repo: str, progress: Callable[[int, int], None] | None = None, timeout: float = TIMEOUT) -> Path:
    """The folder of `repo`'s files (config.json, the weights, tokenizer.json where its model needs
    one): from the cache, else from the hub (progress(done_bytes, total_bytes) as they arrive)."""
    if (folder := cached(repo)) is not None:
        return folder
    from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    token = token_for(repo)  # a gated model without one: refused here, nothing asked of the hub
    reachable(repo, timeout, token)  # huggingface_hub itself retries for minutes; one quick probe first
    endpoint = current().hub_endpoint

    def fetch(name: str, tqdm_class=None) -> str:
        options = {"etag_timeout": timeout, "endpoint": endpoint, "token": token}
        return hf_hub_download(repo, name, tqdm_class=tqdm_class, **options)

    def size_of(name: str) -> int:
        url = hf_hub_url(repo, name, endpoint=endpoint)
        return get_hf_file_metadata(url, timeout=timeout, token=token).size or 0

    try:
        # Any visitor can name any repo: its config.json (a few hundred bytes) comes first and must
        # describe a model this server opens (checkpoint.MAX_MODEL_MB), and the weights must be no
        # larger than that model (plus 1 MiB of header a file), before a byte of them is downloaded.
        weights_before = _folder(repo).is_dir()  # before config.json lands in it
        if not weights_before:  # ours from its first byte: a try refused or cut after config.json
            _claim(repo)  # leaves a folder the next try must still count and may evict
        hf = _read_json(fetch(FILES[0]))
        limit = weights_limit(repo, hf)
        files = weight_files(repo, fetch, size_of)
        if (size := sum(files.values())) > limit + 2**20 * len(files):
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
        if needs_tokenizer(hf):
            files[TOKENIZER] = size_of(TOKENIZER)
            if files[TOKENIZER] > TOKENIZER_MB * 2**20:
                raise ConfigError(
                    tr(
                        "{repo}'s tokenizer.json is {mb:,.0f} MB, more than a tokenizer takes ({most} MB); "
                        "it is not downloaded.",
                        repo=repo,
                        mb=files[TOKENIZER] / 2**20,
                        most=TOKENIZER_MB,
                    ),
                    "source",
                )
        total = sum(files.values())
        if not weights_before or repo in _ledger():  # a repo another tool put here is not ours
            make_room(repo, total)  # to budget or to evict
        done, paths = 0, []
        for name, size in files.items():
            paths.append(fetch(name, _reporter(progress, done, total) if progress else None))
            done += size
    except ConfigError:
        raise
    except LocalEntryNotFoundError as error:  # no connection, and not in the cache
        raise unavailable(repo, tr("no network connection to the hub")) from error
    except HfHubHTTPError as error:
        why = tr("the hub answered {status}", status=getattr(error.response, "status_code", "?"))
        raise unavailable(repo, why) from error
    except (OSError, ValueError) as error:  # timeouts, DNS, proxies: a message, not a traceback
        raise unavailable(repo, type(error).__name__) from error
    return Path(paths[0]).parent
