"""A server's settings from the environment: a bad value falls back to the default."""

import pytest

from attention.settings import flag, number


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
