"""Attention Explorer's backend: no Streamlit here, everything importable and testable on its own.

One room per concept:

    chapter3/   the book's chapter 3: its classes, AttentionTrace, text -> tokens, embeddings
    modern/     attention as today's LLMs compute it: RoPE, grouped-query, sliding window, KV cache,
                FlashAttention's online softmax, each traced under the book's bonus code's names
    explorer/   the Explorer's engine above both: variants, ExplorerConfig, URL params, run, snippet
    lessons/    the Learn and Modern lessons' worked numbers, above the engine
    model/      the book's chapter-4 GPTModel, GPT-2 checkpoints and tokenizer, head roles, the catalogue
    training/   live trainings (one Run contract), the recipes that make the shipped models, the CLI
    figures/    traces and arrays -> plotly figures and tables, one module per page
    bench/      equivalence with a float64 reference, timing, the scaling sweep
    classroom/  class mode: join codes, answers held until the teacher reveals, the teacher's view,
                the store that keeps them (SQLite by default, Redis), the CLI

and the few things every room shares: settings.py (every ATTENTION_* setting), slots.py (every
limit on what runs at once), devices.py (CPU/CUDA/MPS and fallbacks), errors.py (ConfigError).

`attention.run`, `attention.ExplorerConfig`, `attention.AttentionTrace` and `attention.ConfigError`
still answer, as before the rooms: each is looked up when first asked for (no import cycle).
"""

_NAMES = {
    "run": "attention.explorer",
    "ExplorerConfig": "attention.explorer",
    "AttentionTrace": "attention.chapter3",
    "ConfigError": "attention.errors",
}


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module 'attention' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_NAMES[name]), name)
