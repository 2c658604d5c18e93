"""Compare and measure: every variant against the math, and how cost grows with the token count.

reference.py    the float64 reference and the one draw of weights every implementation shares
equivalence.py  every implementation loaded with those weights, against the reference; the table
                of implementations (the book's variants, today's and torch's two), read by field
modern.py       today's attention's loaders: grouped-query, a sliding window, the online softmax
measure.py      timing (torch.utils.benchmark) and peak memory (CUDA allocator, Linux RSS)
sweep.py        time and memory as T doubles; the command line (python -m attention.bench)
process.py      a sweep in a child process, as the Scaling page runs one (and stops it)
"""

from attention.bench.equivalence import (
    IMPLEMENTATIONS,
    applicable,
    embedding_input,
    equivalence_table,
    load,
    sentence_table,
)
from attention.bench.measure import PEAK_RESOLUTION, peak_bytes, prepare_cpu_memory_measurement, time_call
from attention.bench.process import SweepProcess, allowed_tokens, attention_limit, command
from attention.bench.reference import Weights, reference
from attention.bench.sweep import (
    DEFAULT_SCALING_VARIANTS,
    SCALING_COLUMNS,
    main,
    overhead,
    scaling_points,
    scaling_rows,
    scaling_summary,
)

__all__ = [
    "DEFAULT_SCALING_VARIANTS",
    "IMPLEMENTATIONS",
    "PEAK_RESOLUTION",
    "SCALING_COLUMNS",
    "SweepProcess",
    "Weights",
    "allowed_tokens",
    "applicable",
    "attention_limit",
    "command",
    "embedding_input",
    "equivalence_table",
    "load",
    "main",
    "overhead",
    "peak_bytes",
    "prepare_cpu_memory_measurement",
    "reference",
    "scaling_points",
    "scaling_rows",
    "scaling_summary",
    "sentence_table",
    "time_call",
]
