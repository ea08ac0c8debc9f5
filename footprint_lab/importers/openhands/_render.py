"""Rendering OpenHands events as messages, as its ``ConversationMemory`` renders them for the
model: system prompts, user and agent messages, replies with tool calls (one message per
``model_response``, with its usage), tool results with OpenHands' notes, and the events it
never sends skipped. Observations sent as user text are marked ``observation`` (never a
request), and text-mode actions (no tool call metadata) are rebuilt as tool calls whose
results are their observations, unless the stream keeps the literal form.

Layer: importers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    int_of,
    object_of,
    optional_str,
    text_or_empty,
    usage_from,
)
from footprint_lab.importers.openhands._stream import _Event, _Stream
from footprint_lab.importers.openhands._windows import _condensation
from footprint_lab.usage import Usage

_NOT_SENT_ACTIONS = frozenset(
    {
        "recall",
        "change_agent_state",
        "null",
        "pause",
        "resume",
        "stop",
        "push",
        "send_pr",
        "reject",
        "condensation_request",
        "loop_recovery",
        "start",
    }
)
"""Actions ``ConversationMemory`` renders as nothing."""
_TOOL_ACTIONS = frozenset(
    {
        "run",
        "run_ipython",
        "edit",
        "read",
        "write",
        "browse",
        "browse_interactive",
        "call_tool_mcp",
        "delegate",
        "think",
        "task_tracking",
    }
)
"""Actions that are tool calls (rendered as text when they carry no tool call metadata)."""
_NOT_SENT_OBSERVATIONS = frozenset({"null", "agent_state_changed", "loop_detection", "condense"})
"""Observations that are not sent (``condense`` is a summary: a stand-in, not history)."""
CALL_ID = "openhands-event-{id}"
"""The id of a tool call rebuilt from a text-mode action: ``id`` is the action event's id
(an event written without one, as 2024's serializations are, is named by its place in the
history: ``openhands-event-at-<k>``)."""
_TEXT_TOOLS: dict[str, tuple[str, tuple[str, ...], dict[str, str]]] = {
    "run": ("execute_bash", ("command",), {}),
    "run_ipython": ("execute_ipython_cell", ("code",), {}),
    "read": ("str_replace_editor", ("path", "view_range"), {"command": "view"}),
    "write": ("str_replace_editor", ("path", "content"), {"command": "create"}),
    "browse": ("web_read", ("url",), {}),
    "browse_interactive": ("browser", ("browser_actions",), {}),
    "think": ("think", ("thought",), {}),
    "delegate": ("delegate", ("agent", "inputs"), {}),
    "task_tracking": ("task_tracker", ("command", "task_list"), {}),
}
"""A text-mode action's tool as OpenHands' function-calling tools name it (the action's own
name where no tool is its obvious twin), the args that are its arguments, and fixed ones."""
_EDIT_ARGS = ("command", "path", "file_text", "old_str", "new_str", "insert_line", "view_range")
"""An ``edit`` with a ``command`` or from OpenHands' ACI editor (``impl_source: "oh_aci"``) is
``str_replace_editor``'s; another (the LLM-based editor's ``content`` / ``start`` / ``end``)
is ``edit_file``'s."""


def _usage(raw: Any, problems: Problems, index: int, at: str) -> Usage | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        problems.fail(index, at, "expected an object")
    details = object_of(
        raw.get("prompt_tokens_details"), problems, index, f"{at}.prompt_tokens_details"
    )
    if raw.get("cache_read_input_tokens") is not None:
        read = (raw.get("cache_read_input_tokens"), f"{at}.cache_read_input_tokens")
    else:
        read = (details.get("cached_tokens"), f"{at}.prompt_tokens_details.cached_tokens")
    counts = {
        "input_tokens": (raw.get("prompt_tokens"), f"{at}.prompt_tokens"),
        "output_tokens": (raw.get("completion_tokens"), f"{at}.completion_tokens"),
        "cache_read_tokens": read,
        "cache_write_tokens": (
            raw.get("cache_creation_input_tokens"),
            f"{at}.cache_creation_input_tokens",
        ),
    }
    return usage_from(raw, counts, problems, index, at)


@dataclass
class _Reply:
    """A ``model_response``'s first choice: its message, where it is, and its usage."""

    message: Mapping[str, Any]
    at: str
    id: str | None
    usage: Usage | None
    model: str | None


