"""Which word tokenizer datatrove's filters may use: only spaCy's blank pipelines, which download nothing. A
language whose tokenizer is another (NLTK punkt, Stanza) or cannot start gets spaCy's blank English rules, and says so.
"""

from __future__ import annotations

from datatrove.utils.word_tokenizers import load_tokenizer_assignments

FALLBACK_LANGUAGE = "en"
OFFLINE_TOKENIZER = "SpaCyTokenizer"
_PROBE = "A probe sentence, to start the tokenizer."


class OfflineTokenizers:
    """Per language, the language code to hand datatrove, remembered after the first probe."""

    def __init__(self) -> None:
        self._choice: dict[str, str] = {}

    def language_for(self, lang: str | None) -> str:
        """``lang`` when datatrove's tokenizer for it runs offline, else the fallback (blank English rules)."""
        lang = lang or FALLBACK_LANGUAGE
        if lang not in self._choice:
            self._choice[lang] = lang if _runs_offline(lang) else FALLBACK_LANGUAGE
        return self._choice[lang]

    def fallbacks(self) -> list[str]:
        """Languages seen so far that were tokenized with the fallback rules."""
        return sorted(lang for lang, chosen in self._choice.items() if chosen != lang)


def _runs_offline(lang: str) -> bool:
    factory = load_tokenizer_assignments().get(lang)
    if factory is None or getattr(factory, "args", (None,))[0] != OFFLINE_TOKENIZER:
        return False
    try:
        factory().word_tokenize(_PROBE)
    except (ImportError, OSError, ValueError, RuntimeError):
        return False  # spaCy wants a package for this language's segmenter that is not installed
    return True
