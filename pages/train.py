"""Watch attention learn: train a model live and see its attention pattern emerge, from a single
MultiHeadAttention on tiny tasks to an induction head forming in the book's GPTModel, and replay
the Shakespeare model's recorded training."""

import streamlit as st

from attention.i18n import tr
from ui.router import use_router
from ui.train import around, induction, player, replay, tiny

use_router()

VIEWS = {key: view for view in (tiny, induction, replay) for key in view.TASKS}  # each task's view

st.title(tr("Watch attention learn"))
# On a projector, once a run is held its settings fold away: the curves start high enough for the
# back row to see the phase change as it happens.
folded = st.session_state.get("projector") and player.active()
with st.expander(tr("Task and settings")) if folded else st.container():
    task, pace = player.pick(VIEWS)  # the task and the pace
    view = VIEWS[task]
    config = view.controls(task)  # the view's words and knobs -> the run's config
run = player.current(config, view.RUN)  # the held run; made when Play asked for it
player.buttons(run)
view.extras(config)
if run is None:
    around.before_play(view, config, pace)  # what Play will do, and any run lost on leaving
else:
    around.show(view, run, pace)  # trained while it plays, then drawn at the scrubbed snapshot
view.after()
