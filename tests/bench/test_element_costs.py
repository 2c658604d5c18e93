"""benchmarks/element_costs.py: each page it measures draws its elements and nothing else."""

import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from benchmarks import element_costs
from deploy.local import ROOT


@pytest.mark.parametrize("kind", list(element_costs.KINDS))
def test_each_kinds_page_draws_that_many_of_its_element(kind, tmp_path):
    script = tmp_path / f"{kind}_page.py"
    script.write_text(element_costs.page_source(kind, 3))
    at = AppTest.from_file(str(script)).run()
    assert not at.exception
    drawn = {
        "markdown": len(at.markdown),
        "radio": len(at.radio),
        "selectbox": len(at.selectbox),
        "button": len(at.button),
        "form": len(at.button),  # a form's submit button is a button to AppTest
        "pills": len(at.button_group),
        "columns": len(at.columns),
        "columns2": len(at.columns),
    }
    if kind in drawn:
        assert drawn[kind] == {"columns": 9, "columns2": 6}.get(kind, 3)
    if kind == "row":
        assert [c.type for c in at.main.children.values()] == ["flex_container"] * 3
    if kind == "none":
        assert len(at.main.children) == 0


@pytest.mark.slow
def test_a_quick_run_prints_a_cost_per_element():
    """The command itself, in a process of its own (asyncio.run needs a thread with no loop running:
    a browser test earlier in a pytest-xdist worker leaves Playwright's)."""
    command = [
        sys.executable,
        "-m",
        "benchmarks.element_costs",
        "--count",
        "2",
        "--loads",
        "2",
        "--kinds",
        "markdown",
    ]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout
    assert "an empty page:" in out and "markdown:" in out and "ms per element" in out and "errors 0" in out
