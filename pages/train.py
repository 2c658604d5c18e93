"""Watch attention learn: train a model live and see its attention pattern emerge, from a single
MultiHeadAttention on tiny tasks to an induction head forming in the book's GPTModel."""

import streamlit as st

from ui import induction, training
from ui.router import use_router

use_router()

SETTINGS = ("tr_task", "tr_steps", "tr_heads", "tr_d_model", "tr_lr", "tr_seed", "tr_device", "tr_pace",
            *induction.SETTINGS)  # fmt: skip
s = st.session_state

st.title("Watch attention learn")
if "tr_task" not in s:  # a first visit, or back from another page (Streamlit forgot the widgets)
    s["tr_task"] = "previous"
    training.task_defaults("previous")
    s.update(s.get("_train_settings", {}))
tasks = list(training.TASK_LABELS)
st.selectbox("Task", tasks, key="tr_task", format_func=training.TASK_LABELS.get,
             on_change=lambda: training.task_defaults(s["tr_task"]))  # fmt: skip
st.caption("The pattern that solves it: " + training.TASK_GOALS[s["tr_task"]] + ".")
pace = st.radio("Pace", list(training.PACES), horizontal=True, key="tr_pace",
                format_func=training.PACE_LABELS.get)  # fmt: skip
s["_train_settings"] = {k: s[k] for k in SETTINGS if k in s}  # kept while the learner is elsewhere
if s["tr_task"] == "induction":
    induction.view(training.PACES[pace])
else:
    training.tiny_view(s["tr_task"], training.PACES[pace])
