"""Reading a Codex rollout line by line: the session's facts, its messages and its windows.

Layer: importers (private to :mod:`footprint_lab.importers.codex`). A :class:`Reader` takes
each line's JSON in file order (see the package docstring for the mapping) and hands response
items to its :class:`~footprint_lab.importers.codex._conversation.Conversation`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from footprint_lab.importers._parts import (
    CallIds,
    Problems,
    int_of,
    json_value,
    optional_str,
    short,
    text_of,
    usage_by_keys,
)
from footprint_lab.importers.codex._conversation import NO_SUMMARY, Conversation
from footprint_lab.importers.codex._items import SUMMARY_PREFIX
from footprint_lab.messages import Message, arguments_json

__all__ = ["ITEM_TYPES", "LEGACY_HEAD", "ROLLOUT_TYPES", "Reader", "is_codex_line"]

ROLLOUT_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)
"""The ``type`` of a rollout line (``RolloutItem``), beside its ``payload``."""
ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "local_shell_call",
        "custom_tool_call",
        "custom_tool_call_output",
        "web_search_call",
    }
)
"""Response item types an early rollout writes as bare lines."""
LEGACY_HEAD = frozenset({"id", "timestamp", "instructions", "git"})
"""The keys of an early rollout's first line (``SessionMeta``, with ``git`` from 0.2x)."""
_SESSION_FACTS = (
    "timestamp",
    "cwd",
    "originator",
    "cli_version",
    "source",
    "model_provider",
    "forked_from_id",
    "agent_nickname",
    "agent_role",
    "git",
)
_CONTEXT_FACTS = {
    "approval_policy": "approval_policy",
    "sandbox_policy": "sandbox_policy",
    "effort": "effort",
    "summary": "reasoning_summary",
}
"""``turn_context`` fields kept in meta (their first value), by the meta key they go under."""
_USAGE_KEYS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_tokens": "cached_input_tokens",
}
"""Usage fields and the keys of Codex's ``TokenUsage`` (input includes the cached tokens)."""


def is_codex_line(entry: Any, first: bool) -> bool:
    """Whether a line's JSON is one a Codex rollout writes: a typed line with its payload, an
    early rollout's first line (its session) or one of its bare items or state records."""
    if not isinstance(entry, dict):
        return False
    kind = entry.get("type") if isinstance(entry.get("type"), str) else None
    if "payload" in entry:
        return kind in ROLLOUT_TYPES
    if first and "type" not in entry:
        return {"id", "timestamp"} <= set(entry) <= LEGACY_HEAD
    return kind in ITEM_TYPES or entry.get("record_type") == "state"


