"""A fresh server's first visit (ui/coldstart.py) under AppTest: the frame, a wait for the warm-up,
then a rerun that draws the whole page; later runs go straight to the page."""

import sys

import pytest

from tests.app.conftest import session
from ui import coldstart


@pytest.fixture
def cold(monkeypatch, tmp_path):
    """A process whose warm-up has not run, loading one slow module of its own."""
    (tmp_path / "cold_probe.py").write_text("import time\ntime.sleep(0.5)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cold_probe", raising=False)
    steps = ((coldstart.STEPS[0][0], 1.0, ("cold_probe",)),)
    monkeypatch.setattr(coldstart, "STEPS", steps)
    monkeypatch.setattr(coldstart, "MODULES", ("cold_probe",))
    monkeypatch.setattr(coldstart, "WARM", coldstart.WarmUp())
    return coldstart


def test_the_first_visit_waits_for_the_warm_up_then_draws_the_page(cold):
    at = session().run()
    assert not at.exception
    assert cold.WARM.done.is_set() and "cold_probe" in sys.modules
    assert not at.get("progress")  # the rerun's page, not the frame
    assert "Attention Explorer" in at.sidebar.markdown[0].value
    assert at.get("plotly_chart")  # the Explorer drawn
    again = session().run()  # the next visitor: no frame, no wait
    assert not again.exception and again.get("plotly_chart")


def test_a_process_that_loaded_everything_skips_the_frame(monkeypatch):
    monkeypatch.setattr(coldstart, "WARM", coldstart.WarmUp())
    monkeypatch.setattr(coldstart, "MODULES", ("sys",))
    coldstart.gate()  # no script run needed: it draws nothing
    assert coldstart.WARM.done.is_set() and not coldstart.WARM.started()
