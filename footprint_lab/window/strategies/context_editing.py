"""Offline twins of Anthropic's context editing: ``anthropic_context_editing`` and
``clear_thinking``.

Layer: window core (see the law in ``footprint_lab.window``; the in-place move is planned by
:mod:`footprint_lab.window.clearing`). They make the decisions the Messages API makes on the
same request (https://platform.claude.com/docs/en/build-with-claude/context-editing), so a
replay, the Tuner, a sweep or ``evidence_frame`` can say what the server's edit would remove
from *your* run — and what it would cost — before you turn it on.

``clear_tool_uses_20250919``, as the server applies it to each request (the client keeps its
full history):

* **trigger** — the request's input tokens (or its tool uses) *exceed* the value (default
  100,000 input tokens), measured on the request in hand (``tokens_from``: counted by the
  provider, else estimated);
* **keep** — the ``keep`` most recent tool uses stay (default 3); every older one is cleared,
  oldest first, except the results of ``exclude_tools``;
* **clear_at_least** — nothing is cleared unless the clearing takes at least that many input
  tokens;
* **clear_tool_inputs** — the cleared calls' inputs go too (True), or those of the named tools.

The server starts from the full history at every request, so once its trigger and
``clear_at_least`` are passed they stay passed (the history only grows) and each request clears
the previous one's results and the ones that have since fallen out of ``keep``. The twin keeps
its window: it checks the trigger and ``clear_at_least`` until it has cleared once, and then
clears what has fallen out of ``keep`` at every visit — the same results the server clears.

Where the law and the server part, the law wins and the record says so: the request, pinned
results (``keep_last_tool_results``: turn pins off for the server's exact choice), a result no
larger than its placeholder (``replacement-not-smaller``) stay, named. The placeholder's words
are ours (the API's are not documented, and shorter): ``clear_at_least`` and ``cleared_tokens``
are measured with ours, so near its boundary the twin may clear one visit later than the
server would.

``clear_thinking_20251015`` keeps the thinking of the ``keep_turns`` most recent replies that
hold any (default 1; ``"all"`` keeps all) and sends older replies without theirs — in place,
their text, calls and other parts untouched.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from footprint_lab.messages import has_thinking, without_thinking
from footprint_lab.window.clearing import ClearingPlan
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.request_tokens import request_tokens
from footprint_lab.window.strategies._trigger import check_tokens
from footprint_lab.window.strategies.base import StrategyInput, StrategyResult

__all__ = [
    "AnthropicContextEditing",
    "ClearThinking",
    "anthropic_context_editing",
    "clear_thinking",
]

TriggerKind = Literal["input_tokens", "tool_uses"]


@dataclass(frozen=True, slots=True)
class AnthropicContextEditing:
    """The twin of ``clear_tool_uses_20250919`` (see the module docstring)."""

    trigger: int = 100_000
    trigger_type: TriggerKind = "input_tokens"
    keep: int = 3
    clear_at_least: int | None = None
    exclude_tools: frozenset[str] = frozenset()
    clear_tool_inputs: bool | frozenset[str] = False
    name: str = "anthropic-context-editing"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        """Clear what the server would clear from this request (what the law allows)."""
        applied = any(r.strategy == self.name and r.cleared_stage_ids for r in input.prior_records)
        facts: dict[str, Any] = {"keep_results": self.keep}
        over = self._over(input, facts)
        if not applied and not over and not input.forced:
            return None
        plan = input.plan_clearing(
            self.name,
            0,  # the server keeps no turns, only the newest tool uses
            keep_results=self.keep,
            exclude_tools=self.exclude_tools,
            clear_tool_inputs=self.clear_tool_inputs,
        )
        if plan.replacements:
            after = list(input.messages)
            for i, placeholder in plan.replacements:
                after[i] = placeholder
            after_tokens, _ = request_tokens(after, input.count_window)
            facts["cleared_tokens"] = max(0, facts["measured_tokens"] - after_tokens)
            if self.clear_at_least is not None:
                facts["clear_at_least_tokens"] = self.clear_at_least
                if not applied and facts["cleared_tokens"] < self.clear_at_least:
                    plan = replace(plan, replacements=())  # named below-clear-at-least
        return input.clear(self.name, plan, **facts)

    def _over(self, input: StrategyInput, facts: dict[str, Any]) -> bool:
        """Whether the request in hand is over the trigger (facts filled in)."""
        measured, source = request_tokens(input.messages, input.count_window, input.window_chars)
        facts.update(measured_tokens=measured, tokens_from=source, measured_request=True)
        if self.trigger_type == "tool_uses":
            uses = sum(len(m.tool_calls) for m in input.messages if m.role == "assistant")
            return uses > self.trigger
        facts.update(threshold_tokens=self.trigger, over_budget=measured > self.trigger)
        return measured > self.trigger

    def knobs(self) -> dict[str, Any]:
        """The configuration, by keyword (as :func:`anthropic_context_editing` takes it)."""
        inputs = self.clear_tool_inputs
        return {
            "trigger": self.trigger
            if self.trigger_type == "input_tokens"
            else {"type": "tool_uses", "value": self.trigger},
            "keep": self.keep,
            "clear_at_least": self.clear_at_least,
            "exclude_tools": tuple(sorted(self.exclude_tools)),
            "clear_tool_inputs": inputs if isinstance(inputs, bool) else tuple(sorted(inputs)),
        }

    def with_knobs(self, **changes: Any) -> AnthropicContextEditing:
        """A copy with some knobs changed (validated)."""
        return replace(anthropic_context_editing(**{**self.knobs(), **changes}), name=self.name)

    def renamed(self, name: str) -> AnthropicContextEditing:
        """A copy filed under another name."""
        return replace(self, name=name)

    def edit(self) -> dict[str, Any]:
        """This configuration as the API's ``clear_tool_uses_20250919`` edit (what
        ``AnthropicProvider(context_management={"edits": [...]})`` takes)."""
        edit: dict[str, Any] = {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": self.trigger_type, "value": self.trigger},
            "keep": {"type": "tool_uses", "value": self.keep},
        }
        if self.clear_at_least is not None:
            edit["clear_at_least"] = {"type": "input_tokens", "value": self.clear_at_least}
        if self.exclude_tools:
            edit["exclude_tools"] = sorted(self.exclude_tools)
        inputs = self.clear_tool_inputs
        if inputs:
            edit["clear_tool_inputs"] = inputs if isinstance(inputs, bool) else sorted(inputs)
        return edit


def _typed_value(name: str, knob: str, value: Any, kinds: tuple[str, ...]) -> tuple[str, Any]:
    """A knob given as a number or as the API's ``{"type": ..., "value": ...}`` object."""
    if isinstance(value, Mapping):
        if set(value) != {"type", "value"} or value["type"] not in kinds:
            raise WindowConfigError(
                f"{name}: {knob} must be a number or {{'type': {' | '.join(map(repr, kinds))}, "
                f"'value': N}}, got {dict(value)!r}"
            )
        return str(value["type"]), value["value"]
    return kinds[0], value


