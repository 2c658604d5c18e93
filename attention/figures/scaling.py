"""Scaling's figure: time or peak memory against the token count, on log-log axes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention.figures.layout import f32, figure, title
from attention.i18n import tr


def scaling_figure(frame: pd.DataFrame, measure: str = "ms") -> go.Figure:
    """Log-log lines of `measure` (ms or peak_bytes) against tokens, one per (device, module,
    mode), with the O(T²) slope drawn through the last point of the steepest line; for memory,
    also the size of one attention matrix, B·H·T²·4 bytes. Its words in the reader's language
    (the modules' names as the frame has them)."""
    memory = measure == "peak_bytes"
    unit = "MiB" if memory else "ms"
    frame = frame[frame[measure].notna() & (frame[measure] > 0)] if len(frame) else frame
    data = []
    for (device, module, mode), part in frame.groupby(["device", "module", "mode"], sort=False):
        part = part.sort_values("tokens")
        y = part[measure] / (2**20 if memory else 1)
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": f"{module} · {mode} · {device}",
                "x": part["tokens"].to_numpy(np.int32),
                "y": f32(y),
                "hovertemplate": f"T = %{{x}}<br>%{{y:.4g}} {unit}<extra>{mode}, {device}</extra>",
            }
        )
    if len(frame):
        tokens = np.array(sorted(frame["tokens"].unique()), dtype=float)
        top = frame.loc[frame["tokens"] == tokens.max()]
        anchor = float(top[measure].max()) / (2**20 if memory else 1)
        reference = anchor * (tokens / tokens.max()) ** 2
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": tr("O(T²) reference slope"),
                "x": tokens,
                "y": reference,
                "line": {"dash": "dash", "color": "#555555"},
                "hoverinfo": "skip",
            }
        )
        if memory:
            one = frame.drop_duplicates("tokens").sort_values("tokens")
            heads = frame["heads"].max()
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": tr("attention matrix B·H·T²·4 (H = {heads})", heads=heads),
                    "x": one["tokens"].to_numpy(np.int32),
                    "y": f32(heads * one["tokens"] ** 2 * 4 / 2**20),
                    "line": {"dash": "dot", "color": "#000000"},
                    "hoverinfo": "skip",
                }
            )
    heading = tr("Peak memory of one call") if memory else tr("Time per call (median)")
    return figure(
        data,
        {
            "title": title(heading),
            "xaxis": {"type": "log", "title": {"text": tr("tokens T")}, "dtick": math.log10(2)},
            "yaxis": {"type": "log", "title": {"text": "MiB" if memory else "ms"}, "dtick": 1},  # decades
            "height": 460,
            "legend": {"orientation": "h", "y": -0.2},
            "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        },
    )
