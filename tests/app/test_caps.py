"""Server-side caps: at the largest settings allowed, what one rerun sends stays bounded."""

import pytest

from attention.explorer.config import MAX_D_IN, MAX_D_OUT, MAX_HEADS, MAX_TOKENS
from tests.app.conftest import session, show

MAX_CHART_BYTES = 2_500_000  # plotly JSON per rerun, the biggest view at the caps (~2.1 MB)
CAPS = {
    "text": " ".join(f"w{i}" for i in range(MAX_TOKENS)),
    "embedding": "random",
    "d_in": str(MAX_D_IN),
    "d_out": str(MAX_D_OUT),
    "heads": str(MAX_HEADS),
    "dropout": "0.5",
    "train": "1",
}


@pytest.fixture(scope="module")
def at_caps():

    at = session(120)
    at.query_params.update(CAPS)
    at.session_state["step"] = "all"
    at.run()
    assert not at.exception and not at.warning  # the caps themselves are allowed
    return at


@pytest.mark.parametrize("view", ["steps", "heads", "vectors", "query", "tokens", "share"])
def test_every_view_at_the_caps_sends_at_most_the_budget(at_caps, view):
    at = show(at_caps, view)
    assert not at.exception
    sent = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert sent <= MAX_CHART_BYTES, f"{view}: {sent:,} bytes of charts"


def test_one_step_more_is_refused_with_a_note():

    at = session(120)
    at.query_params.update({**CAPS, "text": CAPS["text"] + " extra", "heads": str(MAX_HEADS + 1)})
    at.run()
    assert not at.exception
    notes = "\n".join(t.value for t in at.text)
    assert "heads=17 is out of range" in notes and "the limit is 256" in notes
