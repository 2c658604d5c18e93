#!/usr/bin/env bash
# Set up everything the tests need, from nothing, then run them all: ruff, then pytest
# (unit, AppTest page tests and the real-browser tests in headless Chromium).
# Usage: bash tests/run.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: chromium for the browser tests, nginx for the replicas recipe (deploy/), and
# the Noto CJK fonts: without them Chromium draws every Japanese and Korean character as a box.
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
[ -x /usr/sbin/nginx ] || missing="$missing nginx"
[ -d /usr/share/fonts/opentype/noto ] && fc-list :lang=ko | grep -q . || missing="$missing fonts-noto-cjk"
if [ -n "$missing" ]; then
  echo "== installing Debian's$missing"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
# requirements.txt lists PyTorch's wheel page for torch's CPU build. Where that host is out of
# reach (a machine that only sees a PyPI mirror and has the wheel on disk), pip's default 5
# retries per package cost minutes; one retry keeps a real network hiccup survivable.
export PIP_RETRIES="${PIP_RETRIES:-1}"
echo "== installing requirements-dev.txt"
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
# The book's own package, tests only (attention/modern against its llama3.py). Without its
# dependencies: they pin numpy<2.1 and pull in TensorFlow and JupyterLab, none of which it needs
# for the attention code (torch and tiktoken, both already here).
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps llms-from-scratch==1.0.19

echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .

echo "== lint-imports (the layering contracts in pyproject.toml)"
.venv/bin/lint-imports

echo "== pytest"
exec .venv/bin/python -m pytest "$@"
