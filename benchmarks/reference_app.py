"""The benchmark's yardstick: the least an app can do to show one T x T plotly heatmap.

?tokens=T sets the size; the seed box changes the data (the control the benchmark turns).
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

tokens = int(st.query_params.get("tokens", "8"))
seed = st.number_input("seed", 0, 10**9, 123)
z = np.random.default_rng(int(seed)).random((tokens, tokens), dtype=np.float32)
labels = [f"t{i}" for i in range(tokens)]
fig = go.Figure(go.Heatmap(z=z, colorscale="Viridis"))
fig.update_layout(
    xaxis=dict(tickmode="array", tickvals=list(range(tokens)), ticktext=labels),
    yaxis=dict(tickmode="array", tickvals=list(range(tokens)), ticktext=labels, autorange="reversed"),
)
st.plotly_chart(fig)
