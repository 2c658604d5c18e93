"""deploy/: the nginx config filled for the ports, and the start-and-wait helper everyone shares."""

import os
import socket
import subprocess
import sys
from types import SimpleNamespace

import pytest

import deploy.local
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


def test_listens_tells_whose_port_it_is():
    """Read from /proc: the socket listening on a port, held by this process or not."""
    with socket.socket() as mine:
        mine.bind(("127.0.0.1", 0))
        mine.listen()
        port = mine.getsockname()[1]
        if deploy.local.listens(os.getpid(), port) is None:
            pytest.skip("no /proc/net/tcp here")
        assert deploy.local.listens(os.getpid(), port) is True
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            assert deploy.local.listens(child.pid, port) is False  # answering for it is not holding it
        finally:
            child.kill()
            child.wait()


def test_a_server_that_is_not_ours_on_the_port_is_never_used(monkeypatch):
    """Another server took the free port first and answers the health check: start on another
    port (none named), or refuse (a port named)."""
    started, killed = [], []
    proc = SimpleNamespace(pid=1, kill=lambda: killed.append(1), wait=lambda: None)
    monkeypatch.setattr(
        deploy.local, "_start", lambda s, port, *a: started.append(port) or (proc, f"http://127.0.0.1:{port}")
    )
    owners = iter([False, True])
    monkeypatch.setattr(deploy.local, "listens", lambda pid, port: next(owners))
    ports = iter([9001, 9002])
    monkeypatch.setattr(deploy.local, "free_port", lambda: next(ports))
    assert deploy.local.start_streamlit()[1] == "http://127.0.0.1:9002"
    assert started == [9001, 9002] and killed == [1]
    monkeypatch.setattr(deploy.local, "listens", lambda pid, port: False)
    with pytest.raises(RuntimeError, match="another process answers"):
        deploy.local.start_streamlit(port=9003)
