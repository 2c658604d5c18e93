"""A server's settings from the environment: a bad value falls back to the default."""

import re
import threading
from pathlib import Path

import pytest

from attention.settings import current, flag, number
from tests.conftest import serving


@pytest.mark.parametrize("value, expected", [("3", 3), ("0", 1), ("lots", 1), ("2.5", 1), (None, 1)])
def test_a_whole_number_setting(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("ATTENTION_TRAINING_SLOTS", raising=False)
    else:
        monkeypatch.setenv("ATTENTION_TRAINING_SLOTS", value)
    assert number("ATTENTION_TRAINING_SLOTS", 1) == expected


def test_a_seconds_setting_keeps_its_floor(monkeypatch):
    monkeypatch.setenv("ATTENTION_HUB_TIMEOUT", "0")
    assert number("ATTENTION_HUB_TIMEOUT", 5.0, low=0.5) == 0.5
    monkeypatch.setenv("ATTENTION_HUB_TIMEOUT", "2.5")
    assert number("ATTENTION_HUB_TIMEOUT", 5.0, low=0.5) == 2.5


ON = [("1", True), ("yes", True), ("TRUE", True)]
OFF = [("0", False), ("no", False), ("off", False), ("", False), (None, False)]


@pytest.mark.parametrize("value, on", ON + OFF)
def test_a_yes_no_setting(monkeypatch, value, on):
    if value is None:
        monkeypatch.delenv("ATTENTION_LISTED_MODELS_ONLY", raising=False)
    else:
        monkeypatch.setenv("ATTENTION_LISTED_MODELS_ONLY", value)
    assert flag("ATTENTION_LISTED_MODELS_ONLY") is on


def test_every_setting_is_read_in_settings_py_alone():
    root = Path(__file__).resolve().parents[1]
    readers = [
        str(path.relative_to(root))
        for folder in ("attention", "ui", "pages", "benchmarks")
        for path in root.glob(f"{folder}/**/*.py")
        if path.name != "settings.py"
        and re.search(
            r"os\.environ(\.get|\[)|getenv|\bnumber\(\"|\bflag\(", path.read_text()
        )  # reads, not a child's env
    ]
    assert readers == []


def test_settings_hold_every_attention_variable(monkeypatch):
    for name, value in {
        "ATTENTION_TORCH_THREADS": "3",
        "ATTENTION_MAX_CONCURRENT_RUNS": "7",
        "ATTENTION_MAX_MODEL_MB": "100",
        "ATTENTION_HUB_TIMEOUT": "2.5",
        "ATTENTION_MODEL_PATH": "/models/gpt2",
        "ATTENTION_LISTED_MODELS_ONLY": "yes",
    }.items():
        monkeypatch.setenv(name, value)
    s = current()
    assert (s.torch_threads, s.max_concurrent_runs, s.max_model_mb) == (3, 7, 100)
    assert (s.hub_timeout, s.model_path, s.listed_models_only) == (2.5, "/models/gpt2", True)
    monkeypatch.setenv("ATTENTION_TORCH_THREADS", "lots")  # not a number: the app's own default
    assert current().torch_threads is None


@pytest.mark.parametrize(
    "headers, elsewhere",
    [
        ({}, False),  # a test: no request at all
        ({"Host": "localhost:8501"}, False),
        ({"Host": "127.0.0.1:8501"}, False),
        ({"Host": "[::1]:8501"}, False),
        ({"Host": "class.example.org"}, True),  # a tunnel or a proxy that passes the Host on
        ({"Host": "abc123.ngrok.app"}, True),
        ({"Host": "127.0.0.1:8501", "X-Forwarded-For": "203.0.113.7"}, True),  # a proxy that rewrites it
        ({"Host": "localhost", "Forwarded": "for=203.0.113.7"}, True),
    ],
)
def test_a_visitor_through_a_proxy_or_tunnel_is_someone_else(headers, elsewhere):
    from attention.settings import reached_from_elsewhere

    assert reached_from_elsewhere(headers) is elsewhere


def test_one_proxied_visitor_closes_a_loopback_server_for_good(monkeypatch):
    from attention import settings

    reach = serving(monkeypatch, None)
    settings.REACH.serve("localhost")
    settings.REACH.visited({"Host": "localhost:8501"})
    assert not settings.listed_only()  # a laptop
    settings.REACH.visited({"Host": "class.example.org"})  # through a tunnel
    assert settings.listed_only()
    settings.REACH.visited({"Host": "localhost:8501"})  # the next local visitor changes nothing
    settings.REACH.serve("localhost")  # nor does the address again
    assert settings.listed_only() and reach.by_others


@pytest.mark.parametrize(
    "address, listed",
    [
        (None, False),
        ("", True),
        ("0.0.0.0", True),
        ("localhost", False),
        ("127.0.0.1", False),
        ("[::1]", False),
    ],
)
def test_who_can_reach_this_process(monkeypatch, address, listed):
    """A process that never served (the command line) is no one else's; a server on every
    interface (Streamlit's default, "") is everyone's; one on loopback alone is its user's."""
    from attention import settings

    serving(monkeypatch, address)
    assert settings.listed_only() is listed
    monkeypatch.setenv("ATTENTION_LISTED_MODELS_ONLY", "0" if listed else "1")  # the administrator's word
    assert settings.listed_only() is not listed


def test_request_threads_note_visitors_at_once(monkeypatch):
    from attention import settings

    reach = serving(monkeypatch, "localhost")
    visitors = [{"Host": "localhost:8501"}] * 200 + [{"Host": "abc.ngrok.app"}]
    threads = [threading.Thread(target=reach.visited, args=(h,)) for h in visitors]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert settings.listed_only()
