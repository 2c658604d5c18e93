"""Projector mode: larger text and full-contrast ink, in the page and in every chart."""

from tests.app.conftest import APP, figures, open_page


def test_projector_mode_enlarges_charts_and_styles_the_page():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=60).run()
    before = figures(at)[0]["layout"]
    assert not at.get("html")
    at = at.toggle(key="projector").set_value(True).run()
    assert not at.exception
    (style,) = at.get("html")
    assert "font-size: 20px" in style.proto.body and "#000000" in style.proto.body
    after = figures(at)[0]["layout"]
    assert after["font"]["size"] == 20  # 14 x 1.4
    assert after["yaxis"]["tickfont"]["size"] > before["yaxis"]["tickfont"]["size"]
    assert all(a["font"]["size"] >= 21 for a in after["annotations"])


def test_projector_mode_follows_the_class_to_other_pages():
    at = open_page("pages/compare.py")
    at = at.toggle(key="projector").set_value(True).run()
    at.switch_page("pages/learn.py").run()
    assert not at.exception and at.get("html") and at.toggle(key="projector").value
