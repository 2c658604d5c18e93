"""Projector mode: larger text and full-contrast ink, in the page and in every chart."""

from tests.app.conftest import figures, open_page, session


def test_projector_mode_enlarges_charts_and_styles_the_page():

    at = session().run()
    before = figures(at)[0]
    assert "font-size: 20px" not in at.get("html")[0].proto.body
    at = at.toggle(key="projector").set_value(True).run()
    assert not at.exception
    (style,) = at.get("html")
    assert "font-size: 20px" in style.proto.body and "#000000" in style.proto.body
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
