"""pi's messages as the lab's: one ``AgentMessage`` of a session entry to one message (or none).

Layer: importers (private to :mod:`footprint_lab.importers.pi`). The rules are pi's own
(``packages/coding-agent/src/core/messages.ts``: ``convertToLlm``; ``packages/ai/src/types.ts``):
``user``, ``assistant`` and ``toolResult`` messages go to the model as they are; a
``bashExecution`` (a command the person ran with ``!``) goes as a user message of the text
``bashExecutionToText`` writes, unless ``excludeFromContext`` (``!!``) keeps it out; ``custom``
(``hookMessage`` before version 3), ``branchSummary`` and ``compactionSummary`` messages go as
user messages of their content, or of their summary between pi's own prefix and suffix. Every
one of those pi (or an extension) wrote is an observation, never a request; a role pi does not
know is not sent (``convertToLlm`` drops it) and is counted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._build import UserKind
from footprint_lab.importers._parts import (
    MAX_USAGE,
    CallIds,
    Problems,
    arguments_of,
    blocks_of,
    content_part,
    json_problem,
    optional_str,
    short,
    text_of,
    usage_from,
)
from footprint_lab.messages import ContentPart, Message, ToolCall, arguments_json
from footprint_lab.usage import Usage

__all__ = [
    "BRANCH_PREFIX",
    "BRANCH_SUFFIX",
    "COMPACTION_PREFIX",
    "COMPACTION_SUFFIX",
    "Converter",
    "compaction_text",
]

COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
"""What pi sends before a compaction summary (``COMPACTION_SUMMARY_PREFIX``)."""
COMPACTION_SUFFIX = "\n</summary>"
"""What pi sends after it (``COMPACTION_SUMMARY_SUFFIX``)."""
BRANCH_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
"""What pi sends before a branch summary (``BRANCH_SUMMARY_PREFIX``)."""
BRANCH_SUFFIX = "</summary>"
"""What pi sends after it (``BRANCH_SUMMARY_SUFFIX``)."""

_COST_KEYS = ("input", "output", "cacheRead", "cacheWrite", "total")
_ENDED = frozenset({"error", "aborted"})
"""Stop reasons of a reply pi never sends again (``transformMessages`` skips it) and whose
tool calls it never ran."""
_HARNESS_ROLES = frozenset({"custom", "hookMessage", "developer", "system"})
"""Roles of messages an extension or the harness wrote, sent as their content."""


def compaction_text(summary: str) -> str:
    """The user message pi sends in place of what a compaction summarized."""
    return COMPACTION_PREFIX + summary + COMPACTION_SUFFIX


def _number(value: Any) -> bool:
    """Whether ``value`` is a finite number (a boolean is not one)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and (isinstance(value, int) or math.isfinite(value))
    )


