"""Every store test runs on each store: SQLite on a fresh file, Redis under a fresh key prefix on
the server ATTENTION_TEST_REDIS names (tests/run.sh starts a private one and sets it)."""

import os
import uuid

import pytest

from attention.classroom import Limits, SQLiteStore
from attention.classroom.redis_store import RedisStore

REDIS = os.environ.get("ATTENTION_TEST_REDIS", "")
NO_REDIS = "ATTENTION_TEST_REDIS is unset: no Redis to test against (tests/run.sh starts one and sets it)"


def redis_keys(store: RedisStore) -> list[str]:
    return sorted(store.redis.scan_iter(store.prefix + "*"))


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request, tmp_path):
    """make(**limits) -> a store with those Limits (the defaults otherwise, not the environment's).
    Two SQLite stores made in one test share their file; two Redis stores share their prefix."""
    if request.param == "redis" and not REDIS:
        pytest.skip(NO_REDIS)
    prefix, made = f"test:{uuid.uuid4().hex}:", []

    def make(**limits):
        if request.param == "sqlite":
            return SQLiteStore(tmp_path / "classes.sqlite3", Limits(**limits))
        made.append(RedisStore(REDIS, Limits(**limits), prefix=prefix))
        return made[-1]

    yield make
    for store in made:
        if keys := redis_keys(store):
            store.redis.delete(*keys)
        store.redis.close()


@pytest.fixture
def store(make_store):
    return make_store()


@pytest.fixture
def a_class(store):
    """(code, secret) of a fresh class in `store`."""
    return store.new_class()
