"""Every figure's numbers, as sent to the browser, are those recorded (payload_numbers.npz) by the
code before the figure cache (ui/cache.py) and the other lighter-rerun changes: every number of
every figure, for links that cover each Explorer view, Compare and Inside a model, equal within
float32's rounding (rtol 1e-5). Not bit for bit: one machine's CPU kernels round the last bit
otherwise than another's (the sha256 of the bytes, recorded elsewhere, failed on this machine at
the commit that recorded it).

    PAYLOAD_WRITE=1 pytest tests/figures/test_payload_numbers.py   # record anew (on purpose only)
"""

import os
from pathlib import Path

import numpy as np
import pytest

from tests.app.conftest import figures, session
from tests.specs import decode

RECORD = Path(__file__).with_name("payload_numbers.npz")
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


def numbers(fig: dict) -> dict[str, np.ndarray]:
    """Every number a figure's traces carry, by trace, field and shape (NaN kept as NaN)."""
    found = {}
    for i, trace in enumerate(fig["data"]):
        for name in NUMERIC:
            value = trace.get(name)
            if value is None:
                continue
            try:
                array = np.asarray(decode(value), dtype=np.float64)
            except (TypeError, ValueError):
                continue  # category labels: not numbers
            found[f"{i}.{trace.get('type')}.{name}"] = array
    return found


def shown(link: dict[str, str]) -> list[dict[str, np.ndarray]]:
    params = dict(link)
    page = params.pop("page", None)
    at = session(timeout=120, **({} if page else params)).run()
    if page:  # another page's parameters, as its link gives them
        at.switch_page(f"pages/{page}.py")
        at.query_params.update(params)
        at = at.run()
    assert not at.exception
    return [numbers(fig) for fig in figures(at)]


def flat(got: dict[str, list[dict[str, np.ndarray]]]) -> dict[str, np.ndarray]:
    return {
        f"{link}/{n}/{key}": a
        for link, figs in got.items()
        for n, fig in enumerate(figs)
        for key, a in fig.items()
    }


@pytest.mark.slow
def test_every_figure_carries_the_numbers_recorded_before():
    got = {name: shown(link) for name, link in LINKS.items()}
    assert all(got.values()), "every link shows at least one figure"
    if os.environ.get("PAYLOAD_WRITE"):
        np.savez_compressed(RECORD, **flat(got))
    with np.load(RECORD) as recorded:
        want = {key: recorded[key] for key in recorded.files}
    have = flat(got)
    assert sorted(have) == sorted(want)  # the same figures, traces and fields
    for key, array in have.items():
        assert array.shape == want[key].shape, key
        np.testing.assert_allclose(array, want[key], rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=key)
