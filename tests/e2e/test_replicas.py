"""The lecture-hall recipe: 2 replicas behind Debian's nginx (deploy/), sticky by cookie."""

import asyncio
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks import classroom
from deploy.replicas import Replicas
from tests.e2e.conftest import in_thread, wait_idle

pytestmark = pytest.mark.skipif(
    not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()),
    reason="needs nginx (tests/run.sh installs it: apt-get install -y nginx)",
)


@pytest.fixture(scope="module")
def hall():
    with Replicas(2, capture=True) as r:
        yield r


def test_sessions_spread_over_replicas_and_stay_on_theirs(hall):
    url = hall.url.replace("http://", "ws://")
    # 16 sessions with random routes: all on one of two replicas has odds 2 * 2**-16 (3e-5).
    args = SimpleNamespace(sessions=16, reruns=2, think=0.05, browsers=0, mix="explore")
    result = in_thread(classroom.measure, url, hall.pids, args, reference=False, cookies=True)
    assert result["errors"] == []
    assert len(result["replicas"]) == 2, (result["replicas"], hall.nginx_log())  # both took sessions
    assert result["consistent"]

    async def replica_of(cookie):
        stats = classroom.Stats()
        async with classroom.Session(url, stats, cookie) as session:
            await session.rerun()
        return next(iter(stats.replicas))

    first = in_thread(asyncio.run, replica_of("student-7"))
    assert all(in_thread(asyncio.run, replica_of("student-7")) == first for _ in range(3))  # sticky


def test_a_browser_works_through_nginx(hall, page):
    page.goto(hall.url)
    wait_idle(page)
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert cookies.get("stroute")  # nginx gave this browser its route
    assert page.get_by_text("MultiHeadAttention").count() >= 1
