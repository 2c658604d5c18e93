"""A server's settings from the environment (ATTENTION_*), read one way: a value that cannot be
used falls back to the default instead of stopping the app from starting."""

from __future__ import annotations

import os


def number(name: str, default: float, low: float = 1) -> float:
    """A number setting, at least `low`; the default when unset or not a number."""
    try:
        return max(low, type(default)(os.environ.get(name, default)))
    except ValueError:
        return default


def flag(name: str) -> bool:
    """A yes/no setting: off when unset, empty, 0, false, no or off."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")
