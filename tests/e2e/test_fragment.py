"""The Explorer's body (sentence, example, summary, view) is a keyed st.fragment: its controls,
and most knobs in the sidebar, rerun only it. Spoken to in Streamlit's own websocket protocol, as
the browser does: the sidebar's knobs and the page links are not run or sent again."""

import asyncio

from tests.e2e.conftest import in_thread
from tests.session_client import Session, Stats
from ui.explorer.controls import CUSTOM_PRESET


def test_a_view_control_reruns_only_the_body(server):
    url = server.replace("http://", "ws://")

    async def go():
        stats = Stats()
        async with Session(url, stats) as s:
            await s.rerun()
            full = list(s.drawn)
            (fragment,) = {f for kind, f in full if kind == "plotly_chart"}
            assert fragment and ("number_input", "") in full  # the sidebar's knobs: outside it
            _, before = await s.rerun(changes={"numbers": False}, fragment=fragment)
            part = list(s.drawn)
            _, again = await s.rerun(changes={"numbers": True}, fragment=fragment)
            return stats, full, part, before, again

    stats, full, part, without_numbers, with_numbers = in_thread(asyncio.run, go())
    assert not stats.errors
    assert part and all(f for _, f in part)  # everything sent belongs to the fragment
    assert not {"number_input", "page_link"} & {kind for kind, _ in part} and len(part) < len(full) / 2
    assert "plotly_chart" in {kind for kind, _ in part} and without_numbers != with_numbers


def test_a_knob_the_sidebar_already_shows_reruns_only_the_body(server):
    """A knob turn the sidebar already shows (the seed, the heads) and a new sentence rerun the
    page's body alone: the sidebar's knobs and the page links are not sent again (the example's
    name, in the body, is redrawn), and the numbers are those of a page opened on the same
    settings. A change the sidebar must show too (a sentence that needs another embedding,
    another module) reruns the page."""
    url = server.replace("http://", "ws://")
    changes = {  # in this order, from the page as it opens
        "leaving the example": {"w_seed": 7},  # the Example box, in the body, says so
        "seed": {"w_seed": 42},
        "heads": {"w_heads": 1},
        "sentence": {"w_text": "Hello shiny sun"},  # the book has its vectors
        "train mode": {"w_train": True, "w_dropout": 0.1},
        "embedding repaired": {"w_text": "my own words"},  # no book vectors: nn.Embedding
        "module": {"w_variant": "v2"},
        "another module": {"w_variant": "gqa"},
        "the mask off": {"w_causal": False},  # the sliding-window toggle is disabled: the page
        "the mask on": {"w_causal": True},  # and enabled again: the page
    }

    async def go():
        stats, drawn, digests = Stats(), {}, {}
        async with Session(url, stats) as s:
            await s.rerun()
            for name, change in changes.items():
                _, digests[name] = await s.rerun(changes=change)  # from the widget's own fragment
                drawn[name] = {kind for kind, _ in s.drawn}, all(fragment for _, fragment in s.drawn)
                if name == "leaving the example":  # the Example box now names your own settings
                    drawn["example"] = any(CUSTOM_PRESET in str(state) for state in s.states.values())
        async with Session(url, stats) as fresh:
            _, digests["opened"] = await fresh.rerun(query="seed=42")
        return stats, drawn, digests

    stats, drawn, digests = in_thread(asyncio.run, go())
    assert not stats.errors and drawn["example"]
    for name in ("leaving the example", "seed", "heads", "sentence", "train mode"):
        kinds, in_body = drawn[name]
        assert in_body and "plotly_chart" in kinds and not kinds & {"number_input", "page_link"}, name
    for name in ("embedding repaired", "module", "another module", "the mask off", "the mask on"):
        assert {"number_input", "page_link", "text_input"} <= drawn[name][0], name  # the whole page
    assert digests["seed"] == digests["opened"]  # the body alone computes what the whole page does
