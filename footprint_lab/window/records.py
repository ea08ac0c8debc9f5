"""What a window visit records: ``WindowRecord`` and its parts (pydantic).

Layer: window core. A record is how a strategy obeys the law stated in
``footprint_lab.window``: it names every message that left and every turn that refused.
"""

from __future__ import annotations

import functools
import operator
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from footprint_lab.messages import (
    Message,
    PositionalModel,
    StorableStr,
    construct_trusted,
    storable_text,
)
from footprint_lab.window.words import record_sentence

RefusalReason = Literal[
    "current-request",
    "system-envelope",
    "paused-tool",
    "pending-check-in",
    "unresolved-tool-call",
    "last-tool-result",
    "inside-keep-window",
    "only-existing-summary",
    "summarizer-failed",
    "replacement-not-smaller",
    "within-slack",
    "below-clear-at-least",
    "excluded-tool",
    "among-newest-results",
]
"""The closed set of reasons a turn may refuse to leave."""

REFUSAL_REASONS: tuple[str, ...] = get_args(RefusalReason)

TokenSource = Literal["reported", "counted", "scaled", "estimated"]
"""How the input tokens a token strategy measured were obtained:

* ``reported`` — the provider reported them for the last call (a live run);
* ``counted`` — a provider that can count a request counted the window a replay would have
  sent (the scripted provider counts exactly as it reports);
* ``scaled`` — the original call's reported input tokens, scaled by the counterfactual
  request's characters over the original's;
* ``estimated`` — nobody reported tokens: the request's characters at a stated ratio
  (``replay(..., tokens_per_char=...)``)."""

TOKEN_SOURCES: tuple[TokenSource, ...] = get_args(TokenSource)


class Refusal(PositionalModel):
    """One turn that refused to leave, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    __positional__ = ("reason", "turn_index", "message_index", "stage_id")

    reason: RefusalReason
    """Which rule refused (kebab-case, from a closed set)."""
    turn_index: int
    """The refusing turn's index in the window it was planned on."""
    message_index: int
    """The index of that turn's first message in the same window."""
    stage_id: str | None = None
    """The stage that committed that first message (None when it carries no stage id)."""


def fresh_refusal(
    reason: RefusalReason, turn_index: int, message_index: int, stage_id: str | None = None
) -> Refusal:
    """A refusal built from values the engine computed (not validated again, not shared)."""
    return construct_trusted(
        Refusal,
        reason=reason,
        turn_index=turn_index,
        message_index=message_index,
        stage_id=stage_id,
    )


@functools.lru_cache(maxsize=4096)
def refusal_of(
    reason: RefusalReason, turn_index: int, message_index: int, stage_id: str | None = None
) -> Refusal:
    """A refusal, shared: the same refusal recurs at boundary after boundary, and refusals are
    immutable, so one object serves every record that names it."""
    return fresh_refusal(reason, turn_index, message_index, stage_id)


class Pin(PositionalModel):
    """A tool's latest result held in the window by ``keep_last_tool_results``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    __positional__ = ("tool_name", "turn_index", "chars", "stage_id")

    tool_name: str
    """The tool whose latest result is pinned."""
    turn_index: int
    """The turn holding that result."""
    chars: int
    """Characters the pinned result costs."""
    stage_id: str | None = None
    """The stage that committed the pinned result."""


class Observations(BaseModel):
    """What the tool-result pins held on one visit, and what they cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pinned: list[Pin] = Field(default_factory=list)
    """Pins admitted outside the keep window, newest first."""
    yielded: int = 0
    """Tool names whose latest result wanted a pin but found no free slot."""
    limit: int = 2
    """The agent's ``keep_last_tool_results``."""
    stand_down: bool = False
    """True when pins were released for this visit because they blocked the two before it."""


@functools.lru_cache(maxsize=4096)
def pin_of(tool_name: str, turn_index: int, chars: int, stage_id: str | None = None) -> Pin:
    """A pin, shared between records (the same pin recurs at boundary after boundary)."""
    return construct_trusted(
        Pin, tool_name=tool_name, turn_index=turn_index, chars=chars, stage_id=stage_id
    )


