"""What a person reads over a column: the human headers of the records, boundary and left
tables.

Layer: lab (private; :data:`footprint_lab.lab.schema.COLUMN_HEADERS` extends these to every
``records`` column, and :func:`footprint_lab.lab.schema.header` reads them).
"""

from __future__ import annotations

__all__ = ["HEADERS"]

HEADERS: dict[str, str] = {
    # records
    "record": "Record",
    "iteration": "Iteration",
    "strategy": "Strategy",
    "commit": "Commit",
    "forced": "Forced",
    "removed_anything": "Removed anything",
    "removed_message_count": "Messages removed",
    "removed_stage_count": "Stage ids removed",
    "removed_stage_ids": "Removed (stage ids)",
    "cleared_stage_ids": "Cleared in place (stage ids)",
    "window_chars_before": "Chars before",
    "window_chars_after": "Chars after",
    "chars_removed": "Chars removed",
    "messages_before": "Messages before",
    "messages_after": "Messages after",
    "refusal_count": "Refusals",
    "refusal_reasons": "Refusal reasons",
    "dropped_observations": "Tool results dropped",
    "pins": "Pins",
    "pinned_tools": "Pinned tools",
    "yielded": "Pins yielded",
    "pin_limit": "Pin limit",
    "stand_down": "Pins stood down",
    "keep_recent_turns": "Keep recent turns",
    "turns_before": "Turns before",
    "turns_after": "Turns after",
    "measured_tokens": "Tokens measured",
    "threshold_tokens": "Token threshold",
    "over_budget": "Over threshold",
    "summary_chars": "Summary chars",
    "summarizer_tokens": "Summarizer tokens",
    "summarizer_skipped": "Summarizer skipped",
    "threshold_fraction": "Threshold fraction",
    "reserve_tokens": "Reserve tokens",
    "context_window": "Context window",
    "notice": "Drop notice",
    "span_key": "Span key",
    "error": "Error",
    "violation_count": "Violations",
    "violation_kinds": "Violation kinds",
    "observed": "Observed",
    # the boundary and what left there (lab.views)
    "index": "#",
    "position": "Ledger position",
    "stage_id": "Stage id",
    "who": "From",
    "chars": "Chars",
    "state": "State",
    "preview": "Preview",
    "how": "How it left",
    "born_iteration": "Born at iteration",
    # stacked frames
    "run": "Run",
}