def _reply(tcm: Mapping[str, Any], problems: Problems, index: int, at: str) -> _Reply | None:
    response = tcm.get("model_response")
    if response is None:
        return None
    here = f"{at}.tool_call_metadata.model_response"
    if not isinstance(response, Mapping):
        problems.fail(index, here, "expected an object")
    rid = optional_str(response.get("id"), problems, index, f"{here}.id")
    model = response.get("model")
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        problems.fail(index, f"{here}.choices", "expected a non-empty list of choices")
    message = object_of(choices[0], problems, index, f"{here}.choices[0]").get("message")
    if not isinstance(message, Mapping):
        problems.fail(index, f"{here}.choices[0].message", "expected an object")
    usage = _usage(response.get("usage"), problems, index, f"{here}.usage")
    return _Reply(
        message,
        f"{here}.choices[0].message",
        rid,
        usage,
        model if isinstance(model, str) else None,
    )


def _tool_metadata(
    event: Mapping[str, Any], problems: Problems, index: int, at: str
) -> Mapping[str, Any] | None:
    tcm = event.get("tool_call_metadata")
    if tcm is None:
        return None
    if not isinstance(tcm, Mapping):
        problems.fail(index, f"{at}.tool_call_metadata", "expected an object")
    return tcm


def _run_output(
    text: str, extras: Mapping[str, Any], problems: Problems, index: int, at: str
) -> str:
    """Command output as OpenHands sends it (``CmdOutputObservation.to_agent_observation``)."""
    meta = object_of(extras.get("metadata"), problems, index, f"{at}.extras.metadata")
    if not meta:
        return text
    here = f"{at}.extras.metadata"
    out = text_or_empty(meta.get("prefix"), problems, index, f"{here}.prefix") + text
    out += text_or_empty(meta.get("suffix"), problems, index, f"{here}.suffix")
    working_dir = text_or_empty(meta.get("working_dir"), problems, index, f"{here}.working_dir")
    if working_dir:
        out += f"\n[Current working directory: {working_dir}]"
    interpreter = text_or_empty(
        meta.get("py_interpreter_path"), problems, index, f"{here}.py_interpreter_path"
    )
    if interpreter:
        out += f"\n[Python interpreter: {interpreter}]"
    exit_code = meta.get("exit_code", -1)
    if exit_code is not None:
        exit_code = int_of(exit_code, problems, index, f"{here}.exit_code")
        if exit_code != -1:
            out += f"\n[Command finished with exit code {exit_code}]"
    return out


def _recall_text(extras: Mapping[str, Any], problems: Problems, index: int, at: str) -> str:
    """The workspace context and microagent knowledge a recall observation recorded."""
    texts: list[str] = []
    for key in (
        "repo_instructions",
        "additional_agent_instructions",
        "conversation_instructions",
    ):
        value = text_or_empty(extras.get(key), problems, index, f"{at}.extras.{key}")
        if value.strip():
            texts.append(value)
    knowledge = extras.get("microagent_knowledge")
    if knowledge is not None:
        if not isinstance(knowledge, list):
            problems.fail(index, f"{at}.extras.microagent_knowledge", "expected a list")
        for k, item in enumerate(knowledge):
            here = f"{at}.extras.microagent_knowledge[{k}]"
            value = text_or_empty(
                object_of(item, problems, index, here).get("content"),
                problems,
                index,
                f"{here}.content",
            )
            if value.strip():
                texts.append(value)
    return "\n\n".join(texts)


def _observation_text(
    kind: str, event: Mapping[str, Any], problems: Problems, index: int, at: str
) -> str:
    content = event.get("content")
    text = text_or_empty(content, problems, index, f"{at}.content")
    extras = object_of(event.get("extras"), problems, index, f"{at}.extras")
    if kind == "run":
        return _run_output(text, extras, problems, index, at)
    if kind == "error":
        return text + "\n[Error occurred in processing last action]"
    if kind == "user_rejected":
        return "OBSERVATION:\n" + text + "\n[Last action has been rejected by the user]"
    if kind == "delegate":
        outputs = object_of(extras.get("outputs"), problems, index, f"{at}.extras.outputs")
        if "content" in outputs:
            return text_or_empty(
                outputs["content"], problems, index, f"{at}.extras.outputs.content"
            )
    return text


def _images(args: Mapping[str, Any], problems: Problems, index: int, at: str) -> list[str]:
    urls = args.get("image_urls")
    if urls is None:
        return []
    if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
        problems.fail(index, f"{at}.args.image_urls", "expected a list of image URLs")
    return urls


