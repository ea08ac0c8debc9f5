"""The events of an OpenHands V1 conversation's active branch, converted to messages as the
SDK's ``LLMConvertibleEvent.events_to_messages`` converts them, with what the condensation
windows need: each LLM-convertible event's message, and each condensation in event order.

Layer: importers (private to :mod:`footprint_lab.importers.openhands_v1`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._build import UserKind
from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    arguments_of,
    json_value,
    object_of,
    optional_str,
    short,
    text_of,
)
from footprint_lab.importers.openhands_v1._content import (
    blocks_text,
    observation_text,
    reasoning_parts,
)
from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.usage import Usage

RESULT_KINDS = frozenset({"ObservationEvent", "AgentErrorEvent", "UserRejectObservation"})
"""Events that answer a tool call (``ObservationBaseEvent``)."""
CONVERSATION_KINDS = frozenset(
    {"SystemPromptEvent", "MessageEvent", "ActionEvent", "Condensation", "CondensationSummaryEvent"}
    | RESULT_KINDS
)
"""Events that are part of what the model is sent (or, a condensation, change it)."""
IGNORED_KINDS = frozenset(
    {
        "CondensationRequest",
        "PauseEvent",
        "InterruptEvent",
        "ConversationStateUpdateEvent",
        "ConversationErrorEvent",
        "HookExecutionEvent",
        "LLMCompletionLogEvent",
        "TokenEvent",
        "StreamingDeltaEvent",
        "ACPToolCallEvent",
    }
)
"""SDK events never sent to the model (state, control, logs, an ACP server's own tool calls):
counted in ``meta['ignored_kinds']``."""
_FINISH = "FinishAction"


@dataclass
class Item:
    """One LLM-convertible event of the branch, and the message it became."""

    event_id: str
    message: int
    """Index in :attr:`Conversation.messages` (-1: the run's system prompt)."""
    action: bool = False
    result: bool = False
    call_id: str | None = None


@dataclass
class Condensed:
    """One ``Condensation`` event."""

    event_id: str
    index: int
    forgotten: frozenset[str]
    summary: str | None
    offset: int | None


@dataclass
class Conversation:
    """The branch converted: messages, their usage, and the timeline the windows replay."""

    messages: list[Message] = field(default_factory=list)
    usages: list[Usage | None] = field(default_factory=list)
    kinds: dict[int, UserKind] = field(default_factory=dict)
    system: str | None = None
    tools: list[str] = field(default_factory=list)
    timeline: list[Item | Condensed] = field(default_factory=list)
    replies: list[int] = field(default_factory=list)
    """Per assistant message: the timeline position of its (first) event."""
    condensations: list[dict[str, Any]] = field(default_factory=list)
    finished: bool = False
    """The agent's latest step was a ``FinishAction`` (nothing asked of it since)."""
    matched: int = 0
    """Assistant messages whose usage the state records."""


@dataclass
class _Batch:
    """The ActionEvents of one LLM response, seen so far (one assistant message)."""

    response_id: str | None
    index: int
    text: str
    parts: list[ContentPart]
    calls: list[ToolCall] = field(default_factory=list)
    places: list[int] = field(default_factory=list)


class Converter:
    """Reads the branch's events one by one (see the package docstring for the mapping)."""

    def __init__(self, problems: Problems, usages: Mapping[str, tuple[str, Usage | None]]):
        """Start an empty conversation; ``usages`` is the state's usage by response id."""
        self.problems = problems
        self.ids = CallIds(problems)
        self.usages = usages
        self.used: set[str] = set()
        self.answered: set[str] = set()
        self.batch: _Batch | None = None
        self.out = Conversation()

    # -- the dispatch ------------------------------------------------------------------------

    def event(self, index: int, event: Mapping[str, Any], event_id: str, kind: str) -> None:
        """Convert one event of the branch."""
        if kind == "ActionEvent":
            self._action(index, event, event_id)
            return
        if kind in IGNORED_KINDS:
            return
        if kind in CONVERSATION_KINDS or "llm_message" in event:
            self.close()
        if kind == "SystemPromptEvent":
            self._system(index, event, event_id)
        elif kind == "MessageEvent" or (kind not in CONVERSATION_KINDS and "llm_message" in event):
            self._message(index, event, event_id)
        elif kind in RESULT_KINDS:
            self._result(index, event, event_id, kind)
        elif kind == "Condensation":
            self._condensation(index, event, event_id)
        elif kind == "CondensationSummaryEvent":
            text = text_of(event.get("summary"), self.problems, index, "summary")
            self._append(Message.user(text), Item(event_id, 0), kind="observation")

    def finish(self) -> Conversation:
        """The conversation, once every event was read."""
        self.close()
        return self.out

    # -- messages ----------------------------------------------------------------------------

    def _append(self, message: Message, item: Item, *, kind: UserKind | None = None) -> None:
        """Commit ``message`` as ``item``'s message (a user message not a request: its ``kind``)."""
        out = self.out
        item.message = len(out.messages)
        if kind is not None:
            out.kinds[len(out.messages)] = kind
        out.messages.append(message)
        out.timeline.append(item)

    def _usage(self, response_id: str | None) -> Usage | None:
        """The usage the state records for ``response_id`` (once per response; None if none)."""
        if response_id is None or response_id in self.used:
            return None
        found = self.usages.get(response_id)
        if found is None or found[1] is None:
            return None
        self.used.add(response_id)
        self.out.matched += 1
        return found[1]

    def _reply(self, message: Message, item: Item, response_id: str | None) -> None:
        """Commit an assistant message, with its response's usage."""
        self.out.replies.append(len(self.out.timeline))
        self.out.usages.append(self._usage(response_id))
        self._append(message, item)

    def _system(self, index: int, event: Mapping[str, Any], event_id: str) -> None:
        """A ``SystemPromptEvent``: the run's system prompt (a later one: a system message)."""
        problems = self.problems
        texts = [self._text_content(event.get("system_prompt"), index, "system_prompt")]
        if event.get("dynamic_context") is not None:
            texts.append(self._text_content(event["dynamic_context"], index, "dynamic_context"))
        text = "\n".join(texts)
        tools = event.get("tools")
        if tools is not None and not isinstance(tools, list):
            problems.fail(index, "tools", f"expected a list of tools, got {short(tools)}")
        for tool in tools or []:
            name = _tool_name(tool)
            if name is not None and name not in self.out.tools:
                self.out.tools.append(name)
        out = self.out
        if out.system is None and not out.messages:
            out.system = text
            out.timeline.append(Item(event_id, -1))
        else:
            self._append(Message.system(text), Item(event_id, 0))

    def _text_content(self, value: Any, index: int, at: str) -> str:
        """A ``TextContent`` object's text (a plain text is read as it is)."""
        if isinstance(value, str):
            return value
        if not isinstance(value, Mapping):
            self.problems.fail(index, at, f"expected a text content object, got {short(value)}")
        return text_of(value.get("text"), self.problems, index, f"{at}.text")

    def _message(self, index: int, event: Mapping[str, Any], event_id: str) -> None:
        """A ``MessageEvent`` (or an unknown kind carrying an ``llm_message``)."""
        problems = self.problems
        raw = event.get("llm_message")
        if not isinstance(raw, Mapping):
            problems.fail(index, "llm_message", f"expected a message object, got {short(raw)}")
        role = raw.get("role")
        text, parts = blocks_text(raw.get("content"), problems, index, "llm_message.content")
        extended, more = blocks_text(
            event.get("extended_content"), problems, index, "extended_content"
        )
        if extended:
            original = {"extended_content": event["extended_content"]}
            parts.append(ContentPart(kind="agent-context", text=extended, original=original))
        parts.extend(more)
        source = optional_str(event.get("source"), problems, index, "source")
        if role == "user":
            self.out.finished = False
            kind: UserKind | None = None if source in ("user", None) else "observation"
            self._append(Message.user(text, parts=parts), Item(event_id, 0), kind=kind)
        elif role == "assistant":
            self.out.finished = False
            parts = [*reasoning_parts(raw, problems, index, "llm_message"), *parts]
            calls = self._message_calls(raw.get("tool_calls"), index)
            self.ids.asked(calls, index, "llm_message.tool_calls")
            response = optional_str(
                event.get("llm_response_id"), problems, index, "llm_response_id"
            )
            self._reply(Message.assistant(text, calls, parts=parts), Item(event_id, 0), response)
        elif role == "system":
            self._append(Message.system(text, parts=parts), Item(event_id, 0))
        elif role == "tool":
            call_id = raw.get("tool_call_id")
            if not isinstance(call_id, str):
                problems.fail(index, "llm_message.tool_call_id", "missing on a tool message")
            name = self._answer(call_id, raw.get("name"), index, "llm_message.")
            item = Item(event_id, 0, result=True, call_id=call_id)
            self._append(Message.tool(call_id, name, text, parts=parts), item)
        else:
            problems.fail(index, "llm_message.role", f"unknown role {short(role)}")

    def _message_calls(self, value: Any, index: int) -> list[ToolCall]:
        """The tool calls an ``llm_message`` carries (none for most)."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.problems.fail(index, "llm_message.tool_calls", "expected a list of tool calls")
        return [self._call(c, index, f"llm_message.tool_calls[{k}]") for k, c in enumerate(value)]

    def _call(self, raw: Any, index: int, at: str) -> ToolCall:
        """A ``MessageToolCall`` (``id``, ``name``, ``arguments`` as JSON text), or the
        Chat Completions shape (``function`` holding ``name`` and ``arguments``)."""
        problems = self.problems
        if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
            problems.fail(index, at, f"expected a tool call with an id, got {short(raw)}")
        holder, where = raw, at
        if "name" not in raw and isinstance(raw.get("function"), Mapping):
            holder, where = raw["function"], f"{at}.function"
        name = self.ids.name(index, f"{where}.name", holder.get("name"))
        arguments = arguments_of(
            holder.get("arguments"),
            problems,
            index,
            f"{where}.arguments",
            missing="arguments" not in holder,
        )
        return ToolCall(id=raw["id"], name=name, arguments=arguments)

    # -- actions and their results -----------------------------------------------------------

    def _action(self, index: int, event: Mapping[str, Any], event_id: str) -> None:
        """An ``ActionEvent``: one call, joining the open batch of its LLM response."""
        problems = self.problems
        call = self._call(event.get("tool_call"), index, "tool_call")
        given = optional_str(event.get("tool_call_id"), problems, index, "tool_call_id")
        if given is not None and given != call.id:
            problems.note(
                index,
                "tool_call_id",
                f"names call {given!r} but the tool call's id is {call.id!r} (the call's kept)",
            )
        response = optional_str(event.get("llm_response_id"), problems, index, "llm_response_id")
        batch = self.batch
        if batch is None or response is None or batch.response_id != response:
            self.close()
            text, parts = blocks_text(event.get("thought"), problems, index, "thought")
            parts = [*reasoning_parts(event, problems, index, ""), *parts]
            batch = self.batch = _Batch(response, index, text, parts)
            self.out.replies.append(len(self.out.timeline))
        batch.calls.append(call)
        batch.places.append(index)
        item = Item(event_id, len(self.out.messages), action=True, call_id=call.id)
        self.out.timeline.append(item)
        action = object_of(event.get("action"), problems, index, "action")
        self.out.finished = action.get("kind") == _FINISH or call.name == "finish"

    def close(self) -> None:
        """Commit the open batch of actions as one assistant message (its thought and
        reasoning are the first action's, as the SDK sends them)."""
        batch, self.batch = self.batch, None
        if batch is None:
            return
        out = self.out
        message = Message.assistant(batch.text, batch.calls, parts=batch.parts)
        out.usages.append(self._usage(batch.response_id))
        out.messages.append(message)
        self.ids.asked(batch.calls, batch.index, "tool_calls")
        for call, place in zip(batch.calls, batch.places, strict=True):
            if call.id in self.ids.waiting:
                self.ids.waiting[call.id] = (place, "tool_call.id")

    def _answer(self, call_id: str, name: Any, index: int, at: str) -> str:
        """The tool name of a result for ``call_id`` (a second result for one call listed)."""
        problems = self.problems
        if call_id in self.answered:
            problems.note(
                index, f"{at}tool_call_id", f"a second result for call {call_id!r} (kept as given)"
            )
        self.answered.add(call_id)
        return self.ids.result_name(call_id, name, index, f"{at}tool_call_id", f"{at}name")

    def _result(self, index: int, event: Mapping[str, Any], event_id: str, kind: str) -> None:
        """An observation, agent error or rejection: the result of its call."""
        problems = self.problems
        call_id = event.get("tool_call_id")
        parts: list[ContentPart] = []
        if kind == "ObservationEvent":
            text, parts = observation_text(event.get("observation"), problems, index, "observation")
            extended, more = blocks_text(
                event.get("extended_content"), problems, index, "extended_content"
            )
            if extended:
                original = {"extended_content": event["extended_content"]}
                parts.append(ContentPart(kind="agent-context", text=extended, original=original))
            parts.extend(more)
        elif kind == "AgentErrorEvent":
            text = text_of(event.get("error"), problems, index, "error")
        else:
            reason = event.get("rejection_reason", "User rejected the action")
            text = f"Action rejected: {text_of(reason, problems, index, 'rejection_reason')}"
        if call_id is None and kind == "AgentErrorEvent":
            # An error of an SDK before 1.0 tied to no call: sent as the agent's own text.
            self._append(Message.user(text), Item(event_id, 0), kind="observation")
            return
        if not isinstance(call_id, str):
            problems.fail(index, "tool_call_id", f"expected the call's id, got {short(call_id)}")
        name = self._answer(call_id, event.get("tool_name"), index, "")
        item = Item(event_id, 0, result=True, call_id=call_id)
        self._append(Message.tool(call_id, name, text, parts=parts), item)

    # -- condensations -----------------------------------------------------------------------

    def _condensation(self, index: int, event: Mapping[str, Any], event_id: str) -> None:
        """A ``Condensation``: on the timeline for the windows, its facts in ``meta``."""
        problems = self.problems
        ids = event.get("forgotten_event_ids", [])
        if not isinstance(ids, list):
            problems.fail(index, "forgotten_event_ids", f"expected a list of ids, got {short(ids)}")
        for k, value in enumerate(ids):
            if not isinstance(value, str):
                problems.fail(index, f"forgotten_event_ids[{k}]", "expected an event id (text)")
        summary = optional_str(event.get("summary"), problems, index, "summary")
        offset = event.get("summary_offset")
        if offset is not None and (
            isinstance(offset, bool) or not isinstance(offset, int) or offset < 0
        ):
            problems.fail(index, "summary_offset", f"expected an offset >= 0, got {short(offset)}")
        response = optional_str(event.get("llm_response_id"), problems, index, "llm_response_id")
        found = self.usages.get(response) if response is not None else None
        usage = found[1] if found is not None else None
        self.out.timeline.append(Condensed(event_id, index, frozenset(ids), summary, offset))
        self.out.condensations.append(
            {
                "event": index,
                "id": event_id,
                "forgotten_event_ids": json_value(ids, problems, index, "forgotten_event_ids"),
                "summary_offset": offset,
                "summary_chars": None if summary is None else len(summary),
                "llm_response_id": response,
                "usage": None if usage is None else usage.model_dump(),
                "observed": False,
            }
        )


def _tool_name(tool: Any) -> str | None:
    """The name of a tool a ``SystemPromptEvent`` lists (a ``ToolDefinition``'s ``name`` or
    ``title``, or an OpenAI tool's ``function.name``)."""
    if not isinstance(tool, Mapping):
        return None
    for key in ("name", "title"):
        if isinstance(tool.get(key), str):
            return str(tool[key])
    function = tool.get("function")
    if isinstance(function, Mapping) and isinstance(function.get("name"), str):
        return str(function["name"])
    return None
