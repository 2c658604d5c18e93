"""deploy/: the nginx config filled for the ports, and the start-and-wait helper everyone shares."""

import subprocess
import sys

import pytest

from deploy.local import free_port, free_ports, wait_healthy
from deploy.replicas import nginx_conf


def test_config_gets_the_ports():
    text = nginx_conf(9000, [9001, 9002, 9003])
    config = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert "listen 127.0.0.1:9000;" in config
    assert config.count("server 127.0.0.1:900") == 3 and "@" not in config
    assert config.count("max_fails=0;") == 3  # one failed request never benches a replica


def test_ports_handed_out_together_are_distinct():
    assert all(len(set(free_ports(8))) == 8 for _ in range(20))


def test_waiting_for_a_server_that_died_says_so_at_once():
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    proc.wait()
    with pytest.raises(RuntimeError, match="exited with 3"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", proc, timeout=30)


def test_waiting_for_nothing_times_out():
    with pytest.raises(RuntimeError, match="did not become healthy"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", timeout=0.5)
