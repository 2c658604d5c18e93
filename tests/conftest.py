import atexit
import functools
import os
import re
import shutil
import tempfile
import urllib.request
from pathlib import Path

import pytest
import torch

from attention import settings
from tests.book import INPUTS

# What the app writes on disk goes to folders of this pytest process's own (each pytest-xdist
# worker has its own): the runs Watch it learn saves (the catalog keeps 20 and deletes the oldest)
# and the classes' SQLite file, not this account's ~/.cache/attention-explorer, which the other
# worker and any other run of the suite share. Set before any test module imports
# the app (catalog.RUNS is read then); the Streamlit servers the browser tests start inherit them.
OWN = Path(tempfile.mkdtemp(prefix="attention-tests-"))  # mode 0700, as the app asks of both
os.environ["ATTENTION_RUNS_DIR"] = str(OWN / "runs")
os.environ["ATTENTION_CLASS_DIR"] = str(OWN / "classes")
atexit.register(shutil.rmtree, OWN, ignore_errors=True)
# The Redis tests' database: the worker's number under pytest-xdist (gw0 -> 0, gw1 -> 1), so each
# worker's keys are in a database of its own (tests/classroom/conftest.py reads it at import).
if (worker := os.environ.get("PYTEST_XDIST_WORKER", "")).startswith("gw") and (
    redis := os.environ.get("ATTENTION_TEST_REDIS", "")
):
    db = int(worker[2:])
    redis = (
        re.sub(r"([?&]db=)\d+", rf"\g<1>{db}", redis) if "db=" in redis else re.sub(r"/\d*$", f"/{db}", redis)
    )
    os.environ["ATTENTION_TEST_REDIS"] = redis
# Under pytest-xdist each core already has a worker. A torch computation on two threads in each
# (torch's default here: one per core) oversubscribes them, and OpenMP's threads spin waiting for
# each other: 150 steps of the induction training took 148 s in each of two such processes at once,
# against 9.3 s on one thread each (5.9 s on two threads alone). One thread per worker, and for the
# commands its tests start (OMP_NUM_THREADS; the app's servers take one anyway: configure_torch_threads).
if worker.startswith("gw"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)


E2E = Path(__file__).resolve().parent / "e2e"


def pytest_collection_modifyitems(items):
    """Every test under tests/e2e is a browser test: `pytest -m "not e2e"` is the fast loop.

    And the files with a browser or a slow test run first (in their order), the quick ones after:
    pytest-xdist's workers take a whole file at a time in this order (tests/run.sh keeps it:
    --no-loadscope-reorder), so the last files taken are short and both workers finish at about
    the same time (with the long browser files last, one worker waited for the other: 960 s for
    1,825 s of tests on two)."""
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)
    heavy = {item.path for item in items if item.get_closest_marker("e2e") or item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in heavy)  # stable: a file's tests keep their order


@functools.cache
def registry_unreachable() -> str | None:
    """Why no package registry answers, or None when one does (checked once per run)."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/") + "/pip/"
    try:
        with urllib.request.urlopen(index, timeout=10):
            return None
    except OSError as error:
        return f"no package registry answers ({index}: {error})"


def pytest_runtest_setup(item):
    if item.get_closest_marker("network") and (why := registry_unreachable()):
        pytest.skip(why)


def serving(monkeypatch, address: str | None, proxied: bool = False) -> settings.Reach:
    """This process as a server on `address` (None: not a server), for one test: a fresh REACH
    (monkeypatch puts the process's own back), with no administrator's override."""
    monkeypatch.delenv("ATTENTION_LISTED_MODELS_ONLY", raising=False)
    reach = settings.Reach()
    if address is not None:
        reach.serve(address)
    if proxied:
        reach.visited({"X-Forwarded-For": "203.0.113.7"})
    monkeypatch.setattr(settings, "REACH", reach)
    return reach


@pytest.fixture(autouse=True)
def setup_sent_at_once(monkeypatch):
    """AppTest (tests/app, and the i18n and figure walks that open its sessions) drops nothing a
    run queued: no websocket, no send loop. So the page's setup counts as sent from the next run
    on (ui/chrome.page_setup); tests/app/test_page_setup.py sets the wait back where it tests it,
    and tests/e2e/test_setup_resent.py tests it on a real server."""
    from ui import chrome

    monkeypatch.setattr(chrome, "SENT_WITHIN", 0.0)


@pytest.fixture
def local_server(monkeypatch):
    """A server that listens on loopback only: it opens any folder or hub repo (settings.listed_only)."""
    return serving(monkeypatch, "localhost")


@pytest.fixture
def public_server(monkeypatch):
    """A server anyone can reach (Streamlit's default address): the listed models only."""
    return serving(monkeypatch, "")


@pytest.fixture
def inputs():
    return torch.tensor(INPUTS)


@pytest.fixture
def batch(inputs):
    return torch.stack((inputs, inputs), dim=0)  # (2, 6, 3), as in the book
