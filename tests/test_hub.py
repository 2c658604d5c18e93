"""Hub models without a network: a clear message within seconds, and the cache is used first."""

import socket
import threading
import time

import pytest

from attention import hub
from attention.errors import ConfigError


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
