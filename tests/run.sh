#!/usr/bin/env bash
# Set up everything the tests need, from nothing, then run them all: ruff, then pytest
# (unit, AppTest page tests and the real-browser tests in headless Chromium).
# Usage: bash tests/run.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: chromium for the browser tests, nginx for the replicas recipe (deploy/), the
# Noto CJK fonts (without them Chromium draws every Japanese and Korean character as a box), and
# redis-server for the class store's Redis tests.
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
[ -x /usr/sbin/nginx ] || missing="$missing nginx"
[ -x /usr/bin/redis-server ] || missing="$missing redis-server"
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

# A private Redis for the tests (tests/classroom: every store test runs on SQLite and on Redis): a
# Unix socket in a fresh folder of ours, no TCP port, nothing saved; stopped when this script ends.
if [ -z "${ATTENTION_TEST_REDIS:-}" ]; then
  redis_dir="$(mktemp -d)"
  redis-server --port 0 --unixsocket "$redis_dir/redis.sock" --unixsocketperm 700 --save "" \
    --appendonly no --dir "$redis_dir" --daemonize yes --pidfile "$redis_dir/redis.pid" \
    --logfile "$redis_dir/redis.log"
  # Stopped and its folder removed on the way out, keeping pytest's exit status: a SIGTERM'd Redis
  # still writes into its folder for a moment (an rm -rf racing it once failed a run whose tests
  # had all passed, "Directory not empty"), so the folder goes once the process has.
  stop_redis() {
    local status=$? pid
    pid="$(cat "$redis_dir/redis.pid" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -rf "$redis_dir" 2>/dev/null || true
    exit "$status"
  }
  trap stop_redis EXIT
  for _ in $(seq 100); do [ -S "$redis_dir/redis.sock" ] && break; sleep 0.1; done
  export ATTENTION_TEST_REDIS="unix://$redis_dir/redis.sock?db=0"
fi

# pytest in two pytest-xdist workers, one per core of CI's machine, each given a whole test file
# at a time (--dist loadfile: a module's fixtures, a training or a Streamlit server, run once);
# each worker has its own Redis database, its own folders for the runs and classes the app saves,
# and one torch thread (tests/conftest.py), which also puts the files with browser or slow tests
# first: --no-loadscope-reorder keeps that order (xdist's own puts the files with the most tests
# first, and the few long browser tests last). PYTEST_WORKERS=0: one process. Extra arguments come
# after these, so a later -n wins.
echo "== pytest"
.venv/bin/python -m pytest -n "${PYTEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder "$@"  # not exec: the trap above stops redis-server afterwards
