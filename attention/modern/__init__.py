"""Attention as today's LLMs compute it (Llama 3, Qwen3, Gemma, Mistral): the changes to chapter
3's multi-head attention, each traced with every intermediate kept, under the names of the book's
bonus code (its repository's ch04/03_kv-cache, 04_gqa, 06_swa; the `llms-from-scratch` package's
llama3.py), so that after the same torch.manual_seed the book's classes and ours agree.

    rope.py            compute_rope_params, apply_rope: queries and keys rotated by position
    masks.py           sliding_window_mask: causal, and at most `window` keys back
    gqa.py             GroupedQueryAttention: query heads sharing key/value heads (1 group: MQA)
    kv_cache.py        MultiHeadAttention with a KV cache: one new token at a time
    online_softmax.py  FlashAttention's softmax: key tiles, a running max and sum, no T x T matrix
"""

from attention.modern.gqa import GroupedQueryAttention, kv_cache_bytes
from attention.modern.kv_cache import MultiHeadAttention
from attention.modern.masks import sliding_window_mask
from attention.modern.online_softmax import OnlineSoftmaxAttention, online_attention
from attention.modern.rope import apply_rope, compute_rope_params

__all__ = [
    "GroupedQueryAttention",
    "MultiHeadAttention",
    "OnlineSoftmaxAttention",
    "apply_rope",
    "compute_rope_params",
    "kv_cache_bytes",
    "online_attention",
    "sliding_window_mask",
]
