"""Import an OpenAI Responses API item list (or an Agents SDK session, or Response objects).

Layer: importers (a format module of the registry, :data:`FILE_FORMAT`). What it reads, in a
JSON file (or JSON lines, one element a line):

* a list of **items**, as sent in ``input`` and returned in ``output`` (the openai SDK's
  ``ResponseInputItem`` / ``ResponseOutputItem``): what a stateless chain keeps, what
  ``result.to_input_list()`` gives, what an Agents SDK ``Session.get_items()`` returns (also
  as ``{"items": [...]}``, other keys kept in ``meta``);
* **Response objects** (``{"object": "response", "id", "model", "output": [...], "usage":
  ...}``), alone or in a list, also between the input items sent to them (a log of what was
  sent and what came back); a Response holds its output, never its input;
* compacted responses (``{"object": "response.compaction", "output": [...]}``, what
  ``responses.compact`` returns).

**Mapping.** A ``message`` item (typed, or a plain ``{"role", "content"}``) of role ``user``
is a user message, and a request (every user message is a person's or the application's
input; nothing in the format tells an environment's text apart); ``system`` / ``developer``
messages are system messages, the first one the system prompt when it opens the list (a
Response's ``instructions`` is the system prompt when given). ``input_text`` /
``output_text`` parts are the text; images, files, audio, refusals and unknown parts are kept
as :class:`~footprint_lab.messages.ContentPart` s. Consecutive assistant-side items (an
assistant ``message``, ``reasoning``, calls, built-in tool items) are **one assistant
message** (one model call): its texts joined by a blank line, its calls in order, reasoning as
a ``thinking`` part (summary and reasoning text) plus an opaque ``redacted-thinking`` part for
``encrypted_content`` (its characters counted as size, never as text). Calls the client runs —
``function_call`` (``arguments`` JSON text), ``custom_tool_call`` (``{"input": text}``),
``computer_call``, ``shell_call``, ``local_shell_call``, ``apply_patch_call``, a client-run
``tool_search_call``, ``mcp_approval_request`` — are tool calls by ``call_id``; their output
items (``function_call_output`` with text or a list of parts, ``custom_tool_call_output``,
``computer_call_output`` (its screenshot an image part), ``shell_call_output``,
``local_shell_call_output``, ``apply_patch_call_output``, ``tool_search_output``,
``mcp_approval_response``) are tool results. Built-in tools the API runs inside a response
(``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
``image_generation_call``, ``mcp_call``, ``mcp_list_tools``, server ``tool_search_*``,
``program`` / ``program_output``) are parts of the reply, counted in
``meta["hosted_tool_calls"]``; an item of a type this reader does not know is kept the same way
(or as a result, when it answers a waiting call) and counted in ``meta["unknown_items"]``.
``additional_tools`` is a system message holding the tools as a part; ``item_reference``,
``compaction_trigger`` and ``configuration_update`` carry no conversation and are counted
(``meta["item_references"]``, ``meta["control_items"]``).

**Usage and model.** A Response's ``usage`` (``input_tokens`` with
``input_tokens_details.cached_tokens`` / ``cache_write_tokens``, ``output_tokens``) is the
usage of its last reply and its ``model`` the run's (the first; ``meta["models"]`` when
several); ``meta["responses"]`` lists each Response's ``id``, ``model``, ``status``,
``previous_response_id``, ``created_at`` and ``reasoning_tokens``. Bare items record neither,
and ``run.origin.recorded`` says so. A last Response that did not complete makes the run
``incomplete``, its status in ``meta["ended"]``.

**Compaction** (an observed record). A ``compaction`` item's ``encrypted_content`` is opaque:
its stand-in in the window is a ``user`` message with no readable text carrying one
``compaction`` part of that many characters. The documented rule (OpenAI's compaction guide,
developers.openai.com/api/docs/guides/compaction): the server compacts inside a response,
emits the compaction item, prunes the context before continuing, and "the latest compaction
item carries the necessary context", so items before it may be dropped — so the first call
after a compaction item is given the window ``[stand-in, *items since]`` and everything before
it left (an observed :class:`~footprint_lab.window.records.WindowRecord`, policy
``openai-compaction``, naming what left); later calls add what came since. ``responses.compact``
instead returns "all user messages, followed by a single compaction item": where a plain list
opens with user messages and then a compaction item (a session whose history was replaced by
that output, as the Agents SDK's ``OpenAIResponsesCompactionSession`` leaves it), or repeats
every earlier user message right before one, those user messages stay in the window (the
repeats are the history's own messages, not new ones); a compacted response object's
``output`` is the new window. ``meta["compactions"]`` lists each (``item``, ``id``,
``opaque: true``, ``encrypted_chars``, ``rule``, ``kept_messages``, ``applied`` and, once
applied, ``removed_messages``; a compacted response's ``usage``).

**Meta.** ``layout`` (``list``, ``items-object``, ``response`` or ``json-lines``),
``log_file``, ``label`` (the wrapper's ``session_id``, else the file's stem), ``items`` (how
many items of each type), ``model`` and the keys above; ``instructions_changed`` lists the
Responses given other instructions than the first (another agent's, after a handoff).

Faults name the file (``path``), the element (``index``: its position in the list, unit
``item``; its line, unit ``line``, in JSON lines; ``response`` for a file holding one
Response) and the field (``output[2].call_id`` inside a Response). Malformed input raises
:class:`~footprint_lab.importers._parts.TranscriptError`; what is accepted but wrong (an
orphan result, an unanswered call, a duplicate call id, ``null`` text, arguments that are not
a JSON object, negative usage, an empty list) is kept and listed in ``run.import_problems``
(``strict=True`` raises at the first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    files_in,
    json_value,
    message_list,
    ordered,
    parse_json_text,
    read_each,
    read_text_file,
    short,
)
from footprint_lab.importers._sniff import FileFormat
from footprint_lab.importers.chat._responses_read import Parsed, Reader
from footprint_lab.importers.chat._responses_shape import RESPONSE_OBJECTS, claims, resembles

__all__ = [
    "FILE_FORMAT",
    "POLICY",
    "SOURCE",
    "from_openai_responses",
    "load_openai_responses",
]

SOURCE = "openai-responses"
"""The format's name: ``detect_format``'s answer and the source of its errors and problems."""
POLICY = "openai-compaction"
"""The name observed window records give the Responses API's compaction."""
SUFFIXES = (".json", ".jsonl")
"""The file names a folder is searched for."""
FORMAT = (
    "an OpenAI Responses item list (JSON: a list of items or Response objects, "
    '{"items": [...]}, a Response object; or JSON lines of them)'
)
"""The format this loader reads, as its errors name it."""


