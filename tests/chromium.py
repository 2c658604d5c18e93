"""Debian's Chromium, as the browser tests, the load test and the browser benchmarks launch it."""

import os

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IDLE = '[data-test-script-state="notRunning"]'  # Streamlit's mark: the script run has finished


def launch(playwright):
    """Headless Chromium from a `sync_playwright()` context."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
