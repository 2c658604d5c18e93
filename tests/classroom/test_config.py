"""open_store(): which store ATTENTION_CLASS_STORE names, and the default file in a folder that is
this account's alone."""

import os

import pytest

from attention.classroom import ClassError, SQLiteStore, config, open_store
from attention.classroom.redis_store import RedisStore


@pytest.fixture
def home(monkeypatch, tmp_path):
    """A fresh XDG cache folder, and no store chosen."""
    for name in ("ATTENTION_CLASS_STORE", "ATTENTION_CLASS_DIR", "ATTENTION_RUNS_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def test_unset_is_sqlite_in_a_private_folder_of_the_cache(home):
    store = open_store()
    assert isinstance(store, SQLiteStore)
    assert store.path == home / "cache" / "attention-explorer" / "classes" / "classes.sqlite3"
    assert store.path.parent.stat().st_mode & 0o777 == 0o700
    assert store.path.stat().st_mode & 0o777 == 0o600
    code, _ = store.new_class()
    assert open_store().find(code, caller="t") == code  # the next process finds it


def test_the_class_folder_can_be_chosen(home, monkeypatch):
    monkeypatch.setenv("ATTENTION_CLASS_DIR", str(home / "classes"))
    assert open_store().path == home / "classes" / "classes.sqlite3"


@pytest.mark.parametrize("how", ["open to others", "a link"])
def test_a_folder_that_is_not_ours_alone_is_refused(home, monkeypatch, how):
    folder = home / "shared"
    if how == "a link":
        (home / "real").mkdir(mode=0o700)
        folder.symlink_to(home / "real")
    else:
        folder.mkdir()
        os.chmod(folder, 0o755)
    monkeypatch.setenv("ATTENTION_CLASS_DIR", str(folder))
    with pytest.raises(ClassError) as refused:
        open_store()
    assert refused.value.kind == "store" and str(home) not in str(refused.value)  # no server path shown


def test_a_sqlite_url_names_the_file(home, monkeypatch):
    for url in (
        f"sqlite://{home}/deep/er/c.sqlite3",
        f"sqlite:///{home}/deep/er/c.sqlite3",
    ):  # 3 or 4 slashes
        monkeypatch.setenv("ATTENTION_CLASS_STORE", url)
        store = open_store()
        assert isinstance(store, SQLiteStore) and store.path == home / "deep" / "er" / "c.sqlite3"


@pytest.mark.parametrize(
    "url", ["redis://127.0.0.1:6390/2", "rediss://redis.example:6380/0", "unix:///tmp/r.sock?db=1"]
)
def test_a_redis_url_is_a_redis_store(home, monkeypatch, url):
    monkeypatch.setenv("ATTENTION_CLASS_STORE", url)
    store = open_store()  # the client connects on first use
    assert isinstance(store, RedisStore) and store.prefix == "attention:class:"


@pytest.mark.parametrize("url", ["postgres://x/y", "sqlite://", "classes.db", "redis"])
def test_anything_else_is_refused_with_the_value(home, monkeypatch, url):
    monkeypatch.setenv("ATTENTION_CLASS_STORE", url)
    with pytest.raises(ClassError) as refused:
        open_store()
    assert refused.value.kind == "store" and url in str(refused.value)


def test_the_default_folder_is_the_runs_folders_sibling(home):
    assert config.default_path().parent.parent == home / "cache" / "attention-explorer"