def _message_action(
    stream: _Stream,
    event: Mapping[str, Any],
    record: _Event,
    problems: Problems,
    index: int,
    at: str,
) -> None:
    args = object_of(event.get("args"), problems, index, f"{at}.args")
    role = "user" if event.get("source") == "user" else "assistant"
    content: Any = args.get("content")
    urls = _images(args, problems, index, at)
    if urls:
        text = text_or_empty(content, problems, index, f"{at}.args.content")
        content = [{"type": "text", "text": text}] + [
            {"type": "image_url", "image_url": {"url": url}} for url in urls
        ]
    usage = None
    tcm = _tool_metadata(event, problems, index, at)
    if role == "assistant" and tcm is not None:
        reply = _reply(tcm, problems, index, at)
        usage = reply.usage if reply is not None else None
    record.user_message = role == "user"
    stream.add({"role": role, "content": content}, index, f"{at}.args", record, usage=usage)


def _finish_action(
    stream: _Stream,
    event: Mapping[str, Any],
    record: _Event,
    problems: Problems,
    index: int,
    at: str,
) -> None:
    args = object_of(event.get("args"), problems, index, f"{at}.args")
    thought = text_or_empty(args.get("thought"), problems, index, f"{at}.args.thought")
    role = "user" if event.get("source") == "user" else "assistant"
    usage = None
    tcm = _tool_metadata(event, problems, index, at)
    reply = _reply(tcm, problems, index, at) if tcm is not None else None
    if reply is not None:
        content = reply.message.get("content")
        said = text_or_empty(content, problems, index, f"{reply.at}.content")
        # ConversationMemory: the thought, and the reply's text where it differs.
        thought = (thought + "\n" + said if thought != said else thought) if thought else said
        usage = reply.usage
        stream.model = stream.model or reply.model
    stream.add({"role": role, "content": thought}, index, f"{at}.args", record, usage=usage)


def _tool_call_action(
    stream: _Stream,
    tcm: Mapping[str, Any],
    record: _Event,
    problems: Problems,
    index: int,
    at: str,
) -> None:
    call_id = tcm.get("tool_call_id")
    if not isinstance(call_id, str):
        problems.fail(index, f"{at}.tool_call_metadata.tool_call_id", "expected text")
    reply = _reply(tcm, problems, index, at)
    if reply is None:
        problems.fail(
            index, f"{at}.tool_call_metadata.model_response", "a tool call needs its reply"
        )
    key = reply.id if reply.id is not None else f"call:{call_id}"
    known = stream.groups.get(key)
    if known is not None:  # another call of a reply already converted
        record.items.append(known)
        return
    content = reply.message.get("content")
    if isinstance(content, str) and not content.strip():
        content = ""
    message = {
        "role": "assistant",
        "content": content,
        "tool_calls": reply.message.get("tool_calls"),
    }
    stream.model = stream.model or reply.model
    stream.groups[key] = stream.add(message, index, reply.at, record, usage=reply.usage)


def _text_call(kind: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments of a text-mode action (see :data:`_TEXT_TOOLS`)."""

    def given(keys: tuple[str, ...]) -> dict[str, Any]:
        return {key: args[key] for key in keys if args.get(key) is not None}

    if kind == "edit":
        if (isinstance(args.get("command"), str) and args["command"]) or args.get(
            "impl_source"
        ) == "oh_aci":
            return "str_replace_editor", given(_EDIT_ARGS)
        return "edit_file", given(("path", "content", "start", "end"))
    if kind == "call_tool_mcp":
        name, arguments = args.get("name"), args.get("arguments")
        return (
            name if isinstance(name, str) and name else kind,
            dict(arguments) if isinstance(arguments, Mapping) else {},
        )
    tool, keys, fixed = _TEXT_TOOLS.get(kind, (kind, (), {}))
    out: dict[str, Any] = {**fixed, **given(keys)}
    if kind == "write" and "content" in out:
        out["file_text"] = out.pop("content")
    return tool, out


def _rebuilt_call(
    stream: _Stream, kind: str, args: Mapping[str, Any], record: _Event, index: int
) -> dict[str, Any]:
    """A text-mode action's call (OpenAI-shaped), waiting for its observation."""
    call_id = CALL_ID.format(id=record.id if record.named else f"at-{index}")
    name, arguments = _text_call(kind, args)
    stream.waiting[record.id] = (call_id, name, len(stream.wire))  # the reply is added next
    stream.last_rebuilt = (index, record.id)
    stream.rebuilt += 1
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"id": call_id, "type": "function", "function": function}


