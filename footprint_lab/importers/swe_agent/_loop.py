"""SWE-agent's text mode as a tool loop: the roles of its user entries, the commands its
system prompt documents, and each action rebuilt as a tool call with its observation as the
result (see :mod:`footprint_lab.importers.swe_agent`, whose module docstring states the rules).

Layer: importers (a private part of the SWE-agent loader).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from footprint_lab.importers._build import UserKind
from footprint_lab.importers._observed import wire_key
from footprint_lab.messages import Message, ToolCall

__all__ = [
    "ACTION_CALL_ID",
    "SHELL_TOOL",
    "Rebuilt",
    "loop_window",
    "rebuild_tool_loop",
    "special_commands",
    "user_kinds",
]

ACTION_CALL_ID = "swe-agent-action-{index}"
"""The id of a tool call rebuilt from a text-mode action: ``index`` is the place of its
assistant entry in the file's ``history`` (stable: the same file gives the same ids)."""
SHELL_TOOL = "bash"
"""The tool a rebuilt action names when it is not one of the system prompt's commands: a
shell command, named as SWE-agent's function-calling mode names it."""


_COMMAND_HEADER = re.compile(r"([A-Za-z_][\w.-]*):\s*")
"""A command's first line in the documented format (``open:``, then indented docstring and
signature lines)."""
_COMMAND_LINE = re.compile(r"([A-Za-z_][\w.-]*)(?:\s+(?:<[^>]*>|\[[^\]]*\]))*\s+-\s")
"""A command's line in the one-line format: its name, its ``<argument>`` / ``[<optional>]``
placeholders, then `` - `` and what it does."""
_COMMAND_ALONE = re.compile(r"([A-Za-z_][\w.-]*)\s*")
"""The first line of a one-line-format command whose signature spans lines (``edit``, then
``<replacement_text>``, then ``end_of_edit - ...``)."""


def special_commands(system: str | None) -> frozenset[str]:
    """The commands a text-mode system prompt documents in its ``COMMANDS:`` section.

    SWE-agent writes that section (its ``command_docs``) in one of two formats, both read:
    a block per command whose first line is ``name:`` (then indented ``docstring:`` /
    ``signature:`` / ``arguments:`` lines), or one line per command, ``name <arg> [<opt>] -
    what it does`` (a signature that spans lines starts with the name alone and ends at the
    line holding `` - ``). The section ends at the first blank-line-separated block that
    documents no command. A prompt without the section documents none.
    """
    if not system:
        return frozenset()
    _, found, rest = system.partition("COMMANDS:")
    if not found:
        return frozenset()
    names: set[str] = set()
    for block in re.split(r"\n[ \t]*\n", rest.strip("\n")):
        lines = block.splitlines()
        header = _COMMAND_HEADER.fullmatch(lines[0]) if lines else None
        if header is not None:
            names.add(header[1])
            continue
        documented = False
        in_signature = False
        for line in lines:
            if in_signature:
                in_signature = " - " not in line
                continue
            one_line = _COMMAND_LINE.match(line)
            match = one_line or _COMMAND_ALONE.fullmatch(line)
            if match is not None:
                names.add(match[1])
                documented = True
                in_signature = one_line is None
        if not documented:
            break
    return frozenset(names)


def user_kinds(entries: Sequence[Mapping[str, Any]], shift: int) -> dict[int, UserKind]:
    """The user entries that are not the request, by message index: demonstrations
    (``is_demo``), and every user entry after the instance prompt (the first other one)."""
    kinds: dict[int, UserKind] = {}
    request_seen = False
    for p, entry in enumerate(entries):
        if p < shift or entry.get("role") != "user":
            continue
        if entry.get("is_demo") is True:
            kinds[p - shift] = "demonstration"
        elif request_seen:
            kinds[p - shift] = "observation"
        else:
            request_seen = True  # the instance prompt: the request
    return kinds


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """One text-mode action rebuilt as a tool call."""

    text: Message
    """The assistant message as the file has it (text only)."""
    reply: Message
    """The same message with its call."""
    call: ToolCall


def rebuild_tool_loop(
    entries: Sequence[Mapping[str, Any]],
    kept: Sequence[int],
    messages: list[Message],
    kinds: dict[int, UserKind],
    shift: int,
    commands: frozenset[str],
    call_id: str = ACTION_CALL_ID,
) -> list[Rebuilt]:
    """Rebuild, in place, each text-mode action (an assistant entry with an ``action`` and no
    ``tool_calls``) whose observation follows it as one tool call and its result; each call's
    id is ``call_id`` formatted with the entry's index (another text-mode stack names its own:
    mini-swe-agent's are ``mini-swe-agent-action-{index}``)."""
    rebuilt: list[Rebuilt] = []
    for p in range(shift, len(entries) - 1):
        entry, after = entries[p], entries[p + 1]
        k = p - shift
        action = entry.get("action")
        if (
            entry.get("role") != "assistant"
            or entry.get("is_demo") is True
            or messages[k].tool_calls
            or not isinstance(action, str)
            or not action.strip()
            or after.get("role") != "user"
            or kinds.get(k + 1) != "observation"
        ):
            continue
        command = action.removesuffix("\n")
        first = command.split(maxsplit=1)[0]
        name = first if first in commands else SHELL_TOOL
        call = ToolCall(id=call_id.format(index=kept[p]), name=name, arguments={"command": command})
        reply = messages[k].model_copy(update={"tool_calls": [call]})
        rebuilt.append(Rebuilt(messages[k], reply, call))
        messages[k] = reply
        observed = messages[k + 1]
        messages[k + 1] = Message.tool(call.id, name, observed.content, parts=observed.parts)
        del kinds[k + 1]
    return rebuilt


def loop_window(window: list[Message], rebuilt: Sequence[Rebuilt]) -> list[Message]:
    """A recorded input with the history's rebuilt actions: an assistant message equal to
    one that was rebuilt (the next such, in order) is the rebuilt reply, and the user message
    right after it (the observation, or the stand-in SWE-agent sent for it) its result."""
    at: dict[Any, list[int]] = {}
    for n, item in enumerate(rebuilt):
        at.setdefault(wire_key(item.text), []).append(n)
    out: list[Message] = []
    cursor = 0
    pending: ToolCall | None = None
    for message in window:
        if pending is not None and message.role == "user":
            out.append(Message.tool(pending.id, pending.name, message.content, parts=message.parts))
            pending = None
            continue
        pending = None
        positions = at.get(wire_key(message), []) if message.role == "assistant" else []
        k = bisect.bisect_left(positions, cursor)
        if k < len(positions):
            item = rebuilt[positions[k]]
            cursor = positions[k] + 1
            out.append(item.reply)
            pending = item.call
            continue
        out.append(message)
    return out
