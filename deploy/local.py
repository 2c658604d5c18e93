"""Start the app on loopback and wait until it answers: used by deploy/replicas.py, the browser
tests, the load test and the browser benchmark (one copy of this code)."""

from __future__ import annotations

import contextlib
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


def listens(pid: int, port: int) -> bool | None:
    """Whether process `pid` holds the socket listening on TCP `port` (Linux's /proc); None where
    /proc cannot say."""
    try:
        inodes = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as f:
                for line in list(f)[1:]:
                    fields = line.split()  # sl, local address:port (hex), remote, state (0A: LISTEN), ...
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(f"socket:[{fields[9]}]")
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for fd in fds:
        with contextlib.suppress(OSError):  # closed meanwhile
            if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                return True
    return False


def start_streamlit(
    script: Path | str = ROOT / "app.py",
    port: int | None = None,
    *args: str,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen, str]:
    """`streamlit run script` on loopback, from `cwd` (whose .streamlit/config.toml it reads);
    returns the process and its URL once it is healthy. Extra `args` go to streamlit. Its log goes
    to a temporary file (`proc.log`): a pipe nobody reads would stall a talkative server.

    On a machine others use, another server can take the free port between the choice and the
    bind; its /_stcore/health answers too, and a test or a load then talks to it (measured: half
    of a class's sessions went to someone else's app). So the port must be this process's: with
    no `port` given, another free one is tried; a `port` given that another process holds raises."""
    for _ in range(1 if port else 5):
        proc, url = _start(script, port or free_port(), args, cwd, env)
        if listens(proc.pid, int(url.rsplit(":", 1)[1])) is not False:
            return proc, url
        print(f"{url}: another process answers on this port; not ours", file=sys.stderr)
        proc.kill()
        proc.wait()
    raise RuntimeError(f"{url}: another process answers on this port")


def _start(script, port: int, args, cwd: Path, env) -> tuple[subprocess.Popen, str]:
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
