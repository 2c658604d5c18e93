"""The Explorer's engine, above the book's classes (chapter3/) and today's variants (modern/): a
sentence and the knobs in, every intermediate of the chosen module out.

    config = ExplorerConfig(text="Your journey starts with one step", heads=2)
    trace = run(config)          # AttentionTrace: x, queries, keys, ..., weights, context, output

    variants.py       the one table of module variants (the book's, the blog's, today's)
    config.py         ExplorerConfig: validates and holds the knobs
    query_params.py   untrusted strings (URL, widgets) <-> config, saying what was repaired
    engine.py         run(config) -> AttentionTrace
    snippet.py        a PyTorch script that reproduces a config's numbers
"""

from attention.explorer.config import ExplorerConfig
from attention.explorer.engine import run

__all__ = ["ExplorerConfig", "run"]
