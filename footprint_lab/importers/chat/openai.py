"""Import an OpenAI Chat Completions message list. Layer: importers.

Nothing the list carries is dropped: text parts become the message text; images
(``image_url``), files (``file``, ``input_file``), audio (``input_audio`` parts and an
assistant's ``audio``), refusals (the ``refusal`` field and ``refusal`` parts) and part types we
do not know are kept as :class:`~footprint_lab.messages.ContentPart` s, so they count in sizes.

Legacy ``function_call`` (the field before ``tool_calls``): on an assistant message without
``tool_calls`` it is imported as the one tool call of that message, with the id
``function_call-<index>`` (the legacy wire had no ids), and a following ``role: "function"``
result answers it; beside ``tool_calls`` it is kept as a ``function-call`` part and listed as a
problem (a request cannot carry both).

The ``name`` of a system, user or assistant message (the participant's) is kept as
:attr:`~footprint_lab.messages.Message.name` (a named first system message stays a message, not
the run's system prompt, so its name is kept); on a ``tool`` or ``function`` message ``name``
is the tool's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    TranscriptError,
    arguments_of,
    blocks_of,
    content_part,
    message_list,
    optional_str,
    text_and_parts,
    usage_from,
)
from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.usage import Usage

SOURCE = "openai"

__all__ = ["SOURCE", "TranscriptError", "from_openai", "parse_openai"]


def _content(
    raw: Mapping[str, Any], problems: Problems, index: int, *, nullable: bool
) -> tuple[str, list[ContentPart]]:
    content = raw.get("content")
    if content is None:
        if not nullable:
            problems.note(index, "content", "null content, imported as empty text")
        return "", []
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        problems.fail(index, "content", "expected a string or a list of parts")
    return text_and_parts(
        blocks_of(content, problems, index, "content"), problems, index, "content"
    )


def _name(raw: Mapping[str, Any], problems: Problems, index: int) -> str | None:
    """The participant's name a message gives (``name``), kept as :attr:`Message.name`."""
    return optional_str(raw.get("name"), problems, index, "name")


def _usage(raw: Any, problems: Problems, index: int) -> Usage | None:
    if not isinstance(raw, Mapping):
        return usage_from(raw, {}, problems, index, "usage")
    details = raw.get("prompt_tokens_details")
    if details is not None and not isinstance(details, Mapping):
        problems.fail(index, "usage.prompt_tokens_details", "expected an object")
    prompt = "prompt_tokens" if "prompt_tokens" in raw else "input_tokens"
    completion = "completion_tokens" if "completion_tokens" in raw else "output_tokens"
    cached = (details or {}).get("cached_tokens")
    counts = {
        "input_tokens": (raw.get(prompt), f"usage.{prompt}"),
        "output_tokens": (raw.get(completion), f"usage.{completion}"),
        "cache_read_tokens": (cached, "usage.prompt_tokens_details.cached_tokens"),
    }
    return usage_from(raw, counts, problems, index, "usage")


def _call(
    fn: Any, call_id: str, problems: Problems, ids: CallIds, index: int, field: str
) -> ToolCall:
    if not isinstance(fn, Mapping):
        problems.fail(index, field, "needs a function object")
    name = ids.name(index, f"{field}.name", fn.get("name"))
    arguments = arguments_of(
        fn.get("arguments"), problems, index, f"{field}.arguments", missing="arguments" not in fn
    )
    return ToolCall(id=call_id, name=name, arguments=arguments)


def _assistant(
    raw: Mapping[str, Any], problems: Problems, ids: CallIds, index: int
) -> tuple[Message, str | None]:
    text, parts = _content(raw, problems, index, nullable=True)
    tool_calls = raw.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, list):
        problems.fail(index, "tool_calls", "expected a list of calls")
    calls: list[ToolCall] = []
    for k, call in enumerate(tool_calls or []):
        field = f"tool_calls[{k}]"
        if not isinstance(call, Mapping) or not isinstance(call.get("id"), str):
            problems.fail(index, field, "needs an id and a function object")
        calls.append(
            _call(call.get("function"), call["id"], problems, ids, index, f"{field}.function")
        )
    refusal = optional_str(raw.get("refusal"), problems, index, "refusal")
    if refusal is not None:
        parts.append(ContentPart(kind="refusal", text=refusal, original={"refusal": refusal}))
    audio = raw.get("audio")
    if audio is not None:
        if not isinstance(audio, Mapping):
            problems.fail(index, "audio", "expected an object")
        parts.append(content_part(audio, problems, index, "audio", kind_of="audio"))
    legacy: str | None = None
    function_call = raw.get("function_call")
    if function_call is not None:
        if tool_calls:
            parts.append(_legacy_part(function_call, problems, index))
            problems.note(index, "function_call", "beside tool_calls; kept as a part")
        else:
            legacy = f"function_call-{index}"
            calls.append(_call(function_call, legacy, problems, ids, index, "function_call"))
    ids.asked(calls, index, "tool_calls")
    name = _name(raw, problems, index)
    return Message.assistant(text, tool_calls=calls, parts=parts, name=name), legacy


