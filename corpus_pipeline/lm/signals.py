"""Per record: language, counts, datatrove's verdicts under a policy, and whether the record is kept."""

from __future__ import annotations

from dataclasses import dataclass, field

from datatrove.data import Document
from datatrove.pipeline.filters import (
    C4QualityFilter,
    FineWebQualityFilter,
    GopherQualityFilter,
    GopherRepetitionFilter,
)
from datatrove.pipeline.filters.base_filter import BaseFilter, get_filter_result
from datatrove.utils.text import split_into_words

from corpus_pipeline.extract.metadata import detect_lang
from corpus_pipeline.lm.measures import measures, non_symbol_words
from corpus_pipeline.lm.policy import QualityPolicy
from corpus_pipeline.lm.tokenizers import OfflineTokenizers

# Gopher's stop words are English; other languages would all fail that rule, so it applies to English only.
STOP_WORD_LANGUAGES = ("en",)


@dataclass
class RecordSignals:
    """What the quality stage says about one text."""

    lang_detected: str | None
    lang_score: float
    words: int
    chars: int
    measures: dict[str, float] | None
    verdicts: dict[str, str | None]  # filter name -> the rule it failed, None when passed
    error: str | None = None
    keep: bool = field(init=False)
    drop_reason: str | None = field(init=False)

    def __post_init__(self) -> None:
        failed = [f"{name}:{reason}" for name, reason in self.verdicts.items() if reason is not None]
        self.drop_reason = failed[0] if failed else None
        self.keep = not failed and self.error is None


class RecordScorer:
    """Scores texts under one policy; datatrove's filters are built once per tokenizer language."""

    def __init__(self, policy: QualityPolicy) -> None:
        self.policy = policy
        self.tokenizers = OfflineTokenizers()
        self._filters: dict[tuple[str, str], list[tuple[str, BaseFilter]]] = {}

    def score(self, text: str | None, lang_hint: str | None) -> RecordSignals:
        """The signals of one text; ``lang_hint`` (the record's lang) stands when detection has too little text."""
        text = text or ""
        detected, probability = detect_lang(text) if text.strip() else (None, 0.0)
        lang = detected or lang_hint
        if not text.strip():
            verdicts: dict[str, str | None] = {name: "empty" for name in self.policy.enabled_in_order()}
            return RecordSignals(lang, probability, 0, len(text), None, verdicts)
        tokenizer_lang = self.tokenizers.language_for(lang)
        try:
            words = split_into_words(text, tokenizer_lang)
            values = measures(text, words)
            verdicts = self._verdicts(text, lang, probability, tokenizer_lang)
        except Exception as error:  # noqa: BLE001 - a text that breaks a tokenizer or filter is recorded, not fatal
            return RecordSignals(lang, probability, 0, len(text), None, {}, f"{type(error).__name__}: {error}")
        return RecordSignals(lang, probability, len(non_symbol_words(words)), len(text), values, verdicts)

    def _verdicts(self, text: str, lang: str | None, probability: float, tokenizer_lang: str) -> dict[str, str | None]:
        verdicts: dict[str, str | None] = {}
        if "language" in self.policy.enabled:
            verdicts["language"] = self._language_verdict(lang, probability)
        # One document through the filters in order, as in a datatrove pipeline: C4 drops lines from the text
        # the FineWeb filter then sees. Every filter runs, so each has a verdict even after an earlier failure.
        document = Document(text=text, id="record")
        for name, datatrove_filter in self._filters_for(lang or "", tokenizer_lang):
            passed, reason = get_filter_result(datatrove_filter.filter(document))
            verdicts[name] = None if passed else (reason or "failed")
        return verdicts

    def _language_verdict(self, lang: str | None, probability: float) -> str | None:
        if self.policy.languages and lang not in self.policy.languages:
            return "not_in_policy_languages"
        if probability < self.policy.min_language_score:
            return "low_language_score"
        return None

    def _filters_for(self, lang: str, tokenizer_lang: str) -> list[tuple[str, BaseFilter]]:
        """The policy's datatrove filters for a language, in pipeline order, built once."""
        key = (lang, tokenizer_lang)
        if key in self._filters:
            return self._filters[key]
        p = self.policy
        built = [
            ("gopher_repetition", GopherRepetitionFilter(language=tokenizer_lang)),
            (
                "gopher_quality",
                GopherQualityFilter(
                    min_doc_words=p.min_doc_words,
                    max_doc_words=p.max_doc_words,
                    min_avg_word_length=p.min_avg_word_length,
                    max_avg_word_length=p.max_avg_word_length,
                    max_symbol_word_ratio=p.max_symbol_word_ratio,
                    max_bullet_lines_ratio=p.max_bullet_lines_ratio,
                    max_ellipsis_lines_ratio=p.max_ellipsis_lines_ratio,
                    max_non_alpha_words_ratio=p.max_non_alpha_words_ratio,
                    min_stop_words=p.min_stop_words if lang in STOP_WORD_LANGUAGES else None,
                    language=tokenizer_lang,
                ),
            ),
            (
                "c4",
                C4QualityFilter(
                    filter_no_terminal_punct=p.c4_filter_no_terminal_punct,
                    min_num_sentences=p.c4_min_num_sentences,
                    language=tokenizer_lang,
                ),
            ),
            (
                "fineweb",
                FineWebQualityFilter(
                    line_punct_thr=p.line_punct_thr,
                    short_line_thr=p.short_line_thr,
                    char_duplicates_ratio=p.char_duplicates_ratio,
                    new_line_ratio=p.new_line_ratio,
                    language=tokenizer_lang,
                ),
            ),
        ]
        self._filters[key] = [(name, built_filter) for name, built_filter in built if name in p.enabled]
        return self._filters[key]
