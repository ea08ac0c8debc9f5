"""What a provider's own server-side policy did, filed by the agent as observed records.

The provider here is the scripted one with a server policy's *report* added to some replies
(what ``ProviderResponse.server_edits`` and a compaction part carry), so the agent's side is
tested apart from the wire; the wire itself (the SDKs against the fake servers) is tested in
``tests/providers``.
"""

from __future__ import annotations

from typing import Any

from footprint_lab import Agent, Reply, ScriptedProvider, tool
from footprint_lab.messages import ContentPart
from footprint_lab.providers import ProviderRequest, ProviderResponse
from footprint_lab.window import ServerEdit


@tool
def read(path: str) -> str:
    """Read a file."""
    return f"contents of {path}: " + "x" * 400


@tool
def memory(note: str) -> str:
    """Remember a note."""
    return "noted: " + note * 20


class ReportingProvider:
    """The scripted provider, whose response at call N carries ``reports[N]``: the server
    edits, and whether the reply opens with a compaction block."""

    name = "anthropic"

    def __init__(
        self,
        replies: list[Reply],
        reports: dict[int, tuple[list[ServerEdit], str | None]],
        context_management: Any = None,
    ) -> None:
        self.inner = ScriptedProvider(replies)
        self.reports = reports
        self.context_management = context_management
        self.requests: list[ProviderRequest] = []

    def context_window(self, model: str) -> int | None:
        return None

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        self.requests.append(request)
        response = await self.inner.complete(request)
        edits, summary = self.reports.get(self.inner.calls, ([], None))
        message = response.message
        if summary is not None:
            block = {"type": "compaction", "content": summary}
            part = ContentPart(kind="compaction", text=summary, original=block)
            message = message.model_copy(update={"parts": [part, *message.parts]})
        return response.model_copy(update={"message": message, "server_edits": edits})


def _replies() -> list[Reply]:
    return [
        Reply.tool_call("read", path="a"),
        Reply.tool_call("memory", note="keep"),
        Reply.tool_call("read", path="b"),
        Reply.tool_call("read", path="c"),
        Reply.text("done"),
    ]


def test_cleared_results_are_named_by_the_documented_rule_and_the_history_stays() -> None:
    edit = ServerEdit(
        type="clear_tool_uses_20250919", cleared_tool_uses=2, cleared_input_tokens=180
    )
    config = {"edits": [{"type": "clear_tool_uses_20250919", "exclude_tools": ["memory"]}]}
    provider = ReportingProvider(_replies(), {5: ([edit], None)}, config)
    agent = Agent.create(provider=provider).tools(read, memory).build()
    run = agent.run("look around")
    assert run.status == "done"
    (record,) = run.records
    assert record.observed and record.strategy == "anthropic-context-management"
    assert record.server_edits == [edit]
    # the two oldest results the server may clear: read a, then read b (memory is excluded)
    cleared = [m for s in record.cleared_stage_ids for m in run.ledger.messages_of(s)]
    assert [m.content.split(":")[0] for m in cleared] == ["contents of a", "contents of b"]
    # the client keeps sending its full history
    assert record.window_chars_before == record.window_chars_after
    assert len(provider.requests[-1].messages) == 1 + 2 * 4 + 1 - 1


def test_a_compaction_starts_every_later_request_at_its_reply() -> None:
    edit = ServerEdit(type="compact_20260112", input_tokens=900, output_tokens=40)
    provider = ReportingProvider(_replies(), {3: ([edit], "what happened so far")})
    agent = Agent.create(provider=provider).tools(read, memory).build()
    run = agent.run("look around")
    assert run.status == "done"
    (record,) = run.records
    assert record.observed and record.server_edits == [edit]
    # the next request opens with the reply that holds the compaction block
    fourth = provider.requests[3].messages
    assert fourth[0].parts[0].kind == "compaction"
    assert record.removed_message_count == 5  # the request, two calls and their results
    assert {v.kind for v in record.violations or []} >= {"lost-current-request"}
    # the ledger still holds every message it removed from the window
    assert all(run.ledger.messages_of(s) for s in record.removed_stage_ids)
