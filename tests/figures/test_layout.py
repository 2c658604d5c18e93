"""The shared layout: safe token labels, and the panel grid the hand-built subplot figures use."""

import pytest

from attention.figures.layout import grid, panel_title, token_label


def test_token_labels_escape_html_and_show_whitespace():
    assert token_label("<b>") == "&lt;b&gt;"
    assert token_label(" ") == "␣"
    assert token_label("x" * 40).endswith("…") and len(token_label("x" * 40)) == 16


@pytest.mark.parametrize("count, cols", [(1, 1), (3, 3), (5, 2), (16, 4)])
def test_grid_cells_stay_inside_the_figure_and_do_not_overlap(count, cols):
    cells = grid(count, cols, gap_x=0.05, head=0.2, foot=0.1, right=0.02)
    assert (
        [c.index for c in cells] == list(range(count)) and cells[0].suffix == "" and cells[1:2] != [cells[0]]
    )
    for c in cells:
        assert 0 <= c.x0 < c.x1 <= 1 and 0 <= c.y0 < c.y1 <= c.top <= 1
    for a in cells:
        for b in cells:
            if a.index < b.index:
                apart_x = a.x1 <= b.x0 or b.x1 <= a.x0
                apart_y = a.y0 >= b.top or b.y0 >= a.top  # a panel's title area is its own too
                assert apart_x or apart_y, (a, b)


def test_a_title_sits_in_the_head_of_its_row_or_above_the_plot():
    with_head = grid(2, 1, head=0.2)[1]
    assert (
        panel_title("t", with_head)["yanchor"] == "top" and panel_title("t", with_head)["y"] == with_head.top
    )
    without = grid(1, 1)[0]
    assert panel_title("t", without)["yanchor"] == "bottom"


def test_projector_text_grows_everywhere_and_the_legend_keeps_clear_of_the_axis_title():
    """Projector mode (scale_text): a legend under the x-axis title moves down with room made for
    it; colour-bar numbers and labels drawn as text (Token view) grow too, their colours kept."""
    import numpy as np

    from attention.figures.layout import scale_text
    from attention.figures.model import token_view
    from attention.figures.train import training_curves

    curves = training_curves([2.0, 1.0, 0.5], [(1, 0.1), (3, 0.9)], 3)
    before = curves.layout.to_plotly_json()
    scale_text(curves, 1.4)
    assert curves.layout.legend.y == pytest.approx(before["legend"]["y"] * 1.4)
    assert curves.layout.legend.font.size == round(14 * 1.4)
    assert curves.layout.margin.b == round(before.get("margin", {}).get("b", 80) * 1.4)
    view = token_view(["a", "b", "c"], np.full((1, 3, 3), 1 / 3), 2, [0])
    labels = [t for t in view.data if t.mode == "text"]
    colours = [t.textfont.color for t in labels]
    scale_text(view, 1.4)
    assert [t.textfont.size for t in labels] == [round(13 * 1.4)] * 2
    assert [t.textfont.color for t in labels] == colours