def anthropic_context_editing(
    trigger: int | Mapping[str, Any] = 100_000,
    keep: int | Mapping[str, Any] = 3,
    clear_at_least: int | Mapping[str, Any] | None = None,
    exclude_tools: Collection[str] = (),
    clear_tool_inputs: bool | Collection[str] = False,
) -> AnthropicContextEditing:
    """The offline twin of Anthropic's ``clear_tool_uses_20250919`` context edit: the tool
    results the server would clear from each request, cleared in place (see the module
    docstring for the rule and where the law parts from it).

    Args:
        trigger: Input tokens the request must exceed (default 100,000, the API's), or the
            API's ``{"type": "input_tokens" | "tool_uses", "value": N}``.
        keep: Most recent tool uses that stay (default 3), or ``{"type": "tool_uses",
            "value": N}``.
        clear_at_least: Clear nothing unless at least this many input tokens go (None: no
            minimum), or ``{"type": "input_tokens", "value": N}``.
        exclude_tools: Tools whose uses are never cleared.
        clear_tool_inputs: Also clear the cleared calls' inputs: all (True) or these tools'.

    Raises:
        WindowConfigError: a knob out of range or of the wrong type.
    """
    name = "anthropic_context_editing"
    kind, value = _typed_value(name, "trigger", trigger, ("input_tokens", "tool_uses"))
    value = check_tokens(name, "trigger", value, 1)
    _, kept = _typed_value(name, "keep", keep, ("tool_uses",))
    if isinstance(kept, bool) or not isinstance(kept, int) or kept < 0:
        raise WindowConfigError(
            f"{name}: keep must be a whole number of tool uses >= 0, got {kept!r}"
        )
    least = None
    if clear_at_least is not None:
        _, least = _typed_value(name, "clear_at_least", clear_at_least, ("input_tokens",))
        least = check_tokens(name, "clear_at_least", least, 0)
    if isinstance(exclude_tools, str) or not all(isinstance(t, str) for t in exclude_tools):
        raise WindowConfigError(
            f"{name}: exclude_tools must be a list of tool names, e.g. ['memory'], got "
            f"{exclude_tools!r}"
        )
    inputs: bool | frozenset[str]
    if isinstance(clear_tool_inputs, bool):
        inputs = clear_tool_inputs
    elif isinstance(clear_tool_inputs, str) or not all(
        isinstance(t, str) for t in clear_tool_inputs
    ):
        raise WindowConfigError(
            f"{name}: clear_tool_inputs must be True, False or a list of tool names, got "
            f"{clear_tool_inputs!r}"
        )
    else:
        inputs = frozenset(clear_tool_inputs)
    return AnthropicContextEditing(
        value,
        "tool_uses" if kind == "tool_uses" else "input_tokens",
        kept,
        least,
        frozenset(exclude_tools),
        inputs,
    )


