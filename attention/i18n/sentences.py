"""The book's first sentence, "Your journey starts with one step", in each interface language:
where a page opens on a sentence, it opens on the reader's language's. The book's printed
numbers stay on its English sentence (its vectors are defined for those six words)."""

from __future__ import annotations

from attention.i18n import DEFAULT, language

JOURNEY = {
    "en": "Your journey starts with one step",
    "uk": "Твоя подорож починається з одного кроку",
    "pl": "Twoja podróż zaczyna się od jednego kroku",
    "ja": "あなたの旅は一歩から始まります",
    "ko": "당신의 여정은 한 걸음에서 시작됩니다",
    "af": "Jou reis begin met een tree",
}


def journey(code: str | None = None) -> str:
    """The sentence in `code` (default: this thread's language), English where we have none."""
    return JOURNEY.get(code or language(), JOURNEY[DEFAULT])
