"""Tool calls as given: their arguments kept as they are (text that is not a JSON object kept
under ``UNPARSED_ARGUMENTS_KEY``), and the calls seen so far, which name results and list
orphans and duplicate ids.

Layer: importers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from footprint_lab.importers._problems import Problems, short
from footprint_lab.importers._values import json_problem, optional_str, reject_constant
from footprint_lab.messages import ToolCall, arguments_json, storable_text
from footprint_lab.providers._common import UNPARSED_ARGUMENTS_KEY


def _unparsed(text: str, problems: Problems, index: int, field: str, why: str) -> dict[str, Any]:
    problems.note(index, field, f"{why}; kept as text under {UNPARSED_ARGUMENTS_KEY!r}")
    return {UNPARSED_ARGUMENTS_KEY: text}


def arguments_of(
    value: Any, problems: Problems, index: int, field: str, *, missing: bool = False
) -> dict[str, Any]:
    """Tool-call arguments kept as they are: an object as given; JSON text of an object parsed;
    anything else (text that is not JSON, JSON that is not an object, ``null``, a number ...)
    kept as its JSON text under ``UNPARSED_ARGUMENTS_KEY`` with a problem listed. Absent
    arguments and empty text mean no arguments.

    Raises:
        TranscriptError: the value cannot be carried as JSON (NaN, deep nesting, ...).
    """
    if missing or (isinstance(value, str) and not value.strip()):
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
    """The tool calls seen so far: names results, and lists orphans and duplicate ids."""

    def __init__(self, problems: Problems) -> None:
        """Track calls for one import."""
        self.problems = problems
        self.names: dict[str, str] = {}

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
        """Record the calls of one assistant message (a duplicate id inside it is listed;
        reusing an id of an earlier message is accepted).

        Args:
            calls: The message's calls, in order.
            index: The message's index.
            field: The list the calls came from (``tool_calls``, ``content``).
            positions: Each call's index in that list, where the list holds more than calls
                (content blocks); by default a call's position among the calls.
        """
        seen: set[str] = set()
        for k, call in enumerate(calls):
            if call.id in seen:
                at = k if positions is None else positions[k]
                self.problems.note(index, f"{field}[{at}].id", f"duplicate call id {call.id!r}")
            seen.add(call.id)
            self.names[call.id] = call.name

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
        earlier assistant message made it)."""
        name = self.names.get(storable_text(call_id))
        if name is None:
            self.problems.note(
                index, field, f"orphan result: no earlier assistant message called {call_id!r}"
            )
        return name
