"""Fork: ask the model again — continue a run from one of its boundaries with the window a
strategy would have sent there, against a real provider or a scripted one.

Layer: agent. A replay (:mod:`footprint_lab.agent.replay`) can only say what the window would
have been: every reply after its first removal is the original's. ``fork(run, at=k,
strategy=S, provider=P)`` sends that window. It returns a new :class:`Run` beside the parent:

* **the same ledger up to the boundary**: every commit the parent made before iteration
  ``k``'s window stage — the same messages under the same stage ids, the same records, calls
  and events — copied, so the parent is never touched (not even when the fork fails);
* **the window S would have sent at k**: replayed over the parent from its start
  (``replay(run, S)``, the same counterfactual windows a replay shows) and put in place of
  the parent's by one window stage, whose record is marked ``forked`` and names exactly what
  left the parent's window; a stand-in the replay wrote (a drop notice, a summary, a
  placeholder) is committed there;
* **its own calls after**: from iteration ``k`` the agent loop runs as in any live run — the
  provider's replies, the tools' results, strategy S at every later boundary — for at most
  ``max_iterations`` iterations, written through the run's one writer;
* **its origin names the parent**: a :class:`~footprint_lab.agent.origin.Fork` with
  ``parent_id`` (the parent's label or scenario), ``at`` (k), ``strategy`` (S's name),
  ``provider``, and ``window_changed`` (False when S would have sent at k just what the
  parent sent: then no window stage is written).

The replay runs over the whole parent, so a fork costs about what ``replay(run, S)`` costs
plus the calls it makes (on a 2,000-iteration scripted run: 1.5 s of replay, 2.1 s in all).

**What ``at`` means.** Iterations count from 1, as every record, call and the Inspector count
them: iteration ``k`` is the ``k``-th model call and its boundary is just before it, so
``at=1`` asks the model again from the request alone and ``at=k`` keeps the parent's first
``k - 1`` replies and the results that answered them.

**Tools.** A recorded run made in this process still has its agent, and a fork calls that
agent's tools unless ``tools=`` says otherwise; a saved or imported run's tools are not
callable, so the caller passes the ones the fork may run (``Tool`` objects or functions, as
``Agent.tool`` takes them; a list, or a mapping by name). A call to any other tool gets an
error result naming the tool and saying it was not passed to fork.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from footprint_lab.agent._driver import drive
from footprint_lab.agent._fork_cut import (
    boundaries,
    counterfactual_window,
    parent_prefix,
    splice_record,
)
from footprint_lab.agent._loop import _Loop
from footprint_lab.agent.agent import Agent
from footprint_lab.agent.origin import Fork, Import
from footprint_lab.agent.replay import areplay
from footprint_lab.agent.run import Run
from footprint_lab.agent.tools import Tool, ToolFunction
from footprint_lab.messages import Message, ToolCall, storable_text
from footprint_lab.providers.base import Provider
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies import WindowStrategy
from footprint_lab.window.strategies.base import strategy_name

__all__ = ["ForkTools", "afork", "fork"]

ForkTools = Sequence[Tool | ToolFunction] | Mapping[str, Tool | ToolFunction]
"""The tools a fork may call: ``Tool`` objects or functions, in a list or keyed by name."""

_REPLAY_FACTS = frozenset({"source_stage_ids", "label"})
"""Meta of the parent a fork does not inherit: a replay's facts (the fork's replies are its
provider's) and the parent's label (its origin's ``parent_id`` names it)."""


class _ForkAgent(Agent):
    """The agent a fork runs: a call to a tool not passed to fork says so."""

    def unknown_tool(self, call: ToolCall) -> Message:
        passed = ", ".join(sorted(self.tools)) or "none"
        return Message.tool(
            call.id,
            call.name,
            f"error: tool '{call.name}' was not passed to fork, so this fork cannot call it "
            f"(pass it in fork(..., tools=[...]) to let it run); tools passed: {passed}",
        )


def fork(
    run: Run,
    *,
    at: int,
    strategy: WindowStrategy | None,
    provider: Provider,
    tools: ForkTools | None = None,
    max_iterations: int = 10,
    model: str | None = None,
    keep_last_tool_results: int | bool | None = None,
    max_output_tokens: int | None = None,
) -> Run:
    """Continue ``run`` from boundary ``at`` with the window ``strategy`` would have sent
    there, against ``provider`` (see the module docstring).

    Works in scripts and inside Jupyter's event loop; a Ctrl-C stops the fork at its next
    stage boundary and the fork rides on the ``KeyboardInterrupt`` as ``.run``, as
    ``agent.run`` does. A fault mid-fork (the provider failing, or the strategy raising on the
    parent's history before the fork's first call) returns the fork with ``status='error'``
    and the fault as ``error``, as ``agent.run`` does; the parent is never changed.

    Args:
        run: A recorded run, one loaded with ``load_run``, or an imported one (a transcript
            held in memory becomes one with :func:`footprint_lab.importers.as_run`).
        at: The iteration (from 1) whose model call the fork makes again.
        strategy: The window strategy (what ``replay`` takes; None: no window management).
        provider: The provider the fork asks (scripted, OpenAI, Anthropic, yours).
        tools: What the fork may call (default: the run's agent's tools, while it has its
            agent; none for a saved or imported run).
        max_iterations: Iterations the fork may run, iteration ``at`` included.
        model: The model asked (default: the run's).
        keep_last_tool_results: The pin limit (default: the run's).
        max_output_tokens: The cap on each reply (default: none).

    Returns:
        The fork: ``meta['fork_of']``, ``meta['fork_at']``, ``meta['fork_strategy']``.

    Raises:
        WindowConfigError: ``strategy``, ``tools``, ``provider`` or ``max_iterations`` is not
            usable; the message says what to pass instead.
        ValueError: the run has no boundary, or ``at`` is not one of its iterations.
        TypeError: ``run`` is not a run.
    """
    agent, source = _prepare(
        run, at, strategy, provider, tools, max_iterations, model, keep_last_tool_results,
        max_output_tokens,
    )  # fmt: skip
    return drive(agent._flight, _afork(agent, source, at, strategy))


async def afork(
    run: Run,
    *,
    at: int,
    strategy: WindowStrategy | None,
    provider: Provider,
    tools: ForkTools | None = None,
    max_iterations: int = 10,
    model: str | None = None,
    keep_last_tool_results: int | bool | None = None,
    max_output_tokens: int | None = None,
) -> Run:
    """The async form of :func:`fork`."""
    agent, source = _prepare(
        run, at, strategy, provider, tools, max_iterations, model, keep_last_tool_results,
        max_output_tokens,
    )  # fmt: skip
    return await _afork(agent, source, at, strategy)


def _prepare(
    run: Run,
    at: int,
    strategy: WindowStrategy | None,
    provider: Provider,
    tools: ForkTools | None,
    max_iterations: int,
    model: str | None,
    keep_last_tool_results: int | bool | None,
    max_output_tokens: int | None,
) -> tuple[_ForkAgent, Run]:
    """Check every argument and build the fork's agent, before anything runs."""
    if not isinstance(run, Run):
        raise TypeError(
            f"fork takes a Run, got {type(run).__name__}; read a transcript into one with "
            f"footprint_lab.importers.as_run"
        )
    source = run
    _check_strategy(strategy)
    _check_at(at, len(boundaries(source)))
    builder = _ForkAgent.create(
        provider=provider,
        model=model if model is not None else source.model or "scripted",
        max_iterations=max_iterations,
        keep_last_tool_results=(
            source.keep_last_tool_results
            if keep_last_tool_results is None
            else keep_last_tool_results
        ),
        max_output_tokens=max_output_tokens,
    )
    if source.system is not None:
        builder.system(source.system)
    builder.tools(*_tools_of(tools, source))
    if strategy is not None:
        builder.window(strategy)
    return builder.build(), source


async def _afork(agent: _ForkAgent, source: Run, at: int, strategy: WindowStrategy | None) -> Run:
    name = strategy_name(strategy)
    replies = boundaries(source)
    prefix = parent_prefix(source, at, replies)
    prefix.strategy = name
    prefix.model = agent.model
    prefix.provider = storable_text(agent.provider.name)
    prefix.keep_last_tool_results = agent.keep_last_tool_results
    inherited = {k: v for k, v in source.meta.items() if k not in _REPLAY_FACTS}
    prefix.meta = {k: v for k, v in inherited.items() if not k.startswith("_")}
    prefix.origin = Fork(
        parent_id=_name_of(source),
        at=at,
        strategy=name,
        provider=prefix.provider,
        source=source.origin,
    )
    try:
        replayed = await areplay(
            source,
            strategy,
            agent.keep_last_tool_results,
            context_window=agent.provider.context_window(agent.model),
        )
        window = counterfactual_window(source, replayed, at, prefix.ledger)
    except WindowConfigError:
        raise
    except Exception as exc:  # the strategy failed on the parent's history: a run, as run() gives
        failed = _Loop.from_run(agent, prefix, None)
        failed.record_fault(exc)
        failed.leave()
        return prefix
    loop = _Loop.from_run(agent, prefix, None)
    given = loop.window
    if len(window) != len(given) or any(a is not b for a, b in zip(window, given, strict=True)):
        record = splice_record(
            given,
            window,
            strategy=name or "none",
            iteration=at,
            replayed=next((r for r in reversed(replayed.records) if r.iteration == at), None),
        )
        visit = loop.writer.visit(loop.writer.stage("window"), window, record)
        loop.window_changed = visit.changed
        loop.iteration_record = visit.record
    prefix.origin = prefix.origin.model_copy(update={"window_changed": loop.window_changed})
    prefix.phase = "inject"  # the boundary's window is in place: injections, then the call
    return await loop.drive()


def _check_strategy(strategy: object) -> None:
    """A strategy object (or None), not its name or the function that makes one."""
    if strategy is None:
        return
    if isinstance(strategy, str):
        raise WindowConfigError(
            f"fork(strategy={strategy!r}): pass a strategy, not its name — e.g. "
            "strategy=sliding_window(3) or strategy=token_budget(threshold_tokens=4000)"
        )
    if isinstance(getattr(strategy, "name", None), str) and callable(
        getattr(strategy, "plan", None)
    ):
        return
    if callable(strategy):
        made = getattr(strategy, "__name__", repr(strategy))
        raise WindowConfigError(
            f"fork(strategy={made}): that makes a strategy; call it with its settings and "
            f"pass what it returns — e.g. strategy={made}(...)"
        )
    raise WindowConfigError(
        f"fork(strategy={strategy!r}) is not a window strategy: it needs a str `name` and a "
        "`plan(input)` method — pass e.g. strategy=sliding_window(3), or None for no window "
        "management"
    )


def _check_at(at: object, count: int) -> None:
    """``at`` is one of the run's iterations, 1 to ``count``."""
    if count == 0:
        raise ValueError(
            "fork: the run has no boundary to fork at — it holds no model reply, so there is "
            "no call to make again"
        )
    if isinstance(at, bool) or not isinstance(at, int) or not 1 <= at <= count:
        raise ValueError(
            f"fork(at={at!r}): at is the iteration whose model call the fork makes again, "
            f"counted from 1 as the records and the Inspector count them; this run has "
            f"{count} (pass 1 to {count})"
        )


def _tools_of(tools: ForkTools | None, source: Run) -> list[Tool]:
    """The fork's tools as ``Tool`` objects (the builder checks names are unique)."""
    if tools is None:
        owner = source.agent
        return [] if owner is None else list(owner.tools.values())
    if isinstance(tools, Mapping):
        out: list[Tool] = []
        for name, item in tools.items():
            if isinstance(item, Tool):
                if item.name != name:
                    raise WindowConfigError(
                        f"fork(tools={{{name!r}: {item!r}}}): the tool is named {item.name!r}; "
                        f"key it by its own name, or pass the function to name it {name!r}"
                    )
                out.append(item)
            else:
                out.append(Tool(item, name=str(name)))  # a non-callable raises WindowConfigError
        return out
    if isinstance(tools, str | bytes) or not isinstance(tools, Sequence):
        raise WindowConfigError(
            f"fork(tools={tools!r}): pass a list of tools or functions, or a mapping "
            "{name: tool or function}"
        )
    return [item if isinstance(item, Tool) else Tool(item) for item in tools]


def _name_of(run: Run) -> str:
    """How a fork names its parent: its label, its scenario or where it was imported from —
    and a fork as what it forked, and where."""
    origin = run.origin
    if isinstance(origin, Fork):
        return f"{origin.parent_id} (fork at {origin.at})"
    for key in ("label", "scenario"):
        value = run.meta.get(key)
        if isinstance(value, str) and value:
            return value
    return origin.format if isinstance(origin, Import) else "run"
