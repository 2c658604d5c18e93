"""The book's chapter 3 and the Explorer's engine: a sentence and the knobs in, every intermediate
of the attention module out.

    config = ExplorerConfig(text="Your journey starts with one step", heads=2)
    trace = run(config)          # AttentionTrace: x, queries, keys, ..., weights, context, output

    modules.py        the book's classes (forward verbatim) + .trace(), and the attention steps
    blog_modules.py   Raschka's blog post's two variants (separate d_v, stacked heads)
    trace.py          AttentionTrace (data only) and STEPS, the one table of named steps
    variants.py       the one table of module variants
    text.py           sentence -> Tokens
    embeddings.py     Tokens -> x
    config.py         ExplorerConfig: validates and holds the knobs
    query_params.py   untrusted strings (URL, widgets) <-> config, saying what was repaired
    engine.py         run(config) -> AttentionTrace
    snippet.py        a PyTorch script that reproduces a config's numbers
    lesson.py         the Learn page's worked sums
"""

from attention.chapter3.config import ExplorerConfig
from attention.chapter3.engine import run
from attention.chapter3.trace import AttentionTrace

__all__ = ["AttentionTrace", "ExplorerConfig", "run"]
