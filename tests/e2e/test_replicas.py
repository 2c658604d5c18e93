"""The lecture-hall recipe: 2 replicas behind Debian's nginx (deploy/), sticky by cookie."""

import asyncio
import secrets
import shutil
from pathlib import Path

import pytest

from deploy.replicas import Replicas
from tests.e2e.conftest import in_thread, wait_idle
from tests.session_client import Session, Stats

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
    stats = Stats()

    async def load(cookie):
        async with Session(url, stats, cookie) as session:
            return (await session.rerun())[1]  # the digest of the charts it was sent

    async def everyone():  # 32 random hex digits, as nginx's $request_id gives a new browser
        return await asyncio.gather(*(load(secrets.token_hex(16)) for _ in range(16)))

    # 16 sessions with random routes: all on one of two replicas has odds 2 * 2**-16 (3e-5).
    digests = in_thread(asyncio.run, everyone())
    assert stats.errors == []
    assert len(stats.replicas) == 2, (stats.replicas, hall.nginx_log())  # both took sessions
    assert len(set(digests)) == 1  # the same settings, the same numbers, on either replica

    async def replica_of(cookie):
        seen = Stats()
        async with Session(url, seen, cookie) as session:
            await session.rerun()
        return next(iter(seen.replicas))

    first = in_thread(asyncio.run, replica_of("student-7"))
    assert all(in_thread(asyncio.run, replica_of("student-7")) == first for _ in range(3))  # sticky


def test_a_browser_works_through_nginx(hall, page):
    page.goto(hall.url)
    wait_idle(page)
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert cookies.get("stroute")  # nginx gave this browser its route
    assert page.get_by_text("MultiHeadAttention").count() >= 1
