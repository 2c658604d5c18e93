import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention import i18n
from attention.chapter3.trace import STEPS
from attention.i18n import tr
from tests.specs import decode
from ui.classroom import membership

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(autouse=True)
def fresh_runs(monkeypatch):
    """Each test's sessions share runs only among themselves (attention.training.shared)."""
    from attention.training import shared

    monkeypatch.setattr(shared, "SHARED", shared.Shared())


@pytest.fixture(autouse=True)
def page_reruns(monkeypatch):
    """AppTest keeps only what the last run drew: after a rerun of the Explorer's body alone its tree
    would lack the sidebar. Here every knob change reruns the page, as one the body cannot draw does
    in a browser (the body-only reruns are tested in tests/e2e/test_fragment.py)."""
    from ui.explorer import controls

    monkeypatch.setattr(controls, "BODY_ONLY", frozenset())


def session(timeout: int = 60, **params: str) -> AppTest:
    """A fresh session of the app (not yet run), opened with these URL parameters."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in params.items():
        at.query_params[key] = value
    return at


@pytest.fixture
def app():
    """A fresh Explorer session (not yet run), showing all steps side by side."""
    at = session()
    at.query_params["step"] = "all"  # as a link to "all steps side by side" asks for it
    return at


def figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def title(fig: dict) -> str:
    return fig["layout"].get("title", {}).get("text", "")


def figure(at, title_start: str) -> dict:
    """The first figure whose title starts with `title_start`."""
    for fig in figures(at):
        if title(fig).startswith(title_start):
            return fig
    raise AssertionError(
        f"no figure titled {title_start!r}: {[f['layout'].get('title') for f in figures(at)]}"
    )


def z(fig: dict, trace: int = 0) -> np.ndarray:
    return decode(fig["data"][trace]["z"])


def step_figures(at) -> list[dict]:
    """The Steps view's charts: one per step, each heatmap trace named after its field."""
    found = [
        f for f in figures(at) if any(d.get("name") in STEPS and d["type"] == "heatmap" for d in f["data"])
    ]
    assert found, "no steps figure on the page"
    return found


def steps_figure(at) -> dict:
    """The first step's chart (axes, labels)."""
    return step_figures(at)[0]


def step_names(at) -> list[str]:
    return [d["name"] for f in step_figures(at) for d in f["data"] if d["type"] == "heatmap"]


def step(at, name: str) -> np.ndarray:
    """The z values of one step's heatmap (float32, exactly as sent)."""
    for f in step_figures(at):
        for d in f["data"]:
            if d["type"] == "heatmap" and d.get("name") == name:
                return decode(d["z"])
    raise AssertionError(f"no {name} panel; panels: {step_names(at)}")


def step_titles(at) -> str:
    """Every step chart's title and subtitle, one line each."""
    titles = [f["layout"]["title"] for f in step_figures(at)]
    return "\n".join(t["text"] + " " + t.get("subtitle", {}).get("text", "") for t in titles)


def show(at, view: str):
    at.session_state["view"] = view
    return at.run()


def messages(at) -> str:
    return "\n".join([w.value for w in at.warning] + [t.value for t in at.text] + [e.value for e in at.error])


def open_page(path: str, timeout: int = 60) -> AppTest:
    """A fresh session, run once on the Explorer, then on page `path` (e.g. "pages/compare.py")."""
    at = session(timeout).run()
    at.switch_page(path)
    return at.run()


def url_params(at) -> dict[str, str]:
    """The page's query parameters, one value each."""
    return {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}


# --- class mode (tests/app/test_classroom.py, test_class_trust.py) -----------------------------

CLASS_Q = "check_ids"  # Learn's first predict-first question


def opened(page: str = "pages/learn.py", **params):
    at = session(60, **params)
    at.switch_page(page)  # opened at the page's own URL, as a browser does (design.md)
    return at.run()


def unescaped(option: str) -> str:
    return re.sub(r"\\(.)", r"\1", option)


SHOW = "Show me without predicting"  # a predict-first question's last option when alone


def question(at, key: str):
    """A predict-first question's options: pills, which answer when one is pressed."""
    return at.button_group(key=key)


def asked(at, key: str) -> bool:
    """Whether the page asks this predict-first question, unanswered."""
    return any(q.key == key and q.value is None for q in at.button_group)


def skip(at, key: str):
    """Past a predict-first question without predicting: its last option (SHOW, in the page's
    language)."""
    return answer(at, key, unescaped(question(at, key).options[-1]))


def answer(at, key: str, value):
    """Press `value` in a predict-first question: the pick answers, in one rerun."""
    return question(at, key).set_value(value).run()


def pick(at, key: str = CLASS_Q, index: int = 0):
    """A class student's answer: the pick records the vote."""
    return answer(at, key, unescaped(question(at, key).options[index]))


def in_language(code: str, message: str, **values) -> str:
    try:
        i18n.use(code)
        return tr(message, **values)
    finally:
        i18n.use(i18n.DEFAULT)


def teacher_asks(store, code: str, secret: str, **params):
    """The teacher opens Learn with the teacher's link and presses Ask the class."""
    teacher = opened(**{"class": code, "teacher": secret}, **params)
    teacher = teacher.run()  # no browser reopened the page: the second run drops the secret itself
    assert teacher.session_state[membership.KEY].teacher and "teacher" not in teacher.query_params
    return teacher.button(key=f"{CLASS_Q}_ask").click().run()
