"""Tool calls as given: their arguments kept as they are (text that is not a JSON object kept
under ``UNPARSED_ARGUMENTS_KEY``), and the calls seen so far, which name results and list
orphans, duplicate ids and unanswered calls.

Layer: reading (see :mod:`footprint_lab.reading`).

"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from footprint_lab.messages import ToolCall, arguments_json, storable_text
from footprint_lab.providers.base import UNPARSED_ARGUMENTS_KEY
from footprint_lab.reading.problems import Problems, short
from footprint_lab.reading.values import json_problem, optional_str, reject_constant


def _unparsed(text: str, problems: Problems, index: int, field: str, why: str) -> dict[str, Any]:
    problems.note(index, field, f"{why}; kept as text under {UNPARSED_ARGUMENTS_KEY!r}")
    return {UNPARSED_ARGUMENTS_KEY: text}


def arguments_of(
    value: Any,
    problems: Problems,
    index: int,
    field: str,
    *,
    missing: bool = False,
    object_only: bool = False,
) -> dict[str, Any]:
    """Tool-call arguments kept as they are: an object as given; JSON text of an object parsed;
    anything else (text that is not JSON, JSON that is not an object, ``null``, a number ...)
    kept as its JSON text under ``UNPARSED_ARGUMENTS_KEY`` with a problem listed. Absent
    arguments and empty text mean no arguments.

    Args:
        value: The arguments as the source gives them.
        problems: Where a problem is listed.
        index: The message's index.
        field: The arguments' field.
        missing: The source gives no arguments at all.
        object_only: The format carries arguments as an object, never as text (LangChain's
            ``args``, Anthropic's ``input``, Inspect's ``arguments``): text there is read as
            any text is, and also listed, since the format does not allow it.

    Raises:
        TranscriptError: the value cannot be carried as JSON (NaN, deep nesting, ...).
    """
    if missing:
        return {}
    if isinstance(value, str) and object_only:
        # Read as any text is; the one problem listed is that it is text at all.
        quiet = Problems(problems.source)
        parsed = arguments_of(value, quiet, index, field)
        how = (
            quiet.found[0].problem
            if quiet.found
            else "empty, so no arguments"
            if not value.strip()
            else "the JSON of an object, parsed"
        )
        problems.note(
            index, field, f"arguments given as text where the format has an object: {how}"
        )
        return parsed
    if isinstance(value, str) and not value.strip():
        return {}
    if isinstance(value, str):
        try:
            parsed = json.loads(value, parse_constant=reject_constant)
        except (ValueError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc) or "too deep"
            return _unparsed(value, problems, index, field, f"not JSON ({why})")
        if not isinstance(parsed, dict):
            return _unparsed(value, problems, index, field, "JSON that is not an object")
        deep = json_problem(parsed)
        if deep is not None:
            return _unparsed(value, problems, index, field, f"arguments with {deep}")
        return parsed
    unfit = json_problem(value)
    if unfit is not None:
        problems.fail(index, field, f"arguments hold {unfit}")
    if isinstance(value, dict):
        return value
    return _unparsed(arguments_json(value), problems, index, field, "arguments not an object")


class CallIds:
    """The tool calls seen so far: names results, and lists orphans, duplicate ids (inside one
    message or reusing an earlier message's) and unanswered calls.

    An importer calls :meth:`asked` once per assistant message (with its calls, or none) and
    :meth:`answered` (or :meth:`result_name`) per tool result. A call is unanswered when no
    result names it before the next assistant message: the model was called again without
    it, which no provider accepts; it is kept as it is and listed. (A transcript that ends at
    a call is not wrong, only cut short: it imports as ``incomplete``.)
    """

    def __init__(self, problems: Problems, *, across: bool = True) -> None:
        """Track calls for one import.

        Args:
            problems: Where problems are listed.
            across: Check across messages too (ids reused, calls unanswered); False for a
                reader that does not see messages once each, in conversation order (OTel
                spans repeat every earlier message in each input).
        """
        self.problems = problems
        self.across = across
        self.names: dict[str, str] = {}
        self.waiting: dict[str, tuple[int, str]] = {}
        """Calls of the latest assistant message no result answered yet: id -> (index,
        field of its id)."""

    def name(self, index: int, field: str, value: Any) -> str:
        """A tool name as given; an empty one is listed as a problem.

        Raises:
            TranscriptError: the name is not text.
        """
        if not isinstance(value, str):
            self.problems.fail(index, field, f"a tool name must be text, got {short(value)}")
        if not value:
            self.problems.note(index, field, "empty tool name")
        return value

    def asked(
        self,
        calls: list[ToolCall],
        index: int,
        field: str,
        positions: Sequence[int] | None = None,
    ) -> None:
        """Record the calls of one assistant message: the calls of the one before it that no
        result answered are listed as unanswered, and a duplicate id (inside this message, or
        an id an earlier message already used) is listed (kept as given: a result is named
        after the latest call with its id).

        Args:
            calls: The message's calls, in order (none for a reply without calls).
            index: The message's index.
            field: The list the calls came from (``tool_calls``, ``content``).
            positions: Each call's index in that list, where the list holds more than calls
                (content blocks); by default a call's position among the calls.
        """
        for call_id, (at_index, at) in self.waiting.items():
            self.problems.note(
                at_index,
                at,
                f"unanswered call {call_id!r}: no tool result answers it before the next "
                "assistant message (kept as given; a provider refuses such a request)",
            )
        self.waiting.clear()
        seen: set[str] = set()
        for k, call in enumerate(calls):
            at = f"{field}[{k if positions is None else positions[k]}].id"
            if call.id in seen:
                self.problems.note(index, at, f"duplicate call id {call.id!r}")
            elif self.across and call.id in self.names:
                self.problems.note(
                    index,
                    at,
                    f"duplicate call id {call.id!r}: an earlier assistant message made a call "
                    "with it (kept as given; results answer the latest)",
                )
            seen.add(call.id)
            self.names[call.id] = call.name
            if self.across:
                self.waiting[call.id] = (index, at)

    def result_name(
        self, call_id: str, given: Any, index: int, id_field: str, name_field: str
    ) -> str:
        """The tool name of a result: the name it gives (checked as :meth:`name` checks it),
        else the name of the call it answers (see :meth:`answered`), else ``'unknown'``.

        Raises:
            TranscriptError: the given name is present and not text.
        """
        name = optional_str(given, self.problems, index, name_field)
        if name is not None:
            self.name(index, name_field, name)
        known = self.answered(call_id, index, id_field)
        return name if name is not None else known or "unknown"

    def answered(self, call_id: str, index: int, field: str) -> str | None:
        """The name of the call ``call_id`` answers (None, with a problem listed, when no
        earlier assistant message made it); that call is answered."""
        key = storable_text(call_id)
        self.waiting.pop(key, None)
        name = self.names.get(key)
        if name is None:
            self.problems.note(
                index, field, f"orphan result: no earlier assistant message called {call_id!r}"
            )
        return name
