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
  turns — the requests, the only ones (``run.requests``) — agent ``message`` actions are
  assistant text.
* An action carrying ``tool_call_metadata`` is a model reply with tool calls: the assistant
  message is the ``model_response``'s first choice (its text, unless blank, and *all* its tool
  calls), and the actions of one response (same ``model_response.id``) are ONE message, with
  that response's usage. A ``finish`` action is assistant text (its thought, and the reply's
  text where it differs), as OpenHands sends it.
* An observation carrying ``tool_call_metadata`` is the tool result of that call; command output
  gets OpenHands' metadata lines (working directory, interpreter, exit code), errors and
  rejections their notes. Other observations are sent as user text and committed as
  ``observation`` user messages (:func:`~footprint_lab.messages.is_observation`), never a
  request: an ``error`` observation, the output of a command the user ran, a ``recall``
  observation (the workspace context and microagent knowledge it recorded; OpenHands'
  templates around that text are not reproduced). So is a command the user ran themselves
  (``User executed the command: ...``): context for the agent, not a request to it.
* **Tool loop.** A stream whose model called tools (events with ``tool_call_metadata``) is
  already a tool loop (``meta['tool_loop'] = 'native'``). A text-mode action — ``run``,
  ``run_ipython``, ``edit``, ``read``, ``write``, ``browse``, ``browse_interactive``,
  ``call_tool_mcp``, ``delegate``, ``think``, ``task_tracking`` by the agent, with no tool
  call metadata (streams without function calling, 2024's serializations) — is rebuilt as
  one (``'rebuilt'``, with ``meta['rebuilt_tool_calls']``): the assistant message keeps its
  text (the thought, else the event's message) and gets one call, id
  ``openhands-event-<event id>`` (``openhands-event-at-<k>`` for an event written without an
  id, ``k`` its place in the history), named as OpenHands' function-calling tools name it
  (``execute_bash`` for ``run``, ``execute_ipython_cell`` for ``run_ipython``,
  ``str_replace_editor`` for ``read`` / ``write`` / an ``edit`` with a command or from the ACI
  editor, ``edit_file`` for another, ``web_read`` for ``browse``, ``browser`` for
  ``browse_interactive``, ``task_tracker``, the MCP tool's own name; else the action's), its
  arguments the action's (``command``, ``code``, ``path`` ...). The observation whose
  ``cause`` is that action (or, written without a ``cause``, the one right after it) is its
  tool result, its text as a tool result is sent (no "command executed by user" note); an
  action nothing answers stays text (a call without its result is no tool loop).
  ``tool_loop=False`` keeps the literal form: assistant text and ``observation`` user
  messages (``'literal'``, also the value for a stream with neither).
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

import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    files_in,
    json_value,
    nested,
    object_of,
    ordered,
    parse_json_text,
    read_text_file,
)
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.chat.openai import parse_openai
from footprint_lab.importers.openhands._events import _convert
from footprint_lab.importers.openhands._stream import _Stream
from footprint_lab.importers.openhands._windows import _windows
from footprint_lab.importers.recorded import ImportedStatus
from footprint_lab.messages import Message

SOURCE = "openhands"
"""The ``source`` of runs, errors and problems from this importer."""
POLICY = "openhands"
"""The name of OpenHands' own context policy (its condensers) in observed window records."""
SUFFIXES = (".json", ".jsonl")
"""The file suffixes a folder is searched for."""
UNIT = "event"
"""What an error's index counts: the event of ``history``."""

__all__ = ["FILE_FORMAT", "POLICY", "SOURCE", "SUFFIXES", "load_openhands"]


def load_openhands(path: str | Path, *, strict: bool = False, tool_loop: bool = True) -> list[Run]:
    """One run per OpenHands event stream (per instance).

    Each run's ``meta`` holds ``instance_id`` (the instance's, else the file's stem),
    ``events``, ``condensations``, ``tool_loop`` (``'native'``, ``'rebuilt'`` with
    ``rebuilt_tool_calls``, or ``'literal'``: see the module docstring) and, where the file
    has them, ``model``, ``agent_class``, ``outcome`` (``has_patch``, ``resolved``),
    ``error``, ``accumulated_cost``, ``accumulated_token_usage`` and ``max_message_chars``.

    Args:
        path: A ``.json`` or ``.jsonl`` file, or a folder: every such file in it, sorted by name.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.
        tool_loop: Rebuild text-mode actions (no tool call metadata) and their observations
            as tool calls and results (False: keep them as assistant text and
            ``observation`` user messages).

    Raises:
        TranscriptError: a file cannot be read as JSON, is not an event stream, or is malformed
            (naming the file, the event and the field); a folder holds no such file.
    """
    runs: list[Run] = []
    for file in files_in(path, SUFFIXES, SOURCE):
        runs.extend(_load_file(file, strict=strict, tool_loop=tool_loop))
    return runs


def _load_file(path: Path, *, strict: bool, tool_loop: bool) -> list[Run]:
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
            run = _instance(value, prefix, path.stem, strict=strict, tool_loop=tool_loop)
        except TranscriptError as exc:
            raise nested(exc, SOURCE, path=where) from None
        run.import_problems = nested(run.import_problems, SOURCE, path=where)
        runs.append(run)
    return runs


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
    problems = nested(found.found, SOURCE, where, unit=UNIT)
    shift = 1 if system is not None else 0
    place = {k: k - shift for k in range(shift, len(stream.wire))}
    return messages, system, problems, place


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


def _flat_events(events: Any) -> Iterator[Mapping[str, Any]]:
    """Every event object of a history, whether it lists events or ``[action, observation]``
    pairs (2024's evaluation output)."""
    for item in events if isinstance(events, list) else []:
        for event in item if isinstance(item, list) else [item]:
            if isinstance(event, Mapping):
                yield event


def _tool_loop(stream: _Stream, events: Any) -> str:
    """How the run's tool loop came to be: rebuilt from text-mode actions, the model's own
    (some event carries tool call metadata), or neither (text kept as it is)."""
    if stream.rebuilt:
        return "rebuilt"
    native = any(e.get("tool_call_metadata") for e in _flat_events(events))
    return "native" if native else "literal"


def _instance(value: Any, prefix: str, stem: str, *, strict: bool, tool_loop: bool) -> Run:
    # Problems are collected, then (when strict) the first in event order is raised.
    problems = Problems(SOURCE, unit=UNIT)
    if isinstance(value, Mapping):
        if "history" not in value:
            problems.fail(None, f"{prefix}history", "expected an object with a history")
        events = value["history"]
        meta, model = _meta(value, stem, prefix, problems)
    elif isinstance(value, list):
        if value and isinstance(value[0], Mapping) and "kind" in value[0]:
            # V1 events (software-agent-sdk) carry a kind and text ids: another format.
            problems.fail(None, "file", "OpenHands V1 conversation: use load_openhands_v1 / load")
        events, meta, model = value, {"instance_id": stem}, None
    else:
        problems.fail(None, "file", "expected an event list or an object with a history")
    stream = _convert(events, prefix, problems, tool_loop=tool_loop)
    messages, system, found, place = _parse(stream)
    kinds = {place[k]: kind for k, kind in stream.kinds.items() if k in place}
    sent = _windows(stream, messages, place)
    observed = sum(w is not None for w in sent)
    model = model or stream.model
    if model is not None:
        meta["model"] = model
    meta["events"] = stream.read
    meta["condensations"] = stream.condensations
    meta["tool_loop"] = _tool_loop(stream, events)
    if stream.rebuilt:
        meta["rebuilt_tool_calls"] = stream.rebuilt
    listed = ordered([*problems.found, *found], strict=strict, unit=UNIT)
    outcome, ended = _outcome(events, meta)
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
        kinds=kinds,
        outcome=outcome,
        outcome_detail=ended,
        strict=strict,
    )


