"""Which of a fixed list of texts contain a value as a substring, without scanning them all.

Layer: evidence (private; pure). Asking ``value in text`` of every earlier text for every
argument value costs texts x values: quadratic in a run's length. This index answers the same
question exactly, reading only texts that *can* contain the value.

Texts are split into maximal runs of word characters (``\\w+``), their *tokens*. When a text
contains a value, every token of the value that does not touch the value's ends (an *interior*
token: non-word characters on both sides, inside the value) is a whole token of the text too,
so the texts holding that token are the only candidates. A token touching an end of the value
may continue in the text (``12345`` in ``RES12345``): for a value with no interior token the
candidates are the texts holding a token that *contains* the value's longest token. Those
containing tokens are found for every such value at once, in one pass over the distinct tokens
of the texts that looks up each of their substrings of the queried lengths — linear in the
distinct text, where a per-value search of the tokens would be quadratic again. Every candidate
is then checked with ``in``: the answer is exactly the texts a full scan would find. Only a
value with no word character at all (``-----``) is checked against every text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"\w+")

_NONE: tuple[int, ...] = ()


def _edge_token(value: str) -> str | None:
    """The token to look a value up by when it has no interior token, else None."""
    spans = [(m.start(), m.end()) for m in _WORD.finditer(value)]
    end = len(value)
    if not spans or any(a > 0 and b < end for a, b in spans):
        return None
    return max((value[a:b] for a, b in spans), key=len)


class TextIndex:
    """An exact substring index over a fixed sequence of texts.

    Args:
        texts: The texts, by position; read, never copied.
        values: The values that will be asked about, when known: the tokens they need looked
            up inside longer tokens are then found in one pass. Any other value still gets an
            exact answer, at the cost of a pass of its own.
    """

    def __init__(self, texts: Sequence[str], values: Iterable[str] = ()) -> None:
        self._texts = texts
        self._pending: set[str] = set(values)
        # Answers are kept as tuples: a tuple of strings or ints is untracked by the cyclic
        # collector, so an index as large as the run adds nothing to its full collections.
        self._postings: dict[str, tuple[int, ...]] | None = None
        self._within: dict[str, tuple[str, ...]] = {}
        self._found: dict[str, tuple[int, ...]] = {}

    def __len__(self) -> int:
        return len(self._texts)

    def containing(self, value: str) -> tuple[int, ...]:
        """Positions of the texts that contain ``value``, ascending (memoised per value)."""
        found = self._found.get(value)
        if found is None:
            texts = self._texts
            hits = [i for i in self._candidates(value) if value in texts[i]]
            found = self._found[value] = tuple(hits) if hits else _NONE
        return found

    def _candidates(self, value: str) -> Sequence[int]:
        """Positions of texts that may contain ``value`` (a superset of those that do)."""
        if not _WORD.search(value):
            return range(len(self._texts))
        postings = self._token_postings()
        token = _edge_token(value)
        if token is None:
            end = len(value)
            interior = [
                value[m.start() : m.end()]
                for m in _WORD.finditer(value)
                if m.start() > 0 and m.end() < end
            ]
            return min((postings.get(t, _NONE) for t in interior), key=len)
        words = self._words_containing(token)
        if len(words) == 1:
            return postings[words[0]]
        hits: set[int] = set()
        for word in words:
            hits.update(postings[word])
        return sorted(hits)

    def _token_postings(self) -> dict[str, tuple[int, ...]]:
        """Each distinct token -> the positions of the texts holding it, ascending."""
        if self._postings is None:
            postings: dict[str, list[int]] = {}
            for i, text in enumerate(self._texts):
                for token in set(_WORD.findall(text)):
                    postings.setdefault(token, []).append(i)
            self._postings = {token: tuple(at) for token, at in postings.items()}
        return self._postings

    def _words_containing(self, token: str) -> tuple[str, ...]:
        """Distinct tokens of the texts that contain ``token`` (resolved with every pending
        value's token in one pass)."""
        words = self._within.get(token)
        if words is None:
            wanted = {token}
            for value in self._pending:
                edge = _edge_token(value)
                if edge is not None and edge not in self._within:
                    wanted.add(edge)
            self._pending = set()
            self._within.update((t, tuple(w)) for t, w in self._scan(wanted).items())
            words = self._within[token]
        return words

    def _scan(self, wanted: set[str]) -> dict[str, list[str]]:
        """For each of ``wanted``, the distinct tokens containing it: every substring of every
        distinct token, at each wanted length, looked up once."""
        out: dict[str, list[str]] = {t: [] for t in wanted}
        lengths = sorted({len(t) for t in wanted})
        for word in self._token_postings():
            n = len(word)
            for length in lengths:
                if length > n:
                    break
                if length == n:
                    if word in wanted:
                        out[word].append(word)
                    continue
                # A set per length: a token found twice in one word names the word once, and
                # the intersection runs in C over the smaller side.
                for piece in {word[k : k + length] for k in range(n - length + 1)} & wanted:
                    out[piece].append(word)
        return out