def _answered(stream: _Stream, event: Mapping[str, Any], index: int) -> tuple[str, str] | None:
    """The rebuilt call (id, tool name) an observation without tool call metadata answers:
    the action its ``cause`` names, else (written without a ``cause``) the action right
    before it."""
    cause = event.get("cause")
    waiting = None
    if isinstance(cause, int) and not isinstance(cause, bool):
        waiting = stream.waiting.pop(cause, None)
    last = stream.last_rebuilt
    if cause is None and last is not None and last[0] == index - 1:
        stream.last_rebuilt = None
        waiting = stream.waiting.pop(last[1], None)
    return None if waiting is None else (waiting[0], waiting[1])


def _action(
    stream: _Stream,
    event: Mapping[str, Any],
    kind: str,
    record: _Event | None,
    problems: Problems,
    index: int,
    at: str,
) -> None:
    if record is None or kind in _NOT_SENT_ACTIONS:
        if record is not None and kind == "condensation_request":
            record.request = True
        return
    source = event.get("source")
    if kind == "system":
        args = object_of(event.get("args"), problems, index, f"{at}.args")
        record.system = True
        stream.add({"role": "system", "content": args.get("content")}, index, f"{at}.args", record)
    elif kind == "condensation":
        args = object_of(event.get("args"), problems, index, f"{at}.args")
        record.condensation = _condensation(args, problems, index, at)
        stream.condensations += 1
    elif kind == "message":
        _message_action(stream, event, record, problems, index, at)
    elif kind == "finish":
        _finish_action(stream, event, record, problems, index, at)
    elif (tcm := _tool_metadata(event, problems, index, at)) is not None:
        _tool_call_action(stream, tcm, record, problems, index, at)
    elif kind in _TOOL_ACTIONS:
        # No tool call metadata: a user's own command, or a stream without function calling.
        args = object_of(event.get("args"), problems, index, f"{at}.args")
        said = text_or_empty(event.get("message"), problems, index, f"{at}.message")
        if source == "user":
            # What the person ran themselves is context for the agent, not a request to it.
            command = args.get("command")
            if kind == "run" and isinstance(command, str):
                said = f"User executed the command:\n{command}"
            stream.kinds[stream.add({"role": "user", "content": said}, index, at, record)] = (
                "observation"
            )
        else:
            thought = text_or_empty(args.get("thought"), problems, index, f"{at}.args.thought")
            message: dict[str, Any] = {"role": "assistant", "content": thought or said}
            if stream.tool_loop:
                message["tool_calls"] = [_rebuilt_call(stream, kind, args, record, index)]
            stream.add(message, index, at, record)


def _observation(
    stream: _Stream,
    event: Mapping[str, Any],
    kind: str,
    record: _Event | None,
    problems: Problems,
    index: int,
    at: str,
) -> None:
    if record is None or kind in _NOT_SENT_OBSERVATIONS:
        return
    if kind == "recall":
        # Workspace context and microagent knowledge: what the environment added, not asked.
        extras = object_of(event.get("extras"), problems, index, f"{at}.extras")
        text = _recall_text(extras, problems, index, at)
        if text:
            stream.kinds[stream.add({"role": "user", "content": text}, index, at, record)] = (
                "observation"
            )
        return
    text = _observation_text(kind, event, problems, index, at)
    tcm = _tool_metadata(event, problems, index, at)
    if tcm is None:
        answered = _answered(stream, event, index) if stream.tool_loop else None
        if answered is not None:  # the result of a rebuilt call, as a tool result is sent
            result = {"role": "tool", "tool_call_id": answered[0], "name": answered[1]}
            stream.add({**result, "content": text}, index, at, record)
            return
        if kind == "run":
            text = "\nObserved result of command executed by user:\n" + text
        stream.kinds[stream.add({"role": "user", "content": text}, index, at, record)] = (
            "observation"
        )
        return
    call_id = tcm.get("tool_call_id")
    if not isinstance(call_id, str):
        problems.fail(index, f"{at}.tool_call_metadata.tool_call_id", "expected text")
    name = tcm.get("function_name")
    if name is not None and not isinstance(name, str):
        problems.fail(index, f"{at}.tool_call_metadata.function_name", "expected text")
    message = {"role": "tool", "tool_call_id": call_id, "content": text}
    if name is not None:
        message["name"] = name
    overrides = {
        "tool_call_id": f"{at}.tool_call_metadata.tool_call_id",
        "name": f"{at}.tool_call_metadata.function_name",
    }
    stream.add(message, index, at, record, overrides=overrides)
