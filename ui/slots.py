"""Waiting for a slot (attention.slots) on a page: the line's length shown, the run starting by
itself. The ticket lives in the page's "_held_…" state, so leaving the page gives the place back."""

from __future__ import annotations

import secrets
import time

import streamlit as st

from attention.i18n import tr_n
from attention.slots import Slots, Ticket

POLL = 0.5  # seconds between asks while waiting; each redraws the line's length


def session_id() -> str:
    """This browser tab's session: one place in each line at most (attention.slots.Slots.ticket),
    one seat in a shared run (attention.training.shared). A token in the session's state, not
    Streamlit's session id, which every AppTest shares."""
    return st.session_state.setdefault("_session", secrets.token_hex(8))


def wait_for(
    slots: Slots, held: dict, noun: str, keep_place: bool = False, beat=lambda: None
) -> tuple[Ticket, float]:
    """A slot for this session (held["ticket"]), after waiting in line; the seconds waited. Each
    wait redraws, so a click (Pause, Stop, another page) interrupts it like any rerun. An
    interrupted wait leaves the line, unless `keep_place`: then the page's next run asks with the
    same ticket, where it stood, and the page leaves the line itself when it gives up (Pause,
    Stop; leaving the page drops `held`, and with it the ticket). `beat()` on every ask: the
    waiting session is still here (a shared run's trainer, attention.training.shared)."""
    ticket = held.get("ticket") or held.setdefault("ticket", slots.ticket(session_id()))
    notice, started = st.empty(), time.monotonic()
    try:
        while (ahead := ticket.ask()) > 0:
            beat()
            notice.info(waiting(noun, ahead, slots.capacity), icon=":material/hourglass_top:")
            time.sleep(POLL)
    except Exception:  # an error, not a rerun: leave the line
        ticket.release()
        raise
    except BaseException:  # a rerun (Streamlit's control flow) interrupted the wait
        if not keep_place:
            ticket.release()
        raise
    notice.empty()
    return ticket, time.monotonic() - started


def waiting(noun: str, ahead: int, capacity: int) -> str:
    """What a wait in line says: `ahead` runs of the kind `noun` names ("run", "sweep", "model
    load", "heavy computation") before this one, `capacity` at a time. One whole message per kind,
    so that each language can put its count in its own plural form."""
    n = ahead
    if noun == "run":
        return tr_n(
            "Waiting: {n} run ahead of you ({capacity} at a time on this server). Yours starts by itself.",
            "Waiting: {n} runs ahead of you ({capacity} at a time on this server). Yours starts by itself.",
            n,
            n=n,
            capacity=capacity,
        )
    if noun == "sweep":
        return tr_n(
            "Waiting: {n} sweep ahead of you ({capacity} at a time on this server). Yours starts by itself.",
            "Waiting: {n} sweeps ahead of you ({capacity} at a time on this server). Yours starts by itself.",
            n,
            n=n,
            capacity=capacity,
        )
    if noun == "model load":
        return tr_n(
            "Waiting: {n} model load ahead of you ({capacity} at a time on this server). "
            "Yours starts by itself.",
            "Waiting: {n} model loads ahead of you ({capacity} at a time on this server). "
            "Yours starts by itself.",
            n,
            n=n,
            capacity=capacity,
        )
    if noun == "heavy computation":
        return tr_n(
            "Waiting: {n} heavy computation ahead of you ({capacity} at a time on this server). "
            "Yours starts by itself.",
            "Waiting: {n} heavy computations ahead of you ({capacity} at a time on this server). "
            "Yours starts by itself.",
            n,
            n=n,
            capacity=capacity,
        )
    return tr_n(  # a kind of run without words of its own
        "Waiting: {n} ahead of you ({capacity} at a time on this server). Yours starts by itself.",
        "Waiting: {n} ahead of you ({capacity} at a time on this server). Yours starts by itself.",
        n,
        n=n,
        capacity=capacity,
    )
