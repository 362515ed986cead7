"""The feature table counts what py3langid's automaton walk counts, and refuses an automaton it cannot replace."""

from __future__ import annotations

import random
from collections import Counter, deque

import numpy as np
import pytest
from py3langid.langid import visit_counts

from corpus_pipeline.extract.language_features import FeatureTable, feature_table

FEATURES = [b"ab", b"abc", b"bca", b"ca", b"cab", b"aab", b"b\xffa", b"\x00a", b"abcab", b"bcabca"]


def aho_corasick(features: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """py3langid's layout of the Aho-Corasick automaton of ``features``: transition rows, a row per state and an
    output per state (the longest feature ending the state's string, -1 for none)."""
    strings = sorted({feature[:end] for feature in features for end in range(len(feature) + 1)}, key=len)
    state = {string: number for number, string in enumerate(strings)}  # breadth first: shorter strings first
    index = {feature: number for number, feature in enumerate(features)}
    moves = np.zeros((len(strings), 256), dtype=np.uint32)
    for string in strings:  # a string's longest proper suffix is shorter: its row is already complete
        fail = next(string[cut:] for cut in range(1, len(string) + 1) if string[cut:] in state) if string else b""
        for byte in range(256):
            longer = string + bytes([byte])
            moves[state[string], byte] = state[longer] if longer in state else (moves[state[fail], byte] if string else 0)
    output = [next((index[string[cut:]] for cut in range(len(string)) if string[cut:] in index), -1) for string in strings]
    return moves.ravel(), np.arange(len(strings), dtype=np.uint32), np.array(output, dtype=np.int64)


def walked(moves: np.ndarray, rows: np.ndarray, output: np.ndarray, data: bytes) -> list[int]:
    """The features py3langid's walk outputs, in order (its ``visit_counts`` loop, keeping the list)."""
    move, base, out = moves.tolist(), [row << 8 for row in rows.tolist()], output.tolist()
    state, seen = 0, []
    for byte in data:
        state = move[base[state] + byte]
        if out[state] >= 0:
            seen.append(out[state])
    return seen


def looked_up(table: FeatureTable, data: bytes) -> list[int]:
    return table.sequence(data).tolist()


def test_table_counts_what_the_walk_counts() -> None:
    moves, rows, output = aho_corasick(FEATURES)
    table = feature_table(moves, rows, output)
    rng = random.Random(7)
    alphabet = b"abc\x00\xff "
    texts = [b"", b"a", b"ab", b"abcabcabca", bytes(range(256)), b"bcabcab" * 500]
    texts += [bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 60))) for _ in range(2000)]
    for text in texts:
        assert looked_up(table, text) == walked(moves, rows, output, text), text
        counted = visit_counts(moves.tolist(), [row << 8 for row in rows.tolist()], output.tolist(), text)
        assert Counter(looked_up(table, text)) == (counted or Counter())  # py3langid's own count agrees
    # After each byte the longest feature ending there: ab, abc, bca (not ca), abcab (not cab, ab).
    expected = [b"ab", b"abc", b"bca", b"abcab"]
    assert looked_up(table, b"xabcaby") == [FEATURES.index(feature) for feature in expected]


def test_table_refuses_an_automaton_it_would_read_differently() -> None:
    moves, rows, output = aho_corasick(FEATURES)
    feature_table(moves, rows, output)  # the true automaton is accepted
    wrong_move = moves.copy()
    wrong_move[3 * 256 + ord("a")] = 0  # one transition that forgets what it read
    with pytest.raises(ValueError):
        feature_table(wrong_move, rows, output)
    missed = output.copy()
    missed[int(np.flatnonzero(output >= 0)[-1])] = -1  # a state that should count a feature and does not
    with pytest.raises(ValueError):
        feature_table(moves, rows, missed)


def test_a_damaged_table_is_refused() -> None:
    table = feature_table(*aho_corasick(FEATURES))
    FeatureTable.of(table.slots, table.features)
    occupied = np.flatnonzero(table.slots)
    moved = np.roll(table.slots, 1)  # every key one slot away from its own
    with pytest.raises(ValueError):
        FeatureTable.of(moved, np.roll(table.features, 1))
    twice = table.slots.copy()
    twice[occupied[0]] = twice[occupied[1]]
    with pytest.raises(ValueError):
        FeatureTable.of(twice, table.features)
    with pytest.raises(ValueError):
        FeatureTable.of(table.slots[:-1], table.features[:-1])


def test_breadth_first_strings_match_the_automaton_states() -> None:
    """The helper's automaton is a fair stand-in: every state is reached, by the string it stands for."""
    moves, rows, output = aho_corasick(FEATURES)
    seen = {0: b""}
    queue = deque([0])
    while queue:
        state = queue.popleft()
        for byte in range(256):
            target = int(moves[state * 256 + byte])
            if target not in seen:
                seen[target] = seen[state] + bytes([byte])
                queue.append(target)
    assert len(seen) == len(rows) and set(FEATURES) <= set(seen.values())
