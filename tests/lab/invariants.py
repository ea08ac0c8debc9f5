"""Checks that frames agree with the run they were captured from (shared by the lab tests).

Everything here is recomputed from the run through its public API (``run.window_sent``,
``ledger.window_at``, ``segment_turns``), independently of how ``capture`` computes it.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from footprint_lab import Run, segment_turns
from footprint_lab.agent.origin import imported_source
from footprint_lab.lab import Frames
from footprint_lab.lab.schema import SCHEMAS

OUT_STATES = {"dropped", "folded"}


def check_schema(frames: Frames) -> None:
    """Every frame has exactly the documented columns and dtypes."""
    for name, schema in SCHEMAS.items():
        frame = frames[name]
        assert list(frame.columns) == list(schema), name
        for col, dtype in schema.items():
            assert frame[col].dtype == dtype, (name, col, frame[col].dtype, dtype)


def record_windows(run: Run) -> list[tuple[int, list[int], list[int]]]:
    """For each record: (its commit, the given window, the window after), as positions."""
    ledger = run.ledger
    commits = ledger.commits
    record_commits = [c.index for c in commits if c.key == "record"]
    assert len(record_commits) == len(run.records)
    first_of_stage: dict[str, int] = {}
    for c in commits:
        first_of_stage.setdefault(c.stage_id, c.index)
    out = []
    for index in record_commits:
        first = first_of_stage[commits[index].stage_id]
        given = [ledger.position(m) for m in ledger.window_at(first - 1)]
        after = [ledger.position(m) for m in ledger.window_at(index)]
        out.append(
            (index, [p for p in given if p is not None], [p for p in after if p is not None])
        )
    return out


def check_records(run: Run, frames: Frames) -> None:
    """records / refusals / pins / evictions: one row per record, refusal, pin, eviction."""
    records = frames.records
    assert len(records) == len(run.records)
    assert records["iteration"].tolist() == [r.iteration for r in run.records]
    assert records["removed_message_count"].tolist() == [
        r.removed_message_count for r in run.records
    ]
    assert records["refusal_count"].tolist() == [len(r.refusals) for r in run.records]
    assert records["refusal_reasons"].tolist() == [
        ", ".join(r.refusal_reasons()) for r in run.records
    ]
    assert records["removed_stage_ids"].tolist() == [
        ", ".join(r.removed_stage_ids) for r in run.records
    ]
    assert len(frames.refusals) == sum(len(r.refusals) for r in run.records)
    assert frames.refusals["reason"].tolist() == [
        ref.reason for r in run.records for ref in r.refusals
    ]
    pinned = frames.pins[frames.pins["kind"] == "pinned"]
    assert pinned["tool_name"].tolist() == [
        p.tool_name for r in run.records if r.observations for p in r.observations.pinned
    ]
    yielded = frames.pins[frames.pins["kind"] == "yielded"]
    assert int(yielded["count"].sum()) == sum(
        r.observations.yielded for r in run.records if r.observations
    )
    stand = frames.pins[frames.pins["kind"] == "stand-down"]
    assert len(stand) == sum(1 for r in run.records if r.observations and r.observations.stand_down)

    # evictions: one per context.evicted event, same order and facts
    events = [e for e in run.events if e.type == "context.evicted"]
    ev = frames.evictions
    assert len(ev) == len(events) == sum(r.removed_message_count for r in run.records)
    assert ev["stage_id"].tolist() == [e.stage_id for e in events]  # type: ignore[union-attr]
    assert ev["iteration"].tolist() == [e.iteration for e in events]
    assert ev["role"].tolist() == [e.role for e in events]  # type: ignore[union-attr]
    assert ev["survival_ms"].tolist() == [e.survival_ms for e in events]  # type: ignore[union-attr]
    assert ev["strategy"].tolist() == [e.strategy for e in events]  # type: ignore[union-attr]

    # each record's evictions are exactly what left its given window
    by_record: dict[int, list[int]] = {}
    for j, p in zip(ev["record"].tolist(), ev["position"].tolist(), strict=True):
        by_record.setdefault(j, []).append(p)
    for j, (_, given, after) in enumerate(record_windows(run)):
        kept = set(after)
        left = [p for p in given if p not in kept]
        assert by_record.get(j, []) == left
        ids = list(dict.fromkeys(run.ledger.messages[p].stage_id for p in left))
        assert ids == run.records[j].removed_stage_ids


def check_calls_and_messages(run: Run, frames: Frames) -> None:
    """calls: one row per call; messages: one row per ledger message, sent counts exact."""
    calls = frames.calls
    assert len(calls) == len(run.calls)
    assert calls["chars"].tolist() == [c.chars for c in run.calls]
    assert calls["iteration"].tolist() == [c.iteration for c in run.calls]
    assert [None if pd.isna(v) else int(v) for v in calls["input_tokens"]] == [
        None if c.usage is None else c.usage.input_tokens for c in run.calls
    ]
    imported = imported_source(run.origin) is not None
    assert calls["failed"].tolist() == [c.usage is None and not imported for c in run.calls]
    assert calls["retry"].tolist() == [c.retry for c in run.calls]
    ledger = run.ledger
    msgs = frames.messages
    assert len(msgs) == len(ledger.messages)
    assert msgs["stage_id"].tolist() == [m.stage_id for m in ledger.messages]
    assert msgs["chars"].tolist() == [m.chars for m in ledger.messages]
    sent_count = [0] * len(ledger.messages)
    for i in range(len(run.calls)):
        for m in run.window_sent(i):
            p = ledger.position(m)
            assert p is not None
            sent_count[p] += 1
    assert msgs["times_sent"].tolist() == sent_count
    evicted = set(frames.evictions["position"].tolist())
    for p, (left, times) in enumerate(zip(msgs["left"], msgs["times_sent"], strict=True)):
        if p in evicted:
            assert left in ("dropped", "summarized")
        else:
            assert left == ("still-in" if times else "never-sent")


def _states_by_iteration(frames: Frames) -> dict[int, dict[int, str]]:
    mem = frames.membership
    out: dict[int, dict[int, str]] = {}
    count = 0
    for k, p, state in zip(
        mem["iteration"].tolist(),
        mem["position"].tolist(),
        mem["state"].astype(str).tolist(),
        strict=True,
    ):
        out.setdefault(k, {})[p] = state
        count += 1
    assert count == sum(len(v) for v in out.values()), "one row per (iteration, message)"
    return out


def check_membership(run: Run, frames: Frames) -> None:
    """Membership agrees with ``run.window_sent`` and with the records (see Frames docs)."""
    ledger = run.ledger
    mem = frames.membership
    last_call: dict[int, int] = {}
    for ci, c in enumerate(run.calls):
        last_call[c.iteration] = ci
    assert sorted(set(mem["iteration"].tolist())) == sorted(last_call)
    windows = record_windows(run) if run.records else []
    last_record: dict[int, int] = {}
    for j, r in enumerate(run.records):
        last_record[r.iteration] = j
    seeds = [
        p
        for p, m in enumerate(ledger.messages)
        if (m.stage_id or "").startswith("seed#") and m.role == "user"
    ]
    ev = frames.evictions
    evicted_at: dict[int, list[tuple[int, str]]] = {}
    for k, p, how in zip(
        ev["iteration"].tolist(), ev["position"].tolist(), ev["how"].tolist(), strict=True
    ):
        evicted_at.setdefault(k, []).append((p, how))
    calls_at: dict[int, set[int]] = {}
    for k, ci in zip(mem["iteration"].tolist(), mem["call"].tolist(), strict=True):
        calls_at.setdefault(k, set()).add(ci)
    by_iteration = _states_by_iteration(frames)
    for k, ci in last_call.items():
        states = by_iteration[k]
        assert calls_at[k] == {ci}
        sent = [ledger.position(m) for m in run.window_sent(ci)]
        in_rows = {p for p, s in states.items() if s not in OUT_STATES}
        assert in_rows == set(sent), f"iteration {k}: in-window rows != window sent"
        for p, s in states.items():
            if s in OUT_STATES:
                assert p not in sent, f"message {p} marked {s} at {k} but it was sent"
        existing = ledger.history_end(run.calls[ci].sent_commit)
        if frames.membership_mode == "full":
            assert sorted(states) == list(range(existing))
        # the current request (the latest seed message by then) is never dropped
        current = [p for p in seeds if p < existing]
        if current:
            assert states[current[-1]] not in OUT_STATES
        # whatever any record of iteration k removed is out at k
        for p, how in evicted_at.get(k, []):
            assert states[p] == ("folded" if how == "summarized" else "dropped")
        # pins and refusals of the last record of iteration k
        expected: dict[int, str] = {}
        j = last_record.get(k)
        if j is not None:
            rec = run.records[j]
            _, given, _ = windows[j]
            given_msgs = [ledger.messages[p] for p in given]
            turns = segment_turns(given_msgs)
            if rec.observations is not None:
                for pin in rec.observations.pinned:
                    turn = turns[pin.turn_index]
                    for i in range(turn.end - 1, turn.start - 1, -1):
                        m = given_msgs[i]
                        if m.role == "tool" and m.name == pin.tool_name:
                            expected.setdefault(given[i], "pinned")
                            break
            for ref in rec.refusals:
                turn = next(t for t in turns if t.start <= ref.message_index < t.end)
                for i in range(turn.start, turn.end):
                    expected.setdefault(given[i], f"refused-{ref.reason}")
        for p in sent:
            assert p is not None
            m = ledger.messages[p]
            want = expected.get(p)
            if want is None:
                want = {"drop-notice": "notice", "compaction-frame": "frame"}.get(
                    m.authored or "", "in-window"
                )
            assert states[p] == want, (k, p, states[p], want)


def check_all(run: Run, frames: Frames) -> None:
    """Every check above."""
    check_schema(frames)
    check_records(run, frames)
    check_calls_and_messages(run, frames)
    check_membership(run, frames)


def as_rows(frame: Any) -> list[tuple[Any, ...]]:
    """A frame as plain tuples (<NA> as None), for equality checks."""
    return [
        tuple(None if v is None or (not isinstance(v, str) and v != v) else v for v in row)
        for row in frame.astype(object).where(frame.notna(), None).itertuples(index=False)
    ]
