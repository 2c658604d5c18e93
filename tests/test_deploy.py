"""deploy/: the nginx config filled for the ports, and the start-and-wait helper everyone shares."""

import subprocess
import sys
from types import SimpleNamespace

import pytest

from deploy.local import free_port, free_ports, wait_healthy
from deploy.replicas import nginx_conf


def test_config_gets_the_ports():
    text = nginx_conf(9000, [9001, 9002, 9003])
    config = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert "listen 127.0.0.1:9000;" in config
    assert config.count("server 127.0.0.1:900") == 3 and "@" not in config
    assert config.count("max_fails=0;") == 3  # one failed request never benches a replica


def test_ports_are_read_while_every_socket_is_still_bound(monkeypatch):
    """The kernel never hands one bound port out twice; asked one at a time (bind, read, close),
    it may, and a second replica then dies on a taken port while the first answers for it."""
    import deploy.local

    bound = []

    class Socket:
        def bind(self, address):
            bound.append(self)

        def getsockname(self):
            assert len(bound) == 3, "a port was read before every socket was bound"
            return "127.0.0.1", 9000 + bound.index(self)

        def close(self):
            bound.remove(self)

    monkeypatch.setattr(deploy.local, "socket", SimpleNamespace(socket=Socket))
    assert free_ports(3) == [9000, 9001, 9002] and bound == []  # distinct, and all closed after


def test_waiting_for_a_server_that_died_says_so_at_once():
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    proc.wait()
    with pytest.raises(RuntimeError, match="exited with 3"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", proc, timeout=30)


def test_waiting_for_nothing_times_out():
    with pytest.raises(RuntimeError, match="did not become healthy"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", timeout=0.5)
