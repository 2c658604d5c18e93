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
from huggingface_hub.errors import EntryNotFoundError

from attention.errors import ConfigError
from attention.model import catalog, checkpoint, hub


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
# Today's layouts: each repo's config.json as published (the keys the loader reads)
QWEN3_06B = {
    "model_type": "qwen3", "vocab_size": 151936, "max_position_embeddings": 40960, "hidden_size": 1024,
    "num_attention_heads": 16, "num_hidden_layers": 28, "intermediate_size": 3072, "head_dim": 128,
    "num_key_value_heads": 8, "rope_theta": 1000000, "rope_scaling": None, "sliding_window": None,
    "use_sliding_window": False, "max_window_layers": 28, "tie_word_embeddings": True, "rms_norm_eps": 1e-06,
}  # fmt: skip
SMOLLM2_135M = {
    "model_type": "llama", "vocab_size": 49152, "max_position_embeddings": 8192, "hidden_size": 576,
    "num_attention_heads": 9, "num_hidden_layers": 30, "intermediate_size": 1536, "num_key_value_heads": 3,
    "rope_theta": 100000, "rope_scaling": None, "tie_word_embeddings": True, "rms_norm_eps": 1e-05,
}  # fmt: skip
GEMMA3_270M = {
    "model_type": "gemma3_text", "vocab_size": 262144, "max_position_embeddings": 32768, "hidden_size": 640,
    "num_attention_heads": 4, "num_hidden_layers": 18, "intermediate_size": 2048, "head_dim": 256,
    "num_key_value_heads": 1, "rope_theta": 1000000, "rope_local_base_freq": 10000, "rope_scaling": None,
    "sliding_window": 512, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
    "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 3,
}  # fmt: skip
LLAMA32_1B = {
    "model_type": "llama", "vocab_size": 128256, "max_position_embeddings": 131072, "hidden_size": 2048,
    "num_attention_heads": 32, "num_hidden_layers": 16, "intermediate_size": 8192, "head_dim": 64,
    "num_key_value_heads": 8, "rope_theta": 500000.0, "tie_word_embeddings": True, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
}  # fmt: skip
LISTED = {  # each listed model's config.json, and its weights in bytes on the hub (about, for today's)
    "openai-community/gpt2": (GPT2, 548_105_171),
    "distilbert/distilgpt2": (GPT2 | {"n_layer": 6}, 352_824_413),
    "openai-community/gpt2-medium": (GPT2 | {"n_embd": 1024, "n_head": 16, "n_layer": 24}, 1_520_013_706),
    "Qwen/Qwen3-0.6B": (QWEN3_06B, 1_503_300_328),  # bfloat16, lm_head stored though tied
    "HuggingFaceTB/SmolLM2-135M": (SMOLLM2_135M, 269_060_552),
    "google/gemma-3-270m": (GEMMA3_270M, 536_223_056),
    "meta-llama/Llama-3.2-1B": (LLAMA32_1B, 2_471_645_608),
}


def test_every_listed_model_passes_the_checks_a_visitors_repo_must_pass(monkeypatch):
    """Its config.json describes a model this server opens (in the dtype it is built in), its
    weights are no larger than that model in float32, and the list's figures are the hub's.
    Llama-3.2-1B (2.5 GB in bfloat16) needs ATTENTION_MAX_MODEL_MB raised from its default."""
    monkeypatch.setattr(checkpoint, "MAX_MODEL_MB", 2048)  # the default
    assert set(LISTED) == set(hub.HUB_MODELS)
    for repo, (config, size) in LISTED.items():
        known = hub.HUB_MODELS[repo]
        assert known.layout == config.get("model_type", "gpt2") and abs(size / 1e6 - known.megabytes) < 1
        assert known.gated == (repo.split("/")[0] in ("google", "meta-llama"))
        if repo == "meta-llama/Llama-3.2-1B":
            with pytest.raises(ConfigError, match=r"needs 2,\d{3} MB of memory \(bfloat16\).*MAX_MODEL_MB"):
                hub.weights_limit(repo, config)
            monkeypatch.setattr(checkpoint, "MAX_MODEL_MB", 2600)
        assert size <= hub.weights_limit(repo, config) + 2**20, repo
    qwen = checkpoint.architecture("qwen3").config_from_hf(QWEN3_06B)
    assert checkpoint.modern_bytes(qwen, hub.DTYPE) < 1300 * 2**20  # Community Cloud's memory: bf16 fits