@functools.lru_cache(maxsize=1024)
def observations_of(pinned: tuple[Pin, ...], yielded: int, limit: int) -> Observations:
    """Observations, shared between records that pinned the same (immutable)."""
    return Observations(pinned=list(pinned), yielded=yielded, limit=limit)


@functools.lru_cache(maxsize=256)
def no_pins(limit: int, stand_down: bool = False) -> Observations:
    """The observations of a visit that pinned nothing, shared between records (immutable)."""
    return Observations(pinned=[], yielded=0, limit=limit, stand_down=stand_down)


class Violation(PositionalModel):
    """A rule a foreign policy broke (recorded by ``audit``, never repaired)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    __positional__ = ("kind", "message_index", "detail")

    kind: str
    """Which rule: 'split-tool-pair', 'lost-current-request', ..."""
    message_index: int | None = None
    """Where it happened: for a lost request, a dropped system message or a non-contiguous
    removal, the index in the window the policy was given; for a split pair, a non-user head
    or an inserted message, the index in the window it returned; for a rewrite, the index of
    the original in the window it was given."""
    detail: str = ""
    """A human sentence about what happened."""


def _is_none(value: object) -> bool:
    """Whether a field's value is None (a field saved only when set)."""
    return value is None


class ServerEdit(BaseModel):
    """What one provider response said its server-side window policy did to that request
    (Anthropic's ``context_management.applied_edits`` and compaction iteration, OpenAI's
    Responses compaction), exactly as reported: counts, never our estimate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: StorableStr
    """The vendor's name for the edit: ``clear_tool_uses_20250919``,
    ``clear_thinking_20251015``, ``compact_20260112`` (Anthropic) or ``compaction`` (OpenAI)."""
    cleared_tool_uses: int | None = Field(default=None, ge=0)
    """Tool uses the server reported clearing (``clear_tool_uses_20250919``)."""
    cleared_thinking_turns: int | None = Field(default=None, ge=0)
    """Assistant turns the server reported sending without their thinking."""
    cleared_input_tokens: int | None = Field(default=None, ge=0)
    """Input tokens the server reported the edit removed from the request."""
    input_tokens: int | None = Field(default=None, ge=0)
    """A compaction's own sampling step: the input tokens it was billed (not in the call's
    top-level usage); None when not reported."""
    output_tokens: int | None = Field(default=None, ge=0)
    """A compaction's own sampling step: the output tokens it was billed (the summary)."""