class Reader:
    """What a rollout's lines said, read in one pass."""

    def __init__(self, problems: Problems) -> None:
        """Start before the first line; ``problems`` collects what is wrong."""
        self.problems = problems
        self.conv = Conversation(problems, CallIds(problems))
        self.session: dict[str, Any] = {}
        self.session_ids: list[Any] = []
        self.system: str | None = None
        self.instructions: str | None = None
        self.legacy = False
        self.models: list[str] = []
        self.model_changes: list[dict[str, Any]] = []
        self.cwds: list[str] = []
        self.context: dict[str, Any] = {}
        self.context_window: int | None = None
        self.compactions: list[dict[str, Any]] = []
        self.rollbacks: list[dict[str, Any]] = []
        self.events: Counter[str] = Counter()
        self.token_usage: Any = None
        self.last_total: str | None = None
        self.counts: Counter[str] = Counter()
        """Token counts: matched to a reply, unmatched, repeated, without usage."""
        self.ended: tuple[str, str] | None = None

    # -- lines -----------------------------------------------------------------------------

    def line(self, number: int, entry: Any, first: bool) -> None:
        """Read one line's JSON."""
        fail = self.problems.fail
        if not isinstance(entry, dict):
            fail(number, "line", f"not a rollout line: expected an object, got {short(entry)}")
        kind = entry.get("type")
        if "payload" in entry or (isinstance(kind, str) and kind in ROLLOUT_TYPES):
            if not isinstance(kind, str):
                fail(number, "type", f"a rollout line needs a type, got {short(kind)}")
            self._typed(kind, entry.get("payload"), number)
        elif "record_type" in entry:
            self.conv.ignored["record_type"] = self.conv.ignored.get("record_type", 0) + 1
        elif "type" in entry:
            self.legacy = True
            self._item(entry, number, "")
        elif first and ("id" in entry or "timestamp" in entry):
            self.legacy = True
            self._head(entry, number)
        else:
            fail(
                number,
                "type",
                "a rollout line needs a type (first in an early rollout: an id and a timestamp)",
            )

    def _typed(self, kind: str, payload: Any, number: int) -> None:
        if kind not in ROLLOUT_TYPES:
            self.conv.ignored[kind] = self.conv.ignored.get(kind, 0) + 1
            return
        if not isinstance(payload, Mapping):
            self.problems.fail(number, "payload", f"expected an object, got {short(payload)}")
        if kind == "session_meta":
            self._session_meta(payload, number)
        elif kind == "response_item":
            self._item(payload, number, "payload.")
        elif kind == "event_msg":
            self._event(payload, number)
        elif kind == "turn_context":
            self._turn_context(payload, number)
        else:
            self._compacted(payload, number)

    def _item(self, item: Mapping[str, Any], number: int, at: str) -> None:
        conv = self.conv
        before = len(conv.messages)
        conv.item(item, number, at)
        if any(conv.is_request(m) for m in conv.messages[before:]):
            self.ended = None  # the person asked again: an earlier turn's end is not the run's

    # -- the session and its turns ---------------------------------------------------------

    def _facts(self, payload: Mapping[str, Any], number: int, at: str) -> None:
        session_id = json_value(payload.get("id"), self.problems, number, f"{at}id")
        if session_id not in self.session_ids:
            self.session_ids.append(session_id)
        if len(self.session_ids) > 1:
            return  # a later session's line (a fork's parent): its facts are not this run's
        for key in _SESSION_FACTS:
            value = json_value(payload.get(key), self.problems, number, f"{at}{key}")
            if value is not None:
                self.session[key] = value

    def _head(self, entry: Mapping[str, Any], number: int) -> None:
        """An early rollout's first line: the session's id, time, instructions and git."""
        self._facts(entry, number, "")
        self.instructions = optional_str(
            entry.get("instructions"), self.problems, number, "instructions"
        )

    def _session_meta(self, payload: Mapping[str, Any], number: int) -> None:
        first = not self.session_ids
        self._facts(payload, number, "payload.")
        base = payload.get("base_instructions")
        field = "payload.base_instructions"
        if isinstance(base, Mapping):
            base, field = base.get("text"), f"{field}.text"
        text = optional_str(base, self.problems, number, field)
        if first and text is not None:
            self.system = text
        given = optional_str(
            payload.get("instructions"), self.problems, number, "payload.instructions"
        )
        if first and given is not None:
            self.session["instructions_chars"] = len(given)

    def _turn_context(self, payload: Mapping[str, Any], number: int) -> None:
        self.conv.flush()
        model = optional_str(payload.get("model"), self.problems, number, "payload.model")
        if model is not None and (not self.models or self.model_changes[-1]["model"] != model):
            if model not in self.models:
                self.models.append(model)
            self.model_changes.append({"line": number, "model": model})
        cwd = optional_str(payload.get("cwd"), self.problems, number, "payload.cwd")
        if cwd is not None and cwd not in self.cwds:
            self.cwds.append(cwd)
        for key, name in _CONTEXT_FACTS.items():
            value = json_value(payload.get(key), self.problems, number, f"payload.{key}")
            if value is not None and name not in self.context:
                self.context[name] = value

    # -- events ----------------------------------------------------------------------------

    def _event(self, payload: Mapping[str, Any], number: int) -> None:
        kind = payload.get("type")
        if not isinstance(kind, str):
            self.problems.fail(number, "payload.type", f"an event needs a type, got {short(kind)}")
        self.events[kind] += 1
        conv = self.conv
        if kind == "token_count":
            self._token_count(payload, number)
        elif kind in ("task_started", "turn_started"):
            conv.flush()
            conv.awaiting = None
            self.ended = None
            self._window(
                payload.get("model_context_window"), number, "payload.model_context_window"
            )
        elif kind in ("task_complete", "turn_complete"):
            conv.flush()
            self.ended = ("done", kind)
        elif kind == "turn_aborted":
            conv.flush()
            reason = json_value(payload.get("reason"), self.problems, number, "payload.reason")
            self.ended = ("incomplete", f"turn_aborted ({reason})" if reason else "turn_aborted")
        elif kind == "thread_rolled_back":
            turns = int_of(payload.get("num_turns"), self.problems, number, "payload.num_turns")
            left = conv.roll_back(turns)
            self.rollbacks.append({"line": number, "num_turns": turns, "messages_left": left})

    def _window(self, value: Any, number: int, field: str) -> None:
        if value is not None:
            self.context_window = int_of(value, self.problems, number, field)

    def _token_count(self, payload: Mapping[str, Any], number: int) -> None:
        """A ``token_count``: ``info.last_token_usage`` is the latest call's usage (the flat
        counts of early versions too); a repeat of the cumulative total reports no call."""
        info = payload.get("info")
        raw: Any
        if info is None:
            if "input_tokens" not in payload and "output_tokens" not in payload:
                self.counts["without usage"] += 1
                return
            raw, field = payload, "payload"
        else:
            if not isinstance(info, Mapping):
                self.problems.fail(number, "payload.info", f"expected an object, got {short(info)}")
            at = "payload.info"
            self._window(info.get("model_context_window"), number, f"{at}.model_context_window")
            total = json_value(
                info.get("total_token_usage"), self.problems, number, f"{at}.total_token_usage"
            )
            if total is not None:
                key = arguments_json(total)
                if key == self.last_total:
                    self.counts["repeated"] += 1
                    return
                self.last_total, self.token_usage = key, total
            raw, field = info.get("last_token_usage"), f"{at}.last_token_usage"
            if raw is None:
                self.counts["without usage"] += 1
                return
        usage = usage_by_keys(raw, _USAGE_KEYS, self.problems, number, field)
        self.counts["matched" if self.conv.report(usage) else "unmatched"] += 1

    # -- compaction ------------------------------------------------------------------------

    def _compacted(self, payload: Mapping[str, Any], number: int) -> None:
        """A ``compacted`` line: Codex's window is now its replacement history (exact), else
        the summary after the latest user messages (Codex's rule when the summary carries its
        prefix), else the summary alone (the early rule: one bridge message)."""
        conv, problems = self.conv, self.problems
        conv.flush()
        message = text_of(payload.get("message"), problems, number, "payload.message")
        replacement = payload.get("replacement_history")
        entries = payload.get("replacement_history_entries")
        fact: dict[str, Any] = {"line": number, "summary_chars": len(message)}
        after = False  # whether the summary follows what is kept (else it comes first)
        if replacement is not None:
            if not isinstance(replacement, list):
                problems.fail(
                    number,
                    "payload.replacement_history",
                    f"expected a list, got {short(replacement)}",
                )
            at = "payload.replacement_history"
            kept = conv.converted([(f"{at}[{k}]", v) for k, v in enumerate(replacement)], number)
            fact.update(rule="replacement_history", replacement_items=len(replacement))
        elif entries is not None:
            kept = self._entries(entries, number, fact)
        elif message.lstrip().startswith(SUMMARY_PREFIX):
            kept, cut = conv.recent_requests()
            after = True
            fact.update(rule="recent user messages and the summary", kept_user_messages=len(kept))
            fact["truncated_user_message_left_out"] = cut
        else:
            kept = []
            fact["rule"] = "the summary alone"
        text = message or (NO_SUMMARY if fact["rule"] != "replacement_history" else "")
        if text and not any(m.content == text for m in kept):
            stand_in = Message.user(text, authored="compaction-frame")
            kept = [*kept, stand_in] if after else [stand_in, *kept]
        for key in ("window_number", "window_id", "previous_window_id"):
            if payload.get(key) is not None:
                fact[key] = json_value(payload.get(key), problems, number, f"payload.{key}")
        self.compactions.append(fact)
        conv.replace(kept)

    def _entries(self, entries: Any, number: int, fact: dict[str, Any]) -> list[Message]:
        """A replacement history given as entries: items inline, or references to earlier
        items by id (one that names no earlier item is listed and left out)."""
        at = "payload.replacement_history_entries"
        if not isinstance(entries, list):
            self.problems.fail(number, at, f"expected a list, got {short(entries)}")
        out: list[Message] = []
        inline: list[tuple[str, Any]] = []
        missing = 0
        for k, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                self.problems.fail(number, f"{at}[{k}]", f"expected an object, got {short(entry)}")
            if entry.get("type") == "inline":
                inline.append((f"{at}[{k}].item", entry.get("item")))
                continue
            out.extend(self.conv.converted(inline, number))
            inline = []
            item_id = entry.get("item_id")
            found = self.conv.item_at.get(item_id) if isinstance(item_id, str) else None
            if found is None:
                missing += 1
                self.problems.note(
                    number,
                    f"{at}[{k}]",
                    "an entry that names no earlier item: left out of the window",
                )
            elif not out or out[-1] is not found:
                out.append(found)
        out.extend(self.conv.converted(inline, number))
        fact.update(rule="replacement_history_entries", replacement_items=len(entries))
        fact["unresolved_entries"] = missing
        return out

    # -- the run's facts -------------------------------------------------------------------

    def meta(self, where: str, path: Path) -> dict[str, Any]:
        """``run.meta``: the session's own facts (see the package docstring)."""
        session_id = self.session_ids[0] if self.session_ids else None
        meta: dict[str, Any] = {"session_id": session_id, **self.session}
        if len(self.session_ids) > 1:
            meta["session_ids"] = self.session_ids
        meta["model"] = self.models[0] if self.models else None
        if len(self.model_changes) > 1:
            meta["models"] = self.models
            meta["model_changes"] = self.model_changes
        if len(self.cwds) > 1:
            meta["cwds"] = self.cwds
        meta.update(self.context)
        meta["model_context_window"] = self.context_window
        meta["compactions"] = self.compactions
        if self.rollbacks:
            meta["rollbacks"] = self.rollbacks
        meta["token_usage"] = self.token_usage
        meta["token_counts"] = dict(self.counts)
        meta["events"] = dict(self.events)
        if self.conv.ignored:
            meta["ignored"] = dict(self.conv.ignored)
        meta["rollout_format"] = "early (bare items)" if self.legacy else "typed lines"
        meta["log_file"] = where
        meta["label"] = session_id if isinstance(session_id, str) and session_id else path.stem
        return meta

    def system_prompt(self) -> str | None:
        """The system prompt: ``base_instructions``; in an early rollout, its
        ``instructions`` — unless the file also sends them as a ``<user_instructions>``
        message (then counting them twice would be wrong)."""
        if self.system is not None or self.instructions is None:
            return self.system
        sent = any(
            m.role == "user" and m.content.lstrip().startswith("<user_instructions>")
            for m in self.conv.messages
        )
        return None if sent else self.instructions
