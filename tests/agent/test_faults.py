"""Nothing lost, nothing leaked: unprintable results, timeouts, interrupts and cancellations,
and ``resume_on_error`` from every fault point, compared with an uninterrupted run."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from footprint_lab import (
    Agent,
    CompactionUnmeasurableError,
    Message,
    Reply,
    ScriptedProvider,
    StrategyInput,
    StrategyResult,
    WindowConfigError,
    after_compaction,
    sliding_window,
    token_budget,
    tool,
)
from footprint_lab.agent import Checkpoint, InjectionContext, Run
from footprint_lab.providers.base import ProviderError, ProviderRequest, ProviderResponse
from footprint_lab.scenarios import deploy_audit
from tests.builders import Delegating

HANG_GUARD_S = 60.0
"""Only a guard against a hang; no assertion depends on time."""


def _results(run: Run) -> list[Message]:
    return [m for m in run.ledger.messages if m.role == "tool"]


def _answered_every_call(run: Run) -> bool:
    asked = {c.id for m in run.ledger.messages for c in m.tool_calls}
    return asked == {m.tool_call_id for m in _results(run)}


def _sent(run: Run) -> list[list[dict[str, Any]]]:
    """Windows of the calls that got an answer (a failed call is an extra, inherent event)."""
    return [
        [m.model_dump() for m in run.window_sent(i)]
        for i, call in enumerate(run.calls)
        if call.usage is not None
    ]


def _records(run: Run) -> list[dict[str, Any]]:
    return [r.model_dump() for r in run.records]


# -- results that cannot be text (2) -------------------------------------------------------


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


@tool
def tuple_keys() -> dict[tuple[int, int], int]:
    """A dict JSON cannot key."""
    return {(1, 2): 3}


@tool
def circular() -> list[Any]:
    """A list that contains itself."""
    loop: list[Any] = [1]
    loop.append(loop)
    return loop


@tool
def unprintable() -> Unprintable:
    """An object whose __str__ raises."""
    return Unprintable()


def test_a_result_that_cannot_be_text_is_an_error_result_never_a_dangling_call() -> None:
    agent = (
        Agent.create(
            provider=ScriptedProvider(
                [
                    Reply.tool_calls([("tuple_keys", {}), ("circular", {}), ("unprintable", {})]),
                    Reply.text("ok"),
                ]
            )
        )
        .tools(tuple_keys, circular, unprintable)
        .build()
    )
    run = agent.run("go")
    assert run.status == "done" and _answered_every_call(run)
    # in the order the model asked (the window's): the ledger keeps the order they finished,
    # which three sync tools failing at once on worker threads do not fix
    asked = [m for m in run.window_sent(len(run.calls) - 1) if m.role == "tool"]
    contents = [m.content for m in asked]
    assert [m.name for m in asked] == ["tuple_keys", "circular", "unprintable"]
    assert all(c.startswith("error: tool '") for c in contents)
    assert "cannot be turned into text" in contents[0] and "TypeError" in contents[0]
    assert "ValueError" in contents[1]  # circular reference detected
    assert "RuntimeError: no text for you" in contents[2]
    assert [e.error for e in run.events if e.type == "tool.end"] == [True, True, True]


# -- tool timeouts (4) ---------------------------------------------------------------------

_release = threading.Event()


@tool(timeout=0.2)
def blocks() -> str:
    """Blocks its thread until released."""
    _release.wait(HANG_GUARD_S)
    return "late"


@tool
async def sleeps() -> str:
    """Never finishes on its own."""
    await asyncio.sleep(HANG_GUARD_S)
    return "late"


@tool(timeout=HANG_GUARD_S)
def quick() -> str:
    """Finishes at once (its own bound overrides the agent's)."""
    return "quick"


def test_timeouts_give_error_results_and_keep_call_order() -> None:
    _release.clear()
    agent = (
        Agent.create(
            provider=ScriptedProvider(
                [
                    Reply.tool_calls([("blocks", {}), ("sleeps", {}), ("quick", {})]),
                    Reply.text("ok"),
                ]
            ),
            tool_timeout=0.3,
        )
        .tools(blocks, sleeps, quick)
        .build()
    )
    try:
        run = agent.run("go")
    finally:
        _release.set()
    assert run.status == "done" and _answered_every_call(run)
    assert [m.content for m in run.window_sent(1) if m.role == "tool"] == [
        "error: TimeoutError: tool 'blocks' did not finish within 0.2 s",
        "error: TimeoutError: tool 'sleeps' did not finish within 0.3 s",
        "quick",
    ]
    # The ledger has them as they finished: quick at once, then each at its bound.
    assert [m.name for m in _results(run)] == ["quick", "blocks", "sleeps"]


def test_a_finished_call_is_committed_at_once_and_the_window_keeps_call_order() -> None:
    gate: dict[str, asyncio.Event] = {}
    seen: list[Checkpoint] = []

    @tool
    async def waits() -> str:
        """Finishes only after `opens` did, and after its result was checkpointed."""
        await gate.setdefault("open", asyncio.Event()).wait()
        assert [c.answered_calls for c in seen if c.phase == "tools" and c.answered_calls] == [
            ["call_2"]
        ]
        return "second to finish"

    @tool
    async def opens() -> str:
        """Finishes first."""
        gate.setdefault("open", asyncio.Event()).set()
        return "first to finish"

    replies = [Reply.tool_calls([("waits", {}), ("opens", {})]), Reply.text("ok")]
    agent = Agent.create(provider=ScriptedProvider(replies)).tools(waits, opens).build()
    run = agent.run("go", on_checkpoint=seen.append)
    # Committed as they finished (#24 item 5), not behind the slower call before it ...
    assert [m.content for m in _results(run)] == ["first to finish", "second to finish"]
    # ... while the window, what the model is sent, keeps the order it asked in.
    assert [m.content for m in run.window_sent(1) if m.role == "tool"] == [
        "second to finish",
        "first to finish",
    ]
    assert run.window_sent(1) == run.ledger.window_at(-1)[: len(run.window_sent(1))]
    stages = {m.stage_id for m in _results(run)}
    assert len(stages) == 1  # one stage per batch, one history commit per result
    keys = [c.key for c in run.ledger.commits if c.stage_id in stages]
    assert keys == ["history", "history", "window"]  # the window commit puts it in call order
    assert [c.answered_calls for c in seen if c.phase == "tools" and c.answered_calls] == [
        ["call_2"],
        ["call_1", "call_2"],
    ]


@pytest.mark.parametrize("bad", [0, -1, "2", True, float("nan"), float("inf")])
def test_timeouts_are_checked_at_build_time(bad: object) -> None:
    with pytest.raises(WindowConfigError, match="timeout"):
        tool(timeout=bad)(lambda: "x")  # type: ignore[call-overload]
    with pytest.raises(WindowConfigError, match="tool_timeout"):
        Agent.create(tool_timeout=bad).build()  # type: ignore[arg-type]


# -- interrupts and cancellation (3) -------------------------------------------------------


def _interrupting_agent(fn: Callable[..., Any], replies: int = 2) -> Agent:
    script = [Reply.tool_call("step", n=i) for i in range(replies)] + [Reply.text("finished")]
    agent: Agent = (
        Agent.create(provider=ScriptedProvider(script), max_iterations=6)
        .tool(tool(name="step")(fn))
        .window(sliding_window(2))
        .build()
    )
    return agent


def _whole(fn: Callable[..., Any]) -> Run:
    return _interrupting_agent(fn).run("work")


def _calm(n: int) -> str:
    return f"step {n} " + "x" * 200


def _assert_resumes_identically(run: Run, agent: Agent, counts: dict[int, int]) -> None:
    assert run.status == "cancelled"
    assert agent.conversation is run
    assert run.events[-1].type == "run.cancelled"
    checkpoint = Checkpoint.model_validate_json(run.checkpoint().model_dump_json())
    assert checkpoint.status == "cancelled"
    done = agent.resume(checkpoint)
    whole = _whole(_calm)
    assert done.status == "done" and done.output == whole.output == "finished"
    assert _sent(done) == _sent(whole)
    assert _records(done) == _records(whole)
    assert done.iterations == whole.iterations
    assert _answered_every_call(done)


def test_a_tool_raising_keyboard_interrupt_cancels_and_the_run_resumes() -> None:
    counts: dict[int, int] = {}
    armed = {"on": True}

    def step(n: int) -> str:
        counts[n] = counts.get(n, 0) + 1
        if n == 1 and armed["on"]:
            armed["on"] = False
            raise KeyboardInterrupt
        return _calm(n)

    agent = _interrupting_agent(step)
    with pytest.raises(KeyboardInterrupt) as info:
        agent.run("work")
    run: Run = info.value.run  # type: ignore[attr-defined]
    assert run.phase == "tools" and run.pending_calls == ["call_2"]
    assert run.events[-1].reason == "KeyboardInterrupt"  # type: ignore[union-attr]
    _assert_resumes_identically(run, agent, counts)
    assert counts == {0: 1, 1: 2}  # the interrupted call had no result: it ran again


def test_system_exit_from_a_tool_cancels_and_carries_the_run() -> None:
    armed = {"on": True}

    def step(n: int) -> str:
        if armed["on"]:
            armed["on"] = False
            raise SystemExit(3)
        return _calm(n)

    agent = _interrupting_agent(step)
    with pytest.raises(SystemExit) as info:
        agent.run("work")
    _assert_resumes_identically(info.value.run, agent, {})  # type: ignore[attr-defined]


class _Halt(BaseException):
    """A BaseException of the caller's own, neither an interrupt nor an Exception."""


@pytest.mark.parametrize("kind", [GeneratorExit, _Halt])
def test_any_base_exception_from_a_tool_keeps_the_run(kind: type[BaseException]) -> None:
    """Like KeyboardInterrupt, any BaseException leaves a cancelled run on the exception and
    on ``agent.conversation``, and the run resumes identically."""
    armed = {"on": True}

    def step(n: int) -> str:
        if armed["on"]:
            armed["on"] = False
            raise kind("stop")
        return _calm(n)

    agent = _interrupting_agent(step)
    with pytest.raises(kind) as info:
        agent.run("work")
    run: Run = info.value.run  # type: ignore[attr-defined]
    assert run.status == "cancelled"
    assert agent.conversation is run
    assert run.events[-1].reason == kind.__name__  # type: ignore[union-attr]
    _assert_resumes_identically(run, agent, {})


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt, as in any Python started from a terminal. A process
    started in the background by a shell without job control (``make test &``) inherits SIGINT
    ignored, and Python then keeps it ignored: the interrupt these tests send would never
    arrive (found so: both failed, "DID NOT RAISE", in a suite started that way)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c")
def test_sigint_in_a_script_cancels_and_the_run_resumes() -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    counts: dict[int, int] = {}
    armed = {"on": True}

    def step(n: int) -> str:
        counts[n] = counts.get(n, 0) + 1
        if n == 0 and armed["on"]:
            armed["on"] = False
            os.kill(os.getpid(), signal.SIGINT)
        return _calm(n)

    agent = _interrupting_agent(step)
    with pytest.raises(KeyboardInterrupt) as info:
        agent.run("work")
    run: Run = info.value.run  # type: ignore[attr-defined]
    _assert_resumes_identically(run, agent, counts)
    assert counts[1] == 1


@pytest.mark.usefixtures("ctrl_c")
def test_sigint_inside_a_running_loop_stops_at_the_next_stage_boundary() -> None:
    """The notebook case: ``run`` is called with an event loop running in the main thread, so
    the loop works in a worker thread; Ctrl-C lands in the main thread's wait."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    counts: dict[int, int] = {}
    armed = {"on": True}
    holder: dict[str, Agent] = {}

    def step(n: int) -> str:
        counts[n] = counts.get(n, 0) + 1
        if n == 0 and armed["on"]:
            armed["on"] = False
            os.kill(os.getpid(), signal.SIGINT)
            # Still running when the driver sees the interrupt: this stage finishes anyway.
            assert holder["agent"]._stop.wait(HANG_GUARD_S)
        return _calm(n)

    agent = holder["agent"] = _interrupting_agent(step)

    async def cell() -> Run:
        return agent.run("work")

    loop = asyncio.new_event_loop()  # run_until_complete installs no SIGINT handler, as Jupyter
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            loop.run_until_complete(cell())
    finally:
        loop.close()
    run: Run = info.value.run  # type: ignore[attr-defined]
    # The tool stage in flight finished and committed; the run stopped at the boundary.
    assert run.phase == "window" and run.pending_calls == []
    _assert_resumes_identically(run, agent, counts)
    assert counts == {0: 1, 1: 1}  # nothing ran twice


def test_wait_for_timeout_around_arun_cancels_and_the_run_resumes() -> None:
    slow = {"on": True}

    async def step(n: int) -> str:
        if n == 1 and slow["on"]:
            await asyncio.sleep(HANG_GUARD_S)
        return _calm(n)

    agent = _interrupting_agent(step)

    async def main() -> None:
        await asyncio.wait_for(agent.arun("work"), 0.5)

    with pytest.raises(TimeoutError):
        asyncio.run(main())
    run = agent.conversation
    assert run is not None and run.phase == "tools"
    assert run.events[-1].reason == "CancelledError"  # type: ignore[union-attr]
    slow["on"] = False
    _assert_resumes_identically(run, agent, {})


def test_task_cancel_carries_the_run_on_the_cancelled_error() -> None:
    started = asyncio.Event
    gate: dict[str, asyncio.Event] = {}

    async def step(n: int) -> str:
        if n == 1 and "hold" not in gate:
            gate["hold"] = asyncio.Event()
            gate["started"].set()
            await gate["hold"].wait()
        return _calm(n)

    agent = _interrupting_agent(step)

    async def main() -> Run:
        gate["started"] = started()
        task = asyncio.ensure_future(agent.arun("work"))
        await asyncio.wait_for(gate["started"].wait(), HANG_GUARD_S)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError as exc:
            return exc.run  # type: ignore[attr-defined,no-any-return]
        raise AssertionError("the task was not cancelled")

    run = asyncio.run(main())
    assert run.phase == "tools" and run.answered_calls == []
    _assert_resumes_identically(run, agent, {})


def test_a_cancelled_conversation_must_be_resumed_before_a_new_request() -> None:
    armed = {"on": True}

    def step(n: int) -> str:
        if armed["on"]:
            armed["on"] = False
            raise KeyboardInterrupt
        return _calm(n)

    agent = _interrupting_agent(step)
    with pytest.raises(KeyboardInterrupt):
        agent.run("work")
    with pytest.raises(RuntimeError, match="resume"):
        agent.run("something else")


# -- forced recovery re-delivers (7) -------------------------------------------------------


def _recovering_agent(strategy: Any = None, provider: Any = None) -> Agent:
    scenario = deploy_audit()
    agent: Agent = (
        Agent.create(
            provider=provider or ScriptedProvider(scenario.replies(), context_window=1_200),
            max_iterations=scenario.max_iterations,
        )
        .system(scenario.system)
        .tools(*scenario.tools)
        .window(strategy or token_budget(threshold_tokens=100_000, keep_recent_turns=2))
        .inject(after_compaction("Standing order: cite the deployment id."))
        .build()
    )
    return agent


def test_forced_compaction_re_delivers_injections_on_the_retry() -> None:
    run = _recovering_agent().run(deploy_audit().request)
    assert run.status == "done"
    forced = [r for r in run.records if r.forced]
    assert forced and not [r for r in run.records if not r.forced and r.removed_message_count]
    retries = [i for i, c in enumerate(run.calls) if c.retry]
    assert len(retries) == len(forced)
    for i in retries:
        sent = run.window_sent(i)
        # One copy, where the forced compaction's removal was: right after its drop notice.
        [copy] = [m for m in sent if m.authored == "injection"]
        assert copy.content == "Standing order: cite the deployment id."
        assert copy.stage_id is not None and copy.stage_id.startswith("inject#")
        assert sent[sent.index(copy) - 1].authored == "drop-notice"
    # ...and after: the injected message stays in the window like any committed message.
    after = retries[0] + 1
    [first_injection] = [m for m in run.window_sent(retries[0]) if m.authored == "injection"]
    assert first_injection in run.window_sent(after)


# -- resume_on_error from every fault point (5) --------------------------------------------


class _Once:
    def __init__(self, at: int) -> None:
        self.at = at
        self.seen = 0
        self.fired = False

    def due(self, applies: bool = True) -> bool:
        if not applies or self.fired:
            return False
        self.seen += 1
        if self.seen == self.at:
            self.fired = True
            return True
        return False


class FlakyStrategy:
    """Delegates to a strategy; raises once at its ``at``-th (optionally forced) visit."""

    def __init__(self, inner: Any, at: int, error: Exception, forced_only: bool = False) -> None:
        self.inner = inner
        self.name = inner.name
        self.once = _Once(at)
        self.error = error
        self.forced_only = forced_only

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def plan(self, input: StrategyInput) -> StrategyResult:
        if self.once.due(input.forced or not self.forced_only):
            raise self.error
        result: StrategyResult = self.inner.plan(input)
        return result


class FlakyProvider(Delegating):
    """Delegates to a provider; its ``at``-th call fails once without consuming a reply."""

    def __init__(self, inner: ScriptedProvider, at: int) -> None:
        super().__init__(inner)
        self.once = _Once(at)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        if self.once.due():
            raise ProviderError("503 overloaded", status=503, provider=self.name)
        return await self.inner.complete(request)


def _audit_agent(
    strategy: Any, *, provider: Any = None, rule: Any = None, context_window: int | None = None
) -> Agent:
    scenario = deploy_audit()
    builder = (
        Agent.create(
            provider=provider
            or ScriptedProvider(scenario.replies(), context_window=context_window),
            max_iterations=scenario.max_iterations,
        )
        .system(scenario.system)
        .tools(*scenario.tools)
        .window(strategy)
        .inject(rule or after_compaction("Standing order: cite the deployment id."))
    )
    agent: Agent = builder.build()
    return agent


def _flaky_rule(at: int) -> Callable[[InjectionContext], str | None]:
    once = _Once(at)
    standing = after_compaction("Standing order: cite the deployment id.")

    def rule(ctx: InjectionContext) -> str | None:
        text = standing(ctx)
        if once.due(text is not None):
            raise RuntimeError("the rule's store is down")
        return text

    return rule


FAULTS: dict[str, Callable[[], tuple[Agent, Agent, Callable[[Checkpoint], None] | None]]] = {
    "window-stage": lambda: (
        _audit_agent(FlakyStrategy(sliding_window(3), 4, RuntimeError("strategy bug"))),
        _audit_agent(sliding_window(3)),
        None,
    ),
    "window-stage-unmeasurable": lambda: (
        _audit_agent(
            FlakyStrategy(
                token_budget(threshold_tokens=1_500, keep_recent_turns=3),
                5,
                CompactionUnmeasurableError("no usage reported"),
            )
        ),
        _audit_agent(token_budget(threshold_tokens=1_500, keep_recent_turns=3)),
        None,
    ),
    "injection-rule": lambda: (
        _audit_agent(sliding_window(3), rule=_flaky_rule(2)),
        _audit_agent(sliding_window(3)),
        None,
    ),
    "provider-call": lambda: (
        _audit_agent(sliding_window(3), provider=FlakyProvider(deploy_audit().provider(), 3)),
        _audit_agent(sliding_window(3)),
        None,
    ),
    "forced-recovery": lambda: (
        _audit_agent(
            FlakyStrategy(
                token_budget(threshold_tokens=100_000, keep_recent_turns=2),
                1,
                RuntimeError("summarizer down"),
                forced_only=True,
            ),
            context_window=1_200,
        ),
        _audit_agent(
            token_budget(threshold_tokens=100_000, keep_recent_turns=2), context_window=1_200
        ),
        None,
    ),
}


def _failing_hook(at: int) -> Callable[[Checkpoint], None]:
    once = _Once(at)

    def hook(checkpoint: Checkpoint) -> None:
        if once.due(checkpoint.phase == "tools" and bool(checkpoint.answered_calls)):
            raise OSError("disk full while persisting the checkpoint")

    return hook


@pytest.mark.parametrize("point", [*FAULTS, "tool-commit"])
def test_resume_on_error_is_identical_for_every_fault_point(point: str) -> None:
    if point == "tool-commit":  # the hook that persists a tool result's checkpoint fails
        faulty, clean, hook = _audit_agent(sliding_window(3)), _audit_agent(sliding_window(3)), None
        hook = _failing_hook(3)
    else:
        faulty, clean, hook = FAULTS[point]()
    request = deploy_audit().request
    whole = clean.run(request)
    assert whole.status == "done"
    failed = faulty.run(request, on_checkpoint=hook)
    assert failed.status == "error", point
    checkpoint = Checkpoint.model_validate_json(failed.checkpoint().model_dump_json())
    resumed = faulty.resume_on_error(checkpoint)
    assert resumed.status == "done" and resumed.output == whole.output
    assert resumed.iterations == whole.iterations
    # the failed attempt's record gave way to its re-run: the calls are the uninterrupted run's
    assert [c.model_dump() for c in resumed.calls] == [c.model_dump() for c in whole.calls]
    # Stage ids included: a failed provider call and its re-run share one id (#24 item 8).
    assert _sent(resumed) == _sent(whole)
    assert _records(resumed) == _records(whole)
    assert [r.iteration for r in resumed.records] == [r.iteration for r in whole.records]
    injected = [m.content for m in resumed.ledger.messages if m.authored == "injection"]
    assert injected == [m.content for m in whole.ledger.messages if m.authored == "injection"]
    assert _answered_every_call(resumed)


def test_sync_tools_reuse_their_daemon_workers_and_a_fork_starts_afresh() -> None:
    # Starting a thread per call costs more than a scripted iteration: workers are reused.
    seen: list[int] = []

    @tool
    def where() -> str:
        """Which thread runs me."""
        seen.append(threading.get_ident())
        return "here"

    def workers() -> set[int]:
        return {t.ident or 0 for t in threading.enumerate() if t.name == "footprint-lab-tool"}

    before = workers()
    provider = ScriptedProvider([Reply.tool_call("where")] * 4 + [Reply.text("ok")])
    run = Agent.create(provider=provider, max_iterations=6).tool(where).build().run("go")
    assert run.status == "done" and len(seen) == 4
    # Four sequential calls need one worker: at most one was started, and all ran on workers.
    assert len(workers() - before) <= 1 and set(seen) <= workers()
    pid = os.fork()
    if pid == 0:  # the child has none of the parent's workers, and must not wait for them
        signal.alarm(int(HANG_GUARD_S) + 1)  # a hang guard: a stuck child dies, the test fails
        child = Agent.create(provider=ScriptedProvider([Reply.tool_call("where"), Reply.text("k")]))
        ok = child.tool(where).build().run("go").status == "done"
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