def _legacy_part(function_call: Any, problems: Problems, index: int) -> ContentPart:
    if not isinstance(function_call, Mapping):
        problems.fail(index, "function_call", "expected an object")
    part = content_part(function_call, problems, index, "function_call", kind_of="function_call")
    name, arguments = function_call.get("name"), function_call.get("arguments")
    chars = sum(len(v) for v in (name, arguments) if isinstance(v, str))
    return ContentPart(
        kind="function-call", data_chars=chars or part.data_chars, original=part.original
    )


def _result(
    raw: Mapping[str, Any],
    problems: Problems,
    ids: CallIds,
    index: int,
    legacy: str | None,
) -> Message:
    role = raw.get("role")
    text, parts = _content(raw, problems, index, nullable=False)
    if role == "function":
        name = ids.name(index, "name", raw.get("name"))
        if legacy is None:
            problems.note(index, "role", "a function result with no function_call before it")
        else:
            ids.answered(legacy, index, "role")
        return Message.tool(legacy or f"function_call-orphan-{index}", name, text, parts=parts)
    call_id = raw.get("tool_call_id")
    if not isinstance(call_id, str):
        problems.fail(index, "tool_call_id", "missing on a tool message")
    name = ids.result_name(call_id, raw.get("name"), index, "tool_call_id", "name")
    return Message.tool(call_id, name, text, parts=parts)


def parse_openai(
    messages: Sequence[Mapping[str, Any]], *, strict: bool = False
) -> tuple[list[Message], list[Usage | None], str | None, Problems]:
    """Messages, per-reply usage, the system prompt and the problems of a Chat Completions
    list.

    Raises:
        TranscriptError: the list is malformed (or, when ``strict``, has a problem).
    """
    problems = Problems(SOURCE, strict=strict)
    message_list(messages, problems)
    out: list[Message] = []
    usages: list[Usage | None] = []
    system: str | None = None
    ids = CallIds(problems)
    legacy: str | None = None
    for index, raw in enumerate(messages):
        if not isinstance(raw, Mapping):
            problems.fail(index, "message", f"expected an object, got {type(raw).__name__}")
        role = raw.get("role")
        if role in ("system", "developer"):
            text, parts = _content(raw, problems, index, nullable=False)
            name = _name(raw, problems, index)
            if not out and system is None and not parts and name is None:
                system = text
            else:
                out.append(Message.system(text, parts=parts, name=name))
        elif role == "user":
            text, parts = _content(raw, problems, index, nullable=False)
            out.append(Message.user(text, parts=parts, name=_name(raw, problems, index)))
        elif role == "assistant":
            message, legacy = _assistant(raw, problems, ids, index)
            out.append(message)
            usages.append(_usage(raw.get("usage"), problems, index))
        elif role in ("tool", "function"):
            out.append(_result(raw, problems, ids, index, legacy))
        else:
            problems.fail(index, "role", f"unknown role {role!r}")
    return out, usages, system, problems


def from_openai(messages: Sequence[Mapping[str, Any]], *, strict: bool = False, **meta: Any) -> Run:
    """Import a Chat Completions message list (``usage`` on assistant messages is read when
    present) as a run that ``replay`` and ``capture`` accept.

    Args:
        messages: The message list.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.
        **meta: Extra facts for ``run.meta`` (JSON values).

    Raises:
        TranscriptError: naming the message index and field that is malformed (or, when
            ``strict``, that has a problem).
    """
    parsed, usages, system, problems = parse_openai(messages, strict=strict)
    return build_run(
        parsed, usages, system=system, source=SOURCE, meta=meta, problems=problems.found
    )
