"""ClassError: the one error a class raises, with a message for the person in front of the page.

Each message is a whole sentence written with tr(), its values by name, so the page shows it in
the reader's language; `kind` says what went wrong without reading the message.
"""

from __future__ import annotations

import functools
import logging
import math
import time

from attention.i18n import tr, tr_n

SHOWN_CHARS = 20  # a code echoed back: what a person could have typed, never a pasted essay


class ClassError(ValueError):
    """kind: unknown (no such class, or it expired), teacher (a wrong or missing teacher's secret
    or seat), teacher_key (this server needs its teacher key to start a class), starts (this
    caller started its classes for the hour), full, classes (too many classes), tries (too many
    wrong codes), too_long, too_many, not_asked (no vote on this question yet), stale (an answer to
    a round the teacher has replaced), revealed, not_joined, invalid (a value the program passed
    wrongly), store (the store is misconfigured, or it failed or cannot be reached now)."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


def unknown(code: str) -> ClassError:
    shown = " ".join(str(code).split())[:SHOWN_CHARS]
    return ClassError(tr("No class has the code {code}; check it with your teacher.", code=shown), "unknown")


def not_teacher() -> ClassError:
    return ClassError(tr("Only the class's teacher can do this; open the teacher's link."), "teacher")


def teacher_key() -> ClassError:
    message = tr("Starting a class on this server needs the teacher key; ask its administrator for it.")
    return ClassError(message, "teacher_key")


def too_many_starts(started: int, wait: float) -> ClassError:
    """`started` classes from this browser or address in the window; `wait` seconds until the next."""
    minutes = max(1, math.ceil(wait / 60))
    message = tr_n(
        "{n} class was started from this browser or this network in the last hour, the most allowed; "
        "try again in {minutes} min.",
        "{n} classes were started from this browser or this network in the last hour, the most "
        "allowed; try again in {minutes} min.",
        started,
        n=started,
        minutes=minutes,
    )
    return ClassError(message, "starts")


def full(limit: int) -> ClassError:
    return ClassError(
        tr_n(
            "This class is full: it has {limit} student. Ask your teacher.",
            "This class is full: it has {limit} students. Ask your teacher.",
            limit,
            limit=limit,
        ),
        "full",
    )


def too_many_classes(limit: int) -> ClassError:
    message = tr_n(
        "This server already has {limit} class open; try again later, or close one.",
        "This server already has {limit} classes open; try again later, or close one.",
        limit,
        limit=limit,
    )
    return ClassError(message, "classes")


def too_many_tries(wait: float) -> ClassError:
    seconds = max(1, math.ceil(wait))
    return ClassError(
        tr("Too many tries with a wrong code: wait {seconds} s and try again.", seconds=seconds), "tries"
    )


def question_too_long(limit: int) -> ClassError:
    message = tr_n(
        "A question's name has at most {limit} character.",
        "A question's name has at most {limit} characters.",
        limit,
        limit=limit,
    )
    return ClassError(message, "too_long")


def option_too_long(limit: int) -> ClassError:
    message = tr_n(
        "An answer has at most {limit} character.",
        "An answer has at most {limit} characters.",
        limit,
        limit=limit,
    )
    return ClassError(message, "too_long")


def view_too_long() -> ClassError:
    return ClassError(tr("This view is too long to send to the class; shorten its text."), "too_long")


def too_many_questions(limit: int) -> ClassError:
    message = tr_n(
        "A class holds at most {limit} question.",
        "A class holds at most {limit} questions.",
        limit,
        limit=limit,
    )
    return ClassError(message, "too_many")


def too_many_options(limit: int) -> ClassError:
    message = tr_n(
        "A question holds at most {limit} different answer.",
        "A question holds at most {limit} different answers.",
        limit,
        limit=limit,
    )
    return ClassError(message, "too_many")


def too_many_rounds(limit: int) -> ClassError:
    message = tr_n(
        "A question can be asked at most {limit} time.",
        "A question can be asked at most {limit} times.",
        limit,
        limit=limit,
    )
    return ClassError(message, "too_many")


def revealed() -> ClassError:
    message = tr("The answers are shown already; wait until your teacher asks again.")
    return ClassError(message, "revealed")


def not_asked() -> ClassError:
    message = tr("Your teacher has not asked this question yet; wait until they ask it.")
    return ClassError(message, "not_asked")


def stale() -> ClassError:
    message = tr("Your teacher has just asked this question again; pick your answer again.")
    return ClassError(message, "stale")


def not_joined() -> ClassError:
    return ClassError(tr("Join the class before answering."), "not_joined")


def invalid(what: str, value: object) -> ClassError:
    """A value the program (not the person) got wrong: a student id, a question's name, a view."""
    return ClassError(
        # TRANSLATORS: {what} is a setting's name as the program writes it (student, question, view); {value}
        # its value
        tr("{what}={value} cannot be used in a class.", what=what, value=repr(value)[:60]),
        "invalid",
    )


def lifetime(low: float, high: float, hours: object) -> ClassError:
    # the hours as a range and a value, not counts of hours: no plural form to agree with
    message = tr(
        "A class's length in hours is from {low} to {high}; {hours} cannot be used.",
        low=low,
        high=high,
        hours=hours,
    )
    return ClassError(message, "invalid")


def not_a_store(value: str) -> ClassError:
    message = tr(
        "ATTENTION_CLASS_STORE={value} is not a class store; use redis://host:port/db or sqlite:///path.",
        value=value[:80],
    )
    return ClassError(message, "store")


def not_private() -> ClassError:
    message = tr("The classes' folder is not this server account's alone; see docs/classroom.md.")
    return ClassError(message, "store")


def unavailable(reason: str) -> ClassError:
    """The store failed or cannot be reached now (`reason`: a short phrase from failure_reason(),
    never the store's own error text, which can name hosts and paths)."""
    # TRANSLATORS: {reason} is a short phrase saying what failed (e.g. the store did not answer)
    message = tr(
        "Class mode is unavailable: {reason}. This page works on its own meanwhile.",
        reason=reason,
    )
    return ClassError(message, "store")


def failure_reason(what: str) -> str:
    """A short phrase for a store's failure: unreachable, slow, full, read_only, or anything else."""
    reasons = {
        "unreachable": lambda: tr("the class store cannot be reached"),
        "slow": lambda: tr("the class store did not answer in time"),
        "full": lambda: tr("the class store's disk is full"),
        "read_only": lambda: tr("the class store cannot be written"),
    }
    return reasons.get(what, lambda: tr("the class store failed"))()


# --- store failures: said as one ClassError, logged once a minute -------------------------------

log = logging.getLogger("attention.classroom.store")
LOG_EVERY = 60.0  # seconds between log lines about the same operation failing the same way
_logged: dict[tuple, float] = {}


def _first_in_a_while(what: tuple) -> bool:
    now = time.monotonic()
    if now - _logged.get(what, -LOG_EVERY) < LOG_EVERY:
        return False
    if len(_logged) > 1000:  # a handful of operations and kinds: never grows, but bounded anyway
        _logged.clear()
    _logged[what] = now
    return True


def guarded(method):
    """A public operation whose store failures (self.FAILURES) come out as ClassError kind "store",
    logged once here with what the store said (the page shows only a short reason)."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except ClassError:
            raise
        except self.FAILURES as error:
            kind = self._failure(error)
            if _first_in_a_while((method.__name__, kind)):  # an outage is one line a minute, not one a call
                log.warning("class store failed in %s: %s: %s", method.__name__, type(error).__name__, error)
            raise unavailable(failure_reason(kind)) from error

    return run
