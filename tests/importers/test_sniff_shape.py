"""The shape of a file's first JSON value read fast equals it read token by token.

:func:`footprint_lab.importers._sniff.shape_of` skips a value under a key it reads with the C
JSON decoder, stops at a value the sniff cut, and skips deeper text a bracket at a time. The
oracle is the plain reading it replaced, every token in turn (:func:`tokenwise`), on generated
JSON (compact and indented, keys and values of every kind, cut anywhere, with broken text
spliced in) and on every real file in ``data/`` (whole, cut, and line by line).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

# the tokens and a string token's text are shared; the reading of them is the oracle's own
from footprint_lab.importers._sniff import _TOKEN, Shape, _string, shape_of
from tests.budget import examples

DATA = Path(__file__).resolve().parents[2] / "data"


def tokenwise(text: str) -> Shape:
    """The oracle: the first value's shape, reading every token."""
    shape: Shape | None = None
    depth = level = 0
    expect_key = False
    key: str | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first.isspace():
            if shape is not None and "\n" in token:
                shape.one_line = False
            continue
        if shape is None:
            if first not in "{[":
                return Shape("other")
            shape = Shape("object" if first == "{" else "list")
            depth, level, expect_key = 1, (1 if first == "{" else 2), first == "{"
            continue
        if shape.kind == "list" and depth == 1 and first != "{":
            return shape
        if first in "{[":
            depth += 1
            key = None
            expect_key = depth == level and first == "{"
            continue
        if first in "}]":
            depth -= 1
            if depth == 0 or depth < level:
                return shape
            continue
        if depth != level:
            continue
        if first == ",":
            expect_key, key = True, None
        elif first == ":":
            expect_key = False
        elif first == '"' and expect_key:
            key = _string(token)
            shape.keys.add(key)
        elif first == '"' and key is not None:
            shape.texts[key] = _string(token)
    return shape or Shape("empty")


def facts(shape: Shape) -> tuple[Any, ...]:
    return shape.kind, shape.keys, shape.texts, shape.one_line


_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=6)
)
_JSON = st.recursive(
    _SCALAR,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=30,
)
_BROKEN = st.sampled_from(["", "", "", "{", "]", '"', "\n", "tru", ",,", "'x'", "\\", "\t\n "])


@settings(max_examples=examples(1000), deadline=None)
# found by this test in a make test: a raw line break spliced into a key the sniff's end cut
@example(
    value={"": False, "000": {"": None, "\x1f": None}, "0": None, "1": None},
    indent=None,
    cut=0.3125,
    splice="\n",
    where=0.3125,
    raw_control=False,
)
@given(
    value=st.one_of(
        st.dictionaries(st.text(max_size=4), _JSON, max_size=6),
        st.lists(st.dictionaries(st.text(max_size=4), _JSON, max_size=4), max_size=3),
        _JSON,
    ),
    indent=st.sampled_from([None, 1, 2]),
    cut=st.floats(0, 1),
    splice=_BROKEN,
    where=st.floats(0, 1),
    raw_control=st.booleans(),
)
def test_the_shape_read_fast_equals_the_shape_read_token_by_token(
    value: Any, indent: int | None, cut: float, splice: str, where: float, raw_control: bool
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=raw_control)
    at = int(where * len(text))
    text = text[:at] + splice + text[at:]  # sometimes broken: the reading stays lenient
    text = text[: int(cut * len(text)) + 1] if cut < 0.5 else text  # a sniff cuts a file
    assert facts(shape_of(text)) == facts(tokenwise(text)), text


def test_every_real_file_has_the_same_shape_read_either_way() -> None:
    rng = random.Random(20261206)
    compared = 0
    for path in sorted(p for p in DATA.rglob("*") if p.is_file()):
        text = path.read_bytes()[: 1 << 20].decode("utf-8", "replace")
        texts = [text, *(text[: rng.randrange(len(text) + 1)] for _ in range(10))]
        texts += [line for line in text.split("\n")[:20] if line.strip()]
        for one in texts:
            assert facts(shape_of(one)) == facts(tokenwise(one)), (path, len(one))
            compared += 1
    assert compared > 1000
