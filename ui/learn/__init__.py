"""Learn's room: controls.py (sentence, seed and the address) and steps.py (each step's sums and
its predict-first question)."""
