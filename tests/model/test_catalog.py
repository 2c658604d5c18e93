"""The catalogue: a source is a hub model or a folder, hub downloads go through one place, and a
model opens with what its config.json says about it."""

import re
from pathlib import Path

import pytest

from attention.model import catalog, hub
from tests.conftest import serving

ROOT = Path(__file__).resolve().parents[2]


def test_only_hub_models_are_downloaded(monkeypatch, tmp_path):
    asked = []
    monkeypatch.setattr(hub, "cached", lambda repo: asked.append(repo))  # nothing in the cache
    monkeypatch.setattr(hub, "download", lambda repo, progress=None: asked.append(repo) or tmp_path)
    assert not catalog.needs_download(catalog.BUNDLED) and not catalog.needs_download(str(tmp_path))
    assert catalog.download(catalog.BUNDLED) is None and catalog.download(str(tmp_path)) is None
    assert asked == []  # a folder never reaches the hub, not even its cache
    assert catalog.needs_download("someone/gpt2-finetuned")
    assert catalog.download("someone/gpt2-finetuned") == tmp_path


def test_a_hub_model_in_the_cache_needs_no_download(monkeypatch, tmp_path):
    monkeypatch.setattr(hub, "cached", lambda repo: tmp_path)
    assert not catalog.needs_download("openai-community/gpt2")


def test_the_bundled_model_opens_offline_with_its_name():
    model, info = catalog.load(catalog.BUNDLED)
    assert info.source == catalog.BUNDLED and info.name and not model.training
    assert model.cfg["n_layers"] >= 1


@pytest.mark.parametrize(
    "source, message", [("run:nothing", "names no run"), ("/does/not/exist", "does not exist")]
)
def test_a_source_that_is_no_model_is_a_clear_error(source, message, local_server):
    from attention.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        catalog.load(source)


def test_a_public_server_opens_its_list_only_and_tells_nothing_about_its_paths(public_server, tmp_path):
    """Anyone can reach it: a folder (real or not) and a hub repo get the same words, so no visitor
    learns which server paths exist. (A run's link opens: test_run_sources_name_only_runs.)"""
    from attention.errors import ConfigError

    refused = []
    for source in (str(catalog.BUNDLED_PATH), "/does/not/exist", "/etc", "someone/gpt2-finetuned"):
        with pytest.raises(ConfigError) as error:
            catalog.load(source)
        refused.append(str(error.value))
    assert set(refused) == {catalog.LISTED_ONLY}
    for source in catalog.choices():  # the list itself still opens
        catalog.check_source(source)


@pytest.mark.parametrize(
    "address, override, listed",
    [
        ("", None, True),  # Streamlit's default: every interface
        ("0.0.0.0", None, True),
        ("localhost", None, False),
        ("127.0.0.1", None, False),
        ("::1", None, False),
        (None, None, False),  # no server: the command line opens what its user names
        ("localhost", "1", True),  # the administrator's word, from the environment
        ("0.0.0.0", "0", False),
    ],
)
def test_who_may_open_what(monkeypatch, address, override, listed):
    serving(monkeypatch, address)
    if override is not None:
        monkeypatch.setenv("ATTENTION_LISTED_MODELS_ONLY", override)
    assert catalog.listed_only() is listed
    folder = str(catalog.BUNDLED_PATH)  # a real checkpoint, named by its path
    if listed:
        with pytest.raises(Exception, match="only the models in its Model list"):
            catalog.load(folder)
    else:
        assert catalog.load(folder)[0].layers >= 1


def test_hub_downloads_are_dispatched_in_one_place():
    """Only the catalogue tells a hub model from a folder and asks the hub for files: the pages,
    the UI layer and the rest of the package go through catalog.load / download / needs_download."""
    names = r"(download|cached|is_repo_id)"
    dispatch = re.compile(rf"\bhub\.{names}\(|from attention\.model\.hub import .*\b{names}\b")
    allowed = {ROOT / "attention/model/catalog.py", ROOT / "attention/model/hub.py"}
    found = [
        str(path.relative_to(ROOT))
        for folder in ("attention", "ui", "pages")
        for path in (ROOT / folder).rglob("*.py")
        if path not in allowed and dispatch.search(path.read_text())
    ]
    assert found == [] and dispatch.search((ROOT / "attention/model/catalog.py").read_text())
