"""The Explorer's room: controls.py (the sentence box and the knobs' state <-> an ExplorerConfig and
the URL), sidebar.py (the sidebar's knobs, drawn), view_controls.py (the view above the chart: which
view, step, head, query token) and views.py (the page's body, a keyed fragment, and each view)."""
