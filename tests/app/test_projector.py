"""Projector mode: larger text and full-contrast ink, in the page and in every chart."""

from tests.app.conftest import figures, open_page, session


def test_projector_mode_enlarges_charts_and_styles_the_page():

    at = session().run()
    before = figures(at)[0]
    assert "font-size: 22px" not in at.get("html")[0].proto.body
    at = at.toggle(key="projector").set_value(True).run()
    assert not at.exception
    (style,) = at.get("html")
    assert "font-size: 22px" in style.proto.body and "#000000" in style.proto.body
    after = figures(at)[0]
    assert after["layout"]["font"]["size"] == 20  # 14 x 1.4
    for axis in ("xaxis", "yaxis"):  # tick labels and the axis titles
        assert after["layout"][axis]["tickfont"]["size"] > before["layout"][axis]["tickfont"]["size"]
        assert after["layout"][axis]["title"]["font"]["size"] >= 19
    assert (
        after["layout"]["title"]["font"]["size"] == 21
        and after["layout"]["title"]["subtitle"]["font"]["size"] == 17
    )
    assert after["data"][0]["textfont"]["size"] > before["data"][0]["textfont"]["size"]  # numbers in cells
    assert "color" not in after["data"][0]["textfont"]  # plotly's contrast colour: white on dark cells
    assert at.query_params["projector"] in ("1", ["1"])  # kept in the link and across reloads


def test_projector_mode_follows_the_class_to_other_pages():
    at = open_page("pages/compare.py")
    at = at.toggle(key="projector").set_value(True).run()
    at.switch_page("pages/learn.py").run()
    assert not at.exception and at.get("html") and at.toggle(key="projector").value


def test_on_a_projector_a_run_folds_its_settings_away_so_its_curves_start_high():
    """Item "projector mode for training": once a run is held, its task and knobs sit in a closed
    expander (still there, still the run's settings); without a projector, nothing folds."""
    for projector in (False, True):
        at = open_page("pages/train.py")
        at = at.toggle(key="projector").set_value(projector).run()
        assert not at.expander  # before Play: the settings are the page
        at.number_input(key="tr_steps").set_value(20)
        at = at.button(key="tr_play").click().run()
        assert not at.exception and figures(at)
        folded = [e for e in at.expander if e.label == "Task and settings"]
        assert len(folded) == projector
        assert at.number_input(key="tr_steps").value == 20  # the run's settings, folded or not
