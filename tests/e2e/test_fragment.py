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


def test_a_knob_the_sidebar_already_shows_reruns_only_the_body(server):
    """A knob turn the sidebar already shows (the seed, the heads) reruns the page's body alone (a
    keyed fragment): the sidebar's knobs, the page links and the sentence are not sent again, and
    the numbers are those of a page opened on the same settings. A turn that changes what the
    sidebar shows (from an example to your own settings, another module, a sentence that needs
    another embedding) reruns the page."""
    url = server.replace("http://", "ws://")
    changes = {  # in this order, from the page as it opens
        "leaving the example": {"w_seed": 7},  # the book's example -> your own settings: the page
        "seed": {"w_seed": 42},
        "heads": {"w_heads": 1},
        "embedding repaired": {"w_text": "my own words"},  # no book vectors: nn.Embedding
        "module": {"w_variant": "v2"},
    }

    async def go():
        stats, drawn, digests = Stats(), {}, {}
        async with Session(url, stats) as s:
            await s.rerun()
            for name, change in changes.items():
                _, digests[name] = await s.rerun(changes=change)
                drawn[name] = {kind for kind, _ in s.drawn}, all(fragment for _, fragment in s.drawn)
        async with Session(url, stats) as fresh:
            _, digests["opened"] = await fresh.rerun(query="seed=42")
        return stats, drawn, digests

    stats, drawn, digests = in_thread(asyncio.run, go())
    assert not stats.errors
    for name in ("seed", "heads"):
        kinds, in_body = drawn[name]
        assert in_body and "plotly_chart" in kinds and not kinds & {"number_input", "text_input", "selectbox"}
    for name in ("leaving the example", "embedding repaired", "module"):
        assert {"number_input", "text_input", "selectbox"} <= drawn[name][0], name  # sidebar, sentence
    assert digests["seed"] == digests["opened"]  # the body alone computes what the whole page does
