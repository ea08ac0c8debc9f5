"""How an OpenAI Responses item list is told from the start of a file, and the item types.

Layer: importers (private to :mod:`footprint_lab.importers.chat.responses`). The registry's
:class:`~footprint_lab.importers._sniff.Sniff` gives the keys of a file's first JSON value (or
of a list's first item); telling a Responses ``message`` item from another stack's message
needs one level more (the type of its first content part), and a list that opens with a plain
``{"role", "content"}`` message (what the Agents SDK stores for a person's input) is told by
the items after it. :func:`head_items` reads the first items of the list at the top of the
text (or under a key of the top object) with a JSON tokenizer, never parsing the whole file,
in one pass over the sniffed head. The item-type tables here are the ones the openai SDK's
``ResponseInputItem`` / ``ResponseOutputItem`` unions name (``openai/types/responses``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Literal

from footprint_lab.importers._sniff import Sniff

__all__ = [
    "CALL_NAMES",
    "CALL_TYPES",
    "CONTROL_TYPES",
    "HOSTED_TYPES",
    "INPUT_TYPES",
    "OUTPUT_ANSWERS",
    "PART_TYPES",
    "RESPONSE_OBJECTS",
    "ROLES",
    "ItemHead",
    "claims",
    "head_items",
    "is_item",
    "is_plain_message",
    "resembles",
]

ROLES = frozenset({"user", "assistant", "system", "developer"})
"""The roles of a Responses ``message`` item."""
PART_TYPES = frozenset(
    {"input_text", "output_text", "input_image", "input_file", "input_audio", "refusal"}
)
"""Content part types only the Responses API writes (Chat Completions writes ``text``,
``image_url`` ...; Anthropic ``text``, ``tool_use`` ...)."""
CALL_TYPES = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "computer_call",
        "shell_call",
        "local_shell_call",
        "apply_patch_call",
        "mcp_approval_request",
    }
)
"""Calls the model makes that the client runs and answers with an output item."""
CALL_NAMES: dict[str, str] = {
    "computer_call": "computer",
    "shell_call": "shell",
    "local_shell_call": "local_shell",
    "apply_patch_call": "apply_patch",
    "tool_search_call": "tool_search",
}
"""The tool name of a call item that names none (the built-in tool it calls)."""
OUTPUT_ANSWERS: dict[str, str] = {
    "function_call_output": "call_id",
    "custom_tool_call_output": "call_id",
    "computer_call_output": "call_id",
    "shell_call_output": "call_id",
    "local_shell_call_output": "call_id",
    "apply_patch_call_output": "call_id",
    "tool_search_output": "call_id",
    "mcp_approval_response": "approval_request_id",
}
"""Output items the client sends back, each with the field naming the call it answers."""
HOSTED_TYPES = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "program",
        "program_output",
        "tool_search_call",
        "tool_search_output",
    }
)
"""Built-in tool calls the API runs itself, inside the response (call and result in one
item, or both in the same output)."""
CONTROL_TYPES = frozenset({"compaction_trigger", "configuration_update"})
"""Items that ask the API for something (a compaction, a new configuration) and carry no
conversation."""
INPUT_TYPES = frozenset({"compaction", "item_reference", "additional_tools"}) | CONTROL_TYPES
"""Other items of the list (not a message, call or output)."""
RESPONSE_OBJECTS = frozenset({"response", "response.compaction"})
"""The ``object`` of a Response (``responses.create``) and of a compacted response
(``responses.compact``)."""

_KNOWN = CALL_TYPES | HOSTED_TYPES | INPUT_TYPES | set(OUTPUT_ANSWERS) | {"message", "reasoning"}
_MESSAGE_KEYS = frozenset({"id", "type", "role", "content", "status", "phase"})
_REQUIRED: dict[str, frozenset[str]] = {
    "reasoning": frozenset({"summary"}),
    "compaction": frozenset({"encrypted_content"}),
    "item_reference": frozenset({"id"}),
    "web_search_call": frozenset({"id", "status"}),
    "file_search_call": frozenset({"id", "queries"}),
    "code_interpreter_call": frozenset({"id", "container_id"}),
    "image_generation_call": frozenset({"id", "status"}),
    "mcp_call": frozenset({"server_label"}),
    "mcp_list_tools": frozenset({"server_label"}),
    "mcp_approval_request": frozenset({"server_label"}),
    "mcp_approval_response": frozenset({"approval_request_id"}),
    "additional_tools": frozenset({"tools"}),
    "program": frozenset({"call_id", "code"}),
    "program_output": frozenset({"call_id", "result"}),
    "tool_search_call": frozenset({"arguments"}),
    "tool_search_output": frozenset({"tools"}),
    "compaction_trigger": frozenset(),
    "configuration_update": frozenset(),
}
"""Fields an item of each type always has (beyond ``type``), besides the call id of calls
and outputs."""

# One JSON token: a string (its closing quote missing where the text stops), punctuation, a
# bare word or number, or white space (the registry's sniff reads JSON the same way).
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\],:]|[^\s"{}\[\],:]+|\s+')
MAX_ITEMS = 64
"""How many items :func:`head_items` reads."""


@dataclass
class ItemHead:
    """The start of one item: its keys, its text values and its first content part's type."""

    keys: set[str] = field(default_factory=set)
    """The item's keys."""
    texts: dict[str, str] = field(default_factory=dict)
    """The keys whose value is text, with the text."""
    part: str | None = None
    """The ``type`` of the first part of its ``content`` list (None: none, or not a list)."""


