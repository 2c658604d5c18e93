"""A lecture hall presses Play together (attention.training.shared), spoken to in Streamlit's own
websocket protocol, on a server of its own: thirty sessions on the same induction settings make
one training and all see it finish together; a session with other settings queues behind it. The
runs are 200 steps, not the default 1,000: long enough that the late session, 3 s after the class,
finds the slot taken (the test: 44 s, 59 s at 300 steps; the default's two runs took 149 s)."""

import asyncio
import time

import pytest

from attention.training.induction import LABEL
from deploy.local import ROOT, start_streamlit
from tests.e2e.conftest import in_thread
from tests.session_client import Session, Stats

CLASS = 30
STEPS = 200


async def press_play(url: str, stats: Stats, seed: int | None, delay: float) -> dict:
    async with Session(url, stats, page_name="train") as s:
        await s.rerun()
        await s.rerun(changes={"tr_task": LABEL})
        await s.rerun(changes={"tr_pace": "as fast as it goes"})
        await s.rerun(changes={"ind_steps": STEPS})
        if seed is not None:
            await s.rerun(changes={"ind_seed": seed})
        await asyncio.sleep(delay)
        clicked = time.perf_counter()
        await s.rerun(changes={"tr_play": True})  # returns when the run has finished and redrawn
        return {"clicked": clicked, **{mark: at - clicked for mark, at in s.marks.items()}}


@pytest.mark.slow
def test_a_class_on_the_same_settings_trains_once_and_other_settings_queue(tmp_path):
    runs_dir = tmp_path / "runs"  # its runs go here
    proc, url = start_streamlit(ROOT / "app.py", env={"ATTENTION_RUNS_DIR": str(runs_dir)})
    try:
        stats = Stats()

        async def everyone():
            same = [press_play(url.replace("http", "ws"), stats, None, 0.0) for _ in range(CLASS)]
            other = press_play(url.replace("http", "ws"), stats, 4, 3.0)  # presses a little later
            return await asyncio.gather(*same, other)

        *class_, late = in_thread(asyncio.run, everyone())
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert not stats.errors, stats.errors[:3]
    runs = list(runs_dir.iterdir())
    assert len(runs) == 2  # one training for the thirty, one for the other settings
    assert all("finished" in s for s in class_) and "finished" in late
    ends = sorted(s["clicked"] + s["finished"] for s in class_)
    first = min(s["clicked"] for s in class_)
    one_run = ends[0] - first  # the training itself, from the first click to its end
    assert ends[-1] - first <= one_run + 10  # every session saw it finish with the first
    assert "waiting" in late  # the other settings waited in line for the slot
    assert late["clicked"] + late["finished"] > ends[-1]  # and trained after the class's run