class WindowRecord(BaseModel):
    """One visit of a window strategy: what left (by stage id), what refused, and why.

    Frozen, and unknown fields are refused: a record is evidence. Change one with
    ``model_copy(update=...)``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    strategy: StorableStr
    """The strategy's name: 'sliding-window', 'token-budget', 'summarize-oldest' or yours."""
    iteration: int
    """The ReAct iteration whose boundary this visit ran at."""
    removed_stage_ids: list[str] = Field(default_factory=list)
    """Stage ids of every message that left, in window order, each once."""
    removed_message_count: int = 0
    """How many messages left."""
    window_chars_before: int = 0
    """Exact characters of the window before the visit."""
    window_chars_after: int = 0
    """Exact characters of the window after the visit."""
    refusals: list[Refusal] = Field(default_factory=list)
    """Turns that refused to leave on this visit."""
    dropped_observations: list[str] | None = None
    """Names of the tools whose results left (uncapped, unfiltered); None when nothing left."""
    observations: Observations | None = None
    """What the pins held; None when ``keep_last_tool_results`` is off."""
    keep_recent_turns: int | None = None
    """The strategy's keep window, in turns."""
    turns_before: int | None = None
    """Turns in the window before the visit."""
    turns_after: int | None = None
    """Turns in the window after the visit."""
    measured_tokens: int | None = None
    """Input tokens of the last call (token strategies only): reported by the provider in a
    live run; in a replay, those of the window the replay sent (see ``tokens_from``)."""
    tokens_from: TokenSource | None = None
    """How ``measured_tokens`` was obtained (:data:`TokenSource`); None when none was."""
    measured_request: bool = Field(default=False, exclude_if=operator.not_)
    """True when ``measured_tokens`` are the tokens of the request this visit planned, as a
    provider's server-side policy measures them (its offline twins), not the last call's;
    saved only when True."""
    threshold_tokens: int | None = None
    """The absolute threshold in force (token strategies only)."""
    over_budget: bool | None = None
    """Whether the measured tokens were over the threshold (token strategies only)."""
    summary_chars: int | None = None
    """Characters of the compaction frame written (summarize-oldest only)."""
    summarizer_tokens: int | None = None
    """Tokens the summarizer reported using, when it reports them."""
    summarizer_skipped: bool | None = None
    """True when the summarizer was not called because this span was latched as not smaller."""
    threshold_fraction: float | None = None
    """The relative threshold, when the strategy was configured with one."""
    reserve_tokens: int | None = None
    """Output reserve added to the measured tokens under a relative threshold."""
    context_window: int | None = None
    """The model's context window, under a relative threshold."""
    notice: Literal["named", "plain"] | None = None
    """Which drop notice was inserted, if any."""
    forced: bool = False
    """True when the visit ran because the provider rejected the request as too long."""
    span_key: str | None = None
    """Content hash of the span the strategy considered (latches replacement-not-smaller)."""
    error: str | None = None
    """The summarizer's error, when it failed (storable text: a lone surrogate escaped)."""
    violations: list[Violation] | None = None
    """Rules a foreign policy broke; ``audit`` and observed records fill this."""
    cleared_stage_ids: list[str] = Field(default_factory=list)
    """Messages replaced *in place* by a cleared-result placeholder (also named in
    ``removed_stage_ids``: their originals left the window; the ledger keeps them)."""
    keep_results: int | None = None
    """``clear_tool_results``: the newest N tool results that stay."""
    slack_turns: int | None = None
    """``sliding_window``: turns beyond the keep window the window may hold untrimmed."""
    clear_at_least_chars: int | None = None
    """The least a removal must take, in characters, for the visit to engage."""
    keep_thinking_turns: int | None = Field(default=None, exclude_if=_is_none)
    """``clear_thinking``: the newest replies holding thinking that keep it; saved only when
    set."""
    clear_at_least_tokens: int | None = Field(default=None, exclude_if=_is_none)
    """The least a clearing must take, in input tokens, for the visit to engage (Anthropic's
    ``clear_at_least``, in its twin); saved only when set."""
    cleared_tokens: int | None = Field(default=None, exclude_if=_is_none)
    """Input tokens the visit's clearing took from the request (a twin of a provider's own
    clearing: its ``cleared_input_tokens``), measured as ``tokens_from`` says; saved only when
    set."""
    server_edits: list[ServerEdit] = Field(default_factory=list, exclude_if=operator.not_)
    """What the provider reported its own server-side policy did at this call (an observed
    record of a live run with ``context_management``); saved only when there is any."""
    observed: bool = False
    """True when the record describes what a recorded run's own policy really sent (rebuilt
    by an importer from the inputs the source recorded), not a visit that ran here."""
    forked: bool = Field(default=False, exclude_if=operator.not_)
    """True when the record is a fork's splice (``footprint_lab.fork``): at the boundary it
    forked from, the window the strategy would have sent there — replayed over the parent run
    from its start, each replayed visit held to the law — put in place of the parent's. Saved
    only when True, so a run file written before forks existed saves again byte for byte."""
    commit: int | None = None
    """The ledger commit that filed this record (set when a run commits the visit; None from
    a bare ``apply_window``)."""
    given_commit: int | None = Field(default=None, exclude=True)
    """The ledger commit as of which the window this visit was given is read
    (``ledger.window_at(given_commit)``): set by the run's writer when it commits the visit,
    and by ``load_run`` from the ledger (never saved: the ledger says it). None from a bare
    ``apply_window``."""

    @field_validator("error", mode="after")
    @classmethod
    def _storable_error(cls, value: str | None) -> str | None:
        return None if value is None else storable_text(value)

    @property
    def chars_saved(self) -> int:
        """Characters the visit took off the window (before minus after)."""
        return self.window_chars_before - self.window_chars_after

    @property
    def removed_anything(self) -> bool:
        """Whether any message left on this visit."""
        return self.removed_message_count > 0

    def refusal_reasons(self) -> list[str]:
        """The reasons named on this visit, in order."""
        return [r.reason for r in self.refusals]

    def explain(self) -> str:
        """This visit in one sentence, the one the report prints: what left (by stage id), the
        rule that fired, what refused and why, the pins (:func:`~footprint_lab.window.words.
        record_sentence`). ``footprint_lab.explain(run, stage_id)`` says why one message left.

        ``iteration 5: sliding-window removed call-llm#2, tool-calls#3 (2 messages, 5,448 →
        4,759 chars) because the window held 5 turns, more than the 3 it keeps; refused: ...``
        """
        return record_sentence(self)

    def __repr__(self) -> str:
        """One line: ``<WindowRecord iteration 4 · sliding-window · removed 3 (1,204 → 310
        chars) · 2 refusals>`` (``forced``, ``observed``, ``forked`` and violations when they
        apply). ``str()`` stays pydantic's list of every field."""
        from footprint_lab._repr import count, short

        return short(
            "WindowRecord",
            [
                f"iteration {self.iteration}",
                self.strategy,
                f"removed {self.removed_message_count:,} "
                f"({self.window_chars_before:,} → {self.window_chars_after:,} chars)",
                "forced" if self.forced else "",
                "observed" if self.observed else "",
                "forked" if self.forked else "",
                count(len(self.refusals), "refusal") if self.refusals else "",
                count(len(self.violations), "violation") if self.violations else "",
            ],
        )

    def _repr_html_(self) -> str:
        """The record in a notebook: its one line over a table of what left, the sizes, the
        rule's facts and the refusals by reason."""
        from footprint_lab._repr import clip, html_table

        reasons: dict[str, int] = {}
        for refusal in self.refusals:
            reasons[refusal.reason] = reasons.get(refusal.reason, 0) + 1
        rows: list[tuple[str, object]] = [
            ("strategy", self.strategy),
            ("iteration", self.iteration),
            ("removed", f"{self.removed_message_count:,} message(s)"),
            ("removed stage ids", clip(", ".join(self.removed_stage_ids), 200)),
            ("chars", f"{self.window_chars_before:,} → {self.window_chars_after:,}"),
            ("refusals", ", ".join(f"{n} × {r}" for r, n in reasons.items())),
        ]
        facts = {
            "forced": self.forced or None,
            "turns": None
            if self.turns_before is None
            else f"{self.turns_before} → {self.turns_after}",
            "keep recent turns": self.keep_recent_turns,
            "tokens measured": self.measured_tokens
            if self.tokens_from in (None, "reported")
            else f"{self.measured_tokens} ({self.tokens_from})",
            "token threshold": self.threshold_tokens,
            "summary chars": self.summary_chars,
            "error": None if self.error is None else clip(self.error),
            "violations": None
            if not self.violations
            else ", ".join(v.kind for v in self.violations),
            "observed": self.observed or None,
            "forked": self.forked or None,
        }
        rows += [(key, value) for key, value in facts.items() if value is not None]
        return html_table(repr(self), rows)


class FoldedSpan(BaseModel):
    """Originals a compaction frame stands for, kept so a restart can still show them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    iteration: int
    """The iteration at which the span was folded."""
    strategy: str
    """The strategy that folded it."""
    removed_stage_ids: list[str]
    """Stage ids of the folded originals."""
    frame_index: int
    """Index of the frame in the window the visit produced."""
    frame_stage_id: str | None = None
    """The stage that committed the frame (set by the agent; None from a bare apply_window)."""
    originals: list[Message] = Field(default_factory=list)
    """The folded messages themselves (empty when the policy discards them)."""
