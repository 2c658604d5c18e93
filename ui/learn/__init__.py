"""Learn's room: controls.py (sentence, seed and the address), steps.py (steps 1-3 and 6, each step's
sums and its predict-first question) and masking.py (steps 4 and 5: the causal mask and dropout)."""
