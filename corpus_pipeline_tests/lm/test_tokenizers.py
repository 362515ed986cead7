from corpus_pipeline.lm.tokenizers import FALLBACK_LANGUAGE, OfflineTokenizers


def test_european_languages_keep_their_own_offline_spacy_rules():
    tokenizers = OfflineTokenizers()
    assert [tokenizers.language_for(lang) for lang in ("en", "fr", "de")] == ["en", "fr", "de"]
    assert tokenizers.fallbacks() == []


def test_a_language_without_an_offline_tokenizer_falls_back_to_english_rules_and_says_so():
    tokenizers = OfflineTokenizers()
    assert tokenizers.language_for("zz") == FALLBACK_LANGUAGE  # no datatrove assignment at all
    assert tokenizers.language_for(None) == FALLBACK_LANGUAGE
    assert tokenizers.fallbacks() == ["zz"]
