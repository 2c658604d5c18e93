"""The lessons' worked numbers, above the engine: each function answers one question a lesson asks.

chapter3.py   the Learn page: simplified attention's sums, scaling, masks, dropout, heads
modern.py     the Modern attention page: KV cache, grouped-query, window, RoPE, online softmax
"""
