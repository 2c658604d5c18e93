"""Hub models without a network: a clear message within seconds, and the cache is used first."""

import hashlib
import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from attention.errors import ConfigError
from attention.model import hub
from attention.model.checkpoint import MAX_MODEL_MB, config_from_hf, model_bytes


@pytest.fixture
def no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    monkeypatch.setenv("HUGGINGFACE_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))


def silent_server():
    """A loopback server that accepts and never answers: a network that hangs."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []
    threading.Thread(target=lambda: [held.append(server.accept()) for _ in range(8)], daemon=True).start()
    return server


@pytest.mark.slow  # 'silent' waits out the hub's timeout (~3 s)
@pytest.mark.parametrize("kind", ["refused", "silent"])
def test_no_network_says_which_file_how_large_and_what_to_do_within_ten_seconds(no_cache, monkeypatch, kind):
    if kind == "refused":
        monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    else:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{silent_server().getsockname()[1]}")
    start = time.perf_counter()
    with pytest.raises(ConfigError) as error:
        hub.download("openai-community/gpt2", timeout=3)
    assert time.perf_counter() - start < 10
    message = str(error.value)
    assert "model.safetensors (548 MB)" in message and "ATTENTION_MODEL_PATH" in message


def test_repo_ids_and_paths_are_told_apart(tmp_path):
    assert hub.is_repo_id("openai-community/gpt2") and hub.is_repo_id("distilbert/distilgpt2")
    assert not hub.is_repo_id("/tmp/model") and not hub.is_repo_id("./model") and not hub.is_repo_id("a b/c")
    (tmp_path / "x").mkdir()
    assert not hub.is_repo_id(str(tmp_path / "x"))


GPT2 = {"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12}
LISTED = {  # each listed model's config.json sizes, and its model.safetensors in bytes on the hub
    "openai-community/gpt2": (GPT2, 548_105_171),
    "distilbert/distilgpt2": (GPT2 | {"n_layer": 6}, 352_824_413),
    "openai-community/gpt2-medium": (GPT2 | {"n_embd": 1024, "n_head": 16, "n_layer": 24}, 1_520_013_706),
}


def test_every_listed_model_passes_the_checks_a_visitors_repo_must_pass():
    assert set(LISTED) == set(hub.HUB_MODELS)
    for config, size in LISTED.values():
        cfg = config_from_hf(config)
        assert model_bytes(cfg) <= MAX_MODEL_MB * 2**20 and size <= model_bytes(cfg) + 2**20


@pytest.fixture
def fake_hub(monkeypatch, tmp_path):
    """A hub that serves one repo (its config.json and the weights' size) and lists what was
    downloaded: huggingface_hub's two calls replaced, nothing on the network."""

    def serve(config: dict, size: int) -> list[str]:
        got = []

        def download(repo, name, **options):
            got.append(name)
            path = tmp_path / name
            path.write_text(json.dumps(config)) if name == "config.json" else path.write_bytes(b"weights")
            return str(path)

        import huggingface_hub
        import huggingface_hub.constants as constants

        monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))  # the budget's ledger
        monkeypatch.setattr(hub, "cached", lambda repo: None)
        monkeypatch.setattr(hub, "reachable", lambda repo, timeout: None)
        monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
        metadata = SimpleNamespace(size=size)
        monkeypatch.setattr(huggingface_hub, "get_hf_file_metadata", lambda url, timeout: metadata)
        return got

    return serve


def test_a_repo_that_passes_is_downloaded_whole(fake_hub, tmp_path):
    got = fake_hub(GPT2, 548_105_171)
    assert hub.download("someone/gpt2-finetuned") == tmp_path and got == ["config.json", "model.safetensors"]


