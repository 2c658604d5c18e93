"""Inside a model's room: caches.py (models loaded once and shared read-only), url.py (its address),
views.py (the picker, the sentence and each view) and lab.py (knock heads out, importance maps)."""