def _string(token: str) -> str:
    try:
        value = json.loads(token)
    except ValueError:
        return token[1:-1] if token.endswith('"') else token[1:]
    return value if isinstance(value, str) else token


def head_items(
    text: str, root: Literal["list", "object"] = "list", under: str | None = None
) -> list[ItemHead]:
    """The first :data:`MAX_ITEMS` items of ``text`` (which may stop anywhere): the items of
    the top list (``root="list"``), of the list under the key ``under`` of the top object, or
    the top object itself (``root="object"``, ``under`` None). Empty when the text does not
    start so."""
    items: list[ItemHead] = []
    # Each frame: [bracket, key or index, expecting a key]. The items' own frames sit at
    # ``level``; a content list at level + 1 and its first part at level + 2.
    stack: list[list[object]] = []
    level = {"list": 1, "object": 0}[root] + (1 if under is not None else 0)
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first.isspace():
            continue
        if not stack:
            wanted = "[" if root == "list" and under is None else "{"
            if first != wanted:
                return items
        if first in "{[":
            depth = len(stack)
            if depth == level and first == "{" and _in_items(stack, level, under):
                items.append(ItemHead())
                if len(items) > MAX_ITEMS:
                    return items[:MAX_ITEMS]
            stack.append([first, None if first == "{" else 0, first == "{"])
            continue
        if first in "}]":
            stack.pop()
            if len(stack) < level or not stack:
                return items
            continue
        frame = stack[-1]
        if first == ",":
            if frame[0] == "[":
                frame[1] = int(str(frame[1])) + 1
            else:
                frame[1], frame[2] = None, True
            continue
        if first == ":":
            frame[2] = False
            continue
        _value(token, stack, level, items, under)
    return items


def _in_items(stack: list[list[object]], level: int, under: str | None) -> bool:
    """Whether a value opening at depth ``level`` is an item (and not inside another key)."""
    if under is None:
        return True
    return len(stack) == level and stack[0][0] == "{" and stack[0][1] == under


def _value(
    token: str, stack: list[list[object]], level: int, items: list[ItemHead], under: str | None
) -> None:
    """A key or a scalar value at the top of ``stack``."""
    frame = stack[-1]
    if not items or not _in_items(stack[:level], level, under):
        if frame[0] == "{" and frame[2] and token.startswith('"'):
            frame[1] = _string(token)
        return
    item = items[-1]
    depth = len(stack) - 1
    if frame[0] == "{" and frame[2]:
        key = _string(token) if token.startswith('"') else token
        frame[1] = key
        if depth == level:
            item.keys.add(key)
        return
    if not token.startswith('"'):
        return
    if depth == level and isinstance(frame[1], str):
        item.texts[frame[1]] = _string(token)
    elif (
        depth == level + 2
        and frame[1] == "type"
        and stack[level][1] == "content"
        and stack[level + 1][1] == 0
        and item.part is None
    ):
        item.part = _string(token)


