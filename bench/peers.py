"""Side by side with peers: the same histories trimmed by every shipped strategy and by
LangChain's ``trim_messages``, AutoGen's ``BufferedChatCompletionContext`` and LlamaIndex's
``ChatMemoryBuffer``.

Each peer gets the history converted to its own message types (conversion is not timed); its
output is mapped back to our messages by identity and checked for what a provider rejects: a
tool result whose call was cut (or a call whose results were cut), a window that does not open
on a user message, or a lost current request. Ours must have none.
"""

from __future__ import annotations

import asyncio
import random
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from bench._common import (
    Section,
    interleaved,
    load_words,
    median_seconds,
    per_round_ratio,
    verdict,
)
from footprint_lab import (
    Message,
    ToolCall,
    apply_window,
    clear_tool_results,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from footprint_lab.evidence import wire_problems
from footprint_lab.window import Boundary, Window, apply_boundary

Trim = Callable[[list[Message]], list[Message]]


def history(n_messages: int, seed: int = 7) -> list[Message]:
    """A tool loop with parallel batches (1-3 calls) and varied result sizes."""
    rng = random.Random(seed)
    window = [Message.user("the request", stage_id="seed#0")]
    i = 0
    while len(window) < n_messages:
        size = rng.choice([1, 1, 2, 3])
        calls = [
            ToolCall(id=f"c{i}_{k}", name=f"tool_{(i + k) % 5}", arguments={"k": k})
            for k in range(size)
        ]
        window.append(Message.assistant("", tool_calls=calls, stage_id=f"call-llm#{i}"))
        for call in calls:
            window.append(
                Message.tool(
                    call.id, call.name, "r" * rng.randint(20, 400), stage_id=f"tool-calls#{i}"
                )
            )
        i += 1
    return window


def _boundaries(messages: Sequence[Message]) -> list[int]:
    """Prefix lengths at which a call is about to be made (after each batch's results)."""
    return [
        i
        for i in range(2, len(messages) + 1)
        if i == len(messages) or messages[i].role == "assistant"
    ]


def _invalid(window: Sequence[Message], request: Message) -> bool:
    return bool(wire_problems(window)) or not any(m is request for m in window)


# -- adapters: (prepare(history) -> native, trim(native) -> our messages) ----------------------


def ours(
    strategy: Any, *, as_window: bool = True, **facts: Any
) -> tuple[Callable[[list[Message]], Any], Callable[[Any], list[Message]]]:
    """Our adapter: the history as a ``Window`` (its facts computed once and kept, as the
    agent loop keeps them from visit to visit; not timed, like every peer's conversion), or as the
    bare list (``as_window=False``: the facts are computed inside the timed trim)."""

    def prepare(h: list[Message]) -> Any:
        return Window(h) if as_window else h

    def trim(window: Any) -> list[Message]:
        return apply_window(strategy, window, iteration=9, request="the request", **facts).window

    trim.strategy, trim.facts = strategy, facts  # type: ignore[attr-defined]
    return prepare, trim


def our_strategies(keep_turns: int) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Every shipped strategy, set to keep ``keep_turns`` turns and to engage at once."""
    over = {"measured_input_tokens": 100}  # above the threshold: the token strategies engage
    return {
        f"sliding_window({keep_turns})": (sliding_window(keep_turns), {}),
        f"token_budget(10, {keep_turns})": (token_budget(10, keep_recent_turns=keep_turns), over),
        f"summarize_oldest(10, {keep_turns}), free summarizer": (
            summarize_oldest(10, lambda span: "summary", keep_recent_turns=keep_turns),
            over,
        ),
        "clear_tool_results(keep_recent_turns=2, keep_results=3)": (
            clear_tool_results(keep_recent_turns=2, keep_results=3),
            {},
        ),
    }


def langchain(max_messages: int, counter: str, **extra: Any) -> Any:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, trim_messages

    def prepare(h: list[Message]) -> Any:
        native = []
        back = {}
        for m in h:
            if m.role == "user":
                lc: Any = HumanMessage(m.content)
            elif m.role == "assistant":
                lc = AIMessage(
                    m.content,
                    tool_calls=[
                        {"name": c.name, "args": c.arguments, "id": c.id, "type": "tool_call"}
                        for c in m.tool_calls
                    ],
                )
            else:
                lc = ToolMessage(m.content, tool_call_id=m.tool_call_id or "")
            native.append(lc)
            back[id(lc)] = m
        return native, back

    def count_chars(msgs: list[Any]) -> int:
        return sum(len(str(m.content)) for m in msgs)

    token_counter: Any = len if counter == "messages" else count_chars

    def trim(prepared: Any) -> list[Message]:
        native, back = prepared
        out = trim_messages(
            native, max_tokens=max_messages, token_counter=token_counter, strategy="last", **extra
        )
        return [back[id(m)] for m in out]

    return prepare, trim


def autogen(buffer_size: int) -> Any:
    from autogen_core import FunctionCall
    from autogen_core.model_context import BufferedChatCompletionContext
    from autogen_core.models import (
        AssistantMessage,
        FunctionExecutionResult,
        FunctionExecutionResultMessage,
        UserMessage,
    )

    def prepare(h: list[Message]) -> Any:
        native: list[Any] = []
        back: dict[int, list[Message]] = {}
        i = 0
        while i < len(h):
            m = h[i]
            if m.role == "tool":
                j = i
                while j < len(h) and h[j].role == "tool":
                    j += 1
                msg: Any = FunctionExecutionResultMessage(
                    content=[
                        FunctionExecutionResult(
                            content=t.content,
                            call_id=t.tool_call_id or "",
                            name=t.name or "",
                            is_error=False,
                        )
                        for t in h[i:j]
                    ]
                )
                back[id(msg)] = list(h[i:j])
                native.append(msg)
                i = j
                continue
            if m.role == "user":
                msg = UserMessage(content=m.content, source="user")
            else:
                msg = AssistantMessage(
                    content=[
                        FunctionCall(id=c.id, arguments="{}", name=c.name) for c in m.tool_calls
                    ]
                    or m.content,
                    source="assistant",
                )
            back[id(msg)] = [m]
            native.append(msg)
            i += 1
        context = BufferedChatCompletionContext(buffer_size=buffer_size, initial_messages=native)
        return context, back

    # AutoGen is async: an agent awaits get_messages inside its running event loop. One loop,
    # kept open for every call, is that use; asyncio.run per call would time a loop's start.
    loop = asyncio.new_event_loop()

    def trim(prepared: Any) -> list[Message]:
        context, back = prepared
        out = loop.run_until_complete(context.get_messages())
        return [m for msg in out for m in back[id(msg)]]

    async def awaited(context: Any, calls: int) -> None:
        for _ in range(calls):
            await context.get_messages()

    def in_a_loop(prepared: Any, calls: int) -> None:
        # Its best: awaited inside one coroutine already running, as an agent's step does
        # (no loop entered per call), and its own list kept (no mapping back).
        loop.run_until_complete(awaited(prepared[0], calls))

    trim.in_a_loop = in_a_loop  # type: ignore[attr-defined]
    return prepare, trim


def llamaindex(token_limit: int) -> Any:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.memory import ChatMemoryBuffer

    roles = {
        "user": MessageRole.USER,
        "assistant": MessageRole.ASSISTANT,
        "tool": MessageRole.TOOL,
        "system": MessageRole.SYSTEM,
    }

    def prepare(h: list[Message]) -> Any:
        native = []
        back = {}
        for m in h:
            kwargs: dict[str, Any] = {}
            if m.tool_calls:
                kwargs["tool_calls"] = [{"id": c.id, "name": c.name} for c in m.tool_calls]
            if m.tool_call_id:
                kwargs["tool_call_id"] = m.tool_call_id
            cm = ChatMessage(role=roles[m.role], content=m.content or " ", additional_kwargs=kwargs)
            native.append(cm)
            back[id(cm)] = m
        # A character tokenizer: the default downloads a tiktoken vocabulary at first use.
        memory = ChatMemoryBuffer.from_defaults(
            chat_history=native, token_limit=token_limit, tokenizer_fn=list
        )
        return memory, back

    def trim(prepared: Any) -> list[Message]:
        memory, back = prepared
        return [back[id(m)] for m in memory.get()]

    return prepare, trim


LOOP_CALLS = 50
"""Calls each contender makes per round in a loop (a single call is below the clocks' grain)."""


def _ours_in_a_loop(trim: Any, h: list[Message], cut: int) -> Callable[[int], Any]:
    """One boundary of a running agent, as its loop makes it: the strategy and facts of our
    adapter, the window the last visit returned plus the newest batch, and the last visit's
    ``given`` window to reuse (``Boundary.reuse``)."""
    strategy, facts = trim.strategy, trim.facts
    # Two visits before the timed one, so the window and the facts it reuses are those a
    # running loop carries (the first visit trims the whole history at once).
    earlier = max(i for i in _boundaries(h) if i < cut)
    first = apply_boundary(strategy, h[:earlier], Boundary(**_boundary_facts(facts)))
    previous = apply_boundary(
        strategy,
        [*first.window, *h[earlier:cut]],
        Boundary(**_boundary_facts(facts), reuse=first.given),
    )
    window = [*previous.window, *h[cut:]]
    boundary = Boundary(**_boundary_facts(facts), reuse=previous.given)

    def calls(k: int) -> None:
        for _ in range(k):
            apply_boundary(strategy, window, boundary)

    return calls


def _peer_in_a_loop(trim: Any, prepared: Any) -> Callable[[int], Any]:
    """A peer's calls in a running agent: its own way when it has one (an async peer awaits
    inside one running coroutine), else its trim called again."""
    if hasattr(trim, "in_a_loop"):
        return lambda k: trim.in_a_loop(prepared, k)
    return lambda k: [trim(prepared) for _ in range(k)]


def _boundary_facts(facts: dict[str, Any]) -> dict[str, Any]:
    return {"iteration": 9, "request": "the request", **facts}


TRIM_LABEL = "LangChain trim_messages (messages, last)"
"""The peer the cold-trim target is measured against."""


def run(sizes: tuple[int, ...], repeat: int, validity_messages: int) -> Section:
    """Time ratios at each size and invalid-output counts over every boundary of a history."""
    keep_turns = 6
    budget_messages = 14  # about six turns of a tool loop with some parallel batches
    budget_chars = 2_000
    ours_rows = {
        f"footprint_lab {label}": ours(strategy, **facts)
        for label, (strategy, facts) in our_strategies(keep_turns).items()
    }
    sliding_label = next(iter(ours_rows))
    ours_rows[f"{sliding_label}, from a list"] = ours(sliding_window(keep_turns), as_window=False)
    candidates: dict[str, Callable[[], Any]] = {
        TRIM_LABEL: lambda: langchain(budget_messages, "messages"),
        "LangChain trim_messages (chars, last)": lambda: langchain(budget_chars, "chars"),
        "LangChain trim_messages (messages, last, start_on=human)": lambda: langchain(
            budget_messages, "messages", start_on="human"
        ),
        "AutoGen BufferedChatCompletionContext": lambda: autogen(budget_messages),
        "LlamaIndex ChatMemoryBuffer (chars)": lambda: llamaindex(budget_chars),
    }
    adapters: dict[str, Any] = dict(ours_rows)
    missing: list[str] = []
    for label, make in candidates.items():
        try:
            adapters[label] = make()
        except ImportError as exc:
            missing.append(f"{label}: not installed ({exc.name})")
    big = sizes[-1]
    section = Section(
        "2. Side by side with peers",
        "Each peer trims the same tool-loop history (parallel batches of 1-3 calls) converted "
        "to its own message types (conversion not timed), set to keep about the same recent "
        "context; footprint_lab gets it as a `Window` (its facts computed once and kept, as "
        "the agent loop keeps them from visit to visit; not timed either), and once as the bare "
        "list (the facts computed inside the trim). *Cold* = one trim of the whole history, "
        "with every guard and every check of the law. *In a loop* = the cost of one boundary "
        "in a running agent, each at its best: a peer makes its own recommended call on the "
        "history it keeps (AutoGen's `get_messages` awaited inside one running coroutine, no "
        "event loop entered per call); footprint_lab makes the agent loop's call, the window it "
        "sent last time plus the new batch with the last visit's facts to reuse "
        "(`Boundary.reuse`); {c} calls per contender per round. *vs trim_messages* = cold "
        "time / LangChain `trim_messages` (message counter, strategy last) at the same size. "
        "Invalid outputs are counted over all {b} boundaries of a "
        f"{validity_messages:,}-message history. Targets: cold no slower than trim_messages "
        "(<= 1.0; summarize_oldest <= 1.5), in a loop no slower than the fastest peer (CPU "
        "time of the timed thread, contenders interleaved round by round, the ratio taken per "
        "round), 0 invalid.",
        [
            "policy",
            *(f"cold at {n:,} msgs (ms)" for n in sizes),
            *(f"vs trim_messages at {n:,}" for n in sizes),
            f"in a loop at {big:,} msgs (ms)",
            f"in a loop at {big:,} msgs (CPU ms)",
            "invalid on the wire",
            "lost the request",
        ],
    )
    cold: dict[str, list[float]] = {label: [] for label in adapters}
    for n in sizes:
        h = history(n)
        for label, (prepare, trim) in adapters.items():
            prepared = prepare(h)
            cold[label].append(median_seconds(lambda p=prepared, t=trim: t(p), repeat))
    # In a loop: ours makes the agent loop's own call (the window it sent last time plus the
    # newest batch, with the last visit's facts to reuse); a peer its own recommended call on
    # the history it keeps. Each contender makes LOOP_CALLS calls per round, its own best way;
    # the contenders take turns round by round, wall and CPU time of the timed thread kept.
    h = history(big + 8)
    cut = max(i for i in _boundaries(h) if i <= big)
    contenders: dict[str, Callable[[int], Any]] = {}
    for label, (prepare, trim) in adapters.items():
        if label in ours_rows:
            contenders[label] = _ours_in_a_loop(trim, h, cut)
        else:
            contenders[label] = _peer_in_a_loop(trim, prepare(h))
    rounds = interleaved(contenders, max(repeat, 7), LOOP_CALLS)
    loop = {label: statistics.median(walls) for label, (walls, _) in rounds.items()}
    loop_cpu = {label: statistics.median(cpus) for label, (_, cpus) in rounds.items()}
    h = history(validity_messages)
    request = h[0]
    bounds = _boundaries(h)
    section.intro = section.intro.replace("{b}", str(len(bounds))).replace("{c}", str(LOOP_CALLS))
    reference = cold.get(TRIM_LABEL)
    invalid: dict[str, int] = {}
    for label, (prepare, trim) in adapters.items():
        wire = lost = 0
        for b in bounds:
            out = trim(prepare(h[:b]))
            wire += bool(wire_problems(out))
            lost += not any(m is request for m in out)
        invalid[label] = wire + lost
        ratios = [t / r for t, r in zip(cold[label], reference, strict=True)] if reference else []
        section.rows.append(
            [
                label,
                *(t * 1e3 for t in cold[label]),
                *(ratios or ["-"] * len(sizes)),
                loop[label] * 1e3,
                loop_cpu[label] * 1e3,
                wire,
                lost,
            ]
        )
    if reference:
        for label in ours_rows:
            if label.endswith("from a list"):
                continue
            limit = 1.5 if "summarize_oldest" in label else 1.0
            ratios = [t / r for t, r in zip(cold[label], reference, strict=True)]
            shown = ", ".join(f"{r:.2f} at {n:,}" for r, n in zip(ratios, sizes, strict=True))
            section.notes.append(
                f"Cold, {label.removeprefix('footprint_lab ')} vs trim_messages: {shown} "
                f"(target <= {limit}): {verdict(max(ratios) <= limit)}."
            )
        listed = f"{sliding_label}, from a list"
        if listed in cold:
            from_list = cold[listed][-1] / reference[-1]
            section.notes.append(
                f"Cold from a list at {sizes[-1]:,} messages (the facts read inside the trim), "
                f"{sliding_label.removeprefix('footprint_lab ')} vs trim_messages: "
                f"{from_list:.2f} (target <= 4.0: {verdict(from_list <= 4.0)})."
            )
    peers = [k for k in adapters if k not in ours_rows]
    if peers:
        fastest = min(peers, key=lambda k: loop_cpu[k])
        ratio = per_round_ratio(rounds[sliding_label][1], rounds[fastest][1])
        section.notes.append(
            f"In a loop at {big:,} messages, {sliding_label.removeprefix('footprint_lab ')} "
            f"takes {loop_cpu[sliding_label] * 1e3:.3f} ms of CPU per boundary, the fastest "
            f"peer ({fastest}) {loop_cpu[fastest] * 1e3:.3f} ms: {ratio:.2f}x, the median of "
            f"per-round CPU ratios over {len(rounds[fastest][1])} interleaved rounds (target "
            f"<= 1.0: {verdict(ratio <= 1.0)}); {load_words()}."
        )
    bad = sum(invalid[label] for label in ours_rows)
    section.notes.append(f"footprint_lab invalid outputs: {bad} (target 0: {verdict(bad == 0)}).")
    section.notes.extend(missing)
    return section
