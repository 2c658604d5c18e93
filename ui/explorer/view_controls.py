"""The Explorer's view controls above the chart: which view (Steps, All heads, Vectors, Query
focus, Tokens, Share), which step, head and query token, numbers in the cells and fitted colours;
their defaults for the trace shown, and which of them a learner chose (for the URL).

They live in widget keys named as their URL parameters (query_params.VIEW_PARAMS); controls.py
loads them from a link, views.py draws what they pick.
"""

from __future__ import annotations

import streamlit as st

from attention.chapter3.trace import AttentionTrace
from attention.explorer.query_params import ALL_STEPS, VIEW_PARAMS
from attention.i18n import N_, tr, tr_n
from ui import url
from ui.widgets import narrow

VIEW_LABELS = {  # query_params.VIEWS (the widget's values) -> the view's button
    "steps": N_("Steps"),
    "heads": N_("All heads"),
    "vectors": N_("Vectors"),
    "query": N_("Query focus"),
    "tokens": N_("Tokens"),
    "share": N_("Share, code & downloads"),
}
NUMBERS_UP_TO = 12  # tokens: numbers in the cells by default up to here, readable on a projector
FIT_FROM = 64  # tokens: from here a weights colour scale fitted to the values by default
FITTED_HELP = N_(
    "By default the colours run from weight 0 to weight 1. With hundreds of tokens most weights are tiny. "
    "A scale from the smallest weight to the 99th percentile shows their differences; the largest 1% all "
    "get the top colour."
)


def explorer_view(trace: AttentionTrace) -> dict:
    """The view controls above the chart -> what to show: view, step, head, query, numbers and
    fitted colours. Returns the values that differ from the defaults (for the URL) under
    "shown", and all of them."""
    s = st.session_state
    url.hold(VIEW_PARAMS)  # a fragment run too: Tokens draws no step box, yet the step must stay
    _view_defaults(trace)
    st.segmented_control(
        tr("View"),
        list(VIEW_LABELS),
        key="view",
        format_func=lambda k: tr(VIEW_LABELS[k]),
        label_visibility="collapsed",
    )
    view = s["view"]
    if view == "steps":
        st.segmented_control(
            tr("Step"),
            [*trace.step_names(), ALL_STEPS],
            key="step",
            label_visibility="collapsed",
            format_func=lambda step: tr("all steps side by side") if step == ALL_STEPS else step,
            on_change=lambda: s.update(_step_auto=s.get("step") is None),
        )
    # One flex row (one message to the browser; three columns were four)
    pick_head = numbers = fitted = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    if view in ("steps", "vectors", "query") and trace.num_heads > 1:
        pick_head.radio(
            tr("Head"),
            range(trace.num_heads),
            key="head",
            horizontal=True,
            format_func=lambda h: tr("head {h}", h=h),
            label_visibility="collapsed",
        )
    if view == "steps":
        numbers.toggle(
            tr("Numbers in the cells"),
            key="numbers",
            on_change=lambda: s.update(_numbers_auto=False),
            help=tr_n(
                "On by default up to {n} token; hover shows any cell.",
                "On by default up to {n} tokens; hover shows any cell.",
                NUMBERS_UP_TO,
                n=NUMBERS_UP_TO,
            ),
        )
        fitted.toggle(
            tr("Fit the colours to the values"),
            key="fitted",
            on_change=lambda: s.update(_fitted_auto=False),
            help=tr(FITTED_HELP),
        )
    if view == "query":
        labels = [f"{i}: {t}" for i, t in enumerate(trace.tokens.texts)]
        st.selectbox(tr("Query token"), range(trace.num_tokens), key="query", format_func=labels.__getitem__)
    return _shown(view)


def _view_defaults(trace: AttentionTrace) -> None:
    """Fill in the view's values this trace needs: a step it went through (by default its last,
    what the context sums), a head and a query it has, numbers and fitted colours for its size."""
    s = st.session_state
    n, steps = trace.num_tokens, trace.step_names()
    # (a click on the chosen step unselects it, None: back to the default step)
    if s.get("_step_auto", True) or s.get("step") not in [*steps, ALL_STEPS]:
        s["step"] = steps[-1]
    for name, default in (("numbers", n <= NUMBERS_UP_TO and not narrow()), ("fitted", n >= FIT_FROM)):
        if s.get(f"_{name}_auto", True) or name not in s:
            s[name] = default
    s["head"] = min(s.get("head", 0), trace.num_heads - 1)
    s["query"] = min(s.get("query", min(1, n - 1)), n - 1)
    if s.get("view") not in VIEW_LABELS:
        s["view"] = "steps"


def _shown(view: str) -> dict:
    """Every view value, and under "shown" those a learner chose (None: the default, not in the URL)."""
    s = st.session_state
    values = {
        "view": view,
        "step": s["step"],
        "head": s["head"],
        "query": s["query"],
        "numbers": bool(s["numbers"]),
        "fitted": bool(s["fitted"]),
    }
    shown = {
        "view": view if view != "steps" else None,
        "step": None if s.get("_step_auto", True) else s["step"],
        "head": s["head"] or None,
        "query": None if view != "query" else s["query"],
        "numbers": None if s.get("_numbers_auto", True) else int(values["numbers"]),
        "fitted": None if s.get("_fitted_auto", True) else int(values["fitted"]),
    }
    return values | {"shown": shown}
