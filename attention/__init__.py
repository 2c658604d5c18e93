"""Attention Explorer's backend: chapter 3's attention modules, traced step by step.

No Streamlit here: everything is importable and testable on its own.
Data flows one way: config -> tokens -> embeddings -> module -> trace -> figures.
"""

from attention.config import ExplorerConfig
from attention.engine import run
from attention.errors import ConfigError
from attention.trace import AttentionTrace

__all__ = ["AttentionTrace", "ConfigError", "ExplorerConfig", "run"]
