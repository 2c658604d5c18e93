"""Where the class takes a student's page: the view a question was asked on (every student answers
the teacher's question, on the teacher's numbers), or a view the teacher sent to followers.

A trip is settled at the end of a run that drew its page (arrived, called at the end of app.py), not
when the switch is made: the run that switches can be overtaken. A rerun the browser asks for
before it has the new address (a click, a reconnect) replaces the switch's page and address with the
old ones: Streamlit keeps the newest request's (ScriptRequests._request_rerun_locked; with
runner.fastReruns a new runner starts from the browser's request). The run that finds a trip
unsettled and the page elsewhere switches again, at most TRIES times."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from attention.classroom import View, Vote
from ui import url
from ui.chrome import pages
from ui.classroom.bell import voting

if TYPE_CHECKING:
    from ui.classroom.membership import Member

TRIES = 3  # switches toward one trip before the page stays where it is
CHECKED = "_class_trip_checked"  # this run's go() found the page where its trip goes


@dataclass
class Trip:
    """A page and its view, and what arriving there settles: the teacher's view version followed,
    the question round whose view it is."""

    page: str
    params: dict[str, str]
    seen: int
    asked: tuple[str, int] | None


def where(m: Member, vote: Vote | None, view: View, pages: dict) -> Trip | None:
    """Where this page must go: the view a question was asked on, once per round; a view the
    teacher sent after the one this page followed wins over it (and settles the question's too)."""
    asked = voting(vote)
    trip = None
    if vote is not None and (vote.page or vote.params) and vote.page in pages and m.asked != asked:
        trip = Trip(vote.page, vote.params, m.seen, asked)
    if m.follow and view.version > m.seen and view.page in pages:
        trip = Trip(view.page, view.params, view.version, asked if trip else m.asked)
    return trip


def go(m: Member, trip: Trip, pages: dict, params_now: dict[str, str]) -> None:
    """This run to `trip`'s view (`params_now`: the view the page's address holds), unless it is
    there already or TRIES switches did not arrive; settled by arrived()."""
    tries = m.going[1] if m.going is not None and m.going[0] == trip else 0
    here = st.session_state.get("_page_path")
    if (trip.page != here or params_now != trip.params) and tries < TRIES:
        m.going = (trip, tries + 1)
        st.switch_page(pages[trip.page], query_params=trip.params | url.link_params({}))
    m.going = (trip, tries)
    st.session_state[CHECKED] = True


def arrived(m: Member | None) -> None:
    """The end of a run that drew its page whole: the trip this page was on is over, if this run
    looked at where it is (go): a run that could not read the class (the store out of reach) settles
    nothing."""
    if st.session_state.pop(CHECKED, False) and m is not None and m.going is not None:
        trip, m.going = m.going[0], None
        m.seen, m.asked = max(m.seen, trip.seen), trip.asked


def link_to(page: str, params: dict[str, str], label: str, icon: str | None = None) -> None:
    """A link to the view a question was asked on (this session's class, language and projector
    mode carried along), or nothing when this app has no such page."""
    target = pages().get(page)
    if target is not None:
        st.page_link(target, label=label, query_params=params | url.link_params({}), icon=icon)
