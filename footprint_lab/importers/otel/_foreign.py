"""The generic rebuild of a foreign GenAI trace as a run, through ``build_run``.

Layer: importers. A trace footprint_lab did not write: its chat spans in start-time order, the
history rebuilt from what each input adds after the messages it shares with the history and
then the call's output, each call's input as the window it saw, and the tool results that only
``execute_tool`` spans report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._observed import HistoryIndex, wire_key
from footprint_lab.importers._parts import Problems, json_problem
from footprint_lab.messages import Message
from footprint_lab.otlp.groups import SpanGroup, is_chat, is_tool
from footprint_lab.otlp.names import (
    AGENT_NAME,
    OUTPUT_MESSAGES,
    POLICY,
    PROVIDER,
    REQUEST_MODEL,
    RESPONSE_MODEL,
    SOURCE,
    SYSTEM,
    TOOL_CALL_ID,
    TOOL_NAME,
    TOOL_RESULT,
    UNIT,
)
from footprint_lab.otlp.read import OtelSpan, attr_where, fail
from footprint_lab.otlp.read_genai import MessageReader, instructions, read_chat, text_value
from footprint_lab.usage import Usage


class _History:
    """The history rebuilt so far (searchable by what a message says on the wire, as
    :class:`~footprint_lab.importers._observed.HistoryIndex` searches it), with each reply's
    usage, recorded input and finish reason."""

    def __init__(self) -> None:
        self.index = HistoryIndex()
        self.usages: list[Usage | None] = []
        self.sent: list[list[Message] | None] = []
        self.finish: list[str | None] = []
        self.answered: set[str | None] = set()
        """Call ids a tool result in the history answers."""

    @property
    def messages(self) -> list[Message]:
        """The history, in order."""
        return self.index.messages

    def add(
        self,
        message: Message,
        usage: Usage | None = None,
        sent: list[Message] | None = None,
        finish: str | None = None,
    ) -> None:
        self.index.add([message])
        if message.role == "tool":
            self.answered.add(message.tool_call_id)
        if message.role == "assistant":
            self.usages.append(usage)
            self.sent.append(sent)
            self.finish.append(finish)

    def next_match(self, message: Message, start: int) -> int | None:
        """The first history position at or after ``start`` holding ``message``'s wire form."""
        return self.index.next_match(wire_key(message), start)


def _tool_results(members: Sequence[OtelSpan]) -> dict[str, Message]:
    """Tool results the ``execute_tool`` spans report, by call id."""
    out: dict[str, Message] = {}
    for span in members:
        if not is_tool(span):
            continue
        call_id = span.attributes.get(TOOL_CALL_ID)
        if not isinstance(call_id, str) or TOOL_RESULT not in span.attributes:
            continue
        result = span.attributes[TOOL_RESULT]
        why = json_problem(result)
        if why is not None:
            fail(span.index, attr_where(TOOL_RESULT), f"holds {why}")
        name = span.attributes.get(TOOL_NAME)
        out.setdefault(
            call_id,
            Message.tool(call_id, name if isinstance(name, str) else "unknown", text_value(result)),
        )
    return out


def _answer_tools(
    history: _History, last: Message | None, given: set[str | None], results: Mapping[str, Message]
) -> None:
    """Commit the results the tool spans report for ``last``'s calls that no input gives."""
    if last is None:
        return
    for call in last.tool_calls:
        if call.id not in history.answered and call.id not in given and call.id in results:
            history.add(results[call.id].model_copy())


def _foreign(group: SpanGroup, strict: bool) -> Run:
    """A run from any GenAI trace (see the module docstring)."""
    problems = Problems(SOURCE, strict=strict, unit=UNIT)
    reader = MessageReader(problems)
    chats = sorted((s for s in group.members if is_chat(s)), key=lambda s: (s.start, s.index))
    results = _tool_results(group.members)
    system = instructions(group.head)
    history = _History()
    last: Message | None = None
    model: str | None = None
    for n, span in enumerate(chats):
        call = read_chat(span, reader)
        if system is None:
            system = instructions(span)
        if model is None:
            for key in (REQUEST_MODEL, RESPONSE_MODEL):
                value = span.attributes.get(key)
                if isinstance(value, str) and value:
                    model = value
                    break
        items = list(call.inputs or [])
        if n == 0 and system is None and items and items[0].role == "system" and not items[0].parts:
            system = items[0].content
        if (
            items
            and items[0].role == "system"
            and system is not None
            and items[0].content == system
        ):
            items = items[1:]
        _answer_tools(history, last, {m.tool_call_id for m in items if m.role == "tool"}, results)
        cursor = 0
        last_matched = -1
        for i, message in enumerate(items):
            at = history.next_match(message, cursor)
            if at is not None:
                cursor = at + 1
                last_matched = i
        for message in items[last_matched + 1 :]:
            history.add(message.model_copy())
        if call.output is None:
            problems.note(
                span.index, attr_where(OUTPUT_MESSAGES), "no reply: the call is not imported"
            )
            continue
        history.add(call.output, call.usage, call.inputs, call.finish_reason)
        last = call.output
    _answer_tools(history, last, set(), results)
    head = group.head
    agent = None if head is None else head.attributes.get(AGENT_NAME)
    provider = next(
        (
            v
            for s in [*(() if head is None else (head,)), *chats]
            for k in (PROVIDER, SYSTEM)
            if isinstance(v := s.attributes.get(k), str)
        ),
        None,
    )
    meta: dict[str, Any] = {"trace_id": group.trace_id}
    if head is not None:
        meta["span_id"] = head.span_id
    if isinstance(agent, str):
        meta["agent"] = agent
        meta["label"] = agent
    if provider is not None:
        meta["provider"] = provider
    run = build_run(
        history.messages,
        history.usages,
        system=system,
        source=SOURCE,
        meta=meta,
        problems=problems.found,
        model=model,
        sent=history.sent,
        policy=POLICY,
    )
    for call_record, reason in zip(run.calls, history.finish, strict=False):
        call_record.finish_reason = reason
    return run
