"""Load OpenHands event streams (runtime trajectories and evaluation output) as runs, with the
windows OpenHands' condensers left where the stream records a condensation.

Layer: importers. A file is an event list, an object with ``history`` (one instance: also
``instance_id``, ``metadata``, ``metrics``, ``test_result``), a list of such objects, or JSONL
with one instance a line. Older serializations are read too: a ``history`` of ``[action,
observation]`` pairs (evaluation output of 2024), and flattened events whose args / extras
sit beside ``action`` / ``observation`` with no ``id`` or ``source`` (the resolver's output of
2024; a message there is the user's unless it waits for a response). Events render as
OpenHands' ``ConversationMemory`` renders them for the model; events it never sends are
skipped:

* ``system`` actions give the system prompt (``args.content``); user ``message`` actions are user
  turns, agent ``message`` actions are assistant text.
* An action carrying ``tool_call_metadata`` is a model reply with tool calls: the assistant
  message is the ``model_response``'s first choice (its text, unless blank, and *all* its tool
  calls), and the actions of one response (same ``model_response.id``) are ONE message, with
  that response's usage. A ``finish`` action is assistant text (its thought, and the reply's
  text where it differs), as OpenHands sends it.
* An observation carrying ``tool_call_metadata`` is the tool result of that call; command output
  gets OpenHands' metadata lines (working directory, interpreter, exit code), errors and
  rejections their notes. Other observations are user turns; a ``recall`` observation is the
  workspace context and microagent knowledge it recorded (OpenHands' templates around that text
  are not reproduced).
* Not sent, so skipped: ``recall``, ``change_agent_state``, ``null`` and other control actions,
  ``null``, ``agent_state_changed``, ``loop_detection`` and ``condense`` observations, and
  hidden events. Also not reproduced: OpenHands' middle truncation of observations longer than
  ``max_message_chars`` (its value is in ``run.meta``) and the blank line it puts between two
  consecutive user turns.

A ``condensation`` action (``forgotten_event_ids``, or ``forgotten_events_start_id`` ..
``forgotten_events_end_id``; optionally ``summary`` at ``summary_offset``) changes what every
later call sees. As OpenHands' ``View.from_events`` does, each later call's window is the
agent history before it, less every event any condensation so far forgot (and the condensation
events themselves), with the latest summary inserted at its offset, the first user message put
back where a condenser dropped it, and tool calls and results that lost their partner left out.
These windows go to :func:`build_run` as ``sent`` (policy ``'openhands'``); the summary is a
stand-in, never a history message.

Anything malformed raises :class:`TranscriptError` naming the file, the event index and the
field (fields are written ``history[k]...``, or ``entry[n].history[k]...`` for a file of
several instances); problems a provider would have accepted are listed in
``run.import_problems`` (source ``'openhands'``), or raised when ``strict``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from footprint_lab._gc import gc_paused
from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    files_in,
    int_of,
    json_value,
    nested,
    object_of,
    optional_str,
    ordered,
    parse_json_text,
    read_text_file,
    short,
    text_or_empty,
    usage_from,
)
from footprint_lab.importers.openai import parse_openai
from footprint_lab.messages import Message
from footprint_lab.usage import Usage

SOURCE = "openhands"
"""The ``source`` of runs, errors and problems from this importer."""
POLICY = "openhands"
"""The name of OpenHands' own context policy (its condensers) in observed window records."""
SUFFIXES = (".json", ".jsonl")
"""The file suffixes a folder is searched for."""
UNIT = "event"
"""What an error's index counts: the event of ``history``."""

__all__ = ["POLICY", "SOURCE", "SUFFIXES", "load_openhands"]

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
_NOT_IN_HISTORY = (
    frozenset({"null", "change_agent_state"}),
    frozenset({"null", "agent_state_changed"}),
)
"""(actions, observations) the controller keeps out of the agent's history."""


