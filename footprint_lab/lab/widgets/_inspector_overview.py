"""The Inspector's Overview, Pins and Refusals tabs as HTML: the key numbers in words (a
setting the file did not record said so), refusals by reason, pins by tool, and the tables.

Layer: lab (widgets; private to :mod:`footprint_lab.lab.widgets.inspector`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from footprint_lab.agent.origin import Import
from footprint_lab.agent.run import Run
from footprint_lab.importers.inspect import outcome_words
from footprint_lab.importers.recorded import recorded_of
from footprint_lab.lab.frames import Frames
from footprint_lab.lab.plots.window_size import tokens_label
from footprint_lab.lab.render import render, table_context
from footprint_lab.lab.views import (
    counterfactual_banner,
    import_problem_items,
    refusal_counts,
    run_notes,
)
from footprint_lab.lab.widgets._html import table_html
from footprint_lab.lab.widgets._share import csv_download

__all__ = ["key_pairs", "overview_html", "pins_table", "refusals_table"]


def key_pairs(run: Run, frames: Frames, n: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The Overview's key numbers, in words: what the run did, and what its file did not record
    said so."""
    # A setting the source's file did not record is said so, never the library's default;
    # a token figure says where it came from, and a run with none shows none (not 0).
    imported = isinstance(run.origin, Import) and recorded_of(run.origin) is not None
    calls = frames.calls
    peak = (
        (f"peak {tokens_label(calls)}", n["peak_input_tokens"])
        if n["peak_input_tokens"] is not None
        else ("peak input tokens", "none reported")
    )
    scored = outcome_words(run.meta.get("scores"))
    pairs: list[tuple[str, Any]] = [
        ("status", run.status),
        *([("outcome (scored)", scored)] if scored is not None else []),
        ("strategy", run.strategy or "none"),
        ("model", f"{run.model} ({run.provider})" if run.provider else run.model),
        ("iterations", n["iterations"]),
        ("calls", n["calls"]),
        ("records", n["records"]),
        ("removals", n["removals"]),
        ("removed messages", n["removed_messages"]),
        ("messages in the ledger", n["ledger_messages"]),
        ("refusals", n["refusals"]),
        ("pins granted", n["pins"]),
        ("yielded (no pin slot)", n["yielded"]),
        ("stand-downs", n["stand_downs"]),
        ("pin limit", "not recorded" if imported else run.keep_last_tool_results),
        ("peak chars sent", n["peak_window_chars"]),
        ("last chars sent", n["final_window_chars"]),
        peak,
    ]
    if n["pauses"]:
        pairs.append(("pauses", n["pauses"]))
    if run.error is not None:
        pairs.append(("error", f"{type(run.error).__name__}: {run.error}"))
    if run.output:
        pairs.append(("output", run.output))
    return pairs


def overview_html(run: Run, frames: Frames, numbers: Mapping[str, Any]) -> str:
    """The Overview tab's HTML: notes, import problems, key numbers, refusals and pins."""
    by_reason = refusal_counts(frames)
    reasons = pd.DataFrame(
        {"reason": list(by_reason), "refusals": list(by_reason.values())},
        columns=["reason", "refusals"],
    )
    pins = frames.pins
    pinned = pins[pins["kind"] == "pinned"]
    by_tool = pinned["tool_name"].astype(str).value_counts().sort_index()
    pin_frame = pd.DataFrame(
        {"tool": by_tool.index.tolist(), "visits pinned": by_tool.tolist()},
        columns=["tool", "visits pinned"],
    )
    problems = run.import_problems
    items, more = import_problem_items(problems)
    return render(
        "overview.html.j2",
        banner=counterfactual_banner(frames.info),
        notes=run_notes(frames.info),
        problems={"items": items, "more": more, "total": len(problems)} if problems else None,
        pairs=key_pairs(run, frames, numbers),
        reasons=table_context(reasons, empty="no refusals"),
        pins=table_context(pin_frame, empty="no pins"),
        reasons_csv=csv_download(reasons, "refusals-by-reason.csv"),
        pins_csv=csv_download(pin_frame, "pins-by-tool.csv"),
    )


def pins_table(frames: Frames) -> str:
    """The Pins tab's table."""
    pins = frames.pins
    columns = ["iteration", "kind", "tool_name", "turn_index", "chars", "count", "stage_id"]
    return table_html(pins.loc[:, columns], empty="No pins on any visit.", csv="pins.csv")


def refusals_table(frames: Frames) -> str:
    """The Refusals tab's table."""
    refusals = frames.refusals
    columns = ["iteration", "reason", "turn_index", "message_index", "turn_messages"]
    return table_html(
        refusals.loc[:, [*columns, "stage_id"]],
        empty="No refusals on any visit.",
        csv="refusals.csv",
    )