@dataclass(frozen=True, slots=True)
class ClearThinking:
    """The twin of ``clear_thinking_20251015`` (see the module docstring)."""

    keep_turns: int | Literal["all"] = 1
    name: str = "clear-thinking"

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        """Send the replies older than the ``keep_turns`` newest thinking ones without their
        thinking."""
        if self.keep_turns == "all":
            return None
        messages = input.messages
        thinking = [i for i, m in enumerate(messages) if m.role == "assistant" and has_thinking(m)]
        older = thinking[: max(0, len(thinking) - self.keep_turns)]
        if not older:
            return None
        replacements = tuple(
            (
                i,
                messages[i].model_copy(
                    update={
                        "parts": without_thinking(messages[i]),
                        "authored": "cleared-result",
                        "stage_id": None,
                    }
                ),
            )
            for i in older
        )
        before, source = request_tokens(input.messages, input.count_window, input.window_chars)
        after_window = list(messages)
        for i, stand_in in replacements:
            after_window[i] = stand_in
        after, _ = request_tokens(after_window, input.count_window)
        plan = ClearingPlan(0, replacements, (), None, ())
        return input.clear(
            self.name,
            plan,
            cleared_tokens=max(0, before - after),
            tokens_from=source,
            keep_thinking_turns=self.keep_turns,
            keep_recent_turns=None,  # no keep window of turns: only the thinking is counted
        )

    def knobs(self) -> dict[str, Any]:
        """The configuration, by keyword."""
        return {"keep_turns": self.keep_turns}

    def with_knobs(self, **changes: Any) -> ClearThinking:
        """A copy with some knobs changed (validated)."""
        return replace(clear_thinking(**{**self.knobs(), **changes}), name=self.name)

    def renamed(self, name: str) -> ClearThinking:
        """A copy filed under another name."""
        return replace(self, name=name)

    def edit(self) -> dict[str, Any]:
        """This configuration as the API's ``clear_thinking_20251015`` edit."""
        keep: Any = (
            "all"
            if self.keep_turns == "all"
            else {"type": "thinking_turns", "value": self.keep_turns}
        )
        return {"type": "clear_thinking_20251015", "keep": keep}


def clear_thinking(keep_turns: int | Literal["all"] = 1) -> ClearThinking:
    """Keep the thinking of the ``keep_turns`` most recent replies that hold any and send
    older replies without it — the offline twin of Anthropic's ``clear_thinking_20251015``
    edit (``"all"`` keeps every reply's thinking, as the API's ``keep: "all"`` does).

    A reply keeps its text, its calls and its other parts; its thinking stays in the ledger,
    and the record names the reply (``cleared_stage_ids``) and the tokens it took.

    Raises:
        WindowConfigError: ``keep_turns`` is neither a whole number >= 1 nor ``"all"``.
    """
    if keep_turns != "all" and (
        isinstance(keep_turns, bool) or not isinstance(keep_turns, int) or keep_turns < 1
    ):
        raise WindowConfigError(
            f"clear_thinking: keep_turns must be a whole number of replies >= 1 or 'all', got "
            f"{keep_turns!r}"
        )
    return ClearThinking(keep_turns)
