"""The Explorer's room: controls.py (the sentence box, the sidebar knobs and the view <-> an
ExplorerConfig and the URL) and views.py (the page's body, a keyed fragment, and each view)."""
