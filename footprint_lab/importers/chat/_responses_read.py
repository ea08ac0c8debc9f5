"""The walk over a Responses item list: items grouped into messages, each compaction's window,
and the facts for ``run.meta``.

Layer: importers (private to :mod:`footprint_lab.importers.chat.responses`, whose docstring
states the mapping). :class:`Reader` takes the list's elements in order (items, Response
objects, compacted responses) and keeps, in one pass, the messages, one usage and one window
(or None) per assistant message, the system prompt and the facts; :meth:`Reader.finish`
hands them over as :class:`Parsed`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    TranscriptError,
    nested,
    optional_str,
    short,
)
from footprint_lab.importers.chat._responses_items import (
    call_of,
    compaction_stand_in,
    content_of,
    hosted_part,
    place,
    reasoning_parts,
    response_facts,
    result_of,
    unfinished,
    usage_of,
    window_copy,
)
from footprint_lab.importers.chat._responses_shape import (
    CALL_TYPES,
    CONTROL_TYPES,
    HOSTED_TYPES,
    OUTPUT_ANSWERS,
    ROLES,
)
from footprint_lab.messages import ContentPart, Message, ToolCall
from footprint_lab.usage import Usage

__all__ = ["Parsed", "Reader"]

_CALLS_FIELD = re.compile(r"calls\[(\d+)\]\.id")
_CHAT_ONLY = ("tool_calls", "tool_call_id", "function_call")
_CLIENT = "client"
_TOOL_SEARCH = ("tool_search_call", "tool_search_output")


@dataclass
class Parsed:
    """What a Responses item list holds, ready for ``build_run``."""

    messages: list[Message]
    usages: list[Usage | None]
    sent: list[list[Message] | None] | None
    system: str | None
    model: str | None
    meta: dict[str, Any]
    ended: str | None
    """The last Response's own word when it did not complete (else None)."""


@dataclass
class _Pending:
    """An assistant-side item waiting for the rest of its reply."""

    item: Mapping[str, Any]
    kind: str
    index: int
    prefix: str
    call: bool