@pytest.fixture
def fake_hub(monkeypatch, tmp_path):
    """A hub that serves one repo (its config.json and the weights' size) and lists what was
    downloaded: huggingface_hub's two calls replaced, nothing on the network."""

    def serve(config: dict, size: int, shards: dict[str, int] | None = None) -> list[str]:
        """shards: name -> bytes, for a repo whose weights are shards (no model.safetensors)."""
        got = []
        index = {"weight_map": {f"layer.{i}": name for i, name in enumerate(shards or ())}}

        def download(repo, name, **options):
            got.append(name)
            tokens.append(options.get("token"))
            path = tmp_path / name
            text = {"config.json": config, hub.INDEX: index}.get(name)
            path.write_text(json.dumps(text)) if text else path.write_bytes(b"weights")
            return str(path)

        def metadata(url, timeout, token=None):
            name = url.rsplit("/", 1)[-1]
            if shards is not None and name == "model.safetensors":
                raise EntryNotFoundError(name)
            if name == "tokenizer.json":
                return SimpleNamespace(size=1000)
            return SimpleNamespace(size=shards[name] if shards else size)

        import huggingface_hub
        import huggingface_hub.constants as constants

        monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))  # the budget's ledger
        monkeypatch.setattr(hub, "cached", lambda repo: None)
        monkeypatch.setattr(hub, "reachable", lambda repo, timeout, token=None: None)
        monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
        monkeypatch.setattr(huggingface_hub, "get_hf_file_metadata", metadata)
        return got

    tokens: list[str | None] = []
    serve.tokens = tokens  # the token each download was asked with
    return serve


def test_a_repo_that_passes_is_downloaded_whole(fake_hub, tmp_path):
    got = fake_hub(GPT2, 548_105_171)
    assert hub.download("someone/gpt2-finetuned") == tmp_path and got == ["config.json", "model.safetensors"]


@pytest.mark.parametrize(
    "config, size, message",
    [
        (GPT2 | {"n_embd": 1600, "n_head": 25, "n_layer": 48}, 6_431_000_000, "needs 6,"),  # GPT-2 XL
        (GPT2, 6_431_000_000, "more than its config.json's model can weigh"),
        ({"n_embd": 8}, 10, "is not a GPT-2 config.json"),
        ({"model_type": "mistral"}, 10, "model_type 'mistral': this app opens gpt2, qwen3"),
        (QWEN3_06B | {"num_hidden_layers": 280}, 10, r"MB of memory \(bfloat16\)"),  # 12 GB
        (SMOLLM2_135M, 1_100_000_000, "more than its config.json's model can weigh"),  # 538 MB in float32
    ],
)
def test_a_visitors_repo_is_refused_before_its_weights_are_downloaded(fake_hub, config, size, message):
    got = fake_hub(config, size)
    with pytest.raises(ConfigError, match=message):
        hub.download("someone/something-big")
    assert got == ["config.json"]  # a few hundred bytes, never the weights
    # ours from its first byte: what the refused try left is counted and evicted like any download
    assert "someone/something-big" in hub._ledger()


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


def test_a_modern_repo_brings_its_tokenizer(fake_hub, tmp_path):
    got = fake_hub(SMOLLM2_135M, 269_060_552)
    assert hub.download("someone/smollm2-finetuned") == tmp_path
    assert got == ["config.json", "model.safetensors", "tokenizer.json"]


SHARDS = {"model-00001-of-00002.safetensors": 900_000_000, "model-00002-of-00002.safetensors": 603_000_000}


def test_a_sharded_repo_is_downloaded_index_and_every_shard(fake_hub, tmp_path):
    got = fake_hub(QWEN3_06B, 0, SHARDS)
    assert hub.download("someone/qwen3-sharded") == tmp_path
    assert got == ["config.json", hub.INDEX, *SHARDS, "tokenizer.json"]  # each shard once


