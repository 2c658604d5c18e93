"""The logit lens's figures: across the page on a screen, down it on a phone, the same numbers."""

import numpy as np

from attention.figures.lens import lens_figure
from tests.specs import decode

TOKENS = [f"t{i}" for i in range(45)]  # the Shakespeare example: too many for 360 px across


def lens_input(stages: int = 5, t: int = 45):
    rng = np.random.default_rng(0)
    probs = rng.random((stages, t)).astype(np.float32)
    words = [[[f"w{s}{i}", "b", "c"] for i in range(t)] for s in range(stages)]
    top = np.sort(rng.random((stages, t, 3)), -1)[..., ::-1]
    commit = rng.integers(0, stages, t)
    return probs, words, top, commit


def test_the_phone_lens_is_the_screen_lens_turned_down_the_page():
    probs, words, top, commit = lens_input()
    wide = lens_figure(TOKENS, probs, words, top, commit, 900).to_dict()
    tall = lens_figure(TOKENS, probs, words, top, commit, 360, tall=True).to_dict()
    np.testing.assert_array_equal(decode(tall["data"][0]["z"]), decode(wide["data"][0]["z"]).T)
    np.testing.assert_array_equal(decode(tall["data"][1]["z"]), decode(wide["data"][1]["z"]).T)
    assert tall["data"][1]["xaxis"] == "x2"  # the strip: a column at the right
    assert tall["data"][0]["customdata"][7][2] == wide["data"][0]["text"][2][7]  # hover: position 7, stage 2
    assert "position %{y}" in tall["data"][0]["hovertemplate"]  # positions are rows now
    assert "%{customdata}" in tall["data"][0]["hovertemplate"]  # the top k, as the wide map's %{text}
    assert tall["layout"]["height"] > 45 * 20  # a row per position, each tall enough to read
    # the top token written in each cell: a heatmap's texttemplate knows text, not customdata
    assert tall["data"][0]["texttemplate"] == "%{text}" and tall["data"][0]["text"][0][0] == "w00"