class Converter:
    """Reads the messages of one session's path, in order, and keeps what they report."""

    def __init__(self, problems: Problems, answered: set[str]) -> None:
        """Start a session whose path answers the tool calls ``answered`` (their ids)."""
        self.problems = problems
        self.ids = CallIds(problems)
        self.answered = answered
        self.usages: list[Usage | None] = []
        """One per assistant message, in order."""
        self.models: list[str] = []
        self.providers: list[str] = []
        self.cost: dict[str, float] = {}
        self.stop_reasons: Counter[str] = Counter()
        self.ended: list[dict[str, Any]] = []
        """Replies that ended in an error or were aborted (line, stopReason, errorMessage)."""
        self.unexecuted: list[dict[str, Any]] = []
        """Tool calls of such replies that no result answers (pi never ran them)."""
        self.last_stop: tuple[str, str | None] | None = None
        """The last reply's stop reason and error message (when it gives one)."""
        self.excluded_bash = 0
        self.unsent_roles: Counter[str] = Counter()
        self.harness_roles: Counter[str] = Counter()

    # -- content -----------------------------------------------------------------------------

    def content(self, value: Any, line: int, field: str) -> tuple[str, list[ContentPart]]:
        """Text and typed parts of a ``content`` (text, or a list of blocks).

        Raises:
            TranscriptError: it is neither, or a block is not a typed object.
        """
        if isinstance(value, str):
            return value, []
        if value is None:
            self.problems.note(line, field, "no content; read as empty, as pi reads it")
            return "", []
        blocks = blocks_of(value, self.problems, line, field)
        texts: list[str] = []
        parts: list[ContentPart] = []
        for k, block in enumerate(blocks):
            at = f"{field}[{k}]"
            if block["type"] == "text":
                texts.append(text_of(block.get("text"), self.problems, line, f"{at}.text"))
            else:
                parts.append(self._part(block, line, at))
        return "".join(texts), parts

    def _part(self, block: Mapping[str, Any], line: int, field: str) -> ContentPart:
        """A block that is not text: thinking (redacted thinking by its opaque signature), an
        image, or a type pi does not know, kept whole."""
        if block["type"] == "thinking" and block.get("redacted") is True:
            signature = block.get("thinkingSignature")
            chars = len(signature) if isinstance(signature, str) else 0
            part = content_part(block, self.problems, line, field, kind_of="redacted_thinking")
            return part.model_copy(update={"data_chars": chars})
        return content_part(block, self.problems, line, field)

    # -- messages ----------------------------------------------------------------------------

    def message(self, raw: Any, line: int, field: str) -> tuple[Message, UserKind | None] | None:
        """The message one ``AgentMessage`` sends, and its kind (``observation`` for what pi or
        an extension wrote); None when pi does not send it.

        Raises:
            TranscriptError: it is not a message object, or a field has the wrong type.
        """
        if not isinstance(raw, Mapping):
            self.problems.fail(line, field, f"expected a message object, got {short(raw)}")
        role = raw.get("role")
        if not isinstance(role, str):
            self.problems.fail(line, f"{field}.role", f"a message needs a role, got {short(role)}")
        if role == "user":
            text, parts = self.content(raw.get("content"), line, f"{field}.content")
            parts.extend(self._attachments(raw.get("attachments"), line, f"{field}.attachments"))
            return Message.user(text, parts=parts), None
        if role == "assistant":
            return self._assistant(raw, line, field), None
        if role == "toolResult":
            return self._result(raw, line, field), None
        if role == "bashExecution":
            if raw.get("excludeFromContext") is True:
                self.excluded_bash += 1
                return None
            return Message.user(self._bash_text(raw, line, field)), "observation"
        if role in _HARNESS_ROLES:
            self.harness_roles[role] += 1
            text, parts = self.content(raw.get("content"), line, f"{field}.content")
            return Message.user(text, parts=parts), "observation"
        if role in ("branchSummary", "compactionSummary"):
            summary = text_of(raw.get("summary"), self.problems, line, f"{field}.summary")
            prefix, suffix = (
                (BRANCH_PREFIX, BRANCH_SUFFIX)
                if role == "branchSummary"
                else (COMPACTION_PREFIX, COMPACTION_SUFFIX)
            )
            return Message.user(prefix + summary + suffix), "observation"
        self.unsent_roles[role] += 1
        return None

    def _attachments(self, value: Any, line: int, field: str) -> list[ContentPart]:
        """The ``attachments`` of a user message of early pi (images, documents), as parts."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.problems.fail(line, field, f"expected a list of attachments, got {short(value)}")
        parts: list[ContentPart] = []
        for k, item in enumerate(value):
            if not isinstance(item, Mapping):
                self.problems.fail(line, f"{field}[{k}]", "an attachment must be an object")
            why = json_problem(item)
            if why is not None:
                self.problems.fail(line, f"{field}[{k}]", f"the attachment holds {why}")
            extracted = item.get("extractedText")
            data = item.get("content")
            kind = "document" if item.get("type") == "document" else "image"
            original = dict(item)
            if isinstance(extracted, str):
                parts.append(ContentPart(kind=kind, text=extracted, original=original))
            else:
                chars = len(data) if isinstance(data, str) else len(arguments_json(original))
                parts.append(ContentPart(kind=kind, data_chars=chars, original=original))
        return parts

    def _bash_text(self, raw: Mapping[str, Any], line: int, field: str) -> str:
        """What pi sends for a command the person ran (``bashExecutionToText``)."""
        command = text_of(raw.get("command"), self.problems, line, f"{field}.command")
        output = optional_str(raw.get("output"), self.problems, line, f"{field}.output") or ""
        code = raw.get("exitCode")
        if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
            self.problems.fail(line, f"{field}.exitCode", f"expected an integer, got {short(code)}")
        path = optional_str(
            raw.get("fullOutputPath"), self.problems, line, f"{field}.fullOutputPath"
        )
        text = f"Ran `{command}`\n" + (f"```\n{output}\n```" if output else "(no output)")
        if raw.get("cancelled") is True:
            text += "\n\n(command cancelled)"
        elif code is not None and code != 0:
            text += f"\n\nCommand exited with code {code}"
        if raw.get("truncated") is True and path:
            text += f"\n\n[Output truncated. Full output: {path}]"
        return text

    def _assistant(self, raw: Mapping[str, Any], line: int, field: str) -> Message:
        """A reply: text, thinking and other blocks as parts, ``toolCall`` blocks as calls (a
        call of an errored or aborted reply that no result answers is kept as a part: pi never
        ran it), its usage, model and stop reason kept."""
        stop = optional_str(raw.get("stopReason"), self.problems, line, f"{field}.stopReason")
        error = optional_str(raw.get("errorMessage"), self.problems, line, f"{field}.errorMessage")
        model = optional_str(raw.get("model"), self.problems, line, f"{field}.model")
        provider = optional_str(raw.get("provider"), self.problems, line, f"{field}.provider")
        if model and model not in self.models:
            self.models.append(model)
        if provider and provider not in self.providers:
            self.providers.append(provider)
        ended = stop in _ENDED
        if stop is not None:
            self.stop_reasons[stop] += 1
        self.last_stop = (stop, error) if stop is not None else None
        if ended:
            self.ended.append({"line": line, "stopReason": stop, "errorMessage": error})
        content = raw.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        texts: list[str] = []
        parts: list[ContentPart] = []
        calls: list[ToolCall] = []
        positions: list[int] = []
        at = f"{field}.content"
        if content is None:
            self.problems.note(line, at, "no content; read as empty, as pi reads it")
            content = []
        for k, block in enumerate(blocks_of(content, self.problems, line, at)):
            where = f"{at}[{k}]"
            if block["type"] == "text":
                texts.append(text_of(block.get("text"), self.problems, line, f"{where}.text"))
            elif block["type"] == "toolCall":
                call = self._call(block, line, where)
                if ended and call.id not in self.answered:
                    self.unexecuted.append(
                        {"line": line, "id": call.id, "name": call.name, "stopReason": stop}
                    )
                    parts.append(content_part(block, self.problems, line, where))
                else:
                    calls.append(call)
                    positions.append(k)
            else:
                parts.append(self._part(block, line, where))
        self.ids.asked(calls, line, at, positions)
        self.usages.append(self._usage(raw.get("usage"), line, f"{field}.usage"))
        return Message.assistant("".join(texts), tool_calls=calls, parts=parts)

    def _call(self, block: Mapping[str, Any], line: int, field: str) -> ToolCall:
        """A ``toolCall`` block as a call: its id, name and arguments as given."""
        call_id = block.get("id")
        if not isinstance(call_id, str):
            self.problems.fail(
                line, f"{field}.id", f"a toolCall needs a text id, got {short(call_id)}"
            )
        name = self.ids.name(line, f"{field}.name", block.get("name"))
        arguments = arguments_of(
            block.get("arguments"),
            self.problems,
            line,
            f"{field}.arguments",
            missing="arguments" not in block,
            object_only=True,
        )
        return ToolCall(id=call_id, name=name, arguments=arguments)

    def _result(self, raw: Mapping[str, Any], line: int, field: str) -> Message:
        """A tool result, named by the call it answers (``toolCallId``); ``isError`` is written
        ``error: `` before its text, as the lab writes a failed tool's result."""
        call_id = raw.get("toolCallId")
        if not isinstance(call_id, str):
            self.problems.fail(
                line,
                f"{field}.toolCallId",
                f"a tool result needs a text toolCallId, got {short(call_id)}",
            )
        name = self.ids.result_name(
            call_id, raw.get("toolName"), line, f"{field}.toolCallId", f"{field}.toolName"
        )
        parts: list[ContentPart] = []
        if "content" not in raw and isinstance(raw.get("output"), str):
            text = raw["output"]  # pi before November 2025: the result's text as ``output``
        else:
            text, parts = self.content(raw.get("content"), line, f"{field}.content")
        is_error = raw.get("isError")
        if is_error is not None and not isinstance(is_error, bool):
            self.problems.fail(
                line, f"{field}.isError", f"expected true or false, got {short(is_error)}"
            )
        if is_error:
            text = f"error: {text}"
        return Message.tool(call_id, name, text, parts=parts)

    # -- usage -------------------------------------------------------------------------------

    def _usage(self, raw: Any, line: int, field: str) -> Usage | None:
        """A reply's usage: ``input_tokens`` the whole prompt (pi's ``input`` is the uncached
        part; ``cacheRead`` and ``cacheWrite`` are added), and its ``cost`` summed into
        :attr:`cost`."""
        if raw is None:
            return None
        if not isinstance(raw, Mapping):
            self.problems.fail(line, field, f"expected a usage object, got {short(raw)}")
        counts = {
            "input_tokens": (raw.get("input"), f"{field}.input"),
            "output_tokens": (raw.get("output"), f"{field}.output"),
            "cache_read_tokens": (raw.get("cacheRead"), f"{field}.cacheRead"),
            "cache_write_tokens": (raw.get("cacheWrite"), f"{field}.cacheWrite"),
        }
        usage = usage_from(raw, counts, self.problems, line, field)
        self._cost(raw.get("cost"), line, f"{field}.cost")
        if usage is None:
            return None
        whole = (
            usage.input_tokens + (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
        )
        if whole > MAX_USAGE:
            self.problems.fail(line, f"{field}.input", "input and cache token counts out of range")
        return usage.model_copy(update={"input_tokens": whole})

    def _cost(self, raw: Any, line: int, field: str) -> None:
        """Add a reply's reported ``cost`` to :attr:`cost` (what is not a number is listed)."""
        if raw is None:
            return
        if not isinstance(raw, Mapping):
            self.problems.note(
                line, field, f"a cost that is not an object ({short(raw)}); not summed"
            )
            return
        for key in _COST_KEYS:
            value = raw.get(key)
            if value is None:
                continue
            if not _number(value):
                self.problems.note(
                    line,
                    f"{field}.{key}",
                    f"a cost that is not a number ({short(value)}); not summed",
                )
                continue
            try:
                self.cost[key] = self.cost.get(key, 0.0) + float(value)
            except OverflowError:
                self.problems.note(line, f"{field}.{key}", "a cost too large to sum; not summed")
