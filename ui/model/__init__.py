"""Inside a model's room: caches.py (models loaded once and shared read-only), url.py (its address),
views.py (the picker, the sentence and each view), roles.py (every head's role, one click to the
best) and lab.py (knock heads out, importance maps)."""