def _is_response(value: Any) -> bool:
    """Whether ``value`` is a Response (or a compacted response) object."""
    kind = value.get("object") if isinstance(value, Mapping) else None
    return isinstance(kind, str) and kind in RESPONSE_OBJECTS


def _elements(value: Any, problems: Problems) -> tuple[Sequence[Any], dict[str, Any]]:
    """The elements of a parsed file or value, and the facts of a wrapping object."""
    if isinstance(value, Mapping):
        if _is_response(value):
            return [value], {}
        items = value.get("items")
        if not isinstance(items, list):
            problems.fail(
                None, "items", f"expected {FORMAT}; got an object with keys {short(sorted(value))}"
            )
        facts = {k: v for k, v in value.items() if k != "items"}
        json_value(facts, problems, None, "file")
        return items, facts
    return message_list(value, problems, "Responses items or Response objects"), {}


def _read(
    elements: Sequence[Any], problems: Problems, indices: Sequence[int] | None, strict: bool
) -> Parsed:
    """Read every element, then list what was found wrong in the order of the file (a
    reply's problems are found when the reply closes): a strict import raises the first of
    them, the one a lenient import lists first."""
    reader = Reader(problems)
    for k, raw in enumerate(elements):
        reader.entry(raw, indices[k] if indices is not None else k)
    parsed = reader.finish()
    problems.found = ordered(problems.found, strict=strict, unit=problems.unit)
    return parsed


def _build(parsed: Parsed, problems: Problems, meta: dict[str, Any], strict: bool) -> Run:
    run = build_run(
        parsed.messages,
        parsed.usages,
        system=parsed.system,
        source=SOURCE,
        meta={**meta, **parsed.meta},
        problems=problems.found,
        model=parsed.model,
        sent=parsed.sent,
        policy=POLICY,
        outcome="incomplete" if parsed.ended is not None else None,
        outcome_detail=parsed.ended,
        strict=strict,
    )
    applied = [c for c in run.meta.get("compactions", []) if c.get("applied")]
    observed = [r for r in run.records if r.observed]
    if len(applied) == len(observed):
        for compaction, record in zip(applied, observed, strict=True):
            compaction["removed_messages"] = record.removed_message_count
    return run


