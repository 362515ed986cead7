"""The one settings object of extraction."""

import dataclasses

import pytest

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings


def test_settings_are_frozen_and_changed_only_by_copy():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_SETTINGS.min_growth = 3  # type: ignore[misc]
    changed = dataclasses.replace(DEFAULT_SETTINGS, min_growth=3.0)
    assert changed.min_growth == 3.0 and DEFAULT_SETTINGS.min_growth == 1.5
    assert ExtractionSettings() == DEFAULT_SETTINGS, "the default instance is the production one"


def test_every_rule_switch_is_on_by_default():
    switches = [field.name for field in dataclasses.fields(ExtractionSettings) if field.type in ("bool", bool)]
    assert len(switches) >= 5
    assert all(getattr(DEFAULT_SETTINGS, name) is True for name in switches)
