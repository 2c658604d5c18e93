"""The Streamlit layer the pages share (not pages themselves): widgets in, plain values out.

    router.py    every page's first call: run through app.py's router, even on a fresh server
    cache.py     process-wide caches keyed by plain values (traces)
    controls.py  the Explorer's sentence box and sidebar knobs -> an ExplorerConfig
    widgets.py   charts, notes, safe text, self-checks

Streamlit lives here and in pages/, never in attention/.
"""
