"""Which store the server's classes live in: ATTENTION_CLASS_STORE, else SQLite in this account's
own folder (settings.class_dir)."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from urllib.parse import unquote, urlparse

from attention import settings
from attention.classroom import errors
from attention.classroom.rules import Limits
from attention.classroom.sqlite_store import SQLiteStore
from attention.classroom.store import Store

FILE = "classes.sqlite3"
REDIS = ("redis", "rediss", "unix")


def open_store(limits: Limits | None = None) -> Store:
    """The store ATTENTION_CLASS_STORE names: redis://host:port/db (rediss://, unix:///socket too)
    -> RedisStore; sqlite:///absolute/path -> SQLiteStore there; unset -> SQLiteStore at default_path().
    Open it once per process (Streamlit: st.cache_resource) and share it: it is thread-safe."""
    chosen = settings.current().class_store
    if not chosen:
        return SQLiteStore(default_path(), limits)
    url = urlparse(chosen)
    if url.scheme in REDIS:
        from attention.classroom.redis_store import RedisStore  # only a server that uses it loads the client

        return RedisStore(chosen, limits)
    if url.scheme == "sqlite" and url.path and url.path != "/":
        # sqlite:///tmp/c.db -> /tmp/c.db, as SQLAlchemy's sqlite:////tmp/c.db (the administrator's folder)
        path = Path("/" + unquote(url.path).lstrip("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        return SQLiteStore(path, limits)
    raise errors.not_a_store(chosen)


def default_path() -> Path:
    """settings.class_dir()/classes.sqlite3, its folder made (mode 0700) when missing, refused when
    it is not this account's alone: a link, another account's, or open to others. The answers and
    the teachers' secrets' hashes are the classes', nobody else's."""
    folder = settings.class_dir()
    folder.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    found = os.lstat(folder)
    mine = os.getuid() if hasattr(os, "getuid") else None  # POSIX; elsewhere the owner is not checked
    if (
        not stat.S_ISDIR(found.st_mode)
        or (mine is not None and found.st_uid != mine)
        or found.st_mode & 0o077
    ):
        raise errors.not_private()
    return folder / FILE