def is_plain_message(head: ItemHead) -> bool:
    """A message given by role and content alone, as both Chat Completions and the Responses
    API (``EasyInputMessage``) write one: not enough to tell which."""
    return "type" not in head.keys and head.texts.get("role") in ROLES and "content" in head.keys


def is_item(head: ItemHead) -> bool:
    """Whether an item start is one only the Responses API writes: a typed item of a known
    type with that type's own fields (a ``message`` with a Responses role and text content or
    Responses content parts; a call or output with ``call_id``; ...), a message without a
    type whose content parts are Responses parts, or a Response object."""
    if head.texts.get("object") in RESPONSE_OBJECTS:
        return True
    kind = head.texts.get("type")
    if kind is None:
        return is_plain_message(head) and head.part in PART_TYPES
    if kind not in _KNOWN:
        return False
    if kind == "message":
        return (
            head.texts.get("role") in ROLES
            and "content" in head.keys
            and head.keys <= _MESSAGE_KEYS
            and ("content" in head.texts or head.part in PART_TYPES)
        )
    needed = _REQUIRED.get(kind)
    if needed is None:  # a call or an output: the id of the call
        key = OUTPUT_ANSWERS.get(kind, "id" if kind == "mcp_approval_request" else "call_id")
        needed = frozenset({key})
    return needed <= head.keys


def _opens_with_ours(heads: list[ItemHead]) -> bool:
    """A run of items that opens with a Responses item, or with plain messages followed by a
    Responses item (the Agents SDK stores a person's input as a plain message)."""
    for head in heads:
        if is_item(head):
            return True
        if not is_plain_message(head):
            return False
    return False


def claims(sniff: Sniff) -> bool:
    """Whether the sniffed file is a Responses item list (see the module docstring of
    :mod:`footprint_lab.importers.chat.responses`): exact, so no other stack's file is
    claimed (a Chat Completions list of plain messages is not: nothing in it is the Responses
    API's own)."""
    text = sniff.text
    shape = sniff.first
    if text is None or shape.kind not in ("list", "object"):
        return False
    if shape.kind == "list":
        if shape.text("object") in RESPONSE_OBJECTS:
            return True
        return _opens_with_ours(head_items(text))
    if shape.text("object") in RESPONSE_OBJECTS:
        return True
    if "items" in shape.keys and _opens_with_ours(head_items(text, "list", under="items")):
        return True
    if not shape.one_line:
        return False
    # JSON lines: one item (or Response object) a line.
    lines = [line for line in sniff.first_lines(4 * MAX_ITEMS) if line.strip()][:MAX_ITEMS]
    heads = [next(iter(head_items(line, "object")), ItemHead()) for line in lines]
    return len(lines) > 1 and _opens_with_ours(heads)


def resembles(sniff: Sniff) -> str | None:
    """For a file nobody claims: a sentence when it looks like an OpenAI message list this
    reader does not take as it is (else None)."""
    text = sniff.text
    shape = sniff.first
    if text is None:
        return None
    keys = shape.keys
    if shape.kind == "list" and {"role", "content"} <= keys and "type" not in keys:
        return (
            "a Chat Completions message list: read it with "
            "footprint_lab.importers.from_openai(json.load(...))"
        )
    if shape.kind == "object" and shape.text("object") == "list" and "data" in shape.keys:
        heads = head_items(text, "list", under="data")
        if heads and any(is_item(head) for head in heads):
            return (
                "an OpenAI list page of Responses items (input items or conversation items, "
                "newest first by default): save its data in conversation order "
                "(order='asc') as a JSON list and load that"
            )
    return None
