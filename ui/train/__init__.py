"""Watch it learn's room: player.py (Play / Pause / Stop and the training loop for any Run),
around.py (the words around the player, the scrub slider, show()) and each training's view: tiny.py
(the tiny tasks), induction.py (an induction head forms), replay.py (the Shakespeare model's
recorded training)."""