def _model_dumped(value: Any) -> Any:
    """An openai SDK object (``Response``, an output item) as the JSON it dumps to; a
    list's elements likewise; anything else as given."""
    if isinstance(value, list):
        return [_model_dumped(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        try:
            return dump(mode="json", exclude_none=True, warnings=False)
        except Exception as exc:
            raise TranscriptError(
                SOURCE, None, "items", f"cannot dump {short(value)}: {exc}"
            ) from None
    return value


def from_openai_responses(items: Any, *, strict: bool = False, **meta: Any) -> Run:
    """Import Responses items held in memory (see the module docstring for the mapping) as a
    run that ``replay`` and ``capture`` accept: a list of items and/or Response objects (what
    ``result.to_input_list()`` or ``await session.get_items()`` returns, dicts or the openai
    SDK's objects), a Response, or ``{"items": [...]}``.

    Args:
        items: The items.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.
        **meta: Extra facts for ``run.meta`` (JSON values).

    Raises:
        TranscriptError: naming the item (``index``) and field that is malformed (or, when
            ``strict``, that has a problem).
    """
    value = _model_dumped(items)
    unit = "response" if _is_response(value) else "item"
    problems = Problems(SOURCE, unit=unit)
    elements, facts = _elements(value, problems)
    parsed = _read([_model_dumped(e) for e in elements], problems, None, strict)
    return _build(parsed, problems, {**facts, **meta}, strict)


def _lines(text: str, where: str) -> tuple[list[Any], list[int]] | None:
    """The elements of a JSON-lines file with their line numbers (from 1), or None when the
    text is one JSON value."""
    numbered = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    if len(numbered) < 2:
        return None
    try:
        first = parse_json_text(numbered[0][1], SOURCE, where)
    except TranscriptError:
        return None
    if not isinstance(first, Mapping):
        return None
    values: list[Any] = [first]
    for number, line in numbered[1:]:
        try:
            values.append(parse_json_text(line, SOURCE, where, "line", FORMAT))
        except TranscriptError as exc:
            raise TranscriptError(
                SOURCE, number, "line", exc.problem, path=where, unit="line"
            ) from None
    return values, [n for n, _ in numbered]


def _load_file(path: Path, strict: bool) -> Run:
    where = str(path)
    text = read_text_file(path, SOURCE, FORMAT)
    lines = None
    try:
        value = parse_json_text(text, SOURCE, where, expected=FORMAT)
    except TranscriptError:
        lines = _lines(text, where)
        if lines is None:
            raise
        value = lines[0]
    unit = "line" if lines is not None else "item"
    if _is_response(value):
        unit = "response"
    problems = Problems(SOURCE, unit=unit, path=where)
    elements, facts = _elements(value, problems)
    parsed = _read(elements, problems, lines[1] if lines is not None else None, strict)
    label = facts.get("session_id")
    meta = {
        **facts,
        "layout": _layout(value, lines is not None),
        "log_file": where,
        "label": label if isinstance(label, str) else path.stem,
    }
    return _build(parsed, problems, meta, strict)


def _layout(value: Any, lines: bool) -> str:
    """How the file holds its elements (``meta["layout"]``)."""
    if lines:
        return "json-lines"
    if isinstance(value, Mapping):
        return "response" if _is_response(value) else "items-object"
    return "list"


def load_openai_responses(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per Responses item file (see the module docstring for the mapping).

    Args:
        path: A ``.json`` / ``.jsonl`` file, or a folder: every such file directly in it, in
            name order.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Returns:
        The runs, one per file.

    Raises:
        TranscriptError: a file cannot be read, is not JSON (or JSON lines) of this format, or
            (when ``strict``) has a problem — naming the file, the item (or line) and the
            field.
    """
    files = files_in(path, SUFFIXES, SOURCE)
    return read_each(files, SOURCE, lambda file: [_load_file(file, strict)])


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="OpenAI Responses items / Agents SDK session: typed items (message with "
    "input_text/output_text parts, function_call with call_id, reasoning, compaction ...) or "
    'Response objects ("object": "response")',
    loader=load_openai_responses,
    claims=claims,
    resembles=resembles,
)
"""How the registry tells and reads a Responses item list."""
