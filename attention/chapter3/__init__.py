"""The book's chapter 3: its attention classes and the data they produce, with nothing of the
Explorer above them (attention/explorer/ holds the engine that drives them).

    modules.py        the book's classes (forward verbatim) + .trace(), and the attention steps
    blog_modules.py   Raschka's blog post's two variants (separate d_v, stacked heads)
    trace.py          AttentionTrace (data only) and STEPS, the one table of named steps
    text.py           sentence -> Tokens
    embeddings.py     Tokens -> x
"""

from attention.chapter3.trace import AttentionTrace

__all__ = ["AttentionTrace"]