@pytest.mark.parametrize(
    "config, size, message",
    [
        (GPT2 | {"n_embd": 1600, "n_head": 25, "n_layer": 48}, 6_431_000_000, "needs 6,"),  # GPT-2 XL
        (GPT2, 6_431_000_000, "more than its config.json's model can weigh"),
        ({"model_type": "llama"}, 10, "is not a GPT-2 config.json"),
    ],
)
def test_a_visitors_repo_is_refused_before_its_weights_are_downloaded(fake_hub, config, size, message):
    got = fake_hub(config, size)
    with pytest.raises(ConfigError, match=message):
        hub.download("someone/something-big")
    assert got == ["config.json"]  # a few hundred bytes, never the weights


@pytest.fixture
def hub_server(monkeypatch, tmp_path):
    """A hub on loopback, speaking the hub's resolve protocol to huggingface_hub itself: the files
    of the repos put in `files`, and every request it was sent, in order."""
    files: dict[str, dict[str, bytes]] = {}
    requests: list[tuple[str, str]] = []

    class Hub(BaseHTTPRequestHandler):
        def answer(self, with_body: bool) -> None:
            requests.append((self.command, self.path))
            _, owner, name, *route = self.path.split("/")
            body = (
                files.get(f"{owner}/{name}", {}).get(route[-1]) if route[:2] == ["resolve", "main"] else None
            )
            if body is None:
                self.send_response(404)
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("X-Repo-Commit", "0" * 40)
            self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def do_HEAD(self):
            self.answer(False)

        def do_GET(self):
            self.answer(True)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    import huggingface_hub.constants as constants

    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    yield files, requests
    server.shutdown()


TINY = {"vocab_size": 50257, "n_positions": 16, "n_embd": 8, "n_head": 1, "n_layer": 1}  # 1.6 MB in float32


def test_hub_downloads_stay_within_the_disk_budget(hub_server, monkeypatch):
    """A 1 MiB budget and 400 kB models: the third download evicts the first (ours, oldest first);
    a model larger than the budget is refused before its weights are asked for, evicting nothing;
    what other tools keep in the cache is neither counted nor touched."""
    files, requests = hub_server
    monkeypatch.setenv("ATTENTION_HUB_BUDGET_MB", "1")
    theirs = hub.cache_dir() / "models--someone--else" / "blobs" / "abc"
    theirs.parent.mkdir(parents=True)
    theirs.write_bytes(os.urandom(900_000))
    config = json.dumps(TINY).encode()
    for repo in ("class/one", "class/two", "class/three"):
        files[repo] = {"config.json": config, "model.safetensors": os.urandom(400_000)}
    files["class/huge"] = {"config.json": config, "model.safetensors": os.urandom(1_200_000)}
    folders = {}
    for repo in ("class/one", "class/two", "class/three"):
        folder = folders[repo] = hub.download(repo, timeout=5)
        assert (folder / "model.safetensors").read_bytes() == files[repo]["model.safetensors"]
        assert hub.disk_usage(hub.cache_dir()) - len(theirs.read_bytes()) <= 2**20
    assert hub.cached("class/one") is None  # evicted
    assert hub.cached("class/two") == folders["class/two"]
    assert hub.cached("class/three") == folders["class/three"]
    with pytest.raises(ConfigError, match="would not fit: its weights take 1.1 MB"):
        hub.download("class/huge", timeout=5)
    assert ("GET", "/class/huge/resolve/main/model.safetensors") not in requests
    assert hub.cached("class/two") == folders["class/two"]  # nothing evicted for a model that cannot fit
    assert theirs.stat().st_size == 900_000  # never ours to delete


def test_a_download_is_ours_before_its_weights_arrive(monkeypatch, tmp_path):
    """make_room notes the repo first: a download a rerun cuts short is still evicted later."""
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    hub.make_room("class/one", 10)
    hub.make_room("class/two", 10)
    assert json.loads((tmp_path / hub.LEDGER).read_text()) == ["class/one", "class/two"]
    (tmp_path / hub.LEDGER).write_text("{not json")  # a torn or foreign ledger: nothing of ours is known
    hub.make_room("class/three", 10)
    assert json.loads((tmp_path / hub.LEDGER).read_text()) == ["class/three"]