def _outcome(events: Any, meta: Mapping[str, Any]) -> tuple[ImportedStatus | None, str | None]:
    """How the instance ended, by the imported-status rule
    (:mod:`footprint_lab.importers.recorded`): an error the output names is ``incomplete``; a
    ``finish`` action is ``done``; an agent stopped by its iteration or budget limit is
    ``max-iterations``; a stream with none of them records no outcome."""
    if isinstance(meta.get("error"), str):
        error = str(meta["error"])
        limit = "maximum iteration" in error.lower() or "budget" in error.lower()
        return ("max-iterations" if limit else "incomplete"), f"error: {error}"
    if any(e.get("action") == "finish" for e in _flat_events(events)):
        return "done", "finish"
    return None, None


_INSTANCE_KEYS = frozenset({"test_result", "instruction", "metadata"})


def _claims(sniff: Sniff) -> bool:
    """An object with ``history`` (or ``instance_id`` beside an instance's keys), or a list of
    V0 events (``action`` / ``observation``, or ``id`` and ``source``). A SWE-agent trajectory
    has a ``history`` too, beside its ``trajectory`` (and a ``.traj`` name): SWE-agent's. A V1
    event carries a ``kind`` (and a text id): OpenHands V1, not V0."""
    shape = sniff.first
    keys = shape.keys
    if shape.kind == "object":
        if "trajectory" in keys or sniff.name.endswith(".traj"):
            return False
        return "history" in keys or ("instance_id" in keys and bool(keys & _INSTANCE_KEYS))
    if shape.kind == "list" and "kind" not in keys and shape.text("id") is None:
        return bool(keys & {"history", "action", "observation"}) or {"id", "source"} <= keys
    return False


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="OpenHands V0 events: a list of action/observation events, or objects with history",
    loader=load_openhands,
    claims=_claims,
    tool_loop=True,
)
"""How the registry tells and reads an OpenHands V0 event stream."""
