"""A view control reruns only the Explorer's view (an st.fragment), spoken to in Streamlit's own
websocket protocol, as the browser does: the sentence and the knobs are not run or sent again."""

import asyncio

from benchmarks.classroom import Session, Stats
from tests.e2e.conftest import in_thread


def test_a_view_control_reruns_only_the_view(server):
    url = server.replace("http://", "ws://")

    async def go():
        stats = Stats()
        async with Session(url, stats) as s:
            await s.rerun()
            full = list(s.drawn)
            (fragment,) = {f for kind, f in full if kind == "plotly_chart"}
            assert fragment and ("text_input", "") in full  # the sentence: outside the fragment
            _, before = await s.rerun(changes={"numbers": False}, fragment=fragment)
            part = list(s.drawn)
            _, again = await s.rerun(changes={"numbers": True}, fragment=fragment)
            return stats, full, part, before, again

    stats, full, part, without_numbers, with_numbers = in_thread(asyncio.run, go())
    assert not stats.errors
    assert part and all(f for _, f in part)  # everything sent belongs to the fragment
    assert "text_input" not in {kind for kind, _ in part} and len(part) < len(full) / 2
    assert "plotly_chart" in {kind for kind, _ in part} and without_numbers != with_numbers
