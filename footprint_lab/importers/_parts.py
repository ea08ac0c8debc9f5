"""What every importer shares: the error, problem collection, safe usage numbers, tool-call
arguments kept as they are, typed content parts, the small validators, reading files and
folders, and renaming what a nested import found.

Layer: importers. Two kinds of fault, one rule each:

* **Malformed** input (a field of the wrong type, a value JSON cannot carry, text nested deeper
  than :data:`MAX_DEPTH`) raises :class:`TranscriptError` naming the source, the index and the
  field — never a raw ``TypeError`` or ``ValueError``.
* Input a provider would have **accepted** but that is wrong (an orphan result, a duplicate call
  id, arguments that are not an object, ``null`` text, an empty name, negative usage) is kept as
  it is and listed as an :class:`~footprint_lab.agent.run.ImportProblem` — or raises at the first
  one when the import is strict.

Every importer names places the same way: ``index`` counts what its source counts (a message,
an entry, a line, a sample, an event, a span: the error's ``unit``) and ``field`` is the path
inside it. An importer that hands part of its input to another (SWE-agent history to the
OpenAI importer, Claude Code entries to the Anthropic one) renames what that one found with
:func:`nested`, so an error and a listed problem always name the same place.

This module is the importers' face of those shared parts. Each concept lives in its own module
of :mod:`footprint_lab.reading`, below the importers and the OTLP reader, which share them:
``problems`` (the error, problem collection, :func:`nested`), ``values`` (the small
validators), ``usage`` (usage numbers), ``tool_calls`` (arguments and call ids), ``content``
(typed content parts) and ``files`` (reading files and folders).
"""

from __future__ import annotations

from footprint_lab.reading.content import (
    TEXT_TYPES,
    blocks_of,
    content_part,
    text_and_parts,
)
from footprint_lab.reading.files import (
    files_in,
    parse_json_text,
    read_each,
    read_json_file,
    read_text_file,
)
from footprint_lab.reading.problems import (
    Place,
    Problems,
    TranscriptError,
    item_field,
    nested,
    ordered,
    short,
)
from footprint_lab.reading.tool_calls import (
    CallIds,
    arguments_of,
)
from footprint_lab.reading.usage import (
    MAX_USAGE,
    usage_by_keys,
    usage_from,
    usage_int,
)
from footprint_lab.reading.values import (
    EMPTY_TRANSCRIPT,
    MAX_DEPTH,
    MAX_INT_BITS,
    int_of,
    json_problem,
    json_value,
    message_list,
    object_of,
    optional_str,
    reject_constant,
    text_of,
    text_or_empty,
)

__all__ = [
    "EMPTY_TRANSCRIPT",
    "MAX_DEPTH",
    "MAX_INT_BITS",
    "MAX_USAGE",
    "TEXT_TYPES",
    "CallIds",
    "Place",
    "Problems",
    "TranscriptError",
    "arguments_of",
    "blocks_of",
    "content_part",
    "files_in",
    "int_of",
    "item_field",
    "json_problem",
    "json_value",
    "message_list",
    "nested",
    "object_of",
    "optional_str",
    "ordered",
    "parse_json_text",
    "read_each",
    "read_json_file",
    "read_text_file",
    "reject_constant",
    "short",
    "text_and_parts",
    "text_of",
    "text_or_empty",
    "usage_by_keys",
    "usage_from",
    "usage_int",
]
