"""What a session's first run sends once (ui/chrome.page_setup): the page's language, the
accessibility script and the app's style sheet, in one element. The runs after it send none of
it (tests/e2e/test_style_browser.py: the sheet holds in the browser); another language, a new
connection or a run that could have dropped it (tests/e2e/test_setup_resent.py) sends it again."""

import time

import streamlit as st

from deploy.local import ROOT
from tests.app.conftest import open_page, session
from ui import chrome, internals
from ui.chrome import APP_CSS, PROJECTOR_CSS, _script_text


def htmls(at) -> list[str]:
    return [element.proto.body for element in at.get("html")]


def test_the_style_sheet_comes_once_with_the_script_and_again_in_another_language():
    at = session().run()
    (setup,) = htmls(at)
    assert _script_text(APP_CSS) in setup and "ae-app-css" in setup
    assert "a11y.js" in setup and '"lang": "en"' in setup
    assert "<" not in setup.removeprefix("<script>").removesuffix("</script>")  # nothing ends it early
    # a class student's page hidden longer than Streamlit keeps its session, whose connection
    # dropped, reloads when seen again (static/wake.js; in Chromium: test_class_room_browser)
    ttl = round(1000 * float(st.get_option("server.disconnectedSessionTTL")))
    assert "wake.js?v=" in setup and f"window.__aeWakeAfter = {ttl};" in setup
    wake = (ROOT / "static" / "wake.js").read_text()
    assert '"WEBSOCKET_DISCONNECTED"' in wake and 'here.has("class") && here.has("student")' in wake
    assert "class-code" in APP_CSS and "/*" not in APP_CSS  # the whole file, its comments out
    at.switch_page("pages/learn.py").run()
    assert not at.exception and htmls(at) == []  # a whole-page run of another page: nothing again
    at = at.selectbox(key="lang").set_value("uk").run()
    (again,) = htmls(at)
    assert '"lang": "uk"' in again and _script_text(APP_CSS) in again
    assert htmls(at.run()) == []


def test_projector_mode_sends_its_own_sheet_on_each_run_while_it_is_on():
    at = session().run()
    at = at.toggle(key="projector").set_value(True).run()
    assert htmls(at) == [PROJECTOR_CSS]
    assert htmls(at.run()) == [PROJECTOR_CSS]
    at = at.toggle(key="projector").set_value(False).run()
    assert htmls(at) == []


def test_a_run_soon_after_the_setup_was_sent_sends_it_again_even_when_that_run_ended(monkeypatch):
    """Streamlit drops a session's unsent messages when its next run starts, whether the run that
    queued them ended or was cut short (a click in its last moments): within SENT_WITHIN of its
    sending the setup goes again, after it the setup has gone out."""
    monkeypatch.setattr(chrome, "SENT_WITHIN", 600.0)  # every run below comes within it
    at = session().run()
    assert len(htmls(at)) == 1  # the page load: a run that reached its end
    assert len(htmls(at.run())) == 1  # the next run, right after: sent again
    code, since, connection = at.session_state["_setup"]
    at.session_state["_setup"] = (code, since - 601.0, connection)  # as if 601 s had passed since
    assert htmls(at.run()) == []


def test_runs_cut_short_in_a_row_send_the_setup_until_its_first_sending_is_long_enough_ago(monkeypatch):
    """Reruns every quarter second that never reach their end (a class's clicks on a page playing
    a training; Scaling stops early with nothing to measure) send it again only within
    SENT_WITHIN of its first sending, not forever."""
    monkeypatch.setattr(chrome, "SENT_WITHIN", 600.0)
    at = open_page("pages/scaling.py").run()
    at = at.multiselect(key="scaling_modes").set_value([]).run()  # this run stops early
    assert "Pick at least one" in at.warning[0].value and len(htmls(at)) == 1
    first = at.session_state["_setup"][1]
    at = at.run()
    assert len(htmls(at)) == 1 and at.session_state["_setup"][1] == first  # not restarted
    at.session_state["_setup"] = ("en", first - 601.0, None)
    assert htmls(at.run()) == []


def test_a_new_connection_gets_the_setup_again(monkeypatch):
    """A browser that reconnects to its session (a phone that slept, a network that dropped) may
    not have had what the old connection was still carrying: its first run sends the setup."""
    connection = "first"
    monkeypatch.setattr(internals, "this_connection", lambda: connection)
    at = session().run()
    assert len(htmls(at)) == 1 and htmls(at.run()) == []  # SENT_WITHIN 0 here: sent at once
    connection = "after the phone woke"
    assert len(htmls(at.run())) == 1
    assert at.session_state["_setup"][2] == connection and htmls(at.run()) == []


def test_a_language_switched_back_soon_after_another_was_sent_sends_the_first_again(monkeypatch):
    """English sent long ago, Ukrainian sent by a run cut short (maybe shown), then English again:
    the English setup goes again, and the session does not take the Ukrainian one as its own."""
    monkeypatch.setattr(chrome, "SENT_WITHIN", 600.0)
    at = session().run()  # English
    at.session_state["_setup"] = ("uk", time.monotonic(), None)  # a Ukrainian run cut short
    at = at.run()
    (again,) = htmls(at)
    assert '"lang": "en"' in again and at.session_state["_setup"][0] == "en"
