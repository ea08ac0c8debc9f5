"""``Agent.create(...)``: the builder, and the configuration checks made at build time.

Layer: agent. Exactly one window strategy per agent: a second through any door (``.window``,
``.act(window=)``, ``.compaction``) raises ``WindowConfigError`` at ``build()`` — a policy that
quietly changed is a policy nobody can audit.

The dependency points one way: :mod:`footprint_lab.agent.agent` imports this module
(``Agent.create`` returns a builder that builds that class); the builder is generic in the class
it builds, so it names no agent module, not even for type checking.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from footprint_lab.agent.injections import InjectionRule
from footprint_lab.agent.tools import Tool, ToolFunction, check_timeout
from footprint_lab.providers.base import Provider
from footprint_lab.providers.scripted import echo_provider
from footprint_lab.window.apply import check_keep_last_tool_results
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.strategies import Summarizer, WindowStrategy, summarize_oldest

A = TypeVar("A")
"""The class built (:class:`~footprint_lab.agent.Agent`, or a subclass of it)."""


class AgentBuilder(Generic[A]):
    """Collects an agent's parts; ``build()`` checks them and returns the
    :class:`~footprint_lab.agent.Agent`."""

    def __init__(
        self,
        provider: Provider | None,
        model: str,
        max_iterations: int,
        keep_last_tool_results: int | bool,
        max_output_tokens: int | None,
        *,
        tool_timeout: float | None = None,
        agent_class: Callable[..., A],
    ) -> None:
        self._agent_class = agent_class
        self._provider = provider
        self._tool_timeout = tool_timeout
        self._model = model
        self._max_iterations = max_iterations
        self._keep_last = keep_last_tool_results
        self._max_output_tokens = max_output_tokens
        self._system: str | None = None
        self._tools: list[Tool] = []
        self._strategies: list[tuple[str, Any]] = []
        self._injections: list[InjectionRule] = []

    def system(self, text: str) -> AgentBuilder[A]:
        """Set the system prompt (it rides the request, never the window)."""
        self._system = text
        return self

    def tool(self, fn: Tool | ToolFunction) -> AgentBuilder[A]:
        """Add a tool (a ``@tool`` or a plain function)."""
        self._tools.append(fn if isinstance(fn, Tool) else Tool(fn))
        return self

    def tools(self, *fns: Tool | ToolFunction) -> AgentBuilder[A]:
        """Add several tools."""
        for fn in fns:
            self.tool(fn)
        return self

    def window(self, strategy: WindowStrategy) -> AgentBuilder[A]:
        """Set the window strategy: the one documented way (``.act(window=)`` and
        ``.compaction()`` are kept because the spec names them; both land here)."""
        self._strategies.append((".window()", strategy))
        return self

    def act(self, *, window: WindowStrategy | None = None) -> AgentBuilder[A]:
        """Configure the loop's moments; ``window=`` forwards to :meth:`window`, the one
        documented way to set a strategy."""
        if window is not None:
            self._strategies.append((".act(window=)", window))
        return self

    def inject(self, rule: InjectionRule) -> AgentBuilder[A]:
        """Add an injection rule: it may deliver a library-authored user message right before
        each call (e.g. ``after_compaction(standing_instructions)``)."""
        if not callable(rule):
            raise WindowConfigError(f"an injection rule must be callable, got {rule!r}")
        self._injections.append(rule)
        return self

    def compaction(
        self,
        threshold_tokens: int | None = None,
        summarizer: Summarizer | None = None,
        keep_recent_turns: int = 6,
        **kwargs: Any,
    ) -> AgentBuilder[A]:
        """``.window(summarize_oldest(...))`` spelled shorter: the same agent, byte for byte
        (kept because the spec names it; :meth:`window` is the documented way)."""
        strategy = summarize_oldest(
            threshold_tokens=threshold_tokens,
            summarizer=summarizer,
            keep_recent_turns=keep_recent_turns,
            **kwargs,
        )
        self._strategies.append((".compaction()", strategy))
        return self

    def build(self) -> A:
        """Check the configuration and return the agent.

        Raises:
            WindowConfigError: two strategies, a malformed strategy, a duplicate tool name, or
                a value out of range (``tool_timeout`` included); the message says what to
                change.
        """
        if len(self._strategies) > 1:
            doors = ", ".join(f"{door} {getattr(s, 'name', s)!r}" for door, s in self._strategies)
            raise WindowConfigError(
                f"an agent takes exactly one window strategy, got {len(self._strategies)}: "
                f"{doors}. Keep one of them."
            )
        strategy = self._strategies[0][1] if self._strategies else None
        if strategy is not None and not (
            isinstance(getattr(strategy, "name", None), str)
            and callable(getattr(strategy, "plan", None))
        ):
            raise WindowConfigError(
                f"{strategy!r} is not a window strategy: it needs a str `name` and a "
                "`plan(input)` method"
            )
        if (
            isinstance(self._max_iterations, bool)
            or not isinstance(self._max_iterations, int)
            or self._max_iterations < 1
        ):
            raise WindowConfigError(
                f"max_iterations must be a whole number >= 1, got {self._max_iterations!r}"
            )
        if self._max_output_tokens is not None and (
            not isinstance(self._max_output_tokens, int) or self._max_output_tokens < 1
        ):
            raise WindowConfigError(
                f"max_output_tokens must be a whole number >= 1 or None, got "
                f"{self._max_output_tokens!r}"
            )
        keep_last = check_keep_last_tool_results(self._keep_last)
        tool_timeout = check_timeout(self._tool_timeout, "tool_timeout")
        names = [t.name for t in self._tools]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise WindowConfigError(f"tool names must be unique; repeated: {duplicates}")
        provider = self._provider if self._provider is not None else echo_provider()
        if not isinstance(provider, Provider):
            raise WindowConfigError(
                f"{provider!r} is not a provider: it needs `name`, `context_window(model)` and "
                "an async `complete(request)`"
            )
        trigger = getattr(strategy, "trigger", None)
        if (
            strategy is not None
            and trigger is not None
            and getattr(trigger, "threshold_fraction", None) is not None
            and provider.context_window(self._model) is None
        ):
            raise WindowConfigError(
                f"{strategy.name} uses threshold_fraction= but provider '{provider.name}' knows "
                f"no context window for model '{self._model}': give the provider one "
                "(e.g. context_window_override=) or use threshold_tokens="
            )
        return self._agent_class(
            provider=provider,
            model=self._model,
            max_iterations=self._max_iterations,
            keep_last_tool_results=keep_last,
            max_output_tokens=self._max_output_tokens,
            system=self._system,
            tools=list(self._tools),
            strategy=strategy,
            injections=list(self._injections),
            tool_timeout=tool_timeout,
        )
