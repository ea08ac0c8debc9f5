"""The window core: pure rules that decide what the next LLM call re-sends.

Layer: the heart. No I/O, no provider, no pandas, no plotly. Everything above it (the agent
loop, replay, the lab, a strategy you write) goes through :func:`apply_window` (or
:func:`apply_boundary`), so every rule has exactly one implementation. This package is the
face for strategy authors; its modules are the implementation.

The law
-------
**A window strategy edits the window, never the ledger.**

The *window* is what the next call sends. The *ledger* is the run's append-only commit log, and
the stages that wrote each message committed it before any strategy ran. So no strategy can
destroy history: it can only stop re-sending something, and it must say so in a
:class:`WindowRecord` that names, by stage id, every message that left, and names every turn
that refused to leave, with a reason. What it writes in their place is the library's own: one
stand-in (a ``user`` text message, a drop notice or a compaction frame) for what left, or
cleared-result placeholders *in place* of tool results — and, in place, a reply without its
thinking (its text, calls and other parts untouched: the thinking before a call belongs to that
reply, so the two only ever leave together). A stand-in carries no typed part, but
one: a provider's compaction whose content is encrypted (an OpenAI ``compaction`` item, an
opaque part sized by its data with no readable text) stands in as the provider wrote it.
``apply_window`` checks this on every result (:mod:`footprint_lab.window.law`), whatever the
strategy says of itself — only the engine's caller may choose to record a breach instead of
raising it — and sets the record's facts from what it saw; every module in this package points
back here.

**The floor, and when pins stand down.** Whatever the strategy, a window never shrinks below its
floor: the current request, the pins (``keep_last_tool_results``) and the keep window, with the
system turns nothing removes. A pin that blocks stands down: when the two previous visits were
both *blocked by their pins* — each removed nothing, named ``last-tool-result``, and left the
window above its floor (a turn refused for another reason, or a budget the floor exceeds) — no
pin is offered for one visit, and its observations say ``stand_down``. A visit *at* the floor
is not blocked: it kept what the floor promises. So a short keep window over distinct tools
holds its floor instead of dropping its pins every third visit.
(:func:`~footprint_lab.window.pins.blocked_by_pins`)

Glossary
--------
turn
    A wire boundary: a non-``tool`` message and the ``tool`` results that follow it. An
    assistant message with a parallel batch of calls and all its results is one turn.
    (:mod:`~footprint_lab.window.turns`)
shape
    What the engine reads of each message (role, calls, author, size, stage id), computed once
    per message; a :class:`Window` holds a window's shapes as flat lists and one string, so a
    visit reads turns, guards and spans at C speed. (:mod:`~footprint_lab.window.shape`)
visit
    One run of a strategy at one boundary: it returns the new window and, when it engaged, a
    record. (:func:`apply_window`)
boundary
    The moment before an LLM call where a visit runs, and the facts it knows: iteration,
    request, reported usage, pins, paused call, roster. (:class:`Boundary`)
record
    What a visit files: the stage ids that left, every refusal with its reason, exact sizes,
    the pins, the strategy's own facts. (:class:`WindowRecord`)
request
    The current request: the latest thing the person asked, matched against the run's
    request text. Never a library-authored message, and never an *observation* — a ``user``
    message an imported agent's environment wrote (an ``observation#`` or
    ``demonstration#`` stage committed it). (:mod:`~footprint_lab.window.request`)
measured tokens
    What a token strategy reads: the input tokens of the last call, reported by the provider
    in a live run; in a replay, those of the window the replay sent (counted, scaled or
    estimated, as ``Boundary.tokens_from`` and ``WindowRecord.tokens_from`` say).
refusal
    A turn that may not leave, and why (a closed set of reasons; first match wins).
    (:mod:`~footprint_lab.window.refusals`)
pin
    A tool's latest result, kept while the agent still uses that tool
    (``keep_last_tool_results``). (:mod:`~footprint_lab.window.pins`)
notice
    The drop notice: a library-authored ``user`` message that says what left and why, put
    where the removal reached the front. (:mod:`~footprint_lab.window.notice`)
frame
    The compaction frame: a library-authored summary standing for folded turns, with the
    originals kept beside it. (:mod:`~footprint_lab.window.strategies.summarize_oldest`)
placeholder
    A cleared-result placeholder: a library-authored message put *in place* of an old tool
    result (or of a call's arguments) that keeps its role, call id and tool name, so the pair
    stays whole; the one lawful change that is not a span. (:mod:`~footprint_lab.window.clearing`)
thinking
    A model's thinking (a ``thinking`` or ``redacted-thinking`` part of its reply): counted in
    the reply's size, sent back untouched (signatures and redacted data as received), removed
    only with its reply or by ``clear_thinking``. (:data:`~footprint_lab.messages.THINKING_KINDS`)
slack
    Room a strategy leaves before it engages (``slack_turns``, ``clear_at_least_chars``), so
    the window's prefix — and the provider's prompt cache — stays stable for several calls.
"""

from __future__ import annotations

from footprint_lab.window.apply import (
    OnBreach,
    WindowResult,
    aapply_boundary,
    aapply_window,
    apply_boundary,
    apply_window,
)
from footprint_lab.window.boundary import Boundary
from footprint_lab.window.clearing import ClearingPlan
from footprint_lab.window.errors import (
    CompactionUnmeasurableError,
    ContextLengthError,
    WindowConfigError,
    WindowStrategyError,
)
from footprint_lab.window.notice import (
    CLEARED_RESULT_PREFIX,
    COMPACTION_FRAME_PREFIX,
    DROP_NOTICE_PREFIX,
    is_compaction_frame,
    is_drop_notice,
)
from footprint_lab.window.records import (
    FoldedSpan,
    Observations,
    Pin,
    Refusal,
    ServerEdit,
    WindowRecord,
)
from footprint_lab.window.refusals import RemovalPlan
from footprint_lab.window.request import current_request_index
from footprint_lab.window.shape import Window
from footprint_lab.window.strategies import (
    StrategyInput,
    StrategyResult,
    SummaryResult,
    WindowStrategy,
    anthropic_compaction,
    anthropic_context_editing,
    clear_thinking,
    clear_tool_results,
    openai_compaction,
    sliding_window,
    summarize_oldest,
    token_budget,
)
from footprint_lab.window.turns import Turn, segment_turns

__all__ = [
    "CLEARED_RESULT_PREFIX",
    "COMPACTION_FRAME_PREFIX",
    "DROP_NOTICE_PREFIX",
    "Boundary",
    "ClearingPlan",
    "CompactionUnmeasurableError",
    "ContextLengthError",
    "FoldedSpan",
    "Observations",
    "OnBreach",
    "Pin",
    "Refusal",
    "RemovalPlan",
    "ServerEdit",
    "StrategyInput",
    "StrategyResult",
    "SummaryResult",
    "Turn",
    "Window",
    "WindowConfigError",
    "WindowRecord",
    "WindowResult",
    "WindowStrategy",
    "WindowStrategyError",
    "aapply_boundary",
    "aapply_window",
    "anthropic_compaction",
    "anthropic_context_editing",
    "apply_boundary",
    "apply_window",
    "clear_thinking",
    "clear_tool_results",
    "current_request_index",
    "is_compaction_frame",
    "is_drop_notice",
    "openai_compaction",
    "segment_turns",
    "sliding_window",
    "summarize_oldest",
    "token_budget",
]
