"""Live runs with each server policy: the agent, the official SDK inside the provider, the fake
API applying the policy — and what the run files about it.

For each policy the run's observed records must name what the server did (the results it
cleared, the replies it sent without thinking, the compaction that every later request starts
at), the ledger must keep the full history, and replaying the run under the policy's offline
twin must clear what the server cleared, call by call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from footprint_lab import (
    Agent,
    Message,
    Reply,
    anthropic_context_editing,
    clear_thinking,
    replay,
    tool,
)
from footprint_lab.providers import ProviderRequest
from tests.providers.responses_server import ResponsesServer
from tests.providers.servers import AnthropicServer, count_input_tokens, provider_for

MODEL = "claude-sonnet-4-6"


@tool
def read(path: str) -> str:
    """Read a file."""
    return f"{path}: " + "line of the log\n" * 40


@tool
def memory(note: str) -> str:
    """Keep a note."""
    return f"noted {note}: " + "kept " * 80


def _replies(rounds: int, thinking: bool = False) -> list[Reply]:
    replies = []
    for k in range(rounds):
        reply = Reply.tool_call(
            "memory" if k % 3 == 1 else "read",
            **({"note": f"n{k}"} if k % 3 == 1 else {"path": f"/var/log/{k}"}),
        )
        replies.append(reply.with_thinking(f"step {k}: " + "think " * 30) if thinking else reply)
    return [*replies, Reply.text("The deployment is healthy.")]


def _agent(provider: Any) -> Agent:
    built: Agent = (
        Agent.create(provider=provider, model=MODEL, max_iterations=12)
        .system("You audit deployments.")
        .tools(read, memory)
        .build()
    )
    return built


def test_clearing_live_names_what_the_server_cleared_and_the_twin_agrees() -> None:
    twin = anthropic_context_editing(trigger=900, keep=2, exclude_tools=["memory"])
    server = AnthropicServer(_replies(7))
    with server:
        provider = provider_for(server, context_management={"edits": [twin.edit()]})
        run = _agent(provider).run("audit the deployment")
    assert run.status == "done"
    observed = [r for r in run.records if r.observed]
    assert observed and all(r.strategy == "anthropic-context-management" for r in observed)
    calls = {c.iteration: k for k, c in enumerate(run.calls)}
    for record in observed:
        (edit,) = record.server_edits
        assert edit.type == "clear_tool_uses_20250919"
        cleared = server.cleared[calls[record.iteration]]
        assert edit.cleared_tool_uses == len(cleared)
        named = [
            m.tool_call_id
            for s in record.cleared_stage_ids
            for m in run.ledger.messages_of(s)
            if m.role == "tool"
        ]
        assert named == cleared  # the oldest results, never memory's
        assert record.window_chars_before == record.window_chars_after  # full history kept
    # the client sent its whole history every time
    assert all(len(body["messages"]) >= 1 for body in server.requests)
    # replayed offline under the twin, counted as the server counts: the same clearing
    counter = _counter(provider)
    replayed = replay(run, twin, keep_last_tool_results=0, provider=_Counting(counter))
    twin_cleared = _placeholders_per_call(replayed)
    server_cleared = [set(ids) for ids in server.cleared]
    assert twin_cleared == server_cleared


def test_thinking_clearing_live() -> None:
    edit = clear_thinking(keep_turns=1).edit()
    server = AnthropicServer(_replies(4, thinking=True))
    with server:
        provider = provider_for(
            server,
            context_management={"edits": [edit]},
            thinking={"type": "enabled", "budget_tokens": 1024},
        )
        run = _agent(provider).run("audit the deployment")
    assert run.status == "done"
    # every reply kept its thinking in the ledger and sent it back with its signature
    replies = [m for m in run.ledger.messages if m.role == "assistant" and m.parts]
    assert all(
        p.kind == "thinking" and p.original.get("signature") for m in replies for p in m.parts
    )
    observed = [r for r in run.records if r.observed]
    assert [r.server_edits[0].cleared_thinking_turns for r in observed] == [1, 2, 3]
    last = observed[-1]
    named = [m for s in last.cleared_stage_ids for m in run.ledger.messages_of(s)]
    assert [m.stage_id for m in named] == [m.stage_id for m in replies[:3]]


def test_compaction_live_starts_every_later_request_at_the_compaction_block() -> None:
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}

    @tool
    def dump(part: int) -> str:
        """Dump a big log part."""
        return f"part {part}\n" + "x" * 80_000

    replies = [Reply.tool_call("dump", part=k) for k in range(4)] + [Reply.text("done")]
    server = AnthropicServer(replies, compaction_summary=lambda body: "the story so far")
    with server:
        provider = provider_for(server, context_management={"edits": [edit]})
        agent = Agent.create(provider=provider, model=MODEL).tools(dump).build()
        run = agent.run("read the dump")
    assert run.status == "done"
    (record,) = [r for r in run.records if r.observed]
    (compaction,) = record.server_edits
    assert compaction.type == "compact_20260112" and compaction.input_tokens
    # the request after it opens with the compaction block, and nothing before it
    at = server.compacted.index(True)
    following = server.requests[at + 1]["messages"]
    assert following[0]["role"] == "assistant"
    assert following[0]["content"][0] == {"type": "compaction", "content": "the story so far"}
    assert "lost-current-request" in {v.kind for v in record.violations or []}
    # the ledger still holds what left
    assert all(run.ledger.messages_of(s) for s in record.removed_stage_ids)


def test_openai_compaction_live_drops_the_items_before_it() -> None:
    @tool
    def dump(part: int) -> str:
        """Dump a log part."""
        return f"part {part}\n" + "y" * 3_000

    replies = [Reply.tool_call("dump", part=k) for k in range(4)] + [Reply.text("done")]
    server = ResponsesServer(replies)
    with server:
        from footprint_lab.providers import OpenAIProvider

        provider = OpenAIProvider(
            base_url=server.url,
            max_retries=0,
            context_management=[{"type": "compaction", "compact_threshold": 1_500}],
        )
        run = Agent.create(provider=provider, model="gpt-5").tools(dump).build().run("read it")
    assert run.status == "done"
    observed = [r for r in run.records if r.observed]
    assert observed and all(r.strategy == "openai-compaction" for r in observed)
    first = next(k for k, r in enumerate(server.renderings) if r.compacted)
    following = server.requests[first + 1]["input"]
    assert following[0]["type"] == "compaction"


class _Counting:
    """A provider that only counts (for replay's ``provider=``): as the fake server counts."""

    name = "fake-anthropic-counter"

    def __init__(self, count: Any) -> None:
        self._count = count

    def count_tokens(self, request: ProviderRequest) -> int | None:
        return int(self._count(request.messages, request.system))

    def context_window(self, model: str) -> int | None:
        return None


def _counter(provider: Any) -> Any:
    def count(messages: Sequence[Message], system: str | None) -> int:
        request = ProviderRequest(model=MODEL, system=system, messages=list(messages))
        return count_input_tokens(provider.build_request(request))

    return count


def _placeholders_per_call(run: Any) -> list[set[str]]:
    """For each call of ``run``, the calls whose results it sent as placeholders."""
    out = []
    for k in range(len(run.calls)):
        window = run.window_sent(k)
        out.append(
            {m.tool_call_id for m in window if m.role == "tool" and m.authored == "cleared-result"}
        )
    return out
