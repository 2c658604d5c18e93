"""Start N Attention Explorer replicas and Debian's nginx in front of them, on loopback.

    .venv/bin/python deploy/replicas.py [--replicas 2] [--port 8080]

Prints the address, then serves until Ctrl-C (or SIGTERM), which stops nginx and every
replica. Each replica is `streamlit run app.py` on a free port with the repo's
.streamlit/config.toml; nginx uses deploy/nginx.conf (sticky by cookie) with the ports filled
in. Needs /usr/sbin/nginx (apt-get install -y nginx). Load it with:

    .venv/bin/python -m benchmarks.classroom --url ws://127.0.0.1:8080 --cookies
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: deploy/replicas.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from deploy.local import ROOT, free_port, listens, start_streamlit, wait_healthy

CONF = ROOT / "deploy" / "nginx.conf"


def nginx_conf(listen: int, replicas: list[int]) -> str:
    """deploy/nginx.conf with its two placeholders filled: the port nginx listens on, and one
    `server` line per replica."""
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=0;" for port in replicas)
    return CONF.read_text().replace("@LISTEN@", str(listen)).replace("        @REPLICAS@", servers)


class Replicas:
    """N replicas and nginx; a context manager that stops them all."""

    def __init__(self, count: int = 2, port: int | None = None, capture: bool = False):
        """`capture`: nginx's warnings go to nginx_log() (the tests), else to this terminal."""
        self.count, self.port, self.capture = count, port, capture
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> Replicas:
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not Path(nginx).exists():
            raise SystemExit("nginx is missing: apt-get install -y nginx")
        self.ports = []
        try:
            for _ in range(self.count):
                # each listens on loopback, but nginx lets anyone in: only the listed models
                # open, unless the administrator said otherwise (docs/classroom.md: who may open what)
                public = {
                    "ATTENTION_LISTED_MODELS_ONLY": os.environ.get("ATTENTION_LISTED_MODELS_ONLY") or "1",
                    # nginx, on this machine, says who the visitor is: counted per address (class mode)
                    "ATTENTION_TRUSTED_PROXIES": os.environ.get("ATTENTION_TRUSTED_PROXIES") or "127.0.0.1",
                }
                proc, url = start_streamlit(ROOT / "app.py", env=public)  # a port that is its own
                self.procs.append(proc)
                self.ports.append(int(url.rsplit(":", 1)[1]))
            self.port = self.port or free_port()  # the replicas' ports are bound by now: not these
            self.prefix = tempfile.mkdtemp(prefix="attention-nginx-")
            Path(self.prefix, "nginx.conf").write_text(nginx_conf(self.port, self.ports))
            self.log = tempfile.TemporaryFile() if self.capture else None  # noqa: SIM115 (closed by __exit__)
            self.nginx = subprocess.Popen(
                [nginx, "-p", self.prefix + "/", "-c", "nginx.conf", "-g", "daemon off;"],
                cwd=self.prefix,
                stdout=self.log,
                stderr=subprocess.STDOUT if self.log else None,
            )
            self.procs.append(self.nginx)
            wait_healthy(self.url, self.nginx)
            if listens(self.nginx.pid, self.port) is False:  # another server answered for it
                raise RuntimeError(f"{self.url}: another process answers on nginx's port")
        except BaseException:
            self.__exit__()
            raise
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def nginx_log(self) -> str:
        """What nginx has said so far, when captured: a replica it could not reach, say."""
        if not getattr(self, "log", None):
            return ""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs[: self.count]]

    def __exit__(self, *exc) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        if getattr(self, "prefix", None):
            shutil.rmtree(self.prefix, ignore_errors=True)
        if getattr(self, "log", None):
            self.log.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with Replicas(args.replicas, args.port) as r:
        print(
            f"Attention Explorer on {r.url} (nginx) -> replicas on ports {r.ports}, pids {r.pids}", flush=True
        )
        try:
            while all(p.poll() is None for p in r.procs):
                time.sleep(1)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