@gc_paused
def load_openhands(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per OpenHands event stream (per instance).

    Each run's ``meta`` holds ``instance_id`` (the instance's, else the file's stem),
    ``events``, ``condensations`` and, where the file has them, ``model``, ``agent_class``,
    ``outcome`` (``has_patch``, ``resolved``), ``error``, ``accumulated_cost``,
    ``accumulated_token_usage`` and ``max_message_chars``.

    Args:
        path: A ``.json`` or ``.jsonl`` file, or a folder: every such file in it, sorted by name.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Raises:
        TranscriptError: a file cannot be read as JSON, is not an event stream, or is malformed
            (naming the file, the event and the field); a folder holds no such file.
    """
    runs: list[Run] = []
    for file in files_in(path, SUFFIXES, SOURCE):
        runs.extend(_load_file(file, strict=strict))
    return runs


def _load_file(path: Path, *, strict: bool) -> list[Run]:
    where = str(path)
    text = read_text_file(path, SOURCE)
    entries: list[tuple[str, Any]] = []
    if path.suffix == ".jsonl":
        for n, line in enumerate(text.splitlines()):
            if line.strip():
                try:
                    value = parse_json_text(line, SOURCE, where, field=f"line {n + 1}")
                except TranscriptError as exc:
                    # Line n holds entry[n]: the entry is what the index counts here.
                    raise TranscriptError(
                        SOURCE, n, exc.field, exc.problem, path=where, unit="entry"
                    ) from None
                entries.append((f"entry[{n}].", value))
    else:
        value = parse_json_text(text, SOURCE, where)
        # A list of instances (objects with a history), else one instance or one event list.
        many = isinstance(value, list) and bool(value)
        many = many and all(isinstance(v, Mapping) and "history" in v for v in value)
        entries = [(f"entry[{n}].", v) for n, v in enumerate(value)] if many else [("", value)]
    runs: list[Run] = []
    for prefix, value in entries:
        try:
            runs.append(_instance(value, prefix, path.stem, strict=strict))
        except TranscriptError as exc:
            raise nested(exc, SOURCE, path=where) from None
    return runs


@dataclass
class _Condensation:
    """What one condensation action forgets (besides itself), and its summary."""

    ids: frozenset[int]
    """Event ids it forgets by name."""
    span: tuple[int, int] | None
    """The first and last id of a range it forgets (never expanded: it may be huge)."""
    summary: str | None
    offset: int | None


@dataclass
class _Event:
    """One event of the agent's history (the events the controller keeps)."""

    id: int
    items: list[int] = field(default_factory=list)
    """Indices (in the converted list) of the messages this event renders as."""
    user_message: bool = False
    condensation: _Condensation | None = None
    request: bool = False
    system: bool = False


@dataclass
class _Stream:
    """The converted stream: OpenAI-shaped messages, where each came from, usages, and the
    agent history with each reply's place in it."""

    wire: list[dict[str, Any]] = field(default_factory=list)
    fields: list[tuple[int, str, dict[str, str]]] = field(default_factory=list)
    """Per converted message: the event index, the field its keys live under, and overrides."""
    usages: list[Usage | None] = field(default_factory=list)
    replies: list[int] = field(default_factory=list)
    """Per assistant message: how many history events came before the call."""
    events: list[_Event] = field(default_factory=list)
    groups: dict[str, int] = field(default_factory=dict)
    model: str | None = None
    read: int = 0
    """How many events the history holds (a history of pairs: two a pair)."""
    condensations: int = 0

    def add(
        self,
        message: dict[str, Any],
        index: int,
        at: str,
        event: _Event | None,
        *,
        usage: Usage | None = None,
        overrides: dict[str, str] | None = None,
    ) -> int:
        if message["role"] == "assistant":
            self.replies.append(len(self.events))
            self.usages.append(usage)
        self.wire.append(message)
        self.fields.append((index, at, overrides or {}))
        if event is not None:
            event.items.append(len(self.wire) - 1)
        return len(self.wire) - 1


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


def _condensation(
    args: Mapping[str, Any], problems: Problems, index: int, at: str
) -> _Condensation:
    """A condensation's configuration, validated as OpenHands validates it."""
    ids = args.get("forgotten_event_ids")
    start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
    summary, offset = args.get("summary"), args.get("summary_offset")
    by_ids, by_range = ids is not None, start is not None and end is not None
    if by_ids == by_range:
        problems.fail(
            index,
            f"{at}.args",
            "a condensation needs forgotten_event_ids or a forgotten_events_start_id.."
            "forgotten_events_end_id range (exactly one)",
        )
    if (summary is None) != (offset is None):
        problems.fail(index, f"{at}.args", "summary and summary_offset go together")
    forgotten: frozenset[int] = frozenset()
    span: tuple[int, int] | None = None
    if by_ids:
        if not isinstance(ids, list):
            problems.fail(index, f"{at}.args.forgotten_event_ids", "expected a list of event ids")
        forgotten = frozenset(
            int_of(v, problems, index, f"{at}.args.forgotten_event_ids[{k}]")
            for k, v in enumerate(ids)
        )
    else:
        span = (
            int_of(start, problems, index, f"{at}.args.forgotten_events_start_id"),
            int_of(end, problems, index, f"{at}.args.forgotten_events_end_id"),
        )
    if summary is not None:
        summary = text_or_empty(summary, problems, index, f"{at}.args.summary")
        offset = int_of(offset, problems, index, f"{at}.args.summary_offset")
    return _Condensation(forgotten, span, summary, offset)


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


def _hidden(event: Mapping[str, Any]) -> bool:
    for key in ("args", "extras"):
        holder = event.get(key)
        if isinstance(holder, Mapping) and holder.get("hidden") is True:
            return True
    return event.get("hidden") is True


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
            command = args.get("command")
            if kind == "run" and isinstance(command, str):
                said = f"User executed the command:\n{command}"
            stream.add({"role": "user", "content": said}, index, at, record)
        else:
            thought = text_or_empty(args.get("thought"), problems, index, f"{at}.args.thought")
            stream.add({"role": "assistant", "content": thought or said}, index, at, record)


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
        extras = object_of(event.get("extras"), problems, index, f"{at}.extras")
        text = _recall_text(extras, problems, index, at)
        if text:
            stream.add({"role": "user", "content": text}, index, at, record)
        return
    text = _observation_text(kind, event, problems, index, at)
    tcm = _tool_metadata(event, problems, index, at)
    if tcm is None:
        if kind == "run":
            text = "\nObserved result of command executed by user:\n" + text
        stream.add({"role": "user", "content": text}, index, at, record)
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


_EVENT_KEYS = frozenset(
    {"id", "timestamp", "source", "message", "action", "observation", "content", "cause"}
    | {"tool_call_metadata", "llm_metrics", "hidden", "args", "extras"}
)
"""Keys of a serialized event itself (the rest of a legacy event is its args or extras)."""


def _events(events: Any, prefix: str, problems: Problems) -> tuple[list[tuple[Any, str]], bool]:
    """The events of a history, each with its field, and whether the history is one of
    ``[action, observation]`` pairs (OpenHands' evaluation output before its event stream,
    2024; read pair by pair, its observations have no id)."""
    if not isinstance(events, list):
        problems.fail(None, f"{prefix}history", "expected a list of events")
    if not events or not all(isinstance(item, list) for item in events):
        return [(event, f"{prefix}history[{k}]") for k, event in enumerate(events)], False
    out: list[tuple[Any, str]] = []
    for k, pair in enumerate(events):
        if len(pair) != 2:
            problems.fail(
                len(out), f"{prefix}history[{k}]", "expected an [action, observation] pair"
            )
        out.extend((event, f"{prefix}history[{k}][{j}]") for j, event in enumerate(pair))
    return out, True


def _legacy(event: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """An event as OpenHands serializes it now, and whether it was serialized the older way.

    Older serializations (the resolver's output, 2024) put an action's args and an
    observation's extras beside its ``action`` / ``observation`` rather than under ``args`` /
    ``extras``, and wrote no ``id`` or ``source``: a message then is the user's unless it
    waits for a response (the agent asking)."""
    holder = "args" if "action" in event else "extras"
    if holder in event or ("action" not in event and "observation" not in event):
        return event, False
    # An observation's content is its own; an action's is one of its args.
    rest = {
        k: v for k, v in event.items() if k not in _EVENT_KEYS or (k, holder) == ("content", "args")
    }
    out: dict[str, Any] = {**event, holder: rest}
    if holder == "args" and "source" not in event:
        asks = event.get("action") == "message" and rest.get("wait_for_response") is True
        out["source"] = "agent" if asks or event.get("action") != "message" else "user"
    return out, True


def _convert(events: Any, prefix: str, problems: Problems) -> _Stream:
    stream = _Stream()
    listed, pairs = _events(events, prefix, problems)
    for index, (event, at) in enumerate(listed):
        if not isinstance(event, Mapping):
            problems.fail(index, at, f"expected an event object, got {short(event)}")
        event, legacy = _legacy(event)
        given = event.get("id")
        if given is None and (legacy or pairs):
            event_id = -1 - index  # no id was written: a stand-in no condensation can name
        else:
            event_id = int_of(given, problems, index, f"{at}.id")
        optional_str(event.get("source"), problems, index, f"{at}.source")
        action, observation = event.get("action"), event.get("observation")
        if (action is None) == (observation is None):
            problems.fail(index, at, "an event needs exactly one of 'action' and 'observation'")
        kind = action if action is not None else observation
        if not isinstance(kind, str):
            name = "action" if action is not None else "observation"
            problems.fail(index, f"{at}.{name}", f"expected text, got {short(kind)}")
        kept = _NOT_IN_HISTORY[0 if action is not None else 1]
        record = None if kind in kept or _hidden(event) else _Event(event_id)
        if action is not None:
            _action(stream, event, kind, record, problems, index, at)
        else:
            _observation(stream, event, kind, record, problems, index, at)
        if record is not None:
            stream.events.append(record)
        stream.read += 1
    return stream


def _parse(
    stream: _Stream,
) -> tuple[list[Message], str | None, list[ImportProblem], dict[int, int]]:
    """The converted stream through :func:`parse_openai`, its errors and problems renamed to
    the events they came from; and the message index of each converted entry."""

    def where(k: int | None, name: str) -> tuple[int | None, str]:
        if k is None or not 0 <= k < len(stream.fields):
            return None, name
        index, at, overrides = stream.fields[k]
        head = name.split(".", 1)[0].split("[", 1)[0]
        if head in overrides:
            return index, overrides[head] + name[len(head) :]
        return index, f"{at}.{name}"

    try:
        messages, _usages, system, found = parse_openai(stream.wire)
    except TranscriptError as exc:
        raise nested(exc, SOURCE, where, unit=UNIT) from None
    problems = nested(found.found, SOURCE, where)
    shift = 1 if system is not None else 0
    place = {k: k - shift for k in range(shift, len(stream.wire))}
    return messages, system, problems, place


_SUMMARY = object()
_INITIAL = object()


def _windows(
    stream: _Stream, messages: Sequence[Message], place: Mapping[int, int]
) -> list[list[Message] | None]:
    """Each reply's input as OpenHands built it (``View.from_events``, then
    ``ConversationMemory``); None for a reply no condensation came before (it saw the history
    as it is)."""
    events = stream.events
    order = [k for k, e in enumerate(events) if e.condensation is not None]
    if not order:
        return [None] * len(stream.replies)
    # The first condensation (by its place in ``order``) that forgets each event.
    never = len(order)
    forgotten_at = [never] * len(events)
    by_id: dict[int, list[int]] = {}
    for k, e in enumerate(events):
        by_id.setdefault(e.id, []).append(k)
    for t, k in enumerate(order):
        condensation = events[k].condensation
        assert condensation is not None
        hits = [k, *(p for i in condensation.ids for p in by_id.get(i, []))]
        if condensation.span is not None:
            low, high = condensation.span
            hits.extend(p for p, e in enumerate(events) if low <= e.id <= high)
        for p in hits:
            forgotten_at[p] = min(forgotten_at[p], t)
    initial = next((e for e in events if e.user_message), None)
    out: list[list[Message] | None] = []
    for before in stream.replies:
        seen = bisect.bisect_left(order, before)  # condensations before this reply
        if seen == 0:
            out.append(None)
            continue
        kept: list[Any] = [
            e for p, e in enumerate(events[:before]) if forgotten_at[p] >= seen and not e.request
        ]
        # The summary in force is the latest (inserted as list.insert does, as OpenHands does).
        latest = next(
            (
                c
                for c in (events[k].condensation for k in reversed(order[:seen]))
                if c is not None and c.summary is not None
            ),
            None,
        )
        if latest is not None and latest.offset is not None:
            kept.insert(latest.offset, _SUMMARY)
        out.append(_render(kept, initial, latest, messages, place))
    return out


def _render(
    kept: list[Any],
    initial: _Event | None,
    latest: _Condensation | None,
    messages: Sequence[Message],
    place: Mapping[int, int],
) -> list[Message]:
    """The messages of a view: a system message first, then the first user message (put back
    where a condenser dropped it), as ``ConversationMemory`` ensures."""
    if not any(isinstance(e, _Event) and e.system for e in kept):
        kept.insert(0, None)
    second = kept[1] if len(kept) > 1 else None
    if initial is not None and not (isinstance(second, _Event) and second.user_message):
        kept.insert(1, _INITIAL)
    window: list[Message] = []
    replies: set[int] = set()  # the actions of one reply share its message: send it once
    for item in kept:
        if item is _SUMMARY and latest is not None and latest.summary is not None:
            window.append(Message.user(latest.summary))
            continue
        event = initial if item is _INITIAL else item
        if not isinstance(event, _Event):
            continue
        for k in event.items:
            if k not in place:
                continue
            message = messages[place[k]]
            if message.role == "assistant":
                if k in replies:
                    continue
                replies.add(k)
            window.append(message)
    return _matched_calls(window)


def _matched_calls(window: list[Message]) -> list[Message]:
    """The window less tool results without their call and calls without their result
    (``ConversationMemory._filter_unmatched_tool_calls``)."""
    calls = {c.id for m in window if m.role == "assistant" for c in m.tool_calls}
    results = {m.tool_call_id for m in window if m.role == "tool" and m.tool_call_id}
    out: list[Message] = []
    for message in window:
        if message.role == "tool" and message.tool_call_id:
            if message.tool_call_id in calls:
                out.append(message)
        elif message.role == "assistant" and message.tool_calls:
            matched = [c for c in message.tool_calls if c.id in results]
            if len(matched) == len(message.tool_calls):
                out.append(message)
            elif matched:
                out.append(message.model_copy(update={"tool_calls": matched}))
        else:
            out.append(message)
    return out


def _number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and (not isinstance(value, float) or math.isfinite(value))
    )


def _meta(
    instance: Mapping[str, Any], stem: str, prefix: str, problems: Problems
) -> tuple[dict[str, Any], str | None]:
    """The instance's facts, and the model its configuration names."""
    instance_id = instance.get("instance_id")
    meta: dict[str, Any] = {"instance_id": instance_id if isinstance(instance_id, str) else stem}
    metadata = object_of(instance.get("metadata"), problems, None, f"{prefix}metadata")
    config = object_of(metadata.get("llm_config"), problems, None, f"{prefix}metadata.llm_config")
    model = config.get("model")
    if model is not None and not isinstance(model, str):
        problems.fail(None, f"{prefix}metadata.llm_config.model", "expected text")
    limit = config.get("max_message_chars")
    if isinstance(limit, int) and not isinstance(limit, bool):
        meta["max_message_chars"] = limit
    agent = metadata.get("agent_class")
    if isinstance(agent, str):
        meta["agent_class"] = agent
    if "test_result" in instance:
        result = object_of(instance["test_result"], problems, None, f"{prefix}test_result")
        outcome: dict[str, Any] = {}
        patch = result.get("git_patch")
        if patch is not None:
            outcome["has_patch"] = isinstance(patch, str) and bool(patch.strip())
        report = result.get("report")
        resolved = result.get("resolved")
        if resolved is None and isinstance(report, Mapping):
            resolved = report.get("resolved")
        if isinstance(resolved, bool):
            outcome["resolved"] = resolved
        meta["outcome"] = outcome
    error = instance.get("error")
    if isinstance(error, str):
        meta["error"] = error
    metrics = object_of(instance.get("metrics"), problems, None, f"{prefix}metrics")
    cost = metrics.get("accumulated_cost")
    if cost is not None:
        if not _number(cost):
            problems.fail(None, f"{prefix}metrics.accumulated_cost", "expected a number")
        meta["accumulated_cost"] = cost
    tokens = metrics.get("accumulated_token_usage")
    if tokens is not None:
        tokens = object_of(tokens, problems, None, f"{prefix}metrics.accumulated_token_usage")
        meta["accumulated_token_usage"] = {k: v for k, v in tokens.items() if _number(v)}
    json_value(meta, problems, None, f"{prefix}metrics")
    return meta, model


def _instance(value: Any, prefix: str, stem: str, *, strict: bool) -> Run:
    # Problems are collected, then (when strict) the first in event order is raised.
    problems = Problems(SOURCE, unit=UNIT)
    if isinstance(value, Mapping):
        if "history" not in value:
            problems.fail(None, f"{prefix}history", "expected an object with a history")
        events = value["history"]
        meta, model = _meta(value, stem, prefix, problems)
    elif isinstance(value, list):
        events, meta, model = value, {"instance_id": stem}, None
    else:
        problems.fail(None, "file", "expected an event list or an object with a history")
    stream = _convert(events, prefix, problems)
    messages, system, found, place = _parse(stream)
    sent = _windows(stream, messages, place)
    observed = sum(w is not None for w in sent)
    model = model or stream.model
    if model is not None:
        meta["model"] = model
    meta["events"] = stream.read
    meta["condensations"] = stream.condensations
    listed = ordered([*problems.found, *found], strict=strict, unit=UNIT)
    return build_run(
        messages,
        stream.usages,
        system=system,
        source=SOURCE,
        meta=meta,
        problems=listed,
        model=model,
        sent=sent if observed else None,
        policy=POLICY,
    )
