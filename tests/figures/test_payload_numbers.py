"""Every figure's numbers, as sent to the browser, are those recorded (payload_numbers.json) by the
code before the figure cache (ui/cache.py) and the other lighter-rerun changes: a digest per
figure of every number in it, for links that cover each Explorer view, Compare and Inside a model.

    PAYLOAD_WRITE=1 pytest tests/figures/test_payload_numbers.py   # record anew (on purpose only)
"""

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from tests.app.conftest import figures, session
from tests.specs import decode

RECORD = Path(__file__).with_name("payload_numbers.json")
NUMERIC = ("x", "y", "z", "customdata")
LINKS = {
    "explorer default": {},
    "explorer all steps": {"step": "all"},
    "explorer heads": {"view": "heads", "heads": "4", "d_out": "8"},
    "explorer vectors": {"view": "vectors", "heads": "2", "d_out": "4"},
    "explorer query": {"view": "query", "causal": "1", "query": "2"},
    "explorer dropout": {"step": "all", "dropout": "0.3", "train": "1", "causal": "1", "seed": "7"},
    "explorer projector": {"projector": "1", "text": "The cat sat on the mat"},
    "compare": {"page": "compare"},
    "model": {"page": "model", "model": "bundled"},  # the copy model, as recorded
    "model, default": {"page": "model"},  # the Shakespeare model
}


def numbers(fig: dict) -> str:
    """A digest of every number a figure's traces carry, in order (NaN as NaN)."""
    digest = hashlib.sha256()
    for trace in fig["data"]:
        for name in NUMERIC:
            value = trace.get(name)
            if value is None:
                continue
            try:
                array = np.asarray(decode(value), dtype=np.float64)
            except (TypeError, ValueError):
                continue  # category labels: not numbers
            digest.update(f"{trace.get('type')}.{name}{array.shape}".encode())
            digest.update(np.nan_to_num(array, nan=1e300).tobytes())
    return digest.hexdigest()[:16]


def shown(link: dict[str, str]) -> list[str]:
    params = dict(link)
    page = params.pop("page", None)
    at = session(timeout=120, **({} if page else params)).run()
    if page:  # another page's parameters, as its link gives them
        at.switch_page(f"pages/{page}.py")
        at.query_params.update(params)
        at = at.run()
    assert not at.exception
    return [numbers(fig) for fig in figures(at)]


@pytest.mark.slow
def test_every_figure_carries_the_numbers_recorded_before():
    got = {name: shown(link) for name, link in LINKS.items()}
    if os.environ.get("PAYLOAD_WRITE"):
        RECORD.write_text(json.dumps(got, indent=1) + "\n")
    assert all(got.values()), "every link shows at least one figure"
    assert got == json.loads(RECORD.read_text())
