"""The one run summary: the numbers that describe a run, computed in one place.

Layer: lab. :func:`run_summary` is what a sweep row holds
(``footprint_lab.lab.sweeps.summarize_run`` is an alias of it), what :func:`key_numbers` (the
widgets' overview and ``Compare.summary``) picks from, what the report's summary table shows and
what ``footprint-lab demo`` prints per run.
Plain Python values, nothing wall-clock: the same run always gives the same numbers.

A run already captured (:class:`~footprint_lab.lab.Frames`, as the report accepts) gives the
same numbers from its frames.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import pandas as pd

from footprint_lab.agent.origin import Replay
from footprint_lab.agent.run import Run
from footprint_lab.auditing.violations import VIOLATION_KINDS
from footprint_lab.lab.frames import Frames
from footprint_lab.lab.schema import build_frame, spec
from footprint_lab.window.records import REFUSAL_REASONS

__all__ = [
    "KEY_NUMBER_COLUMNS",
    "RUN_SUMMARY_KEYS",
    "SUMMARY_COLUMNS",
    "key_numbers",
    "key_numbers_frame",
    "run_summary",
]

RUN_SUMMARY_KEYS: tuple[str, ...] = tuple(spec("run_summary").columns)
"""The keys of :func:`run_summary`, in order (the columns of the ``run_summary`` spec).

``removals`` counts visits that removed something, ``removed_messages`` the messages they
removed, ``pins`` pin slots granted over all visits, ``yielded`` the tool names that found no
slot, ``stand_downs`` the visits that stood down. ``peak_input_tokens`` is the largest
input-token figure of a call and ``input_tokens`` their sum — None when no call has one —, and
``tokens_from`` says where the figures came from (``reported``; in a replay ``counted``,
``scaled`` or ``estimated``; several joined);
``final_window_chars`` is what the last call sent; ``counterfactual`` is True for a replay.
"""


KEY_NUMBER_COLUMNS: tuple[str, ...] = tuple(spec("key_numbers").columns)
"""The key numbers of a run (:func:`key_numbers`), in order: what the widgets show and
``Compare.summary``'s columns (the ``key_numbers`` spec)."""

SUMMARY_COLUMNS = KEY_NUMBER_COLUMNS
"""The old name of :data:`KEY_NUMBER_COLUMNS` (``lab.evidence`` had another
``SUMMARY_COLUMNS``, now ``EVIDENCE_SUMMARY_COLUMNS``)."""


def run_summary(run: Run | Frames) -> dict[str, Any]:
    """The numbers of one run, keyed by :data:`RUN_SUMMARY_KEYS` (plain Python, no pandas)."""
    if isinstance(run, Frames):
        return _from_frames(run)
    chars = [c.chars for c in run.calls]
    # A token figure is a usage a provider reported, or one a replay counted, scaled or
    # estimated (named by ``tokens_from``); zeros nobody reported are no figure.
    figures: list[tuple[int, str]] = [
        (c.usage.input_tokens, c.tokens_from or "reported")
        for c in run.calls
        if c.usage is not None and (c.usage.reported or c.tokens_from is not None)
    ]
    reasons: Counter[str] = Counter(ref.reason for r in run.records for ref in r.refusals)
    kinds: Counter[str] = Counter(v.kind for r in run.records for v in (r.violations or []))
    observed = [r.observations for r in run.records if r.observations is not None]
    return _assemble(
        strategy=run.strategy,
        status=run.status,
        iterations=run.iterations,
        chars=chars,
        tokens=figures,
        records=len(run.records),
        removed=[r.removed_message_count for r in run.records],
        reasons=reasons,
        kinds=kinds,
        pins=sum(len(o.pinned) for o in observed),
        yielded=sum(o.yielded for o in observed),
        stand_downs=sum(1 for o in observed if o.stand_down),
        ledger_messages=len(run.ledger.messages),
        pauses=sum(1 for e in run.events if e.type == "run.paused"),
        counterfactual=isinstance(run.origin, Replay),
    )


def _from_frames(frames: Frames) -> dict[str, Any]:
    info = frames.info
    records = frames.records
    calls = frames.calls
    stand_down = records["stand_down"]
    return _assemble(
        strategy=info.get("strategy"),
        status=info.get("status"),
        iterations=info.get("iterations"),
        chars=[int(c) for c in calls["chars"]],
        tokens=[
            (int(t), "reported" if pd.isna(source) else str(source))
            for t, reported, source in zip(
                calls["input_tokens"], calls["reported"], calls["tokens_from"], strict=True
            )
            if not pd.isna(t) and (bool(reported) or not pd.isna(source))
        ],
        records=len(records),
        removed=[int(n) for n in records["removed_message_count"]],
        reasons=Counter(str(r) for r in frames.refusals["reason"]),
        kinds=Counter(str(k) for k in frames.violations["kind"]),
        pins=int(records["pins"].fillna(0).sum()),
        yielded=int(records["yielded"].fillna(0).sum()),
        stand_downs=sum(1 for s in stand_down if not pd.isna(s) and bool(s)),
        ledger_messages=len(frames.messages),
        pauses=len(frames.pauses),
        counterfactual=bool(info.get("counterfactual")),
    )


def _assemble(
    *,
    strategy: str | None,
    status: Any,
    iterations: Any,
    chars: list[int],
    tokens: list[tuple[int, str]],
    records: int,
    removed: list[int],
    reasons: Counter[str],
    kinds: Counter[str],
    pins: int,
    yielded: int,
    stand_downs: int,
    ledger_messages: int,
    pauses: int,
    counterfactual: bool,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "strategy": strategy or "none",
        "status": status,
        "iterations": iterations,
        "calls": len(chars),
        "peak_window_chars": max(chars, default=0),
        "mean_window_chars": sum(chars) / len(chars) if chars else 0.0,
        # No token figure where nobody gave one: None, never 0.
        "peak_input_tokens": max((t for t, _ in tokens), default=None),
        "tokens_from": ", ".join(sorted({source for _, source in tokens})) or None,
        "records": records,
        "removals": sum(1 for n in removed if n),
        "removed_messages": sum(removed),
        "refusals": sum(reasons.values()),
        "pins": pins,
        "yielded": yielded,
        "stand_downs": stand_downs,
        "violations": sum(kinds.values()),
    }
    for reason in REFUSAL_REASONS:
        row[f"refusals_{reason}"] = reasons.get(reason, 0)
    for kind in VIOLATION_KINDS:
        row[f"violations_{kind}"] = kinds.get(kind, 0)
    row["final_window_chars"] = chars[-1] if chars else 0
    row["input_tokens"] = sum(t for t, _ in tokens) if tokens else None
    row["ledger_messages"] = ledger_messages
    row["pauses"] = pauses
    row["counterfactual"] = counterfactual
    return row


def key_numbers(run: Run | Frames) -> dict[str, Any]:
    """The key numbers of a run: :func:`run_summary` cut to :data:`KEY_NUMBER_COLUMNS`, in that
    order."""
    numbers = run_summary(run)
    return {name: numbers[name] for name in KEY_NUMBER_COLUMNS}


def key_numbers_frame(runs: Mapping[str, Run | Frames]) -> pd.DataFrame:
    """The ``key_numbers`` frame: :func:`key_numbers` of every run, one row each, indexed by
    the run's label (``run``)."""
    rows = [key_numbers(run) for run in runs.values()]
    frame = build_frame("key_numbers", {c: [row[c] for row in rows] for c in KEY_NUMBER_COLUMNS})
    frame.index = pd.Index(list(runs), name="run")
    return frame