@dataclass
class Reader:
    """One pass over a list's elements (see the module docstring)."""

    problems: Problems
    ids: CallIds = field(init=False)
    messages: list[Message] = field(default_factory=list)
    usages: list[Usage | None] = field(default_factory=list)
    sent: list[list[Message] | None] = field(default_factory=list)
    group: list[_Pending] = field(default_factory=list)
    system: Message | None = None
    instructions: str | None = None
    base: list[Message] = field(default_factory=list)
    """The window the latest compaction left (its kept messages and stand-in)."""
    since: int = 0
    """Where the messages after the latest compaction start."""
    pending: bool = False
    """The next reply is the first call after a compaction: its window is recorded."""
    counts: Counter[str] = field(default_factory=Counter)
    hosted: Counter[str] = field(default_factory=Counter)
    unknown: Counter[str] = field(default_factory=Counter)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    item_ids: set[str] = field(default_factory=set)
    user_texts: list[str] = field(default_factory=list)
    """The text of each user message of the history, in order."""
    references: list[tuple[str, bool]] = field(default_factory=list)
    control: Counter[str] = field(default_factory=Counter)
    ended: str | None = None
    changed: list[int] = field(default_factory=list)
    """The Responses whose instructions differ from the run's system prompt."""

    def __post_init__(self) -> None:
        """Track calls against the same problems."""
        self.ids = CallIds(self.problems)

    # -- the elements --------------------------------------------------------------------

    def entry(self, raw: Any, index: int) -> None:
        """One element of the list: a Response, a compacted response, or an item."""
        if not isinstance(raw, Mapping):
            self.problems.fail(index, "item", f"expected an object, got {short(raw)}")
        kind = raw.get("object")
        self.ended = None
        if kind == "response":
            self.response(raw, index)
        elif kind == "response.compaction":
            self.compacted(raw, index)
        else:
            self.item(raw, index, "", response=False)

    def item(self, raw: Any, index: int, prefix: str, *, response: bool) -> None:
        """One item (at ``prefix`` inside a Response's output when ``response``)."""
        if not isinstance(raw, Mapping):
            self.problems.fail(index, prefix or "item", f"expected an object, got {short(raw)}")
        kind = raw.get("type")
        if kind is None and "role" in raw:
            kind = "message"
        if not isinstance(kind, str):
            self.problems.fail(
                index, place(prefix, "type"), f"an item needs a type (or a role), got {short(kind)}"
            )
        if isinstance(raw.get("id"), str):
            self.item_ids.add(raw["id"])
        self.counts[kind] += 1
        client = kind in _TOOL_SEARCH and not self._hosted(raw, kind)
        if kind == "message":
            self._message(raw, index, prefix)
        elif kind in OUTPUT_ANSWERS and (kind not in _TOOL_SEARCH or client):
            self.flush()
            self.messages.append(result_of(raw, kind, self.problems, self.ids, index, prefix))
        elif kind == "reasoning" or kind in CALL_TYPES or kind in HOSTED_TYPES:
            call = kind in CALL_TYPES or (kind == "tool_search_call" and client)
            self.group.append(_Pending(raw, kind, index, prefix, call))
        elif kind == "compaction":
            self.flush()
            self.compaction(raw, index, prefix, response=response)
        elif kind == "item_reference":
            self.flush()
            ref = raw.get("id")
            if not isinstance(ref, str):
                self.problems.fail(index, place(prefix, "id"), "an item reference needs an id")
            self.references.append((ref, ref in self.item_ids))
        elif kind in CONTROL_TYPES:
            self.flush()
            self.control[kind] += 1
        elif kind == "additional_tools":
            self.flush()
            part = hosted_part(raw, kind, self.problems, index, prefix)
            self.messages.append(Message.system("", parts=[part]))
        else:
            self._unknown(raw, kind, index, prefix)

    def _hosted(self, raw: Mapping[str, Any], kind: str) -> bool:
        """Whether a tool search item is one the API ran itself (one the client runs, with
        a call id, is a call and its output a result)."""
        return raw.get("execution") != _CLIENT or not isinstance(raw.get("call_id"), str)

    def _message(self, raw: Mapping[str, Any], index: int, prefix: str) -> None:
        role = raw.get("role")
        for key in _CHAT_ONLY:
            if key in raw and "type" not in raw:
                self.problems.fail(
                    index,
                    place(prefix, key),
                    "a Chat Completions message, not a Responses item: read the list with "
                    "footprint_lab.importers.from_openai",
                )
        if not isinstance(role, str) or role not in ROLES:
            self.problems.fail(index, place(prefix, "role"), f"unknown role {short(role)}")
        if role == "assistant":
            self.group.append(_Pending(raw, "message", index, prefix, False))
            return
        self.flush()
        text, parts = content_of(raw, self.problems, index, prefix)
        if role == "user":
            self.messages.append(Message.user(text, parts=parts))
            self.user_texts.append(text)
        elif not self.messages and self.system is None and not parts and self._first():
            self.system = Message.system(text)
        else:
            self.messages.append(Message.system(text, parts=parts))

    def _first(self) -> bool:
        """Whether the item being read is the first of the list."""
        return sum(self.counts.values()) == 1

    def _unknown(self, raw: Mapping[str, Any], kind: str, index: int, prefix: str) -> None:
        """An item of a type this reader does not know: a result when it answers a call
        waiting for one, else kept whole as a part of the reply (counted in meta)."""
        self.unknown[kind] += 1
        call_id = raw.get("call_id")
        pending = [p.item.get("call_id") for p in self.group if p.call]
        waiting = {c for c in pending if isinstance(c, str)} | set(self.ids.waiting)
        if isinstance(call_id, str) and call_id in waiting and "name" not in raw:
            self.flush()
            self.messages.append(result_of(raw, kind, self.problems, self.ids, index, prefix))
            return
        self.group.append(_Pending(raw, kind, index, prefix, False))

    # -- replies ---------------------------------------------------------------------------

    def flush(self) -> None:
        """Close the reply in progress: its items become one assistant message."""
        if not self.group:
            return
        group, self.group = self.group, []
        texts: list[str] = []
        parts: list[ContentPart] = []
        calls: list[ToolCall] = []
        places: list[tuple[int, str]] = []
        problems = self.problems
        for p in group:
            if p.kind == "message":
                text, more = content_of(p.item, problems, p.index, p.prefix)
                texts.extend([text] if text else [])
                parts.extend(more)
            elif p.kind == "reasoning":
                parts.extend(reasoning_parts(p.item, problems, p.index, p.prefix))
            elif p.call:
                calls.append(call_of(p.item, p.kind, problems, self.ids, p.index, p.prefix))
                key = "id" if p.kind == "mcp_approval_request" else "call_id"
                places.append((p.index, place(p.prefix, key)))
            else:
                parts.append(hosted_part(p.item, p.kind, problems, p.index, p.prefix))
                if p.kind in HOSTED_TYPES:
                    self.hosted[p.kind] += 1
        self._ask(calls, places, group[0].index)
        window = self._window()
        self.messages.append(Message.assistant("\n\n".join(texts), tool_calls=calls, parts=parts))
        self.usages.append(None)
        self.sent.append(window)

    def _ask(self, calls: list[ToolCall], places: list[tuple[int, str]], index: int) -> None:
        """Record one reply's calls with :class:`CallIds`, each problem named at the item
        that made the call (a reply's calls come from several items)."""

        def where(at: int | None, name: str) -> tuple[int | None, str]:
            found = _CALLS_FIELD.fullmatch(name)
            return places[int(found[1])] if found and int(found[1]) < len(places) else (at, name)

        start = len(self.problems.found)
        try:
            self.ids.asked(calls, index, "calls")
        except TranscriptError as exc:
            raise nested(exc, self.problems.source, where) from None
        found = self.problems.found
        found[start:] = nested(found[start:], self.problems.source, where)
        for call, at in zip(calls, places, strict=True):
            if call.id in self.ids.waiting:
                self.ids.waiting[call.id] = at

    def _window(self) -> list[Message] | None:
        """The window of the reply about to be committed: after a compaction, the first
        call's (what the compaction left, then everything since); else None (the file does
        not record it, and the running window is the history)."""
        if not self.pending:
            return None
        self.pending = False
        self.compactions[-1]["applied"] = True
        return [*self.base, *self.messages[self.since :]]

    # -- compaction ------------------------------------------------------------------------

    def compaction(
        self, raw: Mapping[str, Any], index: int, prefix: str, *, response: bool
    ) -> None:
        """A compaction item: the window of every later call starts with its stand-in.

        What stays before it (the documented rules, see the module docstring of
        :mod:`footprint_lab.importers.chat.responses`): nothing, for a compaction the server
        made inside a response (and for one in a plain list, by default); the user messages
        ``responses.compact`` returned before it, where the list holds that output (the
        history of the file starts with them, or they repeat every user message before)."""
        stand_in, chars = compaction_stand_in(raw, self.problems, index, prefix)
        kept: list[Message] = []
        rule = "items-before-dropped"
        if not response:
            kept, rule = self._kept_user_messages()
        self._compacted_window([*kept, stand_in])
        self.compactions.append(
            {
                "item": index,
                "field": prefix or None,
                "id": raw.get("id") if isinstance(raw.get("id"), str) else None,
                "opaque": True,
                "encrypted_chars": chars,
                "rule": rule,
                "kept_messages": len(kept),
                "applied": False,
            }
        )

    def _kept_user_messages(self) -> tuple[list[Message], str]:
        """The user messages just before a compaction item that the compaction kept: those
        that open the file (a session whose history was replaced by ``responses.compact``'s
        output), or copies of every user message before them (that output appended to a
        whole log: the copies are taken back out of the history)."""
        start = len(self.messages)
        while start > self.since and self.messages[start - 1].role == "user":
            start -= 1
        run = self.messages[start:]
        if start == 0 and run and not self.compactions:
            return run, "user-messages-kept"
        earlier = self.user_texts[: len(self.user_texts) - len(run)]
        if earlier and len(run) >= len(earlier):  # linear: only a run as long as all users
            known = set(earlier)
            if [m.content for m in run if m.content in known] == earlier:
                del self.messages[start:]
                del self.user_texts[len(earlier) :]
                return run, "user-messages-kept"
        return [], "items-before-dropped"

    def _compacted_window(self, window: list[Message]) -> None:
        self.base = window
        self.since = len(self.messages)
        self.pending = True

    def compacted(self, raw: Mapping[str, Any], index: int) -> None:
        """A compacted response (``responses.compact``): its output is the new window."""
        self.flush()
        problems = self.problems
        output = raw.get("output")
        if not isinstance(output, list):
            problems.fail(index, "output", f"expected a list of items, got {short(output)}")
        window: list[Message] = []
        chars = 0
        found = False
        scratch = CallIds(Problems(problems.source))  # the window's copies make no calls
        for k, item in enumerate(output):
            prefix = f"output[{k}]"
            if not isinstance(item, Mapping):
                problems.fail(index, prefix, f"expected an object, got {short(item)}")
            kind = item.get("type", "message" if "role" in item else None)
            if not isinstance(kind, str):
                problems.fail(index, f"{prefix}.type", f"an item needs a type, got {short(kind)}")
            if kind == "compaction":
                stand_in, size = compaction_stand_in(item, problems, index, prefix)
                window.append(stand_in)
                chars, found = chars + size, True
            else:
                window.append(window_copy(item, kind, problems, scratch, index, prefix))
        if not found:
            problems.note(index, "output", "a compacted response without a compaction item")
        self._compacted_window(window)
        usage = usage_of(raw.get("usage"), problems, index)
        self.compactions.append(
            {
                "item": index,
                "field": None,
                "id": raw.get("id") if isinstance(raw.get("id"), str) else None,
                "object": "response.compaction",
                "opaque": True,
                "encrypted_chars": chars,
                "rule": "window-replaced",
                "kept_messages": len(window) - found,
                "usage": usage.model_dump() if usage is not None else None,
                "applied": False,
            }
        )

    # -- Response objects ------------------------------------------------------------------

    def response(self, raw: Mapping[str, Any], index: int) -> None:
        """A Response: its output items are one reply (split where a compaction sits), with
        the response's usage on its last reply and its model named."""
        problems = self.problems
        self.flush()
        output = raw.get("output")
        if not isinstance(output, list):
            problems.fail(index, "output", f"expected a list of items, got {short(output)}")
        usage = usage_of(raw.get("usage"), problems, index)
        model = optional_str(raw.get("model"), problems, index, "model")
        if model is not None and model not in self.models:
            self.models.append(model)
        self._instructions(raw.get("instructions"), index)
        start = len(self.usages)
        for k, item in enumerate(output):
            self.item(item, index, f"output[{k}]", response=True)
        self.flush()
        facts = response_facts(raw, problems, index)
        if len(self.usages) > start:
            self.usages[-1] = usage
        elif usage is not None:
            facts["usage"] = usage.model_dump()  # no reply to carry it
        self.responses.append(facts)
        self.ended = unfinished(raw, problems, index)

    def _instructions(self, given: Any, index: int) -> None:
        """A Response's ``instructions``: the run's system prompt (the first given); a
        Response given other instructions (another agent's, after a handoff) is listed in
        ``meta["instructions_changed"]``."""
        if given is None:
            return
        if isinstance(given, str):
            text = given
        elif isinstance(given, list):
            texts = []
            for k, item in enumerate(given):
                if not isinstance(item, Mapping):
                    self.problems.fail(index, f"instructions[{k}]", "expected an object")
                texts.append(content_of(item, self.problems, index, f"instructions[{k}]")[0])
            text = "\n\n".join(texts)
        else:
            self.problems.fail(
                index, "instructions", f"expected text or a list, got {short(given)}"
            )
        if self.instructions is None:
            self.instructions = text
        elif text != self.instructions:
            self.changed.append(index)

    # -- the end ---------------------------------------------------------------------------

    def finish(self) -> Parsed:
        """Close the last reply and hand over what the list holds."""
        self.flush()
        messages = self.messages
        system: str | None = None
        if self.instructions is not None:
            system = self.instructions
            if self.system is not None:
                messages.insert(0, self.system)
        elif self.system is not None:
            system = self.system.content
        meta: dict[str, Any] = {"items": dict(self.counts)}
        if self.responses:
            meta["responses"] = self.responses
        meta["model"] = self.models[0] if self.models else None
        if len(self.models) > 1:
            meta["models"] = self.models
        meta["compactions"] = self.compactions
        if self.hosted:
            meta["hosted_tool_calls"] = dict(self.hosted)
        if self.unknown:
            meta["unknown_items"] = dict(self.unknown)
        if self.references:
            meta["item_references"] = {
                "resolved": sum(found for _, found in self.references),
                "unresolved": [ref for ref, found in self.references if not found],
            }
        if self.control:
            meta["control_items"] = dict(self.control)
        if self.changed:
            meta["instructions_changed"] = self.changed
        sent = self.sent if any(w is not None for w in self.sent) else None
        return Parsed(
            messages,
            self.usages,
            sent,
            system,
            self.models[0] if self.models else None,
            meta,
            self.ended,
        )
