"""What a provider's own server-side window policy did at a call, filed as an observed record.

Layer: agent (read by the loop after each reply; knows the window core and the auditing, never
the lab). A provider configured with ``context_management`` (Anthropic's context editing and
compaction, OpenAI's Responses compaction) reports in its response what the server did to that
request (:attr:`~footprint_lab.providers.base.ProviderResponse.server_edits`); the client keeps
its full history in the ledger, as the law wants, and the run files what the server did as an
observed :class:`~footprint_lab.window.records.WindowRecord` at that call:

* **Clearing** (``clear_tool_uses_20250919``, ``clear_thinking_20251015``): the server edits
  each request afresh and the client goes on sending its full history, so the client's window
  does not change. The record names the messages the server cleared where the documented rule
  determines them from the reported count — the oldest tool results of the request, never an
  excluded tool's; the oldest replies holding thinking — and carries the reported counts and
  ``cleared_input_tokens`` as given (``server_edits``).
* **Compaction** (a ``compaction`` part first in the reply): every later request starts at that
  reply — what Anthropic documents (the API drops every block before the compaction block) and
  what OpenAI recommends for stateless chaining (drop the items before the latest compaction
  item) — so the window after the reply is the system messages and the reply; the record names
  everything else as removed, with the rules the server's compaction broke (the request folded
  into the summary, for one) found by the audit and recorded, never repaired.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from footprint_lab.agent.writer import RunWriter
from footprint_lab.auditing.violations import diff_windows, find_violations
from footprint_lab.messages import Message, window_chars
from footprint_lab.providers.base import ProviderResponse
from footprint_lab.window.records import ServerEdit, WindowRecord
from footprint_lab.window.request import current_request_index
from footprint_lab.window.server_rules import oldest_results, oldest_thinking_replies

__all__ = ["SERVER_POLICY_NAMES", "observe_server_policy", "server_policy_name"]

SERVER_POLICY_NAMES = {
    "anthropic": "anthropic-context-management",
    "openai": "openai-compaction",
}
"""The name observed records give each vendor's server-side policy (the importers of the
vendors' own files file theirs under the same names)."""

CLEARING = "clear_tool_uses_20250919"
THINKING = "clear_thinking_20251015"


def server_policy_name(edits: Sequence[ServerEdit]) -> str:
    """The policy name for these edits: OpenAI's compaction, else Anthropic's."""
    if any(edit.type == "compaction" for edit in edits):
        return SERVER_POLICY_NAMES["openai"]
    return SERVER_POLICY_NAMES["anthropic"]


def _excluded_tools(config: object) -> frozenset[str]:
    """The ``exclude_tools`` of a provider's ``clear_tool_uses`` edit (empty when none)."""
    if not isinstance(config, Mapping):
        return frozenset()
    for edit in config.get("edits") or ():
        if isinstance(edit, Mapping) and edit.get("type") == CLEARING:
            return frozenset(edit.get("exclude_tools") or ())
    return frozenset()


def _cleared(
    sent: Sequence[Message], edits: Sequence[ServerEdit], excluded: frozenset[str]
) -> list[Message]:
    """The messages the reported counts name under the documented rules, oldest first."""
    named: list[Message] = []
    for edit in edits:
        if edit.type == CLEARING and edit.cleared_tool_uses:
            named.extend(oldest_results(sent, edit.cleared_tool_uses, exclude_tools=excluded)[0])
        elif edit.type == THINKING and edit.cleared_thinking_turns:
            named.extend(oldest_thinking_replies(sent, edit.cleared_thinking_turns)[0])
    return named


def observe_server_policy(
    writer: RunWriter,
    iteration: int,
    reply: Message,
    response: ProviderResponse,
    provider: object = None,
) -> WindowRecord | None:
    """File what the server did at this call (see the module docstring); None when the
    response reported nothing.

    Args:
        writer: The run's writer (its window holds ``reply``, just committed).
        iteration: The call's iteration.
        reply: The committed reply (a compaction part first in its parts when it compacted).
        response: The response: what it reported (``server_edits``).
        provider: The provider (its ``context_management`` names the tools its clearing
            excludes).
    """
    edits = response.server_edits
    compacted = bool(reply.parts) and reply.parts[0].kind == "compaction"
    if not edits and not compacted:
        return None
    policy = server_policy_name(edits)
    before = list(writer.window)
    chars = window_chars(before)
    at = next(k for k in range(len(before) - 1, -1, -1) if before[k] is reply)
    if not compacted:
        # What the call sent: the window before its reply.
        config = getattr(provider, "context_management", None)
        cleared = _cleared(before[:at], edits, _excluded_tools(config))
        ids = [m.stage_id for m in cleared if m.stage_id is not None]
        record = WindowRecord(
            strategy=policy,
            iteration=iteration,
            removed_stage_ids=ids,
            cleared_stage_ids=ids,
            removed_message_count=len(cleared),
            # The client's window is unchanged: it sends its full history again next time.
            window_chars_before=chars,
            window_chars_after=chars,
            observed=True,
            server_edits=list(edits),
        )
        writer.visit(writer.stage("window"), before, record)
        return record
    after = [m for m in before[:at] if m.role == "system"] + before[at:]
    kept = set(map(id, after))
    removed = [m for m in before if id(m) not in kept]
    request = current_request_index(before, writer.run.request or None)
    record = WindowRecord(
        strategy=policy,
        iteration=iteration,
        removed_stage_ids=list(dict.fromkeys(m.stage_id for m in removed if m.stage_id)),
        removed_message_count=len(removed),
        window_chars_before=chars,
        window_chars_after=window_chars(after),
        violations=find_violations(before, diff_windows(before, after), request),
        observed=True,
        server_edits=list(edits),
    )
    writer.visit(writer.stage("window"), after, record)
    writer.run.strategy = writer.run.strategy or policy
    return record
