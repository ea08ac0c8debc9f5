"""Typed content parts: blocks that are not plain text (image, document, audio, thinking,
refusal, or a type we do not know) kept whole as
:class:`~footprint_lab.messages.ContentPart` objects, and content lists split into text and
parts.

Layer: reading (see :mod:`footprint_lab.reading`).

"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from footprint_lab.messages import ContentPart, arguments_json
from footprint_lab.reading.problems import Problems, short
from footprint_lab.reading.values import json_problem, text_of

TEXT_TYPES = frozenset({"text", "input_text", "output_text"})
"""Block types whose ``text`` is message text."""

_KINDS: dict[str, str] = {
    "image_url": "image",
    "input_image": "image",
    "image": "image",
    "document": "document",
    "file": "document",
    "input_file": "document",
    "input_audio": "audio",
    "audio": "audio",
    "thinking": "thinking",
    "redacted_thinking": "redacted-thinking",
    "refusal": "refusal",
}
_TEXT_FIELD: dict[str, str] = {"thinking": "thinking", "refusal": "refusal"}
_NESTED = ("source", "image_url", "input_image", "file", "input_audio", "audio")
_DATA_KEYS = ("data", "url", "image_url", "file_data", "file_url", "file_id")


def _data_chars(block: Mapping[str, Any]) -> int | None:
    holders: list[Any] = [block, *(block.get(k) for k in _NESTED)]
    for n, holder in enumerate(holders):
        if n and isinstance(holder, str):
            return len(holder)
        if isinstance(holder, Mapping):
            for key in _DATA_KEYS:
                data = holder.get(key)
                if isinstance(data, str):
                    return len(data)
    return None


def content_part(
    block: Mapping[str, Any],
    problems: Problems,
    index: int | None,
    field: str,
    *,
    kind_of: str | None = None,
) -> ContentPart:
    """A typed block (image, document, audio, thinking, refusal, or a type we do not know)
    kept whole as a :class:`ContentPart`: its text when it has text, else the length of its
    encoded data or URL (of its compact JSON when it names neither). ``kind_of`` names the
    block's type when the block itself has none (an assistant's ``audio`` object).

    Raises:
        TranscriptError: the block cannot be carried as JSON, or its text is not text.
    """
    why = json_problem(block)
    if why is not None:
        problems.fail(index, field, f"block holds {why}")
    if kind_of is None:
        kind_of = str(block.get("type"))
    kind = _KINDS.get(kind_of, kind_of)
    original = dict(block)
    text_key = _TEXT_FIELD.get(kind_of)
    if text_key is not None:
        text = text_of(block.get(text_key), problems, index, f"{field}.{text_key}")
        return ContentPart(kind=kind, text=text, original=original)
    chars = _data_chars(block) if kind_of in _KINDS else None
    if chars is None:
        chars = len(arguments_json(block))
    return ContentPart(kind=kind, data_chars=chars, original=original)


def blocks_of(
    content: Any, problems: Problems, index: int | None, field: str
) -> list[Mapping[str, Any]]:
    """A content list whose items are all objects with a text ``type``.

    Raises:
        TranscriptError: it is not a list, or an item is not a typed object.
    """
    if not isinstance(content, list):
        problems.fail(index, field, f"expected a string or a list of blocks, got {short(content)}")
    for k, block in enumerate(content):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            problems.fail(index, f"{field}[{k}]", "a block needs a type")
    return content


def text_and_parts(
    blocks: list[Mapping[str, Any]], problems: Problems, index: int, field: str
) -> tuple[str, list[ContentPart]]:
    """Text blocks joined as the text; every other block kept as a part."""
    texts: list[str] = []
    parts: list[ContentPart] = []
    for k, block in enumerate(blocks):
        if block["type"] in TEXT_TYPES:
            texts.append(text_of(block.get("text"), problems, index, f"{field}[{k}].text"))
        else:
            parts.append(content_part(block, problems, index, f"{field}[{k}]"))
    return "".join(texts), parts
