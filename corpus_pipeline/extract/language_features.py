"""py3langid's byte n-gram features found by table look-ups in numpy instead of its automaton walked byte by byte.

py3langid counts the features of a text by walking a deterministic automaton over its UTF-8 bytes: 104,583 states, a
256-entry transition row each (39 MiB of shared rows) and one output per state (a feature index, or -1), from Python,
one byte at a time. The automaton is Aho-Corasick's over the features' byte strings: each state stands for one string
(the shortest that reaches it), the state after a text is the longest suffix of the text that is a prefix of some
feature, and its output is the longest feature that is a suffix of it. So the feature counted after each byte is the
longest feature ending at that byte, which needs only the features' strings: 100,053 keys in a hash table (3 MiB).

:func:`feature_table` recovers the strings from the automaton and *proves* the equivalence on the automaton itself
(every transition and every output checked against the construction above), so a model that is built otherwise is
refused (``ValueError``) rather than read differently. :meth:`FeatureTable.sequence` then gives, for any bytes, the
features py3langid's walk outputs, in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_FEATURE_BYTES = 7  # a key holds the length in its top byte and up to 7 bytes of string below it
_MULTIPLIERS = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))  # odd: golden ratio, xxHash's prime
_MAX_EVICTIONS = 500
_CHUNK_STATES = 4096  # states whose transitions are checked at once (4096 x 256 entries)


def _key(lengths: np.ndarray, values: np.ndarray) -> np.ndarray:
    """One sortable integer per byte string: its length in the top byte, its bytes (big-endian) below."""
    return (lengths.astype(np.uint64) << np.uint64(56)) | values.astype(np.uint64)


@dataclass(frozen=True)
class FeatureTable:
    """The features' byte strings as keys (see :func:`_key`) in a cuckoo hash table: each key sits in one of its
    two slots (one in each half of the table), so a text's ~10,000 n-grams are looked up at once with two reads each
    and no probing loop (a binary search over sorted keys read 17 and made detection slower than the walk). An empty
    slot holds key 0, the empty string's, which no feature has, and feature -1."""

    slots: np.ndarray  # uint64 keys, 0 where empty; two halves of a power of two slots each
    features: np.ndarray  # int32, the feature index of each slot's key (-1 where empty)
    lengths: tuple[int, ...]  # the features' lengths in bytes, shortest first

    @classmethod
    def build(cls, keys: np.ndarray, features: np.ndarray) -> FeatureTable:
        """The table of distinct ``keys`` and their ``features``, under 40 % full (twice as large if cuckoo
        insertion fails, which at that load it all but never does)."""
        half = 1 << max(3, int(np.ceil(np.log2(max(len(keys), 1) * 1.25))))
        while True:
            placed = _cuckoo(keys, features, half)
            if placed is not None:
                return cls.of(*placed)
            half *= 2

    @classmethod
    def of(cls, slots: np.ndarray, features: np.ndarray) -> FeatureTable:
        """The table held in ``slots`` and ``features`` (as :meth:`build` made them, read back from files), checked:
        every key sits in one of its own two slots, once. Raises ``ValueError`` otherwise (a damaged file)."""
        half = len(slots) // 2
        shaped = slots.shape == features.shape and half >= 2 and not half & (half - 1)
        if slots.dtype != np.uint64 or features.dtype.kind != "i" or not shaped:
            raise ValueError("a feature table that is not twice a power of two of uint64 slots, one feature each")
        occupied = np.flatnonzero(slots)
        keys = slots[occupied]
        present = np.bincount((keys >> np.uint64(56)).astype(np.intp), minlength=MAX_FEATURE_BYTES + 1)
        lengths = tuple(int(length) for length in np.flatnonzero(present))
        if not len(occupied) or len(present) > MAX_FEATURE_BYTES + 1 or present[0]:
            raise ValueError("a feature table without features, or with features that are too long")
        if bool((features[occupied] < 0).any()) or bool((features[slots == 0] != -1).any()):
            raise ValueError("a feature table with a key without its feature, or a feature without its key")
        first, second = _homes(keys, half)
        in_first = occupied == first
        if not bool((in_first | (occupied == second)).all()):
            raise ValueError("a feature table whose keys are not in their own slots")
        if bool((slots[second[in_first]] == keys[in_first]).any()):  # a key held twice sits in both its slots
            raise ValueError("a feature table with a key twice")
        return cls(slots=slots, features=features, lengths=lengths)

    def find(self, wanted: np.ndarray) -> np.ndarray:
        """The feature of each key of ``wanted`` (uint64), -1 for a key that is no feature's (key 0 included)."""
        # ``take`` rather than fancy indexing: the same elements, without numpy's general indexing machinery (and,
        # on a memory-mapped table, without ``memmap.__getitem__``'s Python wrapper), ~2x faster on a text's keys.
        slots, features = np.asarray(self.slots), np.asarray(self.features)
        first, second = _homes(wanted, len(slots) // 2)
        slot = np.where(slots.take(first) == wanted, first, second)
        return np.where(slots.take(slot) == wanted, features.take(slot), -1)

    def sequence(self, data: bytes) -> np.ndarray:
        """The features py3langid's automaton outputs while it walks ``data``, in order: after each byte, the longest
        feature that ends there (bytes that end none output nothing)."""
        text = np.frombuffer(data, dtype=np.uint8).astype(np.uint64)
        # Row r, column i: the key of the n-gram of length lengths[r] that ends at byte i (0 where none fits). One
        # contiguous row per length: writing rows is cheaper than writing strided columns.
        keys = np.zeros((len(self.lengths), len(text)), dtype=np.uint64)
        codes = text.copy()
        for length in range(1, self.lengths[-1] + 1):
            if length > 1:
                codes[length - 1 :] = (codes[length - 2 : -1] << np.uint64(8)) | text[length - 1 :]
            if length in self.lengths:
                row = self.lengths.index(length)
                np.bitwise_or(codes[length - 1 :], np.uint64(length << 56), out=keys[row, length - 1 :])
        found = self.find(keys.ravel()).reshape(keys.shape)
        longest = found[-1].copy()
        for row in range(len(self.lengths) - 2, -1, -1):  # the longest feature ending at each byte, if any
            np.copyto(longest, found[row], where=longest < 0)
        return longest[longest >= 0]


def _homes(keys: np.ndarray, half: int) -> tuple[np.ndarray, np.ndarray]:
    """Each key's two slots in a table of two halves of ``half`` (a power of two) slots: multiplicative hashing, the
    top bits of the key times an odd constant, one constant per half."""
    shift = np.uint64(64 - half.bit_length() + 1)
    with np.errstate(over="ignore"):
        keys = keys.astype(np.uint64, copy=False)
        first = ((keys * _MULTIPLIERS[0]) >> shift).astype(np.intp)
        second = ((keys * _MULTIPLIERS[1]) >> shift).astype(np.intp) + half
    return first, second


def _cuckoo(keys: np.ndarray, features: np.ndarray, half: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Slots and features of a cuckoo table of two halves of ``half`` slots holding ``keys``; None when an insertion
    evicts keys in a cycle (the caller grows the table)."""
    firsts, seconds = (homes.tolist() for homes in _homes(keys, half))
    slots = [0] * (2 * half)
    owners = [-1] * (2 * half)
    where = {}  # key -> its two slots
    for key, first, second in zip(keys.tolist(), firsts, seconds, strict=True):
        where[key] = (first, second)
    for key, feature in zip(keys.tolist(), features.tolist(), strict=True):
        slot = where[key][0]
        for _ in range(_MAX_EVICTIONS):
            key, slots[slot] = slots[slot], key
            feature, owners[slot] = owners[slot], feature
            if not key:
                break
            first, second = where[key]
            slot = second if slot == first else first  # the evicted key moves to its other slot
        else:
            return None
    return np.array(slots, dtype=np.uint64), np.array(owners, dtype=np.int32)


def feature_table(nextmove: np.ndarray, row: np.ndarray, output: np.ndarray) -> FeatureTable:
    """The features of py3langid's automaton (``nextmove`` rows of 256, ``row`` per state, ``output`` per state).

    Raises ``ValueError`` when the automaton is not the Aho-Corasick automaton of the strings recovered, that is when
    the look-ups of :class:`FeatureTable` would not count exactly what the automaton's walk counts.
    """
    rows = np.asarray(nextmove).reshape(-1, 256)
    state_row = np.asarray(row, dtype=np.int64)
    output = np.asarray(output, dtype=np.int64)
    lengths, values = _state_strings(rows, state_row)
    keys = _key(lengths, values)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if len(sorted_keys) > 1 and bool((sorted_keys[1:] == sorted_keys[:-1]).any()):
        raise ValueError("two automaton states stand for the same string")
    fail = _failure_links(lengths, values, sorted_keys, order)
    _check_transitions(rows, state_row, lengths, values, sorted_keys, order, fail)
    feature_states = _check_outputs(output, lengths, fail)
    feature_keys = keys[feature_states]
    features = output[feature_states]
    return FeatureTable.build(feature_keys, features.astype(np.int32))


def _state_strings(rows: np.ndarray, state_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Length and bytes (big-endian integer) of the shortest string reaching each state, breadth first from state 0."""
    states = len(state_row)
    lengths = np.full(states, -1, dtype=np.int64)
    values = np.zeros(states, dtype=np.uint64)
    lengths[0] = 0
    frontier = np.zeros(1, dtype=np.int64)
    while len(frontier):
        children = rows[state_row[frontier]].astype(np.int64)
        parents, letters = np.nonzero(lengths[children] < 0)
        reached, first = np.unique(children[parents, letters], return_index=True)
        if len(reached) and int(lengths[frontier[0]]) + 1 > MAX_FEATURE_BYTES:
            raise ValueError(f"automaton strings longer than {MAX_FEATURE_BYTES} bytes")
        parent_states = frontier[parents[first]]
        lengths[reached] = lengths[parent_states] + 1
        values[reached] = (values[parent_states] << np.uint64(8)) | letters[first].astype(np.uint64)
        frontier = reached
    if bool((lengths < 0).any()):
        raise ValueError("automaton states that no string reaches")
    return lengths, values


def _lookup(wanted: np.ndarray, sorted_keys: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The state whose key is each of ``wanted``, -1 where none is."""
    where = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    return np.where(sorted_keys[where] == wanted, order[where], -1)


def _failure_links(
    lengths: np.ndarray, values: np.ndarray, sorted_keys: np.ndarray, order: np.ndarray
) -> np.ndarray:
    """Each state's longest proper suffix that is a state (0, the empty string, at least; 0 for state 0 too)."""
    fail = np.zeros(len(lengths), dtype=np.int64)
    pending = np.flatnonzero(lengths > 1)  # states of one byte fail to the empty string
    for suffix in range(int(lengths.max(initial=0)) - 1, 0, -1):
        candidates = pending[lengths[pending] > suffix]
        mask = np.uint64((1 << (8 * suffix)) - 1)
        found = _lookup(_key(np.full(len(candidates), suffix), values[candidates] & mask), sorted_keys, order)
        hit = found >= 0
        fail[candidates[hit]] = found[hit]
        pending = np.setdiff1d(pending, candidates[hit], assume_unique=True)
    return fail


def _check_transitions(
    rows: np.ndarray,
    state_row: np.ndarray,
    lengths: np.ndarray,
    values: np.ndarray,
    sorted_keys: np.ndarray,
    order: np.ndarray,
    fail: np.ndarray,
) -> None:
    """Every transition goes where Aho-Corasick's would: to the state of string+byte if there is one, else to where
    the failure link's state goes on that byte (state 0 on a byte that starts no string)."""
    letters = np.arange(256, dtype=np.uint64)
    for start in range(0, len(state_row), _CHUNK_STATES):
        states = np.arange(start, min(start + _CHUNK_STATES, len(state_row)))
        actual = rows[state_row[states]].astype(np.int64)
        longer = _key(
            np.repeat(lengths[states] + 1, 256).reshape(-1, 256),
            (values[states, None] << np.uint64(8)) | letters[None, :],
        )
        expected = _lookup(longer.ravel(), sorted_keys, order).reshape(-1, 256)
        otherwise = rows[state_row[fail[states]]].astype(np.int64)
        otherwise[states == 0] = 0  # from the empty string, a byte that starts no string stays at the empty string
        expected = np.where(expected >= 0, expected, otherwise)
        if not np.array_equal(actual, expected):
            raise ValueError("automaton transitions that are not Aho-Corasick's over its states' strings")


def _check_outputs(output: np.ndarray, lengths: np.ndarray, fail: np.ndarray) -> np.ndarray:
    """The state of each feature's own string (the shortest state outputting it), having checked that every state
    outputs its own feature, else its failure link's output: the longest feature that is a suffix of its string.

    (Two states of one length outputting the same feature fail the check: neither string is a suffix of the other.)
    """
    outputting = np.flatnonzero(output >= 0)
    ranked = outputting[np.lexsort((lengths[outputting], output[outputting]))]  # per feature, shortest first
    firsts = np.ones(len(ranked), dtype=bool)
    firsts[1:] = output[ranked[1:]] != output[ranked[:-1]]
    own = ranked[firsts]
    is_own = np.zeros(len(output), dtype=bool)
    is_own[own] = True
    expected = np.where(is_own, output, output[fail])
    expected[0] = -1  # the empty string is no feature (and state 0 is its own failure link)
    if not np.array_equal(output, expected):
        raise ValueError("automaton outputs that are not the longest feature ending its state's string")
    return own
