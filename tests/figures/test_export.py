"""Tables and downloads, straight from a trace."""

import json

import numpy as np

from attention.explorer import run
from attention.figures import export
from tests.figures.test_explorer import HOSTILE


def test_weighted_sum_equals_the_context_row():
    trace = run(HOSTILE)
    frame = export.weighted_sum_frame(trace, head=0, query=3)
    np.testing.assert_allclose(frame.iloc[:-1].sum().to_numpy(), frame.iloc[-1].to_numpy(), atol=1e-6)


def test_matrix_frame_labels_rows_and_columns_with_tokens():
    trace = run(HOSTILE)
    frame = export.matrix_frame(trace, "weights", head=0)
    assert frame.shape == (trace.num_tokens, trace.num_tokens) and frame.index[0] == "0:<"
    assert "the" in frame.columns[-1]


def test_trace_json_has_every_tensor_and_can_keep_one_head():
    trace = run(HOSTILE)
    whole = json.loads(export.trace_json(trace))
    assert (
        set(whole["tensors"]) == set(trace.TENSORS) and whole["tensors"]["masked_scores"][0][0][0][-1] is None
    )
    assert whole["divisor"] == trace.divisor and whole["config"]["variant"] == "mha"
    one = json.loads(export.trace_json(trace, head=1))
    assert np.array_equal(np.array(one["tensors"]["weights"])[0, 0], trace.weights[0, 1].numpy())
