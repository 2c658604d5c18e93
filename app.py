"""Attention Explorer: the router. Page config and the shared chrome live here, once."""

import streamlit as st

from attention.i18n import tr
from ui import coldstart, language

st.set_page_config(page_title="Attention Explorer", page_icon=":material/grid_on:", layout="wide")
# this session's language, before any words are written; a refused ?lang= is said after the
# cold start's rerun too (which reads the address as already seen)
st.session_state["_lang_refused"] = language.choose() or st.session_state.get("_lang_refused")
# A fresh server's first visit: the app's name and a progress line while the heavy modules below
# load (ui/coldstart.py), then a rerun; every later run: one attribute read.
coldstart.gate()
refused = st.session_state.pop("_lang_refused", None)

from ui import url  # noqa: E402 (after the gate: these load torch, plotly, pandas)
from ui.chrome import PROJECTOR_CSS, page_setup, pages, per_process, per_rerun  # noqa: E402
from ui.classroom import browser, membership  # noqa: E402
from ui.widgets import literal, narrow  # noqa: E402

class_message = membership.from_link()  # ?class=CODE joins a class (&teacher=SECRET: its teacher's seat)
PAGES = list(pages().values())
# Our own links in the sidebar below (config.toml turns Streamlit's automatic menu off, which
# would list the files in pages/ for a moment before st.navigation takes over).
page = st.navigation(PAGES, position="hidden")
st.session_state["_page_path"] = page.url_path  # what a teacher's Send view sends


per_process()  # torch threads, event-loop wake-ups, the address it serves on: once per server process
# Who may open what (attention/settings.py: listed_only) depends on who can reach this server: the
# address it listens on, and whether a visitor came through a proxy or tunnel to a loopback one.
per_rerun()
# A page keeps heavy per-session state (a model being trained) under "_held_<its url>": leaving
# the page drops it, so a student wandering off frees the memory.
for other in PAGES:  # by name: iterating the session's state costs more (it filters every key)
    if other.url_path != page.url_path:
        st.session_state.pop(f"_held_{other.url_path}", None)
if "projector" not in st.session_state:  # a shared link or a reload keeps projector mode
    st.session_state["projector"] = st.query_params.get("projector") == "1"
# A class student: the page the teacher sent (switched to before anything is drawn: 100 followers
# switch at once), a new vote; then the process's bell is told what this page shows.
membership.watch(pages())


def links() -> None:
    """Each link carries its page's own view, so coming back shows it (and Back stays clean)."""
    for p in PAGES:
        st.page_link(p, query_params=url.link_params(url.own_link(p.url_path)))


if narrow():  # a phone: links in the sidebar leave it open over the new page; these sit on top
    with st.expander(tr("Pages"), icon=":material/menu:"):
        links()
        language.picker()  # one tap away, beside the pages (a phone hides the sidebar)
    membership.sidebar()  # and a phone hides the sidebar: the class, following and Leave in sight
with st.sidebar:
    st.markdown(coldstart.heading())  # the app's name, as the cold start's frame drew it
    if not narrow():
        links()
    st.toggle(
        tr("Projector: large text, high contrast"),
        key="projector",
        help=tr("For the back row of a lecture hall."),
    )
    if not narrow():
        language.picker()
        membership.sidebar()
    page_setup()  # last: once per session, language and connection (ui/chrome.py), with the style sheet
for said in (class_message, membership.message()):  # a class's news, on whichever page this is
    if said:
        st.warning(literal(said), icon=":material/groups:")
if refused:
    st.warning(literal(refused), icon=":material/translate:")
if st.session_state["projector"]:
    st.html(PROJECTOR_CSS)
browser.send()  # what the class keeps in this browser (a cookie), written once
if page.url_path not in url.OWN:  # the pages that keep their view in the URL write it themselves
    url.write({})  # the projector setting only

page.run()
membership.arrived()  # a class student's page drawn whole: where the class took it is settled
