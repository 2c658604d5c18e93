"""Inside a model's room: caches.py (models loaded once and shared read-only), url.py (its address),
picker.py (the model and the sentence), views.py (each view), roles.py (every head's role, one
click to the best), reading.py (the loss on each token, the note on <|endoftext|>) and lab.py
(knock heads out, importance maps)."""
