"""The catalogue: a source is a hub model or a folder, hub downloads go through one place, and a
model opens with what its config.json says about it."""

import os
import re
import stat
from pathlib import Path

import pytest

from attention.errors import ConfigError
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


# --- where trained runs live -------------------------------------------------------------------


def test_runs_live_in_this_accounts_cache_folder_or_the_setting(monkeypatch, tmp_path):
    from attention.settings import current, runs_dir

    monkeypatch.delenv("ATTENTION_RUNS_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert runs_dir() == tmp_path / "cache" / "attention-explorer" / "runs"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored, as the XDG rule says
    assert runs_dir() == Path.home() / ".cache" / "attention-explorer" / "runs"
    monkeypatch.setenv("ATTENTION_RUNS_DIR", str(tmp_path / "mine"))
    assert runs_dir() == current().runs_dir == tmp_path / "mine"
    assert "attention-explorer-runs" not in str(catalog.RUNS)  # no fixed path in the shared /tmp


def test_the_runs_folder_is_made_private(monkeypatch, tmp_path):
    monkeypatch.setattr(catalog, "RUNS", tmp_path / "cache" / "runs")
    source, folder = catalog.new_run()
    assert folder.parent == catalog.RUNS and stat.S_IMODE(catalog.RUNS.stat().st_mode) == 0o700


@pytest.mark.parametrize("how", ["open to others", "a link", "another account's"])
def test_a_runs_folder_that_is_not_this_accounts_alone_is_refused_and_nothing_is_deleted(
    monkeypatch, tmp_path, how
):
    planted = tmp_path / "planted"
    (planted / "0123456789ab").mkdir(parents=True)  # a "run" someone else put there
    (planted / "0123456789ab" / "config.json").write_text("{}")
    planted.chmod(0o700)
    runs = tmp_path / "runs"
    if how == "open to others":
        planted.chmod(0o755)
        runs = planted
    elif how == "a link":
        runs.symlink_to(planted)
    else:
        monkeypatch.setattr(os, "getuid", lambda: os.stat(planted).st_uid + 1)  # as if another owned it
        runs = planted
    monkeypatch.setattr(catalog, "RUNS", runs)
    monkeypatch.setattr(catalog, "KEEP_RUNS", 1)  # new_run would delete every run it found
    with pytest.raises(ConfigError, match="not its account's alone"):
        catalog.new_run()
    assert catalog.runs() == []  # nothing in it is listed
    with pytest.raises(ConfigError, match="names no run trained here"):
        catalog.resolve("run:0123456789ab")  # nor opened
    assert (planted / "0123456789ab" / "config.json").is_file()  # nor deleted
