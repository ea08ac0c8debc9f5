"""``Boundary``: one value object for everything a window visit knows besides the window.

Layer: window core (see the law and the glossary in ``footprint_lab.window``). The agent loop
and replay build one per visit and hand it to :func:`~footprint_lab.window.apply.apply_boundary`;
``apply_window(strategy, messages, iteration=..., ...)`` takes the same facts as keywords and
builds one. Adding a fact a strategy may read means adding one field here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from footprint_lab.messages import Message
from footprint_lab.window.records import TokenSource, WindowRecord
from footprint_lab.window.shape import Window


@dataclass(frozen=True, slots=True, kw_only=True)
class Boundary:
    """The facts of one window visit (the window itself excepted)."""

    iteration: int
    """The ReAct iteration this boundary precedes."""
    request: str | None = None
    """The text of the request the run executes (finds the current request)."""
    measured_input_tokens: int | None = None
    """Input tokens the provider reported for the last call (None before the first call)."""
    measured_output_tokens: int | None = None
    """Output tokens the provider reported for the last call."""
    tokens_from: TokenSource = "reported"
    """How the measured tokens were obtained: reported by the provider (a live run), or, in a
    replay, counted, scaled or estimated for the window the replay sent."""
    keep_last_tool_results: int | bool = 2
    """The agent's pin limit (0 or False turns pins off)."""
    prior_records: Sequence[WindowRecord] = ()
    """Records filed at earlier boundaries of this run (read for stand-down and latches)."""
    paused_call_id: str | None = None
    """The call a paused run waits on."""
    paused_check_in: bool = False
    """True when that call waits for consent (``pending-check-in``), not an answer."""
    provider_name: str | None = None
    """Name of the provider that reported the usage (for error messages)."""
    context_window: int | None = None
    """The model's context window, when the provider knows it."""
    max_output_tokens: int | None = None
    """The agent's output cap (the default reserve of a relative threshold)."""
    forced: bool = False
    """True when the provider rejected the last request as too long."""
    tool_names: frozenset[str] | None = None
    """The agent's tool roster: a drop notice names only these tools."""
    provider: Any = None
    """The provider itself, opaque to the core (a ``compact(ctx)`` policy receives it)."""
    model: str | None = None
    """The model the run calls."""
    reuse: Window | None = None
    """The last visit's window (``WindowResult.given``): the facts of the turns both windows
    share are kept, so a visit in a running loop reads only what changed."""
    count_window: Callable[[Sequence[Message]], int | None] | None = None
    """Counts the input tokens a window would be billed as the provider reports them (the
    request this visit plans, system prompt and tools included); set by the agent loop and by
    replay when the provider counts requests (``count_tokens``), None otherwise. The providers'
    own policies' twins measure the request they plan with it, as the server does."""
