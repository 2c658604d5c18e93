"""Start the app on loopback and wait until it answers: used by deploy/replicas.py, the browser
tests, the load test and the browser benchmark (one copy of this code)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_ports(count: int) -> list[int]:
    """`count` distinct free ports on loopback. The sockets are held open together: asked one at
    a time, the kernel may hand the same port out twice, and a second server on a taken port
    fails while the first one answers its health check for it."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def free_port() -> int:
    return free_ports(1)[0]


def wait_healthy(url: str, proc: subprocess.Popen | None = None, timeout: float = 90) -> None:
    """Until `url`/_stcore/health answers 200 (Streamlit's, or nginx passing it on); raises if
    `proc` exits first or the time runs out."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            log = getattr(proc, "log", None)
            said = "" if log is None else (log.seek(0) or log.read().decode(errors="replace")[-2000:])
            raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}: {said}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not become healthy in {timeout} s")


def start_streamlit(
    script: Path | str = ROOT / "app.py",
    port: int | None = None,
    *args: str,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen, str]:
    """`streamlit run script` on loopback, from `cwd` (whose .streamlit/config.toml it reads);
    returns the process and its URL once it is healthy. Extra `args` go to streamlit. Its log goes
    to a temporary file (`proc.log`): a pipe nobody reads would stall a talkative server."""
    port = port or free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server; closed with it)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(script),
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            *args,
        ],
        cwd=cwd,
        env=None if env is None else os.environ | env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    proc.log = log
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
    except BaseException:
        proc.kill()
        raise
    return proc, url
