"""Audit any window policy: run it at each boundary like a strategy and record, in the lab's
vocabulary, every rule it breaks.

Layer: audit (above the window core; pure — no pandas). ``audit(policy)`` accepts a
``compact(ctx)``-style strategy (the TypeScript compaction library's interface), any
``messages -> messages`` callable (LangChain's ``trim_messages`` via :func:`langchain_trim`, a
naive :func:`keep_last_messages`), or one of our own strategies. The wrapper diffs input and
output by message identity, files a :class:`~footprint_lab.window.records.WindowRecord` under
the policy's id naming the removed stage ids, and lists ``violations``. It never repairs
anything.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from footprint_lab.auditing.policies import (
    AbortSignal,
    CompactionContext,
    CompactionPolicy,
    ContextWindowOracle,
    DefaultKeepRecent10,
    default_keep_recent_10,
    keep_last_messages,
    langchain_trim,
    policy_name,
)
from footprint_lab.auditing.violations import (
    FRAME_MARKERS,
    RULE_KINDS,
    VIOLATION_KINDS,
    WindowDiff,
    diff_windows,
    find_violations,
)
from footprint_lab.window.records import Violation
from footprint_lab.window.result import WindowResult
from footprint_lab.window.strategies.base import StrategyInput, StrategyResult
from footprint_lab.window.turns import segment_turns

__all__ = [
    "FRAME_MARKERS",
    "RULE_KINDS",
    "VIOLATION_KINDS",
    "AbortSignal",
    "AuditedPolicy",
    "CompactionContext",
    "CompactionPolicy",
    "DefaultKeepRecent10",
    "Violation",
    "WindowDiff",
    "audit",
    "default_keep_recent_10",
    "diff_windows",
    "find_violations",
    "keep_last_messages",
    "langchain_trim",
]


@dataclass
class AuditedPolicy:
    """A policy wrapped to run as a strategy whose records carry ``violations``."""

    policy: Any
    name: str
    markers: Sequence[str] = FRAME_MARKERS
    """Openings by which an inserted message says it is a summary (case-insensitive)."""
    audits_a_foreign_policy: ClassVar[bool] = True
    """Read by the window core: a breach raised in an agent names what the user can do
    (``replay(run, audit(policy))``, a lawful strategy), not strategy-author methods."""

    async def plan(self, input: StrategyInput) -> StrategyResult | None:
        """Run the policy on the window, diff, and file a record with the violations."""
        before = list(input.messages)
        own = getattr(self.policy, "plan", None)
        base_record = None
        if callable(own):  # one of our strategies: it files its own record
            produced = own(input)
            if inspect.isawaitable(produced):
                produced = await produced
            if produced is None:
                return None
            after = list(produced.window)
            base_record = produced.record
        elif callable(getattr(self.policy, "compact", None)):
            ctx = CompactionContext(
                messages=list(before),
                provider=(
                    input.provider
                    if input.provider is not None
                    else ContextWindowOracle(input.context_window)
                ),
                model=input.model,
                signal=AbortSignal.current(),
            )
            produced = self.policy.compact(ctx)
            after = list(await produced if inspect.isawaitable(produced) else produced)
        elif callable(self.policy):
            produced = self.policy(list(before))
            after = list(await produced if inspect.isawaitable(produced) else produced)
        else:
            raise TypeError(f"cannot audit {self.policy!r}: not a strategy, compact() or callable")
        diff = diff_windows(before, after)
        if not diff.changed and base_record is None:
            return None
        violations = find_violations(before, diff, input.request_index, self.markers)
        # Inserted summaries are authored by the policy; mark them so they never anchor.
        window = [
            m.model_copy(update={"authored": "compaction-frame"})
            if i in diff.inserted and m.authored is None and m.role == "user"
            else m
            for i, m in enumerate(diff.output)
        ]
        facts = input.removal_facts(diff.removed)
        if base_record is not None:
            record = base_record.model_copy(update={"violations": violations})
        else:
            record = input.record(
                self.name,
                removed_stage_ids=facts.stage_ids,
                removed_message_count=facts.count,
                window_chars_after=sum(m.chars for m in window),
                dropped_observations=facts.tool_names if facts.count else None,
                turns_after=len(segment_turns(window)),
                violations=violations,
            )
        return WindowResult(window, record)


def audit(
    policy: Any, name: str | None = None, *, markers: Sequence[str] = FRAME_MARKERS
) -> AuditedPolicy:
    """Wrap ``policy`` so it runs at each boundary (in an agent or in ``replay``) and files
    records whose ``violations`` name every rule it broke.

    Args:
        policy: A ``compact(ctx)`` object, a ``messages -> messages`` callable (sync or async),
            or a window strategy of ours.
        name: The id records are filed under (default: the policy's id / name).
        markers: Openings by which an inserted message says it is a summary or notice.
    """
    return AuditedPolicy(policy, name or policy_name(policy), tuple(markers))
