"""The Explorer's knobs for today's attention (GroupedQueryAttention's groups, sliding window and
RoPE; the online softmax's tile; the KV cache) under AppTest: each changes the computation, each
bad value (a window of 0, groups that do not divide the heads) gets a message and a repair."""

import json

import numpy as np
import pytest

from tests.app.conftest import figures, messages, open_page, session, step, url_params
from tests.app.test_compare import comparison, headline, pick
from tests.app.test_explorer import set_value, weights, widget


def gqa(**params):
    return session(variant="gqa", d_out="8", heads="4", **params).run()


def test_groups_knob_makes_heads_of_a_group_share_keys():
    at = gqa(kv_groups="4")
    assert not at.exception
    assert widget(at, "w_kv_groups").value == 4
    four = weights(at)
    at = set_value(at, "w_kv_groups", 2)
    assert not at.exception and url_params(at)["kv_groups"] == "2"
    assert not np.allclose(weights(at), four)


def test_groups_that_do_not_divide_the_heads_get_a_message():
    at = gqa(kv_groups="3")
    assert not at.exception
    text = messages(at)
    assert "num_heads=4 is not divisible by num_kv_groups=3" in text and "Used kv_groups=2" in text
    assert widget(at, "w_kv_groups").value == 2


def test_window_toggle_and_knob_band_the_weights():
    at = gqa()
    assert widget(at, "w_window_on").value is False
    at = widget(at, "w_window_on").set_value(True).run()
    assert not at.exception
    window = widget(at, "w_window").value
    assert window == 3 and url_params(at)["window"] == "3"  # half the 6 tokens
    w = weights(at)  # (6, 6) of head 0
    back = np.arange(6)[:, None] - np.arange(6)[None, :]
    assert np.all(w[back >= window] == 0) and np.all(w[(back >= 0) & (back < window)] > 0)
    at = set_value(at, "w_window", 1)
    np.testing.assert_allclose(weights(at), np.eye(6), atol=0)  # a window of 1: each token itself
    at = widget(at, "w_window_on").set_value(False).run()
    assert "window" not in url_params(at)


def test_a_window_of_zero_gets_a_message():
    at = gqa(window="0")
    assert not at.exception
    text = messages(at)
    assert "window=0 is out of range" in text and "nothing to look at" in text and "Used no window" in text
    assert widget(at, "w_window_on").value is False


def test_rope_knob_changes_the_scores_and_refuses_an_odd_head_dim():
    at = gqa(step="all")
    plain = step(at, "scores")
    at = set_value(at, "w_rope", True)
    assert not at.exception and url_params(at)["rope"] == "1"
    assert not np.allclose(step(at, "scores"), plain)
    at = session(variant="gqa", d_out="6", heads="2", rope="1").run()
    assert not at.exception
    assert "must be even; it is 6 / 2 = 3" in messages(at)
    assert widget(at, "w_rope").value is False


def test_online_softmax_tile_knob_keeps_the_weights():
    at = session(variant="online", d_out="4", heads="2").run()
    assert not at.exception
    before = weights(at)
    at = set_value(at, "w_tile", 5)
    assert not at.exception and url_params(at)["tile"] == "5"
    np.testing.assert_allclose(weights(at), before, atol=1e-6)
    at = session(variant="online", tile="0").run()
    assert "tile=0 is out of range" in messages(at)


def test_kv_cache_variant_shows_the_causal_weights():
    cached = weights(session(variant="kv_cache", d_out="4", heads="2").run())
    full = weights(session(variant="mha", d_out="4", heads="2", bias="0").run())
    np.testing.assert_allclose(cached, full, atol=1e-6)


def test_other_variants_draw_none_of_these_knobs():
    at = session().run()
    keys = {w.key for kind in ("number_input", "checkbox", "toggle") for w in at.get(kind)}
    assert not keys & {"w_kv_groups", "w_window", "w_window_on", "w_rope", "w_tile"}


@pytest.mark.parametrize("example", ["4 key/value groups vs 2", "causal vs window of 3", "no RoPE vs RoPE"])
def test_compare_sets_gqa_side_by_side(example):
    """Compare's examples for GroupedQueryAttention: one knob apart, the same seed, a difference."""
    at = pick(open_page("pages/compare.py"), example)
    assert not at.exception and not at.error
    assert at.session_state["cmp_a_variant"] == at.session_state["cmp_b_variant"] == "gqa"
    assert "identical" not in headline(at)
    if example == "causal vs window of 3":
        b = comparison(at)["B"]
        back = np.arange(len(b))[:, None] - np.arange(len(b))[None, :]
        assert (b[back >= 3] == 0).all() and (b[(back >= 0) & (back < 3)] > 0).all()


def test_compare_repairs_groups_that_do_not_divide_the_heads():
    at = pick(open_page("pages/compare.py"), "4 key/value groups vs 2")
    at = at.number_input(key="cmp_b_kv_groups").set_value(3).run()
    assert not at.exception
    assert "Used kv_groups=2" in messages(at)


def test_all_heads_view_names_each_heads_key_value_head():
    at = gqa(kv_groups="2", view="heads")
    assert not at.exception
    grid = json.dumps(figures(at), ensure_ascii=False)
    assert "head 1 · kv 0" in grid and "head 2 · kv 1" in grid


def test_online_softmax_says_the_tile_changes_the_work_not_the_numbers():
    at = session(variant="online", d_out="4", heads="2", tile="1").run()
    captions = " ".join(c.value for c in [*at.caption, *at.markdown])
    assert "not the numbers" in captions
    assert "tiles of 1 key ·" in " ".join(m.value for m in at.markdown)


def test_compare_gqa_examples_pin_their_knobs_whatever_the_explorer_has():
    """An Explorer already on RoPE without the causal mask: the examples still differ in one knob."""
    at = session(variant="gqa", d_out="8", heads="2", kv_groups="2", rope="1", causal="0").run()
    at.switch_page("pages/compare.py")
    at = at.run()
    for example in ("no RoPE vs RoPE", "causal vs window of 3"):
        at = pick(at, example)
        assert not at.exception and "identical" not in headline(at), example
        assert at.session_state["cmp_a_causal"] and at.session_state["cmp_b_causal"]


def test_compare_window_box_can_be_emptied_again():
    at = pick(open_page("pages/compare.py"), "causal vs window of 3")
    box = at.number_input(key="cmp_b_window")
    assert box.value == 3
    at = box.set_value(None).run()
    assert not at.exception and "identical" in headline(at)  # no window: both sides causal alone


def test_kv_cache_shows_its_mask_as_on():
    at = session(variant="kv_cache", d_out="4", heads="2").run()
    causal = at.checkbox(key="na_causal")
    assert causal.value is True and causal.disabled
    assert "never computed" in " ".join(c.value for c in [*at.caption, *at.markdown])


def test_window_toggle_waits_for_the_causal_mask():
    at = gqa(causal="0")
    assert widget(at, "w_window_on").disabled


def test_the_llama_example_sets_grouped_query_attention_with_rope():
    at = session().run()
    name = "the cat sat on the mat (Llama 3's attention, small)"
    at = at.selectbox(key="w_preset").set_value(name).run()
    assert not at.exception
    summary = " ".join(m.value for m in at.markdown)
    assert "**GroupedQueryAttention** · 11 tokens · 8 heads · 2 key/value heads · RoPE" in summary
    assert url_params(at)["kv_groups"] == "2" and url_params(at)["rope"] == "1"
