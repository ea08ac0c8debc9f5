"""The strategy protocol and the input a strategy plans with.

Layer: window core. A strategy decides *when* and *how much*; the refusal engine decides *what
may leave*, and the input hands the strategy only its answer, never the guards — so a strategy
you write cannot break a rule. See the law in ``footprint_lab.window``.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from footprint_lab.messages import Message, content_hash, storable_text
from footprint_lab.window.boundary import Boundary
from footprint_lab.window.clearing import ClearingPlan, plan_clearing
from footprint_lab.window.records import WindowRecord
from footprint_lab.window.refusals import Guards, RemovalPlan, plan_removal
from footprint_lab.window.result import WindowResult
from footprint_lab.window.shape import Window
from footprint_lab.window.strategies.splice import RemovalFacts as RemovalFacts
from footprint_lab.window.strategies.splice import Splicing
from footprint_lab.window.turns import Turn, TurnTable

_STAGE_ID = operator.attrgetter("stage_id")
_CHARS = operator.attrgetter("chars")

StrategyResult = WindowResult
"""What ``plan`` returns when it engaged (an alias of :class:`WindowResult`)."""


@runtime_checkable
class WindowStrategy(Protocol):
    """Anything with a ``name`` and a ``plan(input)``; ``plan`` may be sync or async and
    returns None when the strategy did not engage at this boundary."""

    @property
    def name(self) -> str:
        """The name records are filed under."""
        ...

    def plan(
        self, input: StrategyInput
    ) -> StrategyResult | Awaitable[StrategyResult | None] | None: ...


def strategy_name(strategy: object) -> str | None:
    """The name a run files ``strategy`` under, as storable text (a lone surrogate escaped);
    None for no strategy or one whose ``name`` is not text."""
    name = getattr(strategy, "name", None)
    return storable_text(name) if isinstance(name, str) else None


@dataclass(frozen=True, slots=True)
class StrategyInput(Splicing):
    """Everything a strategy may know at one boundary.

    The window's facts are fields; what the boundary knows besides the window is read from its
    :class:`~footprint_lab.window.boundary.Boundary` (built once per visit, not copied field by
    field into a second object).
    """

    messages: Sequence[Message]
    """The window as it stands."""
    turns: Sequence[Turn]
    """Its turns."""
    request_index: int | None
    """Index of the current request in ``messages``."""
    window_chars: int
    """Exact characters of the window (computed once by ``apply_window``)."""
    _boundary: Boundary = field(repr=False)
    _guards: Guards = field(repr=False)
    _keep_last_tool_results: int = 2
    _stand_down: bool = False
    _bound: list[int] | None = field(default=None, repr=False)
    """``bound_turns`` of the window, computed once by ``apply_window`` (None: every result
    sits in its call's own turn)."""

    @property
    def iteration(self) -> int:
        """The ReAct iteration this boundary precedes."""
        return self._boundary.iteration

    @property
    def measured_input_tokens(self) -> int | None:
        """Input tokens the provider reported for the last call (None before the first call)."""
        return self._boundary.measured_input_tokens

    @property
    def measured_output_tokens(self) -> int | None:
        """Output tokens the provider reported for the last call."""
        return self._boundary.measured_output_tokens

    @property
    def provider_name(self) -> str | None:
        """Name of the provider that reported them (for error messages)."""
        return self._boundary.provider_name

    @property
    def context_window(self) -> int | None:
        """The model's context window, when the provider knows it."""
        return self._boundary.context_window

    @property
    def max_output_tokens(self) -> int | None:
        """The agent's max output tokens, when set."""
        return self._boundary.max_output_tokens

    @property
    def forced(self) -> bool:
        """True when the provider rejected the last request as too long: the trigger is
        ignored."""
        return self._boundary.forced

    @property
    def prior_records(self) -> Sequence[WindowRecord]:
        """Records filed at earlier boundaries of this run."""
        return self._boundary.prior_records

    @property
    def tool_names(self) -> frozenset[str] | None:
        """The agent's tool roster, when known: a drop notice names only these tools."""
        return self._boundary.tool_names

    @property
    def provider(self) -> Any:
        """The provider the run calls (None in a bare ``apply_window`` or a replay). Opaque to
        the core; a ``compact(ctx)``-style policy receives it."""
        return self._boundary.provider

    @property
    def model(self) -> str | None:
        """The model the run calls, when known."""
        return self._boundary.model

    @property
    def count_window(self) -> Callable[[Sequence[Message]], int | None] | None:
        """Counts a window's input tokens as the provider would report them, when the
        boundary can (``Boundary.count_window``); None otherwise."""
        return self._boundary.count_window

    def holds_more_turns_than(self, n: int) -> bool:
        """Whether the window holds more than ``n`` turns that count against a keep window:
        a turn an injection opened does not (see
        :func:`~footprint_lab.window.refusals.keep_window_start`)."""
        turns = self.turns
        if len(turns) <= n:
            return False
        messages = self.messages
        starts = TurnTable.of(turns).starts
        counted = 0
        for k in range(len(starts) - 1, -1, -1):
            if messages[starts[k]].authored != "injection":
                counted += 1
                if counted > n:
                    return True
        return False

    def plan_removal(
        self,
        keep_recent_turns: int,
        is_existing_summary: Callable[[Message], bool] | None = None,
    ) -> RemovalPlan:
        """The refusal engine, bound to this boundary's guards and pins."""
        return plan_removal(
            self.messages,
            self.turns,
            keep_recent_turns,
            guards=self._guards,
            keep_last_tool_results=self._keep_last_tool_results,
            stand_down=self._stand_down,
            is_existing_summary=is_existing_summary,
            bound=self._bound,
        )

    def plan_clearing(
        self,
        strategy: str,
        keep_recent_turns: int,
        *,
        keep_results: int = 0,
        exclude_tools: Collection[str] = (),
        clear_tool_inputs: bool | Collection[str] = False,
    ) -> ClearingPlan:
        """The refusal engine's in-place move (see :mod:`footprint_lab.window.clearing`),
        bound to this boundary's guards and pins; placeholders name ``strategy``."""
        return plan_clearing(
            self.messages,
            self.turns,
            keep_recent_turns,
            guards=self._guards,
            keep_last_tool_results=self._keep_last_tool_results,
            stand_down=self._stand_down,
            iteration=self.iteration,
            strategy=strategy,
            keep_results=keep_results,
            exclude_tools=exclude_tools,
            clear_tool_inputs=clear_tool_inputs,
        )

    @property
    def _window(self) -> Window | None:
        """The given window's facts (computed by ``apply_window``), when they describe
        ``messages``."""
        facts = self._guards.facts
        if facts is not None and facts.window.messages is self.messages:
            return facts.window
        return None

    def span_chars(self, start: int, end: int) -> int:
        """Exact characters of messages ``[start, end)`` of the window."""
        window = self._window
        if window is not None:
            return window.span_chars(start, end)
        return sum(map(_CHARS, self.messages[start:end]))

    def removal_facts(self, indices: Iterable[int]) -> RemovalFacts:
        """Turn window indices into the stage ids that wrote them and what they held."""
        window = self._window
        if isinstance(indices, range) and indices.step == 1:
            start, stop = indices.start, max(indices.start, indices.stop)
            if window is not None:
                return RemovalFacts(
                    window.span_stage_ids(start, stop),
                    stop - start,
                    window.span_chars(start, stop),
                    window.span_tool_names(start, stop),
                )
            picked = list(self.messages[start:stop])
        else:
            picked = [self.messages[i] for i in indices]
        # attrgetter maps run at C speed: a cold trim names thousands of messages.
        stage_ids = dict.fromkeys(map(_STAGE_ID, picked))
        stage_ids.pop(None, None)
        tools = dict.fromkeys(m.name for m in picked if m.role == "tool")
        tools.pop(None, None)
        chars = sum(map(_CHARS, picked))
        return RemovalFacts(list(stage_ids), len(picked), chars, list(tools))  # type: ignore[arg-type]

    # -- building results ----------------------------------------------------------------

    def record(self, strategy: str, plan: RemovalPlan | None = None, **facts: Any) -> WindowRecord:
        """A record for a visit that removed nothing (refusals taken from ``plan``)."""
        chars = self.window_chars
        base: dict[str, Any] = {
            "strategy": strategy,
            "iteration": self.iteration,
            "window_chars_before": chars,
            "window_chars_after": chars,
            "turns_before": len(self.turns),
            "turns_after": len(self.turns),
            "forced": self.forced,
        }
        if plan is not None:
            base["refusals"] = list(plan.refusals)
            base["observations"] = plan.observations
            base["keep_recent_turns"] = plan.keep_recent_turns
        base.update(facts)
        return WindowRecord.model_validate(base)

    def span_key(self, plan: RemovalPlan) -> str | None:
        """A stable hash identifying the span across boundaries: the stage ids and sizes of
        its messages (their content hash when a message has no stage id)."""
        if plan.span is None:
            return None
        start, end = plan.span
        window = self._window
        if window is not None and window.all_stamped(start, end):
            # Every message stamped: its first and last stage, how many stages, messages and
            # characters say which span of the run this is (stages are committed once, in
            # order), read from the window's facts without reading the span.
            ids = window.span_stage_ids(start, end)
            parts = [str(end - start), str(window.span_chars(start, end)), str(len(ids))]
            parts += [ids[0], ids[-1]]
        else:
            parts = [
                f"{m.stage_id}:{m.role}:{m.chars}" if m.stage_id else content_hash(m)
                for m in self.messages[start:end]
            ]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]
