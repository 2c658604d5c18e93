"""The Modern attention page: its sentence (kept in the address) and its five sections, each asking
its question before answering it with live numbers."""

from ui.modern.sections import grouped, kv_cache, online, rope, window
from ui.modern.sentence import keep_url, sentence, sync_url

__all__ = ["grouped", "keep_url", "kv_cache", "online", "rope", "sentence", "sync_url", "window"]
