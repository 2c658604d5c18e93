"""Watch it learn's room: player.py (Play / Pause / Stop for any Run) and each training's view:
tiny.py (the tiny tasks), induction.py (an induction head forms), replay.py (the Shakespeare model's
recorded training)."""
