"""AttentionTrace and plain arrays -> plotly Figures and pandas DataFrames, one module per consumer.
Never runs a model; no Streamlit.

    layout.py    colour scales, token labels, axes, the panel grid, projector text
    fit.py       titles wrapped to the width a chart is drawn at, clear of plotly's toolbar
    explorer.py  the Explorer: one head's steps, every head, vectors, one query
    compare.py   Compare: A, B and A − B
    scaling.py   Scaling: time and memory against T, log-log
    train.py     Watch it learn: curves and the probe's attention
    model.py     Inside a model: every head, one token's lines, head roles, next-token bars, exports
    export.py    tables, CSV and JSON downloads
"""
