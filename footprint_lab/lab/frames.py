"""Capture: one run as pandas DataFrames (:class:`Frames`).

Layer: lab. It reads a :class:`~footprint_lab.agent.Run` — its ledger, calls, records and
events — and never changes it. :func:`capture` is orchestration only: it builds the run's
capture context once (:mod:`footprint_lab.lab._frames.context`) and asks each frame family
(one module each under :mod:`footprint_lab.lab._frames`) for its frame. Every frame's columns,
dtypes and meanings are stated in :mod:`footprint_lab.lab.schema`.

Messages are identified in every frame by their ledger ``position`` (the index in the message
store, i.e. commit order) and by their ``stage_id``. Capture is vectorised where rows are many
(membership, message statistics) and does a small, constant amount of Python work per record
and per call, so a 10,000-iteration run captures in about a second.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import pandas as pd

from footprint_lab.agent.origin import Fork, Origin, Replay, imported_source
from footprint_lab.agent.replay import COUNTERFACTUAL_NOTE
from footprint_lab.agent.run import Run
from footprint_lab.events import PolicyChanged
from footprint_lab.lab._frames import (
    calls,
    commits,
    evictions,
    findings,
    losses,
    messages,
    pauses,
    pins,
    records,
    refusals,
    violations,
)
from footprint_lab.lab._frames import membership as membership_family
from footprint_lab.lab._frames.context import CaptureContext, build_context
from footprint_lab.lab._frames.messages import PREVIEW_CHARS
from footprint_lab.lab._frames.records import RECORD_FIELD_COLUMNS
from footprint_lab.lab._frames.violations import violation_window
from footprint_lab.lab.schema import (
    CORPUS_FRAMES,
    FRAME_NAMES,
    SCHEMAS,
    describe,
    empty_frame,
    frames_doc,
    with_run_column,
)
from footprint_lab.messages import storable_text
from footprint_lab.pricing import source_tokens_per_char

__all__ = [
    "COLUMN_FAMILIES",
    "MEMBERSHIP_FULL_MAX_ROWS",
    "PREVIEW_CHARS",
    "RECORD_FIELD_COLUMNS",
    "Frames",
    "MembershipMode",
    "capture",
    "capture_columns",
    "capture_many",
    "violation_window",
]

MembershipMode = Literal["auto", "full", "window"]

MEMBERSHIP_FULL_MAX_ROWS = 2_000_000
"""Under ``membership="auto"``, the full long form is built when it has at most this many rows;
above it, the window form (see :class:`Frames`)."""


@dataclass
class Frames:
    """A run as pandas DataFrames, one attribute per frame (see :data:`NAMES`).

    Column dtypes are fixed by :mod:`footprint_lab.lab.schema`, so an empty frame has the same
    columns and dtypes as a full one; ``Frames.describe(name)`` lists a frame's columns with
    their dtype and meaning. ``<NA>`` marks a fact that does not apply. Messages are joined
    across frames on ``position`` (ledger order) and ``stage_id``.

    ``membership`` has two forms (``membership_mode``): 'full', one row per (iteration,
    message) for every message that existed at that iteration's call, so dropped and folded
    messages keep a row at every later iteration; and 'window', the rows of messages in the
    window plus one 'dropped'/'folded' row at the iteration a message left. The full form is
    quadratic in the run's length: ``capture(run, membership="auto")`` switches to the window
    form above :data:`MEMBERSHIP_FULL_MAX_ROWS` rows. Both forms agree on every row they share.

    ``losses`` is filled only by ``capture(run, evidence=True)`` (it costs a scan of every
    dependent call's window); ``violations`` only for a strategy wrapped in
    :func:`footprint_lab.audit` or a stack's own policy an importer observed; ``findings``
    only for a run with observed records (:func:`footprint_lab.judge`).

    The frames and their columns (generated from :mod:`footprint_lab.lab.schema`):

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
    findings: pd.DataFrame = field(default_factory=lambda: empty_frame("findings"))
    membership_mode: str = "full"
    """'full' or 'window' (see above); 'mixed' for a ``capture_many`` of both."""
    info: dict[str, Any] = field(default_factory=dict)
    """Facts about the run: label, strategy, status, iterations, request, scenario, error,
    ``counterfactual`` (True for a :func:`~footprint_lab.replay`), ``replay_of``, ``note``
    and ``evidence`` (whether ``losses`` was computed)."""

    NAMES: ClassVar[tuple[str, ...]] = FRAME_NAMES
    """The frames, in documented order."""

    @classmethod
    def describe(cls, name: str) -> pd.DataFrame:
        """Frame ``name``'s columns: ``column``, ``dtype`` and ``meaning``, one row each.

        Raises:
            KeyError: there is no frame of that name.
        """
        return describe(name)

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
            findings=f["findings"],
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
        """One line: ``<Frames 'label': records 3 rows, refusals 2 rows, ..., membership 120
        rows (full)>`` (the label, else the strategy; for stacked runs, how many)."""
        label = self.info.get("label") or self.info.get("strategy")
        runs = self.info.get("runs")
        head = f" {label!r}" if label else (f" of {len(runs)} runs" if runs is not None else "")
        sizes = ", ".join(
            f"{name} {len(frame):,} row{'' if len(frame) == 1 else 's'}"
            + (f" ({self.membership_mode})" if name == "membership" else "")
            for name, frame in self.frames().items()
        )
        return f"<Frames{head}: {sizes}>"

    def _repr_html_(self) -> str:
        """The frames in a notebook (``frames.html.j2``): the one line, the run's facts and a
        row per frame with its size and columns."""
        from footprint_lab.lab.render import render

        keys = (
            "label",
            "strategy",
            "status",
            "iterations",
            "runs",
            "counterfactual",
            "evidence",
            "policy_changes",
        )
        facts = [
            (key, ", ".join(map(str, value)) if isinstance(value, list) else value)
            for key in keys
            if (value := self.info.get(key)) not in (None, "", False, [])
        ]
        facts.append(("membership mode", self.membership_mode))
        rows = []
        for name, frame in self.frames().items():
            names = [str(c) for c in frame.columns]
            shown = ", ".join(names[:8]) + (f", … (+{len(names) - 8})" if len(names) > 8 else "")
            rows.append((name, len(frame), len(names), shown))
        return render("frames.html.j2", line=repr(self), facts=facts, frames=rows)

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


if Frames.__doc__ is not None:  # None under python -OO
    Frames.__doc__ += frames_doc()


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

    Returns:
        The run's frames.
    """
    if membership not in ("auto", "full", "window"):
        raise ValueError(f"membership must be 'auto', 'full' or 'window', got {membership!r}")
    ctx = build_context(run)
    pins_frame = pins.build(ctx)
    refusals_frame = refusals.build(ctx)
    evictions_frame = evictions.build(ctx)
    left = evictions.departures(ctx, evictions_frame)
    mode = membership_family.choose_mode(ctx, membership, MEMBERSHIP_FULL_MAX_ROWS)
    return Frames(
        records=records.build(ctx),
        refusals=refusals_frame,
        pins=pins_frame,
        evictions=evictions_frame,
        commits=commits.build(ctx),
        calls=calls.build(ctx),
        messages=messages.build(ctx, left),
        membership=membership_family.build(
            ctx,
            mode,
            pins=pins_frame,
            refusals=refusals_frame,
            evictions=evictions_frame,
            left=left,
        ),
        violations=violations.build(ctx),
        pauses=pauses.build(ctx),
        losses=losses.build(ctx) if evidence else empty_frame("losses"),
        findings=findings.build(ctx),
        membership_mode=mode,
        info=_info(run, label, evidence),
    )


COLUMN_FAMILIES: tuple[str, ...] = CORPUS_FRAMES
"""The frames :func:`capture_columns` gives: those a corpus store keeps
(:data:`~footprint_lab.lab.schema.CORPUS_FRAMES`)."""


def capture_columns(
    run: Run, families: Sequence[str] = COLUMN_FAMILIES
) -> dict[str, dict[str, Any]]:
    """Some of a run's frames as their column values, not typed into pandas: ``{family:
    {column: values}}``, each family's columns in its spec's order, the values lists or arrays
    of one length (a ``None`` or ``<NA>`` where the frame has ``<NA>``).

    What :func:`capture` computes for these frames, without building a DataFrame of each:
    a corpus store writes them as Arrow straight away (:mod:`footprint_lab.corpus`), where a
    frame per run and family cost more than the facts in it. Typed through
    :func:`~footprint_lab.lab.schema.build_frame`, each equals ``capture(run)[family]``.

    Raises:
        ValueError: a family is not one of :data:`COLUMN_FAMILIES`.
    """
    unknown = [f for f in families if f not in COLUMN_FAMILIES]
    if unknown:
        raise ValueError(
            f"capture_columns gives the frames {', '.join(COLUMN_FAMILIES)}; not {unknown}"
        )
    ctx = build_context(run, arrow_texts=True)
    wanted = set(families)
    out: dict[str, dict[str, Any]] = {}
    evicted = evictions.columns(ctx) if wanted & {"evictions", "messages"} else None
    for family in families:
        if family == "messages":
            assert evicted is not None
            out[family] = messages.columns(ctx, evictions.departures(ctx, evicted))
        elif family == "evictions":
            assert evicted is not None
            out[family] = evicted
        else:
            out[family] = _COLUMNS[family](ctx)
    return out


_COLUMNS: dict[str, Callable[[CaptureContext], dict[str, Any]]] = {
    "calls": calls.columns,
    "records": records.columns,
    "refusals": refusals.columns,
    "findings": findings.columns,
}


def _info(run: Run, label: str | None, evidence: bool) -> dict[str, Any]:
    """``Frames.info`` of a captured run."""
    error = getattr(run, "error", None)
    meta = run.meta if isinstance(run.meta, dict) else {}
    return {
        "label": None if label is None else storable_text(label),
        "strategy": run.strategy,
        "status": run.status,
        "iterations": run.iterations,
        "request": run.request,
        "scenario": meta.get("scenario"),
        # A live exception of any kind: its text as it is stored (a lone surrogate escaped).
        "error": None if error is None else storable_text(f"{type(error).__name__}: {error}"),
        **origin_facts(run.origin),
        "evidence": evidence,
        "model": run.model,
        "provider": run.provider,
        "abandoned_branches": meta.get("abandoned_branches"),
        "off_branch_events": meta.get("off_branch_events"),
        # A replay's own usage is the original's: the ratio is the one its source showed.
        "tokens_per_char": source_tokens_per_char(run),
        "policy_changes": _policy_changes(run),
    }


def origin_facts(origin: Origin) -> dict[str, Any]:
    """What ``Frames.info`` says of how a run was made: ``origin``, the typed value
    (:mod:`footprint_lab.agent.origin`), and the facts the views read from it —
    ``counterfactual``, ``replay_of``, ``note``, ``not_applicable`` and the estimates of a
    replay; ``imported_from`` (the stack)
    and ``recorded`` (a dump of :class:`~footprint_lab.agent.origin.Recorded`) of a run whose
    messages were imported, directly or through a replay or fork; ``fork_of`` and ``fork_at``
    of a fork."""
    replayed = origin if isinstance(origin, Replay) else None
    forked = origin if isinstance(origin, Fork) else None
    imported = imported_source(origin)
    recorded = None if imported is None else imported.recorded
    return {
        "origin": origin,
        "counterfactual": replayed is not None,
        "replay_of": None if replayed is None else replayed.source_id,
        "note": None if replayed is None else COUNTERFACTUAL_NOTE,
        "imported_from": None if imported is None else imported.format,
        "recorded": None if recorded is None else recorded.model_dump(),
        "fork_of": None if forked is None else forked.parent_id,
        "fork_at": None if forked is None else forked.at,
        "not_applicable": (
            None
            if replayed is None or not replayed.not_applicable
            else [r.model_dump() for r in replayed.not_applicable]
        ),
        "estimated_calls": None if replayed is None else replayed.estimated_calls or None,
        "estimated_tokens_per_char": None
        if replayed is None
        else replayed.estimated_tokens_per_char,
    }


def run_facts(run: Run) -> dict[str, Any]:
    """A run's meta with what its origin says (:func:`origin_facts`): what the views read
    of a run not captured (``counterfactual_banner``, ``run_notes``)."""
    meta = run.meta if isinstance(run.meta, dict) else {}
    return {**meta, **origin_facts(run.origin)}


def _policy_changes(run: Run) -> list[str]:
    """Where a conversation went on under another window policy (``run.policy_changed``
    events), in words: the records before each are the old policy's."""
    return [
        f"after iteration {e.iteration}: {e.strategy_before} with {e.pins_before} pin(s) became "
        f"{e.strategy_after} with {e.pins_after} pin(s)"
        for e in run.events
        if isinstance(e, PolicyChanged)
    ]


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
