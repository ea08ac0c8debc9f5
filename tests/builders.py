"""Message builders for hand-made windows in tests."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from footprint_lab import Message, ScriptedProvider, ToolCall
from footprint_lab.messages import ContentPart
from footprint_lab.providers import ProviderRequest, ProviderResponse


def user(text: str, stage: str | None = None) -> Message:
    return Message.user(text, stage_id=stage)


def call(call_id: str, name: str, stage: str | None = None, **args: object) -> Message:
    return Message.assistant(
        "", tool_calls=[ToolCall(id=call_id, name=name, arguments=args)], stage_id=stage
    )


def calls(pairs: list[tuple[str, str]], stage: str | None = None) -> Message:
    return Message.assistant(
        "", tool_calls=[ToolCall(id=i, name=n, arguments={}) for i, n in pairs], stage_id=stage
    )


def result(call_id: str, name: str, content: str, stage: str | None = None) -> Message:
    return Message.tool(call_id, name, content, stage_id=stage)


def tool_loop(turns: int, result_chars: int = 300, tool: str = "read") -> list[Message]:
    """The request (``seed#0``), then ``turns`` rounds of one call and its result, stamped
    ``call-llm#1``, ``tool-calls#2``, ``call-llm#3`` ...: a window as an agent commits it."""
    out = [user("the request", "seed#0")]
    for k in range(turns):
        out.append(call(f"c{k}", tool, f"call-llm#{2 * k + 1}", k=k))
        out.append(result(f"c{k}", tool, "x" * result_chars, f"tool-calls#{2 * k + 2}"))
    return out


def openai_call(call_id: str, name: str, **args: object) -> dict[str, object]:
    """An OpenAI Chat Completions assistant message making one tool call."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }


def openai_result(call_id: str, name: str, content: str) -> dict[str, object]:
    """An OpenAI Chat Completions tool result."""
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}


EVIDENCE_TRANSCRIPT: list[dict[str, object]] = [
    {"role": "system", "content": "Policy. Known id: SYS777."},
    {"role": "user", "content": "I am user_abcde; find my booking."},
    openai_call("c1", "get_user", user_id="user_abcde"),  # from the user: not dependent
    openai_result("c1", "get_user", "reservations: RES12345, RES67890 " + "x" * 200),
    openai_call("c2", "get_reservation", reservation_id="RES12345"),  # from c1's result
    openai_result("c2", "get_reservation", "flight FL9999 on 2024-05-20 " + "y" * 200),
    openai_call("c3", "search", code="SYS777", flight="FL9999", n=1234, ok=True),  # FL9999
    openai_result("c3", "search", "seat map " + "z" * 200),
    openai_call("c4", "cancel", reservation_id="RES67890", count=123456),  # from c1 again
    openai_result("c4", "cancel", "cancelled"),
    {"role": "assistant", "content": "Done."},
]
"""A transcript with a known dependency structure: c2, c3 and c4 depend on tool evidence."""


class Delegating:
    """A provider that hands everything to ``inner`` (a scripted provider): a test's fault
    injector subclasses it and overrides only :meth:`complete`."""

    def __init__(self, inner: ScriptedProvider) -> None:
        self.inner = inner
        self.name = inner.name

    def context_window(self, model: str) -> int | None:
        return self.inner.context_window(model)

    def export_state(self) -> dict[str, Any]:
        return self.inner.export_state()

    def restore_state(self, state: dict[str, Any]) -> None:
        self.inner.restore_state(state)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        return await self.inner.complete(request)


def by_content(run: Any, value: Any) -> Any:
    """``value`` (a record's or call's dump) with every stage id of ``run`` replaced by what
    that stage committed (role, content, call id of each message): a replay keeps its source's
    ids and numbers its own stages after them, so two runs that did the same thing are compared
    by what their ids name, not by the numbers (#37 item 1)."""
    ledger = run.ledger
    names: dict[str, Any] = {}

    def name(stage: str) -> Any:
        if stage not in names:
            # Sorted: a parallel batch's results are committed in the order they finished,
            # which two runs of one script need not share.
            names[stage] = tuple(
                sorted((m.role, m.content, m.tool_call_id or "") for m in ledger.messages_of(stage))
            ) or ("stage", stage.partition("#")[0])
        return names[stage]

    stages = {m.stage_id for m in ledger.messages} | {c.stage_id for c in ledger.commits}

    def walk(v: Any) -> Any:
        if isinstance(v, str) and v in stages:
            return name(v)
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [walk(x) for x in v]
        return v

    return walk(value)


TWIN_TOOLS = ("read", "grep", "memory")
"""The tools :func:`tool_histories` calls (``memory`` is the one tests exclude)."""


def thinking_part(text: str, signature: str) -> ContentPart:
    """A thinking part shaped as Anthropic's block."""
    block = {"type": "thinking", "thinking": text, "signature": signature}
    return ContentPart(kind="thinking", text=text, original=block)


@st.composite
def tool_histories(
    draw: st.DrawFn, rounds: int = 9, result_chars: tuple[int, int] = (300, 600)
) -> list[Message]:
    """The request (``seed#0``), then up to ``rounds`` rounds of a reply (thinking or not)
    making 1-3 calls to :data:`TWIN_TOOLS` and their results, stamped as an agent commits them;
    results are larger than a cleared-result placeholder (``result_chars``)."""
    out = [Message.user("audit the deployment", stage_id="seed#0")]
    stage = 1
    for r in range(draw(st.integers(1, rounds))):
        names = draw(st.lists(st.sampled_from(TWIN_TOOLS), min_size=1, max_size=3))
        calls = [
            ToolCall(id=f"toolu_{r}_{k}", name=n, arguments={"n": k}) for k, n in enumerate(names)
        ]
        parts = []
        if draw(st.booleans()):
            text = f"round {r}: " + "weighing the options " * draw(st.integers(1, 8))
            parts = [thinking_part(text, f"sig-{r}")]
        out.append(
            Message.assistant("", tool_calls=calls, parts=parts, stage_id=f"call-llm#{stage}")
        )
        size = draw(st.integers(*result_chars))
        out.extend(
            Message.tool(
                c.id, c.name, f"{c.name} {r}: " + "y" * size, stage_id=f"tool-calls#{stage + 1}"
            )
            for c in calls
        )
        stage += 2
    return out
