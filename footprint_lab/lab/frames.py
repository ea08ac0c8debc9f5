"""Capture: one run as pandas DataFrames (:class:`Frames`).

Layer: lab. It reads a :class:`~footprint_lab.agent.Run` — its ledger, calls, records and
events — and never changes it. Messages are identified in every frame by their ledger
``position`` (``ledger.position(message)``: the index in the message store, i.e. commit order)
and by their ``stage_id``.

Where the facts come from:

* The window sent by call ``c`` is ``ledger.window_at(call.sent_commit)`` (= ``run.window_sent``).
* A record's turn and message indices are relative to the window its strategy was given: the
  window as of the commit just before the record's window stage first committed (for a visit
  that wrote nothing but its record, that is record commit - 1).
* What left on a visit is the given window minus the window as of the record's commit — the
  same diff the agent turns into ``context.evicted`` events.

Capture is vectorised where rows are many (membership, message statistics) and does a small,
constant amount of Python work per record and per call, so a 10,000-iteration run captures in
about a second.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.events import RunPaused, RunResumed
from footprint_lab.evidence import losses as evidence_losses
from footprint_lab.lab._ledger_view import IntArray, LedgerView, expand_runs, runs_length
from footprint_lab.lab.schema import (
    FRAME_NAMES,
    MEMBERSHIP_STATES,
    SCHEMAS,
    build_frame,
    empty_frame,
    join,
    with_run_column,
)
from footprint_lab.window.notice import is_compaction_frame, is_drop_notice
from footprint_lab.window.records import WindowRecord

__all__ = [
    "MEMBERSHIP_FULL_MAX_ROWS",
    "Frames",
    "MembershipMode",
    "capture",
    "capture_many",
]

MembershipMode = Literal["auto", "full", "window"]

MEMBERSHIP_FULL_MAX_ROWS = 2_000_000
"""Under ``membership="auto"``, the full long form is built when it has at most this many rows;
above it, the window form (see :class:`Frames`)."""

PREVIEW_CHARS = 80
"""Characters of content kept in ``messages.preview``."""

_CODE = {state: i for i, state in enumerate(MEMBERSHIP_STATES)}
_IN_WINDOW = _CODE["in-window"]
_PINNED = _CODE["pinned"]
_NOTICE = _CODE["notice"]
_FRAME = _CODE["frame"]
_DROPPED = _CODE["dropped"]
_FOLDED = _CODE["folded"]
_OUT_CODES = (_DROPPED, _FOLDED)


@dataclass
class Frames:
    """A run as pandas DataFrames. Column dtypes are fixed (see :mod:`footprint_lab.lab.schema`),
    so an empty frame has the same columns and dtypes as a full one. ``<NA>`` marks a fact that
    does not apply. Messages are joined across frames on ``position`` (ledger order) and
    ``stage_id``.

    ``records`` — one row per :class:`~footprint_lab.WindowRecord`, every field flattened:
        ``record`` (index in ``run.records``), ``iteration``, ``strategy``, ``commit`` (ledger
        commit of the record), ``forced``, ``removed_anything``, ``removed_message_count``,
        ``removed_stage_count``, ``removed_stage_ids`` (joined with ", "),
        ``window_chars_before``, ``window_chars_after``, ``chars_removed``,
        ``messages_before`` / ``messages_after`` (window lengths, from the ledger),
        ``refusal_count``, ``refusal_reasons`` (joined, in order), ``dropped_observations``
        (joined; <NA> when nothing left), ``pins`` (count), ``pinned_tools`` (joined),
        ``yielded``, ``pin_limit``, ``stand_down`` (<NA> when pins are off),
        ``keep_recent_turns``, ``turns_before``, ``turns_after``, ``measured_tokens``,
        ``threshold_tokens``, ``over_budget``, ``summary_chars``, ``summarizer_tokens``,
        ``summarizer_skipped``, ``threshold_fraction``, ``reserve_tokens``, ``context_window``,
        ``notice``, ``span_key``, ``error``, ``violation_count`` / ``violation_kinds``
        (<NA> unless the strategy was audited).

    ``refusals`` — one row per refusal: ``record``, ``iteration``, ``strategy``, ``reason``,
        ``turn_index``, ``message_index`` (both in the window the strategy was given),
        ``turn_messages`` (messages in that turn), ``position`` / ``stage_id`` (the turn's
        first message).

    ``pins`` — one row per pin, plus one ``yielded`` row (``count`` = names that found no slot)
        and one ``stand-down`` row per record where they apply: ``record``, ``iteration``,
        ``strategy``, ``kind`` ('pinned' | 'yielded' | 'stand-down'), ``tool_name``,
        ``turn_index``, ``chars``, ``count``, ``position`` / ``stage_id`` (the pinned result).

    ``evictions`` — one row per message that left the window (one per ``context.evicted``
        event): ``record``, ``iteration``, ``strategy``, ``position``, ``stage_id``, ``role``,
        ``tool_name``, ``authored``, ``chars``, ``born_iteration`` (iteration of the stage that
        committed it), ``survival_iterations`` (iteration - born_iteration), ``survival_ms``
        (from the event when the run has one, else from ledger timestamps), ``how``
        ('dropped' | 'summarized'), ``forced``.

    ``commits`` — the ledger: ``index``, ``stage_id``, ``stage`` (kind: 'seed', 'window',
        'call-llm', 'tool-calls', ...), ``key``, ``at_ms``, ``iteration`` (0 for the seed).

    ``calls`` — one row per LLM call: ``call`` (index in ``run.calls``), ``iteration``,
        ``stage_id``, ``sent_commit``, ``messages`` (sent), ``chars`` (exact characters sent),
        ``existing`` (ledger messages committed by then), ``input_tokens``, ``output_tokens``,
        ``cache_read_tokens``, ``cache_write_tokens`` (as reported; <NA> when the call failed),
        ``reported`` (the provider reported non-zero usage), ``failed``, ``retry``,
        ``finish_reason`` (why the reply ended, as the provider said it; <NA> when it did not
        say or the call failed) and ``truncated`` (the reply was cut short by the output cap).

    ``messages`` — one row per ledger message: ``position``, ``stage_id``, ``stage``,
        ``commit``, ``iteration`` (of the committing stage), ``role``, ``tool_name``,
        ``tool_call_id``, ``authored``, ``chars``, ``label`` ("stage_id role-or-tool"),
        ``preview`` (first 80 characters), ``first_sent`` / ``last_sent`` (iterations of the
        first and last call whose window held it), ``times_sent`` (calls, retries included),
        ``left`` ('dropped' | 'summarized' | 'still-in' | 'never-sent') and ``left_iteration``.

    ``membership`` — long form of the window: ``iteration``, ``call`` (the last call of that
        iteration — a retried iteration is shown as its retry), ``position``, ``stage_id``,
        ``state`` (categorical over :data:`~footprint_lab.lab.schema.MEMBERSHIP_STATES`),
        ``in_window``. Rows are sorted by iteration, then position.

        States of a message **in the window sent** at iteration k, first match wins:
        ``pinned`` (the record of iteration k pinned it), ``refused-<reason>`` (its turn is
        named by a refusal of that record), ``notice`` (a drop notice), ``frame`` (a
        compaction frame), else ``in-window``. When an iteration filed two records (a forced
        visit), the last one decides. States of a message **not in the window sent**:
        ``folded`` (it left into a summary) or ``dropped`` (anything else that left).

        ``membership_mode == "full"``: one row per (iteration, message) for every message that
        existed at that iteration's call, so dropped and folded messages keep a row at every
        later iteration. ``"window"``: the rows of messages in the window, plus one
        ``dropped``/``folded`` row at the iteration a message left (the full form is
        quadratic in the run's length; ``capture(run, membership="auto")`` switches to this
        form above :data:`MEMBERSHIP_FULL_MAX_ROWS` rows). Both forms agree on every row they
        share.

    ``violations`` — one row per rule an audited policy broke (``WindowRecord.violations``;
        empty unless the strategy was wrapped in :func:`footprint_lab.audit`): ``record``,
        ``iteration``, ``strategy``, ``kind``, ``message_index``, ``window`` ('given': the
        index counts in the window the policy was given — a request or system message that
        left, a removal, a rewritten original; 'sent': in the window it produced, which the
        call sent — a kept half of a split tool pair, the non-user head, an inserted message),
        ``position`` / ``stage_id`` (that message, when it resolves), ``detail``.
        Violations are recorded, never repaired.

    ``pauses`` — one row per ``run.paused`` event: ``iteration`` (the iteration whose tool
        calls paused; the run waits between its call and the next), ``call_id``,
        ``tool_name``, ``kind`` ('ask-human' | 'check-in'), ``outcome`` (from the matching
        ``run.resumed`` event: 'answered' | 'approved' | 'denied'; <NA> while the run still
        waits), ``resumed_iteration``, ``position`` / ``stage_id`` (the assistant message that
        made the call).

    ``losses`` — only with ``capture(run, evidence=True)`` (empty otherwise: it costs a scan
        of every dependent call's window): one row per dependent value that was not in the
        window its call was produced from (:func:`footprint_lab.evidence.losses`):
        ``iteration`` (of that call), ``call_id``, ``tool_name``, ``value``,
        ``source_stage_id`` / ``source_position`` (the latest tool result that carried the
        value), ``call_position`` (the assistant message that made the dependent call),
        ``removed_by`` (iteration of the record that removed the source; <NA> if it was never
        sent), ``removed_by_strategy``, ``kept_by_summary`` (a compaction frame in that window
        still states the value).
    """

    records: pd.DataFrame
    refusals: pd.DataFrame
    pins: pd.DataFrame
    evictions: pd.DataFrame
    commits: pd.DataFrame
    calls: pd.DataFrame
    messages: pd.DataFrame
    membership: pd.DataFrame
    violations: pd.DataFrame = field(default_factory=lambda: empty_frame("violations"))
    pauses: pd.DataFrame = field(default_factory=lambda: empty_frame("pauses"))
    losses: pd.DataFrame = field(default_factory=lambda: empty_frame("losses"))
    membership_mode: str = "full"
    """'full' or 'window' (see above); 'mixed' for a ``capture_many`` of both."""
    info: dict[str, Any] = field(default_factory=dict)
    """Facts about the run: label, strategy, status, iterations, request, scenario, error,
    ``counterfactual`` (True for a :func:`~footprint_lab.replay`), ``replay_of``, ``note``
    and ``evidence`` (whether ``losses`` was computed)."""

    NAMES: ClassVar[tuple[str, ...]] = FRAME_NAMES

    @classmethod
    def empty(cls) -> Frames:
        """Frames with no rows (the right columns and dtypes)."""
        return cls.of({name: empty_frame(name) for name in FRAME_NAMES})

    @classmethod
    def of(
        cls,
        frames: Mapping[str, pd.DataFrame],
        *,
        membership_mode: str = "full",
        info: dict[str, Any] | None = None,
    ) -> Frames:
        """Frames from ``{name: frame}``; a frame left out is empty."""
        get = {name: frames.get(name, None) for name in FRAME_NAMES}
        f = {name: empty_frame(name) if v is None else v for name, v in get.items()}
        return cls(
            records=f["records"],
            refusals=f["refusals"],
            pins=f["pins"],
            evictions=f["evictions"],
            commits=f["commits"],
            calls=f["calls"],
            messages=f["messages"],
            membership=f["membership"],
            violations=f["violations"],
            pauses=f["pauses"],
            losses=f["losses"],
            membership_mode=membership_mode,
            info={} if info is None else info,
        )

    def frames(self) -> dict[str, pd.DataFrame]:
        """Every frame by name, in documented order."""
        return {name: getattr(self, name) for name in FRAME_NAMES}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in FRAME_NAMES:
            raise KeyError(f"no frame {name!r}; frames are {', '.join(FRAME_NAMES)}")
        frame: pd.DataFrame = getattr(self, name)
        return frame

    def __repr__(self) -> str:
        sizes = ", ".join(f"{name}={len(frame)}" for name, frame in self.frames().items())
        label = self.info.get("label") or self.info.get("strategy")
        head = f"{label!r}, " if label else ""
        return f"Frames({head}{sizes}, membership_mode={self.membership_mode!r})"

    def to_parquet(self, directory: str | os.PathLike[str]) -> list[Path]:
        """Write each frame to ``directory/<name>.parquet``; return the paths.

        Needs ``pyarrow`` (``pip install pyarrow``, or the ``dev`` extra).
        """
        if importlib.util.find_spec("pyarrow") is None:  # pragma: no cover - environment
            raise ImportError(
                "Frames.to_parquet needs pyarrow: pip install pyarrow "
                "(or install footprint-lab with the 'dev' extra)"
            )
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        paths: list[Path] = []
        for name, frame in self.frames().items():
            path = out / f"{name}.parquet"
            frame.to_parquet(path, index=False)
            paths.append(path)
        return paths


# -- capture ---------------------------------------------------------------------------------


def _stage_kind(stage_id: str | None) -> str | None:
    if stage_id is None:
        return None
    return stage_id.split("#", 1)[0]


class _RecordFacts:
    """What one record resolves to in positions."""

    __slots__ = ("after_len", "commit", "given", "given_len", "overrides", "removed")

    def __init__(self) -> None:
        self.commit: int | None = None
        self.given: list[int] | None = None
        self.given_len: int | None = None
        self.after_len: int | None = None
        self.removed: list[int] = []
        self.overrides: dict[int, int] = {}


def capture(
    run: Run,
    *,
    membership: MembershipMode = "auto",
    label: str | None = None,
    evidence: bool = False,
) -> Frames:
    """Turn a run into :class:`Frames`. Works on any run: no strategy, zero calls, errors.

    Args:
        run: The run (from ``agent.run``, ``replay``, an importer or ``load_run``).
        membership: 'full', 'window' or 'auto' (full up to
            :data:`MEMBERSHIP_FULL_MAX_ROWS` rows) — see ``Frames.membership``.
        label: A name for the run, kept in ``frames.info["label"]``.
        evidence: Also fill ``frames.losses`` with the dependent tool calls whose evidence
            was not in the window (:func:`footprint_lab.evidence.losses`; it scans the
            window of every dependent call, so it is off by default).
    """
    if membership not in ("auto", "full", "window"):
        raise ValueError(f"membership must be 'auto', 'full' or 'window', got {membership!r}")
    ledger = run.ledger
    view = LedgerView(ledger)
    commits = view.commits
    n_commits = len(commits)
    msgs = ledger.messages
    m_count = len(msgs)

    # -- messages: attributes --------------------------------------------------------------
    roles = [m.role for m in msgs]
    tool_names = [m.name if m.role == "tool" else None for m in msgs]
    stage_ids = [m.stage_id for m in msgs]
    authored: list[str | None] = []
    base_code = np.full(m_count, _IN_WINDOW, dtype=np.int8)
    for p, m in enumerate(msgs):
        kind: str | None = m.authored
        if kind is None and m.role == "user":
            if is_drop_notice(m):
                kind = "drop-notice"
            elif is_compaction_frame(m):
                kind = "compaction-frame"
        authored.append(kind)
        if kind == "drop-notice":
            base_code[p] = _NOTICE
        elif kind == "compaction-frame":
            base_code[p] = _FRAME
    chars = np.fromiter((m.chars for m in msgs), dtype=np.int64, count=m_count)

    # -- stage iterations ------------------------------------------------------------------
    stage_iter: dict[str, int] = {}
    for call in run.calls:
        stage_iter[call.stage_id] = call.iteration
    records: Sequence[WindowRecord] = run.records
    facts: list[_RecordFacts] = []
    for rec, commit_index in zip(records, _record_commits(commits, records), strict=True):
        f = _RecordFacts()
        f.commit = commit_index
        if commit_index is not None:
            stage_iter[commits[commit_index].stage_id] = rec.iteration
        facts.append(f)
    commit_iter = [0] * n_commits
    current = 0
    for c in commits:
        it = stage_iter.get(c.stage_id)
        if it is not None:
            current = it
        commit_iter[c.index] = current
    message_commit = view.message_commit[:m_count]
    if len(message_commit) < m_count:  # pragma: no cover - a ledger always has them
        message_commit = message_commit + [0] * (m_count - len(message_commit))
    born = np.asarray([commit_iter[c] for c in message_commit], dtype=np.int64)

    # -- records, refusals, pins, evictions ------------------------------------------------
    rec_cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["records"]}
    ref_cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["refusals"]}
    pin_cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["pins"]}
    vio_cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["violations"]}
    ev_record: list[int] = []
    ev_pos: list[int] = []
    ev_summarized: list[bool] = []
    folded_ids: dict[int, set[str]] = {}
    for span in getattr(run, "folded", []) or []:
        folded_ids.setdefault(span.iteration, set()).update(span.removed_stage_ids)

    def _turn_end(given: list[int], start: int) -> int:
        end = start + 1
        while end < len(given) and roles[given[end]] == "tool":
            end += 1
        return end

    for j, (rec, f) in enumerate(zip(records, facts, strict=True)):
        sent_after: list[int] | None = None
        if f.commit is not None:
            stage = commits[f.commit].stage_id
            first = view.stage_first.get(stage, f.commit)
            given_runs = view.window_runs(first - 1)
            after_runs = view.window_runs(f.commit)
            f.given_len = runs_length(given_runs)
            f.after_len = runs_length(after_runs)
            needs_given = (
                bool(rec.refusals)
                or rec.removed_message_count > 0
                or bool(rec.observations is not None and rec.observations.pinned)
                or bool(rec.violations)
            )
            if needs_given:
                f.given = [p for a, b in given_runs for p in range(a, b)]
            if rec.violations:
                sent_after = [p for a, b in after_runs for p in range(a, b)]
            if rec.removed_message_count > 0 and f.given is not None:
                kept = {p for a, b in after_runs for p in range(a, b)}
                f.removed = [p for p in f.given if p not in kept]
        elif rec.removed_stage_ids:  # no ledger commit for this record: resolve ids instead
            seen: set[int] = set()
            for sid in rec.removed_stage_ids:
                try:
                    stage_msgs = ledger.messages_of(sid)
                except KeyError:
                    continue
                for m in stage_msgs:
                    pos = ledger.position(m)
                    if pos is not None and pos not in seen:
                        seen.add(pos)
                        f.removed.append(pos)
        given = f.given

        # violations (audited policies): recorded, never repaired
        for v in rec.violations or ():
            side = violation_window(v.kind, v.detail)
            in_window = given if side == "given" else sent_after
            v_pos: int | None = None
            if (
                in_window is not None
                and v.message_index is not None
                and 0 <= v.message_index < len(in_window)
            ):
                v_pos = in_window[v.message_index]
            vio_cols["record"].append(j)
            vio_cols["iteration"].append(rec.iteration)
            vio_cols["strategy"].append(rec.strategy)
            vio_cols["kind"].append(v.kind)
            vio_cols["message_index"].append(v.message_index)
            vio_cols["window"].append(side)
            vio_cols["position"].append(v_pos)
            vio_cols["stage_id"].append(None if v_pos is None else stage_ids[v_pos])
            vio_cols["detail"].append(v.detail)

        # refusals -> rows and membership overrides
        reasons: list[str] = []
        refused_turns: list[tuple[str, list[int]]] = []
        for ref in rec.refusals:
            reasons.append(ref.reason)
            pos_i: int | None = None
            turn_len: int | None = None
            if given is not None and 0 <= ref.message_index < len(given):
                pos_i = given[ref.message_index]
                end = _turn_end(given, ref.message_index)
                turn_len = end - ref.message_index
                refused_turns.append((ref.reason, given[ref.message_index : end]))
            ref_cols["record"].append(j)
            ref_cols["iteration"].append(rec.iteration)
            ref_cols["strategy"].append(rec.strategy)
            ref_cols["reason"].append(ref.reason)
            ref_cols["turn_index"].append(ref.turn_index)
            ref_cols["message_index"].append(ref.message_index)
            ref_cols["turn_messages"].append(turn_len)
            ref_cols["position"].append(pos_i)
            ref_cols["stage_id"].append(None if pos_i is None else stage_ids[pos_i])

        # pins
        obs = rec.observations
        pinned_positions: list[int] = []
        if obs is not None:
            starts: list[int] | None = None
            if obs.pinned and given is not None:
                starts = [i for i, p in enumerate(given) if i == 0 or roles[p] != "tool"]
            for pin in obs.pinned:
                pin_pos: int | None = None
                if starts is not None and 0 <= pin.turn_index < len(starts):
                    assert given is not None
                    t0 = starts[pin.turn_index]
                    t1 = (
                        starts[pin.turn_index + 1]
                        if pin.turn_index + 1 < len(starts)
                        else len(given)
                    )
                    for i in range(t1 - 1, t0 - 1, -1):
                        p = given[i]
                        if roles[p] == "tool" and tool_names[p] == pin.tool_name:
                            pin_pos = p
                            break
                if pin_pos is not None:
                    pinned_positions.append(pin_pos)
                _pin_row(pin_cols, j, rec, "pinned", pin.tool_name, pin.turn_index, pin.chars, 1)
                pin_cols["position"].append(pin_pos)
                pin_cols["stage_id"].append(None if pin_pos is None else stage_ids[pin_pos])
            if obs.yielded:
                _pin_row(pin_cols, j, rec, "yielded", None, None, None, obs.yielded)
                pin_cols["position"].append(None)
                pin_cols["stage_id"].append(None)
            if obs.stand_down:
                _pin_row(pin_cols, j, rec, "stand-down", None, None, None, 1)
                pin_cols["position"].append(None)
                pin_cols["stage_id"].append(None)

        overrides: dict[int, int] = {}
        for p in pinned_positions:
            overrides.setdefault(p, _PINNED)
        for reason, positions in refused_turns:
            code = _CODE.get(f"refused-{reason}")
            if code is None:
                continue
            for p in positions:
                overrides.setdefault(p, code)
        f.overrides = overrides

        # evictions
        summarized = rec.summary_chars is not None
        fold_ids = folded_ids.get(rec.iteration, set())
        for p in f.removed:
            ev_record.append(j)
            ev_pos.append(p)
            ev_summarized.append(summarized or stage_ids[p] in fold_ids)

        # the flattened record
        _record_row(rec_cols, j, rec, f, reasons, obs)

    # -- evictions frame ---------------------------------------------------------------------
    n_ev = len(ev_pos)
    ev_pos_arr = np.asarray(ev_pos, dtype=np.int64)
    ev_iter = [records[j].iteration for j in ev_record]
    ev_born = born[ev_pos_arr] if n_ev else np.zeros(0, dtype=np.int64)
    events = [e for e in run.events if e.type == "context.evicted"]
    survival_ms: list[int | None]
    if len(events) == n_ev and all(
        getattr(e, "stage_id", None) == stage_ids[p] for e, p in zip(events, ev_pos, strict=True)
    ):
        survival_ms = [int(getattr(e, "survival_ms", 0)) for e in events]
    else:
        survival_ms = []
        for j, p in zip(ev_record, ev_pos, strict=True):
            rc = facts[j].commit
            if rc is None:
                survival_ms.append(None)
            else:
                born_ms = commits[message_commit[p]].at_ms
                survival_ms.append(max(0, commits[rc].at_ms - born_ms))
    evictions = build_frame(
        "evictions",
        {
            "record": ev_record,
            "iteration": ev_iter,
            "strategy": [records[j].strategy for j in ev_record],
            "position": ev_pos_arr,
            "stage_id": [stage_ids[p] for p in ev_pos],
            "role": [roles[p] for p in ev_pos],
            "tool_name": [tool_names[p] for p in ev_pos],
            "authored": [authored[p] for p in ev_pos],
            "chars": chars[ev_pos_arr] if n_ev else [],
            "born_iteration": ev_born,
            "survival_iterations": np.asarray(ev_iter, dtype=np.int64) - ev_born,
            "survival_ms": survival_ms,
            "how": ["summarized" if s else "dropped" for s in ev_summarized],
            "forced": [records[j].forced for j in ev_record],
        },
    )
    # first eviction of each position decides how it left
    left_iter = np.full(m_count, -1, dtype=np.int64)
    out_code = np.full(m_count, _DROPPED, dtype=np.int8)
    for it, p, s in zip(reversed(ev_iter), reversed(ev_pos), reversed(ev_summarized), strict=True):
        left_iter[p] = it
        out_code[p] = _FOLDED if s else _DROPPED

    # -- calls ---------------------------------------------------------------------------------
    call_cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["calls"]}
    call_runs: list[list[tuple[int, int]]] = []
    for ci, call in enumerate(run.calls):
        sent = call.sent_commit
        valid = 0 <= sent < n_commits
        runs = view.window_runs(sent) if valid else []
        call_runs.append(runs)
        usage = call.usage
        call_cols["call"].append(ci)
        call_cols["iteration"].append(call.iteration)
        call_cols["stage_id"].append(call.stage_id)
        call_cols["sent_commit"].append(sent)
        call_cols["messages"].append(call.messages)
        call_cols["chars"].append(call.chars)
        call_cols["existing"].append(view.history_end[sent] if valid else 0)
        call_cols["input_tokens"].append(None if usage is None else usage.input_tokens)
        call_cols["output_tokens"].append(None if usage is None else usage.output_tokens)
        call_cols["cache_read_tokens"].append(None if usage is None else usage.cache_read_tokens)
        call_cols["cache_write_tokens"].append(None if usage is None else usage.cache_write_tokens)
        call_cols["reported"].append(usage is not None and usage.reported)
        call_cols["failed"].append(usage is None)
        call_cols["retry"].append(call.retry)
        call_cols["finish_reason"].append(call.finish_reason)
        call_cols["truncated"].append(call.truncated)
    calls_frame = build_frame("calls", call_cols)

    # every call's window, flattened (for times sent / first / last)
    call_iters = np.asarray(call_cols["iteration"], dtype=np.int64)
    all_starts: list[int] = []
    all_stops: list[int] = []
    all_lens: list[int] = []
    for runs in call_runs:
        all_lens.append(runs_length(runs))
        for a, b in runs:
            all_starts.append(a)
            all_stops.append(b)
    all_pos = expand_runs(all_starts, all_stops)
    all_iter = np.repeat(call_iters, np.asarray(all_lens, dtype=np.int64))
    times_sent = np.bincount(all_pos, minlength=m_count)[:m_count].astype(np.int64)
    first_sent = np.full(m_count, -1, dtype=np.int64)
    last_sent = np.full(m_count, -1, dtype=np.int64)
    if len(all_pos):
        uniq, first_idx = np.unique(all_pos, return_index=True)
        first_sent[uniq] = all_iter[first_idx]
        rev_uniq, rev_idx = np.unique(all_pos[::-1], return_index=True)
        last_sent[rev_uniq] = all_iter[::-1][rev_idx]

    # -- messages frame ----------------------------------------------------------------------
    left = np.where(
        left_iter >= 0,
        np.where(out_code == _FOLDED, "summarized", "dropped"),
        np.where(times_sent > 0, "still-in", "never-sent"),
    )
    messages_frame = build_frame(
        "messages",
        {
            "position": np.arange(m_count, dtype=np.int64),
            "stage_id": stage_ids,
            "stage": [_stage_kind(s) for s in stage_ids],
            "commit": np.asarray(message_commit, dtype=np.int64),
            "iteration": born,
            "role": roles,
            "tool_name": tool_names,
            "tool_call_id": [m.tool_call_id for m in msgs],
            "authored": authored,
            "chars": chars,
            "label": [
                f"{s or '?'} {t if t is not None else r}"
                for s, t, r in zip(stage_ids, tool_names, roles, strict=True)
            ],
            "preview": [m.content[:PREVIEW_CHARS] for m in msgs],
            "first_sent": _na(first_sent),
            "last_sent": _na(last_sent),
            "times_sent": times_sent,
            "left": list(left),
            "left_iteration": _na(left_iter),
        },
    )

    # -- membership ------------------------------------------------------------------------
    membership_frame, mode = _membership(
        run,
        view,
        call_runs,
        facts,
        base_code,
        out_code,
        ev_iter,
        ev_pos,
        stage_ids,
        membership,
    )

    # -- commits -----------------------------------------------------------------------------
    commits_frame = build_frame(
        "commits",
        {
            "index": [c.index for c in commits],
            "stage_id": [c.stage_id for c in commits],
            "stage": [_stage_kind(c.stage_id) for c in commits],
            "key": [c.key for c in commits],
            "at_ms": [c.at_ms for c in commits],
            "iteration": commit_iter,
        },
    )

    error = getattr(run, "error", None)
    meta = run.meta if isinstance(run.meta, dict) else {}
    info: dict[str, Any] = {
        "label": label,
        "strategy": run.strategy,
        "status": run.status,
        "iterations": run.iterations,
        "request": run.request,
        "scenario": meta.get("scenario"),
        "error": None if error is None else f"{type(error).__name__}: {error}",
        "counterfactual": bool(meta.get("counterfactual")),
        "replay_of": meta.get("replay_of"),
        "note": meta.get("note"),
        "evidence": evidence,
    }
    return Frames(
        records=build_frame("records", rec_cols),
        refusals=build_frame("refusals", ref_cols),
        pins=build_frame("pins", pin_cols),
        evictions=evictions,
        commits=commits_frame,
        calls=calls_frame,
        messages=messages_frame,
        membership=membership_frame,
        violations=build_frame("violations", vio_cols),
        pauses=_pauses(run, roles),
        losses=_losses(run) if evidence else empty_frame("losses"),
        membership_mode=mode,
        info=info,
    )


_SENT_SIDE_KINDS = frozenset({"split-tool-pair", "window-opens-on-non-user"})


def violation_window(kind: str, detail: str = "") -> str:
    """Which window a violation's ``message_index`` counts in: 'given' (the window the policy
    was given) or 'sent' (the window it produced).

    :func:`footprint_lab.auditing.find_violations` names a kept half of a split tool pair, the
    non-user head and an inserted message by their index in the output; every other kind (a
    request or system message that left, a non-contiguous removal, a message rewritten in
    place, and any kind of yours) by its index in the input.
    """
    if kind in _SENT_SIDE_KINDS:
        return "sent"
    if kind == "rewritten-without-frame" and detail.startswith("an inserted message"):
        return "sent"
    return "given"


def _pauses(run: Run, roles: Sequence[str]) -> pd.DataFrame:
    """One row per ``run.paused`` event, its outcome from the next matching ``run.resumed``."""
    cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["pauses"]}
    events = list(run.events)
    if not any(e.type == "run.paused" for e in events):
        return build_frame("pauses", cols)
    made_by: dict[str, int] = {}
    for p, m in enumerate(run.ledger.messages):
        if roles[p] == "assistant":
            for call in m.tool_calls:
                made_by[call.id] = p
    for i, event in enumerate(events):
        if not isinstance(event, RunPaused):
            continue
        resumed = next(
            (
                e
                for e in events[i + 1 :]
                if isinstance(e, RunResumed) and e.call_id == event.call_id
            ),
            None,
        )
        pos = made_by.get(event.call_id)
        cols["iteration"].append(event.iteration)
        cols["call_id"].append(event.call_id)
        cols["tool_name"].append(event.tool_name)
        cols["kind"].append(event.kind)
        cols["outcome"].append(None if resumed is None else resumed.outcome)
        cols["resumed_iteration"].append(None if resumed is None else resumed.iteration)
        cols["position"].append(pos)
        cols["stage_id"].append(None if pos is None else run.ledger.messages[pos].stage_id)
    return build_frame("pauses", cols)


def _losses(run: Run) -> pd.DataFrame:
    """``footprint_lab.evidence.losses(run)`` as rows, with the ledger positions of the source
    and of the call."""
    ledger = run.ledger
    msgs = ledger.messages
    found = evidence_losses(run)
    # transcript index -> ledger position (the transcript leaves library-authored messages out)
    transcript_positions = [p for p, m in enumerate(msgs) if m.authored is None]
    cols: dict[str, list[Any]] = {name: [] for name in SCHEMAS["losses"]}
    for loss in found:
        source_pos: int | None = None
        try:
            carriers = ledger.messages_of(loss.source_stage_id)
        except KeyError:
            carriers = []
        tools = [m for m in carriers if m.role == "tool"]
        source = next((m for m in tools if loss.value in m.content), tools[0] if tools else None)
        if source is not None:
            source_pos = ledger.position(source)
        call_pos = (
            transcript_positions[loss.message_index]
            if 0 <= loss.message_index < len(transcript_positions)
            else None
        )
        cols["iteration"].append(loss.iteration)
        cols["call_id"].append(loss.call_id)
        cols["tool_name"].append(loss.tool_name)
        cols["value"].append(loss.value)
        cols["source_stage_id"].append(loss.source_stage_id)
        cols["source_position"].append(source_pos)
        cols["call_position"].append(call_pos)
        cols["removed_by"].append(loss.removed_by)
        cols["removed_by_strategy"].append(loss.removed_by_strategy)
        cols["kept_by_summary"].append(loss.kept_by_summary)
    return build_frame("losses", cols)


def _record_commits(commits: Sequence[Any], records: Sequence[WindowRecord]) -> list[int | None]:
    """The ledger commit of each record: the n-th ``record`` commit when the counts and
    iterations agree (this survives save/load, which rebuilds the objects), else by identity."""
    record_commits = [c for c in commits if c.key == "record"]
    if len(record_commits) == len(records) and all(
        getattr(c.stored, "iteration", None) == r.iteration
        for c, r in zip(record_commits, records, strict=True)
    ):
        return [c.index for c in record_commits]
    by_id = {id(c.stored): c.index for c in record_commits}
    return [by_id.get(id(r)) for r in records]


def _na(values: IntArray) -> Any:
    """An Int64 array with -1 turned into <NA>."""
    return pd.arrays.IntegerArray(values.astype(np.int64), values < 0)


def _pin_row(
    cols: dict[str, list[Any]],
    j: int,
    rec: WindowRecord,
    kind: str,
    tool_name: str | None,
    turn_index: int | None,
    chars: int | None,
    count: int,
) -> None:
    cols["record"].append(j)
    cols["iteration"].append(rec.iteration)
    cols["strategy"].append(rec.strategy)
    cols["kind"].append(kind)
    cols["tool_name"].append(tool_name)
    cols["turn_index"].append(turn_index)
    cols["chars"].append(chars)
    cols["count"].append(count)


def _record_row(
    cols: dict[str, list[Any]],
    j: int,
    rec: WindowRecord,
    f: _RecordFacts,
    reasons: list[str],
    obs: Any,
) -> None:
    add = {
        "record": j,
        "iteration": rec.iteration,
        "strategy": rec.strategy,
        "commit": f.commit,
        "forced": rec.forced,
        "removed_anything": rec.removed_message_count > 0,
        "removed_message_count": rec.removed_message_count,
        "removed_stage_count": len(rec.removed_stage_ids),
        "removed_stage_ids": join(rec.removed_stage_ids),
        "window_chars_before": rec.window_chars_before,
        "window_chars_after": rec.window_chars_after,
        "chars_removed": rec.window_chars_before - rec.window_chars_after,
        "messages_before": f.given_len,
        "messages_after": f.after_len,
        "refusal_count": len(reasons),
        "refusal_reasons": join(reasons),
        "dropped_observations": None
        if rec.dropped_observations is None
        else join(rec.dropped_observations),
        "pins": 0 if obs is None else len(obs.pinned),
        "pinned_tools": "" if obs is None else join(p.tool_name for p in obs.pinned),
        "yielded": None if obs is None else obs.yielded,
        "pin_limit": None if obs is None else obs.limit,
        "stand_down": None if obs is None else obs.stand_down,
        "keep_recent_turns": rec.keep_recent_turns,
        "turns_before": rec.turns_before,
        "turns_after": rec.turns_after,
        "measured_tokens": rec.measured_tokens,
        "threshold_tokens": rec.threshold_tokens,
        "over_budget": rec.over_budget,
        "summary_chars": rec.summary_chars,
        "summarizer_tokens": rec.summarizer_tokens,
        "summarizer_skipped": rec.summarizer_skipped,
        "threshold_fraction": rec.threshold_fraction,
        "reserve_tokens": rec.reserve_tokens,
        "context_window": rec.context_window,
        "notice": rec.notice,
        "span_key": rec.span_key,
        "error": rec.error,
        "violation_count": None if rec.violations is None else len(rec.violations),
        "violation_kinds": None if rec.violations is None else join(v.kind for v in rec.violations),
    }
    for key, value in add.items():
        cols[key].append(value)


RECORD_FIELD_COLUMNS: dict[str, tuple[str, ...]] = {
    "removed_stage_ids": ("removed_stage_ids", "removed_stage_count"),
    "refusals": ("refusal_count", "refusal_reasons"),
    "observations": ("pins", "pinned_tools", "yielded", "pin_limit", "stand_down"),
    "violations": ("violation_count", "violation_kinds"),
}
"""Where each list/model field of a WindowRecord lands in ``records`` (scalar fields keep their
own name)."""


def _membership(
    run: Run,
    view: LedgerView,
    call_runs: list[list[tuple[int, int]]],
    facts: list[_RecordFacts],
    base_code: np.ndarray[Any, np.dtype[np.int8]],
    out_code: np.ndarray[Any, np.dtype[np.int8]],
    ev_iter: list[int],
    ev_pos: list[int],
    stage_ids: list[str | None],
    mode: MembershipMode,
) -> tuple[pd.DataFrame, str]:
    # the last call of each iteration
    last_call: dict[int, int] = {}
    for ci, call in enumerate(run.calls):
        last_call[call.iteration] = ci
    iterations = sorted(last_call)
    sel = [last_call[k] for k in iterations]
    # the last record of each iteration decides pins/refusals
    last_record: dict[int, int] = {}
    for j_rec, rec in enumerate(run.records):
        last_record[rec.iteration] = j_rec

    n_commits = len(view)
    existing = [
        view.history_end[run.calls[ci].sent_commit]
        if 0 <= run.calls[ci].sent_commit < n_commits
        else 0
        for ci in sel
    ]
    full_rows = sum(existing)
    if mode == "auto":
        mode = "full" if full_rows <= MEMBERSHIP_FULL_MAX_ROWS else "window"

    sel_arr = np.asarray(sel, dtype=np.int64)
    it_arr = np.asarray(iterations, dtype=np.int64)
    starts: list[int] = []
    stops: list[int] = []
    lens: list[int] = []
    for ci in sel:
        runs = call_runs[ci]
        lens.append(runs_length(runs))
        for a, b in runs:
            starts.append(a)
            stops.append(b)
    lens_arr = np.asarray(lens, dtype=np.int64)
    in_pos = expand_runs(starts, stops)
    in_rank = np.repeat(np.arange(len(sel), dtype=np.int64), lens_arr)
    in_code = base_code[in_pos] if len(in_pos) else np.zeros(0, dtype=np.int8)

    # overrides (pins, refusals) of the last record of each selected iteration
    m_count = len(base_code)
    ov_keys: list[int] = []
    ov_codes: list[int] = []
    for r_i, k in enumerate(iterations):
        last_j = last_record.get(k)
        if last_j is None:
            continue
        for p, state_code in facts[last_j].overrides.items():
            ov_keys.append(r_i * (m_count + 1) + p)
            ov_codes.append(state_code)
    if ov_keys and len(in_pos):
        keys = in_rank * (m_count + 1) + in_pos
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        wanted = np.asarray(ov_keys, dtype=np.int64)
        at = np.searchsorted(sorted_keys, wanted)
        at_clipped = np.minimum(at, len(sorted_keys) - 1)
        hit = sorted_keys[at_clipped] == wanted
        in_code[order[at_clipped[hit]]] = np.asarray(ov_codes, dtype=np.int8)[hit]

    pos: IntArray
    rank: IntArray
    code: np.ndarray[Any, np.dtype[np.int8]]
    if mode == "full":
        ex = np.asarray(existing, dtype=np.int64)
        offsets = np.cumsum(ex) - ex
        pos = expand_runs(np.zeros(len(ex), dtype=np.int64).tolist(), ex.tolist())
        rank = np.repeat(np.arange(len(sel), dtype=np.int64), ex)
        code = out_code[pos] if len(pos) else np.zeros(0, dtype=np.int8)
        if len(in_pos):
            code[offsets[in_rank] + in_pos] = in_code
    else:
        rank_of = {k: r for r, k in enumerate(iterations)}
        ev_rank = [rank_of.get(k, -1) for k in ev_iter]
        keep = [i for i, r in enumerate(ev_rank) if r >= 0]
        e_pos = np.asarray([ev_pos[i] for i in keep], dtype=np.int64)
        e_rank = np.asarray([ev_rank[i] for i in keep], dtype=np.int64)
        e_code = out_code[e_pos] if len(e_pos) else np.zeros(0, dtype=np.int8)
        pos = np.concatenate([in_pos, e_pos])
        rank = np.concatenate([in_rank, e_rank])
        code = np.concatenate([in_code, e_code])
        order = np.lexsort((pos, rank))
        pos, rank, code = pos[order], rank[order], code[order]

    stage_arr = np.asarray(stage_ids, dtype=object)
    frame = build_frame(
        "membership",
        {
            "iteration": it_arr[rank] if len(rank) else [],
            "call": sel_arr[rank] if len(rank) else [],
            "position": pos,
            "stage_id": stage_arr[pos] if len(pos) else [],
            "state": code.astype(np.int8),
            "in_window": ~np.isin(code, _OUT_CODES),
        },
    )
    return frame, mode


# -- many runs -------------------------------------------------------------------------------


def capture_many(
    runs: Mapping[str, Run | Frames],
    *,
    membership: MembershipMode = "auto",
    evidence: bool = False,
) -> Frames:
    """Capture several runs and stack each frame, with a ``run`` column (the label) first.

    Values may be runs or already-captured :class:`Frames`. ``evidence`` is passed to
    :func:`capture` for the runs.
    """
    captured: dict[str, Frames] = {}
    for label, value in runs.items():
        if isinstance(value, Frames):
            captured[str(label)] = value
        else:
            captured[str(label)] = capture(
                value, membership=membership, label=str(label), evidence=evidence
            )
    stacked: dict[str, pd.DataFrame] = {}
    for name in FRAME_NAMES:
        parts = [with_run_column(f[name], label) for label, f in captured.items()]
        if not parts:
            parts = [with_run_column(empty_frame(name), "")]
        frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        if name == "membership":
            frame["state"] = frame["state"].astype(SCHEMAS["membership"]["state"])
        stacked[name] = frame
    modes = {f.membership_mode for f in captured.values()}
    mode = modes.pop() if len(modes) == 1 else ("full" if not modes else "mixed")
    return Frames.of(
        stacked,
        membership_mode=mode,
        info={"runs": list(captured), "by_run": {k: f.info for k, f in captured.items()}},
    )