@pytest.mark.parametrize(
    "shards, message",
    [
        (
            {"a.safetensors": 2_000_000_000, "b.safetensors": 2_000_000_000},
            "more than its config.json's model",
        ),
        ({"../../elsewhere.safetensors": 10}, "lists no shards in the repo's own folder"),
    ],
)
def test_shards_are_checked_before_one_is_downloaded(fake_hub, shards, message):
    got = fake_hub(QWEN3_06B, 0, shards)
    with pytest.raises(ConfigError, match=message):
        hub.download("someone/qwen3-sharded")
    assert got == ["config.json", hub.INDEX]  # a few kB, never a shard


def test_a_gated_model_without_hf_token_is_refused_before_anything_is_downloaded(fake_hub, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    got = fake_hub(GEMMA3_270M, 536_223_056)
    asked = []
    monkeypatch.setattr(hub, "reachable", lambda *args: asked.append(args))
    with pytest.raises(ConfigError) as error:
        hub.download("google/gemma-3-270m")
    assert "is gated" in str(error.value) and "Set HF_TOKEN" in str(error.value)
    assert "https://huggingface.co/google/gemma-3-270m" in str(error.value)
    assert got == [] and asked == []  # nothing downloaded, the hub not even asked


def test_a_gated_model_downloads_with_the_token_in_hf_token(fake_hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_classroom")
    got = fake_hub(LLAMA32_1B, 2_471_645_608)
    monkeypatch.setattr(checkpoint, "MAX_MODEL_MB", 2600)
    hub.download("meta-llama/Llama-3.2-1B")
    assert got == ["config.json", "model.safetensors", "tokenizer.json"]
    assert fake_hub.tokens == ["hf_classroom"] * 3


def test_the_listed_only_rule_covers_the_new_hub_models(monkeypatch):
    """A public server opens its listed hub models and no other repo, refused before the hub is
    asked; the gated ones are listed, saying they need HF_TOKEN."""
    monkeypatch.setenv("ATTENTION_LISTED_MODELS_ONLY", "1")
    asked = []
    monkeypatch.setattr(hub, "download", lambda repo, **options: asked.append(repo))
    labels = catalog.choices()
    for repo in (
        "Qwen/Qwen3-0.6B",
        "HuggingFaceTB/SmolLM2-135M",
        "google/gemma-3-270m",
        "meta-llama/Llama-3.2-1B",
    ):
        catalog.check_source(repo)
        assert ("HF_TOKEN" in labels[repo]) == hub.HUB_MODELS[repo].gated
    with pytest.raises(ConfigError, match="only the models in its Model list"):
        catalog.load("Qwen/Qwen3-1.7B")
    assert asked == []


def test_a_sharded_repo_through_huggingface_hub_lands_whole_in_the_cache(hub_server):
    """A loopback hub: huggingface_hub's own requests, and its 404 for model.safetensors."""
    files, requests = hub_server
    tiny = {
        "model_type": "qwen3", "vocab_size": 96, "hidden_size": 32, "intermediate_size": 48,
        "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
        "max_position_embeddings": 16,
    }  # fmt: skip
    index = {
        "weight_map": {"a": "model-1.safetensors", "b": "model-2.safetensors", "c": "model-1.safetensors"}
    }
    files["class/sharded"] = {
        "config.json": json.dumps(tiny).encode(),
        hub.INDEX: json.dumps(index).encode(),
        "model-1.safetensors": os.urandom(30_000),
        "model-2.safetensors": os.urandom(20_000),
        "tokenizer.json": b"{}",
    }
    assert hub.cached("class/sharded") is None
    folder = hub.download("class/sharded", timeout=5)
    assert sorted(p.name for p in folder.iterdir()) == sorted(files["class/sharded"])
    assert hub.cached("class/sharded") == folder  # whole: opened from the cache from now on
    (folder / "model-2.safetensors").unlink()
    assert hub.cached("class/sharded") is None  # a shard missing: not whole


def test_offline_a_modern_model_names_its_three_files_within_seconds(no_cache, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # refused
    start = time.perf_counter()
    with pytest.raises(ConfigError) as error:
        hub.download("Qwen/Qwen3-0.6B", timeout=3)
    assert time.perf_counter() - start < 10
    assert "config.json, tokenizer.json and model.safetensors (1,503 MB)" in str(error.value)
