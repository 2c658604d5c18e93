"""The heavy-work line (ui/model/caches.py): a large model's explanation or exact head map is
computed only in the line (attention.slots.SWEEPS), even after its cache has dropped it; a result
still held is handed back at once, without waiting."""

import gc

import pytest

import ui.model.caches as caches


@pytest.fixture
def line(monkeypatch):
    """explain() stubbed (counting where it ran) and the line stubbed (no Streamlit session)."""
    state = {"in_line": False, "outside": 0, "inside": 0}

    def fake_explain(gpt, ids, position, baseline):
        state["inside" if state["in_line"] else "outside"] += 1
        return caches.Explanation(position, 0, 0.0, baseline, {}, {})

    def fake_in_line(name, words, compute):
        state["in_line"] = True
        try:
            return compute()
        finally:
            state["in_line"] = False

    monkeypatch.setattr(caches, "explain", fake_explain)
    monkeypatch.setattr(caches, "_in_line", fake_in_line)
    monkeypatch.setattr(caches, "_large", lambda gpt: True)
    monkeypatch.setattr(caches, "tr", lambda message, **values: message)
    monkeypatch.setattr(caches, "_made", type(caches._made)())
    caches._explanation.clear()
    yield state
    caches._explanation.clear()


def test_an_evicted_explanation_is_computed_in_the_line_again(line):
    ids = list(range(40))
    for position in range(17):  # the cache keeps 16: the first is dropped
        caches.explanation("gpt2", None, ids, position, "mean")
    gc.collect()
    caches.explanation("gpt2", None, ids, 0, "mean")
    assert line == {"in_line": False, "outside": 0, "inside": 18}


def test_a_result_still_held_comes_back_without_the_line(line):
    ids = list(range(40))
    first = caches.explanation("gpt2", None, ids, 0, "mean")
    caches._explanation.clear()  # the cache dropped it; a page still holds it
    assert caches.explanation("gpt2", None, ids, 0, "mean") is first
    assert line["inside"] == 1 and line["outside"] == 0
