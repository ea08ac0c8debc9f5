"""Widgets: the Inspector, the Tuner and Compare — a run you can click through in Jupyter.

Layer: lab (top). Every chart here is a pure builder of :mod:`footprint_lab.lab.plots` wrapped
in a ``plotly.graph_objects.FigureWidget``; the widgets only arrange them with ipywidgets and
keep them current. They read runs and never change them.

* :class:`Inspector` — one run: an overview of its key numbers, the window map, pins,
  refusals, and the *boundary* view: drag the iteration slider and see the exact messages sent
  at that call (``run.window_sent``), which of them were pinned or refused, which left, and
  the :class:`~footprint_lab.WindowRecord` filed there.
* :class:`Tuner` — a scripted scenario under one strategy, with a slider per knob; every change
  re-runs the scenario and redraws the charts *in place* (the same ``FigureWidget`` objects, new
  trace data, one ``batch_update``).
* :class:`Compare` — several runs of one scenario side by side: the compare chart, a summary
  table and each run's window map.

Every widget exposes its parts as attributes (``.figures``, ``.slider``, ``.sliders``,
``.boundary_html`` ...), so its logic is tested by setting values and reading figure data, with
no browser. Re-runs show a progress bar through :mod:`footprint_lab.lab.progress`, which is
silent under pytest and when ``FOOTPRINT_LAB_QUIET=1``.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import Any, cast

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go

from footprint_lab.agent.run import Run
from footprint_lab.counterfactual import COUNTERFACTUAL_NOTE
from footprint_lab.lab import plots
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.lab.progress import progress
from footprint_lab.lab.report import RECORD_TABLE_COLUMNS, import_problems_html, part_badges
from footprint_lab.messages import Message
from footprint_lab.scenarios import SCENARIOS, Scenario
from footprint_lab.sweeps import summarize_run
from footprint_lab.window.errors import WindowConfigError
from footprint_lab.window.records import REFUSAL_REASONS, WindowRecord
from footprint_lab.window.strategies import WindowStrategy

__all__ = [
    "BOUNDARY_COLUMNS",
    "INSPECTOR_TABS",
    "LEFT_COLUMNS",
    "PIN_KNOB",
    "SUMMARY_COLUMNS",
    "Compare",
    "Inspector",
    "Tuner",
    "default_range",
    "key_numbers",
    "refusal_counts",
    "update_figure",
]

INSPECTOR_TABS: tuple[str, ...] = ("Overview", "Window map", "Pins", "Refusals", "Boundary")
"""The Inspector's tabs, in order."""

SUMMARY_COLUMNS: tuple[str, ...] = (
    "strategy",
    "status",
    "iterations",
    "calls",
    "records",
    "removals",
    "removed_messages",
    "refusals",
    "pins",
    "yielded",
    "stand_downs",
    "peak_window_chars",
    "final_window_chars",
    "peak_input_tokens",
    "ledger_messages",
    "pauses",
    "counterfactual",
)
"""The numbers :func:`key_numbers` returns, in order (also ``Compare.summary``'s columns)."""

BOUNDARY_COLUMNS: tuple[str, ...] = (
    "index",
    "position",
    "stage_id",
    "who",
    "chars",
    "state",
    "preview",
)
"""Columns of :meth:`Inspector.boundary_frame`: the window sent at one iteration."""

LEFT_COLUMNS: tuple[str, ...] = (
    "position",
    "stage_id",
    "who",
    "chars",
    "how",
    "born_iteration",
    "preview",
)
"""Columns of :meth:`Inspector.left_frame`: the messages that left at one iteration."""

PIN_KNOB = "keep_last_tool_results"
"""The one knob that belongs to the agent, not the strategy (it is passed to ``run``)."""

PREVIEW_CHARS = 100
"""Characters of content shown per message in the boundary table."""

BOUNDARY_MAX_ROWS = 500
"""The boundary table shows at most this many messages (the first ones, and says so)."""

TABLE_MAX_ROWS = 300
"""Other tables show at most this many rows."""

_FONT = "font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; font-size: 12px;"
_TABLE = f"border-collapse: collapse; {_FONT}"
_CELL = (
    "border: 1px solid #e4e7eb; padding: 2px 6px; text-align: left; vertical-align: top; "
    "line-height: 1.35;"
)
_CELL_NOWRAP = _CELL + " white-space: nowrap;"
_HEAD = _CELL_NOWRAP + " background: #eef2f7;"
_MUTED = "color: #52606d;"


# -- numbers ----------------------------------------------------------------------------------


def key_numbers(run: Run) -> dict[str, Any]:
    """The numbers that describe a run, keyed by :data:`SUMMARY_COLUMNS` (plain Python values,
    nothing wall-clock: the same run always gives the same numbers).

    ``removals`` counts visits that removed something, ``removed_messages`` the messages they
    removed, ``pins`` pin slots granted over all visits; ``peak_input_tokens`` is the largest
    input-token count a provider *reported* (0 when none did).
    """
    base = summarize_run(run)
    numbers = {name: base[name] for name in SUMMARY_COLUMNS if name in base}
    numbers["final_window_chars"] = run.calls[-1].chars if run.calls else 0
    numbers["ledger_messages"] = len(run.ledger.messages)
    numbers["pauses"] = sum(1 for e in run.events if e.type == "run.paused")
    numbers["counterfactual"] = bool(run.meta.get("counterfactual"))
    return {name: numbers[name] for name in SUMMARY_COLUMNS}


def refusal_counts(frames: Frames) -> dict[str, int]:
    """Refusals by reason, in the order of the refusal engine (reasons that never occurred are
    left out)."""
    counts = Counter(frames.refusals["reason"].astype(str).tolist())
    known = [r for r in REFUSAL_REASONS if r in counts]
    others = sorted(set(counts) - set(REFUSAL_REASONS))
    return {reason: int(counts[reason]) for reason in [*known, *others]}


# -- figures ----------------------------------------------------------------------------------


def _figure_widget(fig: go.Figure) -> Any:
    return go.FigureWidget(fig)


def _trace_props(trace: Any) -> dict[str, Any]:
    props: dict[str, Any] = trace.to_plotly_json()
    props.pop("uid", None)
    props.pop("type", None)
    return props


def update_figure(widget: Any, fig: go.Figure) -> Any:
    """Make ``widget`` (a ``go.FigureWidget``) show ``fig``, in place.

    Traces that keep their position and type get the new properties (stale ones reset) in one
    ``batch_update``; surplus traces are removed and missing ones appended, so a chart whose
    builder adds or drops a trace (a threshold line, removal markers, overlays) stays exact.
    The widget object is never replaced. Returns ``widget``.
    """
    new_traces = list(fig.data)
    keep = 0
    limit = min(len(widget.data), len(new_traces))
    while keep < limit and widget.data[keep].type == new_traces[keep].type:
        keep += 1
    if keep < len(widget.data):
        widget.data = widget.data[:keep]
    with widget.batch_update():
        for old, new in zip(widget.data, new_traces[:keep], strict=True):
            props = _trace_props(new)
            for stale in set(_trace_props(old)) - set(props):
                old[stale] = None
            old.update(props, overwrite=True)
        layout: dict[str, Any] = fig.layout.to_plotly_json()
        current: dict[str, Any] = widget.layout.to_plotly_json()
        if layout.get("template") == current.get("template"):
            layout.pop("template", None)  # unchanged, and by far the largest part
        for stale in set(current) - set(layout) - {"template"}:
            widget.layout[stale] = None
        widget.layout.update(layout, overwrite=True)
    if keep < len(new_traces):
        widget.add_traces(new_traces[keep:])
    return widget


# -- html -------------------------------------------------------------------------------------


def _esc(value: Any) -> str:
    if value is None or (not isinstance(value, str | list | dict) and pd.isna(value)):
        return "–"
    return html.escape(str(value))


def _html_table(
    frame: pd.DataFrame,
    *,
    row_styles: Sequence[str] | None = None,
    max_rows: int = TABLE_MAX_ROWS,
    empty: str = "nothing to show",
) -> str:
    if not len(frame):
        return f'<p style="{_MUTED} {_FONT}">{html.escape(empty)}</p>'
    shown = frame.head(max_rows)
    head = "".join(f'<th style="{_HEAD}">{html.escape(str(c))}</th>' for c in shown.columns)
    rows: list[str] = []
    for i, values in enumerate(shown.itertuples(index=False, name=None)):
        style = row_styles[i] if row_styles is not None else ""
        last = len(values) - 1
        cells = "".join(
            f'<td style="{_CELL if j == last else _CELL_NOWRAP}">{_esc(v)}</td>'
            for j, v in enumerate(values)
        )
        rows.append(f'<tr style="{style}">{cells}</tr>')
    note = ""
    if len(frame) > max_rows:
        note = f'<p style="{_MUTED} {_FONT}">The first {max_rows} of {len(frame)} rows.</p>'
    return f'<table style="{_TABLE}"><tr>{head}</tr>{"".join(rows)}</table>{note}'


def _kv_table(pairs: Sequence[tuple[str, Any]]) -> str:
    rows = "".join(
        f'<tr><th style="{_HEAD}">{html.escape(k)}</th><td style="{_CELL}">{_esc(v)}</td></tr>'
        for k, v in pairs
    )
    return f'<table style="{_TABLE}">{rows}</table>'


def _state_style(state: str) -> str:
    if state == "in-window":
        return ""
    color = plots.STATE_COLORS.get(state, "#999999")
    return f"background: {color}33; box-shadow: inset 4px 0 0 {color};"


def _who(message: Message) -> str:
    if message.authored is not None:
        return f"{message.role} ({message.authored})"
    if message.role == "tool":
        return f"tool {message.name}"
    return message.role


def _preview(message: Message, limit: int = PREVIEW_CHARS) -> str:
    text = " ⏎ ".join(line.strip() for line in message.content.splitlines() if line.strip())
    if message.tool_calls:
        calls = ", ".join(
            f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})"
            for c in message.tool_calls
        )
        text = f"{text} → {calls}" if text else f"→ {calls}"
    badges = part_badges(message)
    if badges:
        # Typed parts (images, documents, thinking ...) stay visible however long the text.
        room = max(limit - len(badges) - 1, 0)
        if len(text) > room:
            text = text[: room - 1] + "…" if room > 1 else ""
        return f"{text} {badges}" if text else badges
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _record_pairs(record: WindowRecord) -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = [
        ("strategy", record.strategy),
        ("iteration", record.iteration),
        ("removed", f"{record.removed_message_count} message(s)"),
        ("removed stage ids", ", ".join(record.removed_stage_ids) or "–"),
        ("chars", f"{record.window_chars_before} → {record.window_chars_after}"),
    ]
    if record.turns_before is not None:
        pairs.append(("turns", f"{record.turns_before} → {record.turns_after}"))
    refusals = [
        f"{r.reason} (turn {r.turn_index}, message {r.message_index})" for r in record.refusals
    ]
    pairs.append(("refusals", "; ".join(refusals) or "–"))
    if record.dropped_observations is not None:
        pairs.append(("dropped observations", ", ".join(record.dropped_observations) or "–"))
    obs = record.observations
    if obs is not None:
        pinned = [f"{p.tool_name} (turn {p.turn_index}, {p.chars} chars)" for p in obs.pinned]
        pairs.append(("pinned", "; ".join(pinned) or "–"))
        pairs.append(("pins", f"limit {obs.limit}, yielded {obs.yielded}"))
        if obs.stand_down:
            pairs.append(("stand-down", "yes: no pin offered on this visit"))
    skip = {
        "strategy",
        "iteration",
        "removed_stage_ids",
        "removed_message_count",
        "window_chars_before",
        "window_chars_after",
        "turns_before",
        "turns_after",
        "refusals",
        "dropped_observations",
        "observations",
        "violations",
    }
    for name, value in record.model_dump(exclude_none=True).items():
        if name not in skip and value not in ([], False):
            pairs.append((name.replace("_", " "), value))
    if record.violations:
        pairs.append(
            (
                "violations",
                "; ".join(
                    f"{v.kind} (message {v.message_index}) {v.detail}".strip()
                    for v in record.violations
                ),
            )
        )
    return pairs


def _records_table(frames: Frames) -> str:
    columns = [c for c in RECORD_TABLE_COLUMNS if c in frames.records.columns]
    return _html_table(
        frames.records.loc[:, columns],
        empty="No window records: the strategy never engaged on this run.",
    )


def _describe(run: Run, frames: Frames) -> str:
    parts = [
        str(run.meta.get("scenario") or ""),
        str(frames.info.get("label") or run.strategy or "no strategy"),
        f"status {run.status}",
    ]
    return " · ".join(p for p in parts if p)


def _counterfactual_banner(run: Run) -> str:
    if not run.meta.get("counterfactual"):
        return ""
    source = run.meta.get("replay_of") or "a recorded run"
    note = run.meta.get("note") or COUNTERFACTUAL_NOTE
    return (
        '<div style="border-left: 4px solid #B279A2; background: #B279A222; padding: 4px 8px; '
        f'margin: 4px 0; {_FONT}"><b>Counterfactual</b> — a replay of '
        f"<code>{html.escape(str(source))}</code>: {html.escape(str(note))}.</div>"
    )


# -- inspector --------------------------------------------------------------------------------


class Inspector(widgets.VBox):  # type: ignore[misc]
    """One run, in five tabs: Overview, Window map, Pins, Refusals and Boundary.

    Parts (for code and tests): ``run``, ``frames`` (its capture), ``numbers``
    (:func:`key_numbers`), ``figures`` (``window_size``, ``window_map``, ``pins``,
    ``refusals`` — ``go.FigureWidget``), ``tabs``, ``overview_html``, ``records_html`` (the
    records table, under the chart in Overview), ``pins_html``, ``refusals_html``,
    ``slider`` (the iteration shown in Boundary), ``play``, ``boundary_caption``,
    ``boundary_html`` (the window sent at that iteration, and what left there) and
    ``record_html`` (the record(s) filed there). Clicking a cell of the window map or a point
    of the window-size chart opens that iteration's boundary.

    Args:
        run: Any run: from an agent, ``replay``, an importer or ``load_run``.
        label: A name for the run in titles (default: its strategy).
        evidence: Find the tool calls sent without the evidence they depended on and mark
            them on the window map (default: for counterfactual replays, where that is the
            question being asked).
    """

    def __init__(self, run: Run, *, label: str | None = None, evidence: bool | None = None) -> None:
        super().__init__()
        self.run = run
        if evidence is None:
            evidence = bool(run.meta.get("counterfactual"))
        self.frames = capture(run, label=label, evidence=evidence)
        self.numbers = key_numbers(run)
        self.figures: dict[str, Any] = {
            "window_size": _figure_widget(plots.window_size(self.frames)),
            "window_map": _figure_widget(plots.window_map(self.frames)),
            "pins": _figure_widget(plots.pins_timeline(self.frames)),
            "refusals": _figure_widget(plots.refusals_by_reason(self.frames)),
        }
        calls = self.frames.calls
        last_calls = calls.drop_duplicates("iteration", keep="last")
        self._call_of: dict[int, int] = {
            int(it): int(c)
            for it, c in zip(last_calls["iteration"], last_calls["call"], strict=True)
        }
        iterations = sorted(set(self._call_of) | {int(i) for i in self.frames.records["iteration"]})
        first, last = (iterations[0], iterations[-1]) if iterations else (0, 0)
        self.iterations: list[int] = iterations
        """Iterations with a call or a record: the values the boundary slider can show."""

        scroll = widgets.Layout(overflow="auto")
        self.overview_html = widgets.HTML(self._overview(), layout=scroll)
        self.pins_html = widgets.HTML(self._pins_table(), layout=scroll)
        self.refusals_html = widgets.HTML(self._refusals_table(), layout=scroll)
        self.records_html = widgets.HTML(_records_table(self.frames), layout=scroll)
        self.slider = widgets.IntSlider(
            value=self._initial_iteration(first, last),
            min=first,
            max=last,
            step=1,
            description="iteration",
            disabled=not iterations,
            continuous_update=True,
            layout=widgets.Layout(width="520px"),
        )
        self.play = widgets.Play(value=self.slider.value, min=first, max=last, step=1, interval=900)
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.boundary_caption = widgets.HTML()
        self.boundary_html = widgets.HTML(layout=widgets.Layout(flex="3 1 0%", overflow="auto"))
        self.record_html = widgets.HTML(layout=widgets.Layout(flex="2 1 0%", overflow="auto"))
        legend = " ".join(
            f'<span style="{_state_style(s)} padding: 0 6px;">{html.escape(s)}</span>'
            for s in ("pinned", "refused-current-request", "notice", "frame", "dropped")
        )
        boundary = widgets.VBox(
            [
                widgets.HBox([self.play, self.slider]),
                self.boundary_caption,
                widgets.HTML(f'<div style="{_FONT}">highlighted: {legend}</div>'),
                widgets.HBox([self.boundary_html, self.record_html]),
            ]
        )
        self.tabs = widgets.Tab(
            children=[
                widgets.VBox(
                    [
                        self.overview_html,
                        self.figures["window_size"],
                        widgets.HTML(f'<div style="{_FONT}"><b>Window records</b></div>'),
                        self.records_html,
                    ]
                ),
                widgets.VBox(
                    [
                        widgets.HTML(
                            f'<p style="{_MUTED} {_FONT}">One row per ledger message (commit '
                            "order), one column per iteration, coloured by the message's state "
                            "at that call. Click a cell to open its boundary.</p>"
                        ),
                        self.figures["window_map"],
                    ]
                ),
                widgets.VBox([self.figures["pins"], self.pins_html]),
                widgets.VBox([self.figures["refusals"], self.refusals_html]),
                boundary,
            ],
            titles=list(INSPECTOR_TABS),
        )
        header = widgets.HTML(
            f'<h3 style="margin: 4px 0;">Inspector — {html.escape(_describe(run, self.frames))}'
            f"</h3>{_counterfactual_banner(run)}"
        )
        self.children = [header, self.tabs]
        self.slider.observe(self._on_slider, names="value")
        for name in ("window_map", "window_size"):
            for trace in self.figures[name].data:
                trace.on_click(self._on_click)
        self.show_boundary(self.slider.value)

    # -- boundary -------------------------------------------------------------------------

    def _initial_iteration(self, first: int, last: int) -> int:
        removals = self.frames.records[self.frames.records["removed_message_count"] > 0]
        if len(removals):
            return int(removals["iteration"].iloc[0])
        return last if self.iterations else first

    def records_at(self, iteration: int) -> list[WindowRecord]:
        """The records filed at the boundary before iteration ``iteration`` (two when a
        context-length rejection forced a second visit)."""
        rows = self.frames.records[self.frames.records["iteration"] == iteration]
        return [self.run.records[int(j)] for j in rows["record"]]

    def _window_at(self, iteration: int) -> tuple[list[Message], bool]:
        call = self._call_of.get(iteration)
        if call is not None:
            return self.run.window_sent(call), True
        rows = self.frames.records[self.frames.records["iteration"] == iteration]
        commits = rows["commit"].dropna()
        if len(commits):
            return self.run.ledger.window_at(int(commits.iloc[-1])), False
        return [], False

    def boundary_frame(self, iteration: int) -> pd.DataFrame:
        """The window sent by the (last) call of ``iteration``, one row per message:
        :data:`BOUNDARY_COLUMNS` — ``index`` in the window, ledger ``position``, ``stage_id``,
        ``who`` (role, tool name or library-authored kind), exact ``chars``, membership
        ``state`` (pinned, refused-<reason>, notice, frame or in-window) and a ``preview``.

        At an iteration whose record was filed but whose call never happened (a paused or
        failed run), the window as that record left it.
        """
        window, _ = self._window_at(iteration)
        membership = self.frames.membership
        here = membership[membership["iteration"] == iteration]
        states = dict(zip(here["position"].astype(int), here["state"].astype(str), strict=True))
        ledger = self.run.ledger
        rows: list[dict[str, Any]] = []
        for index, message in enumerate(window):
            position = ledger.position(message)
            rows.append(
                {
                    "index": index,
                    "position": position,
                    "stage_id": message.stage_id,
                    "who": _who(message),
                    "chars": message.chars,
                    "state": states.get(position, "in-window")
                    if position is not None
                    else "in-window",
                    "preview": _preview(message),
                }
            )
        return pd.DataFrame(rows, columns=list(BOUNDARY_COLUMNS))

    def left_frame(self, iteration: int) -> pd.DataFrame:
        """The messages that left the window at the boundary before ``iteration``:
        :data:`LEFT_COLUMNS` — ``how`` is 'dropped' or 'summarized'. They are still in the
        ledger: ``run.ledger.message(stage_id)`` returns each."""
        ev = self.frames.evictions
        here = ev[ev["iteration"] == iteration]
        messages = self.run.ledger.messages
        rows: list[dict[str, Any]] = []
        for position, stage_id, chars, how, born in zip(
            here["position"],
            here["stage_id"],
            here["chars"],
            here["how"],
            here["born_iteration"],
            strict=True,
        ):
            message = messages[int(position)]
            rows.append(
                {
                    "position": int(position),
                    "stage_id": None if pd.isna(stage_id) else str(stage_id),
                    "who": _who(message),
                    "chars": int(chars),
                    "how": str(how),
                    "born_iteration": None if pd.isna(born) else int(born),
                    "preview": _preview(message),
                }
            )
        return pd.DataFrame(rows, columns=list(LEFT_COLUMNS))

    def show_boundary(self, iteration: int) -> None:
        """Render iteration ``iteration`` into ``boundary_html`` and ``record_html`` (moving
        the slider calls this)."""
        if not self.iterations:
            self.boundary_caption.value = f'<p style="{_FONT}">This run made no LLM calls.</p>'
            self.boundary_html.value = ""
            self.record_html.value = ""
            return
        window, sent = self._window_at(iteration)
        frame = self.boundary_frame(iteration)
        left = self.left_frame(iteration)
        call = self._call_of.get(iteration)
        if sent and call is not None:
            row = self.frames.calls[self.frames.calls["call"] == call].iloc[0]
            tokens = row["input_tokens"]
            reported = f", {int(tokens)} input tokens reported" if not pd.isna(tokens) else ""
            caption = (
                f"Iteration {iteration} · call {call}: {len(window)} message(s), "
                f"{sum(m.chars for m in window)} chars sent{reported}."
            )
        elif window:
            caption = (
                f"Iteration {iteration}: no call was made; this is the window the record left "
                f"({len(window)} message(s), {sum(m.chars for m in window)} chars)."
            )
        else:
            caption = f"Iteration {iteration}: no call and no record."
        self.boundary_caption.value = f'<p style="{_FONT}"><b>{html.escape(caption)}</b></p>'
        parts = [
            f'<div style="{_FONT}"><b>Sent</b></div>',
            _html_table(
                frame,
                row_styles=[_state_style(s) for s in frame["state"]],
                max_rows=BOUNDARY_MAX_ROWS,
                empty="an empty window",
            ),
            f'<div style="{_FONT} margin-top: 8px;"><b>Left at this boundary '
            f"({len(left)})</b> — still in the ledger</div>",
            _html_table(
                left,
                row_styles=[
                    _state_style("folded" if h == "summarized" else "dropped") for h in left["how"]
                ],
                empty="nothing left the window here",
            ),
        ]
        self.boundary_html.value = "".join(parts)
        records = self.records_at(iteration)
        if not records:
            why = (
                "the run has no window strategy"
                if not len(self.frames.records) and self.run.strategy is None
                else "the strategy did not engage"
            )
            self.record_html.value = (
                f'<div style="{_FONT}"><b>WindowRecord</b></div>'
                f'<p style="{_MUTED} {_FONT}">No record at iteration {iteration}: {why}.</p>'
            )
            return
        blocks = [f'<div style="{_FONT}"><b>WindowRecord</b></div>']
        for record in records:
            blocks.append(_kv_table(_record_pairs(record)))
        self.record_html.value = "".join(blocks)

    def _on_slider(self, change: Mapping[str, Any]) -> None:
        self.show_boundary(int(change["new"]))

    def _on_click(self, trace: Any, points: Any, state: Any) -> None:
        xs = list(getattr(points, "xs", []) or [])
        if not xs or xs[0] is None:
            return
        iteration = int(xs[0])
        if self.slider.min <= iteration <= self.slider.max:
            self.slider.value = iteration
            self.tabs.selected_index = INSPECTOR_TABS.index("Boundary")

    # -- overview and tables --------------------------------------------------------------

    def _overview(self) -> str:
        n = self.numbers
        run = self.run
        pairs: list[tuple[str, Any]] = [
            ("status", run.status),
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
            ("pin limit", run.keep_last_tool_results),
            ("peak chars sent", n["peak_window_chars"]),
            ("last chars sent", n["final_window_chars"]),
            ("peak input tokens (reported)", n["peak_input_tokens"]),
        ]
        if n["pauses"]:
            pairs.append(("pauses", n["pauses"]))
        if run.error is not None:
            pairs.append(("error", f"{type(run.error).__name__}: {run.error}"))
        if run.output:
            pairs.append(("output", run.output))
        by_reason = refusal_counts(self.frames)
        reasons = pd.DataFrame(
            {"reason": list(by_reason), "refusals": list(by_reason.values())},
            columns=["reason", "refusals"],
        )
        pins = self.frames.pins
        pinned = pins[pins["kind"] == "pinned"]
        by_tool = pinned["tool_name"].astype(str).value_counts().sort_index()
        pin_frame = pd.DataFrame(
            {"tool": by_tool.index.tolist(), "visits pinned": by_tool.tolist()},
            columns=["tool", "visits pinned"],
        )
        return "".join(
            [
                _counterfactual_banner(run),
                import_problems_html(run.import_problems),
                f'<div style="display: flex; gap: 24px; {_FONT}">',
                f"<div><b>Key numbers</b>{_kv_table(pairs)}</div>",
                "<div><b>Refusals by reason</b>"
                f"{_html_table(reasons, empty='no refusals')}"
                f"<b>Pins by tool</b>{_html_table(pin_frame, empty='no pins')}</div>",
                "</div>",
            ]
        )

    def _pins_table(self) -> str:
        pins = self.frames.pins
        columns = ["iteration", "kind", "tool_name", "turn_index", "chars", "count", "stage_id"]
        return _html_table(pins.loc[:, columns], empty="No pins on any visit.")

    def _refusals_table(self) -> str:
        refusals = self.frames.refusals
        columns = ["iteration", "reason", "turn_index", "message_index", "turn_messages"]
        return _html_table(
            refusals.loc[:, [*columns, "stage_id"]], empty="No refusals on any visit."
        )


# -- tuner ------------------------------------------------------------------------------------


def _nice_step(raw: float) -> float:
    if raw <= 0:
        return 1.0
    exp = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * exp:
            return float(factor * exp)
    return float(10 * exp)  # pragma: no cover - the loop always returns


def default_range(name: str, value: Any) -> tuple[Any, Any, Any]:
    """A sensible ``(min, max, step)`` for knob ``name`` whose current value is ``value``.

    ``keep_recent_turns`` 1 to max(8, 2 x value); ``keep_last_tool_results`` 0 to
    max(4, value); a fraction in (0, 1] from 0.05 to 1 by 0.05; any other whole number from one
    "nice" step (1, 2 or 5 x a power of ten, about value / 20) to about 3 x value.
    """
    if name == "keep_recent_turns":
        v = int(value or 1)
        return (1, max(8, 2 * v), 1)
    if name == PIN_KNOB:
        v = int(value or 0)
        return (0, max(4, v), 1)
    if isinstance(value, float):
        if 0 < value <= 1:
            return (0.05, 1.0, 0.05)
        step_f = _nice_step(abs(value) / 20)
        return (0.0, max(step_f, 3 * abs(value)), step_f)
    v = int(value or 0)
    if v <= 0:
        return (0, 10, 1)
    step = max(1, int(_nice_step(v / 20)))
    high = max(2 * step, math.ceil(3 * v / step) * step)
    return (step, high, step)


def _parse_range(name: str, spec: Any) -> tuple[Any, Any, Any]:
    if not isinstance(spec, tuple | list) or len(spec) not in (2, 3):
        raise ValueError(
            f"range for {name!r} must be a (min, max) or (min, max, step) tuple or list, "
            f"got {spec!r}"
        )
    values = list(spec)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ValueError(f"range for {name!r} must hold numbers, got {spec!r}")
    lo, hi = values[0], values[1]
    if len(values) == 3:
        step = values[2]
    else:
        step = 1 if all(isinstance(v, int) for v in values) else (hi - lo) / 20
    if hi < lo or step <= 0:
        raise ValueError(f"range for {name!r} needs min <= max and step > 0, got {spec!r}")
    return (lo, hi, step)


def _knobs_of(strategy: Any) -> dict[str, Any]:
    knobs = getattr(strategy, "knobs", None)
    if callable(knobs):
        return dict(knobs())
    if is_dataclass(strategy) and not isinstance(strategy, type):
        return {
            f.name: getattr(strategy, f.name)
            for f in fields(strategy)
            if isinstance(getattr(strategy, f.name), int | float)
            and not isinstance(getattr(strategy, f.name), bool)
        }
    return {}


def _with_knobs(strategy: Any, changes: Mapping[str, Any]) -> WindowStrategy:
    with_knobs = getattr(strategy, "with_knobs", None)
    if callable(with_knobs):
        changed: WindowStrategy = with_knobs(**changes)
        return changed
    if is_dataclass(strategy) and not isinstance(strategy, type):
        return cast(WindowStrategy, replace(strategy, **changes))
    if changes:
        raise WindowConfigError(
            f"{type(strategy).__name__} has no with_knobs(**changes): add knobs() and "
            "with_knobs() (or make it a dataclass) so the Tuner can change it"
        )
    strategy_: WindowStrategy = strategy
    return strategy_


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _format_config(config: Mapping[str, Any], short: bool = False) -> str:
    """``k=v`` pairs; ``short`` writes the pin knob as ``pins`` (for chart titles)."""
    return " ".join(
        f"{'pins' if short and k == PIN_KNOB else k}={v:g}"
        if isinstance(v, float)
        else f"{'pins' if short and k == PIN_KNOB else k}={v}"
        for k, v in config.items()
    )


class Tuner(widgets.VBox):  # type: ignore[misc]
    """A scripted scenario under one strategy, with a slider per knob.

    Every slider change re-runs the scenario (``scenario.run(strategy.with_knobs(...),
    keep_last_tool_results=...)``), captures it, and redraws the charts in place — the same
    ``FigureWidget`` objects get new trace data in one ``batch_update`` — with the run's
    records table underneath. Sliders update on release, so a drag costs one run.

    Parts: ``scenario``, ``base`` (the strategy as given), ``strategy`` (as last run),
    ``config`` (the knob values last run), ``run``, ``frames``, ``numbers``
    (:func:`key_numbers`), ``sliders`` (knob name -> slider), ``figures`` (``window_size``,
    ``window_map``), ``summary_html``, ``records_html``, ``error`` (the configuration error of
    the last change, or None), ``runs`` (how many runs so far).

    Args:
        scenario: A :class:`~footprint_lab.scenarios.Scenario` or its name
            (``"deploy-audit"`` ...).
        strategy: The strategy to tune, or the label of one of ``scenario.strategies()``.
            Its knobs come from ``strategy.knobs()`` (a dataclass's numeric fields for a
            strategy without it) and changes go through ``strategy.with_knobs(...)``.
        values: Starting values for some knobs (default: the strategy's own; pins: 2).
        provider_options: Keywords for ``scenario.provider(...)``, which builds a fresh scripted
            provider for every run — e.g. ``{"context_window": 16_000}`` so a strategy with
            ``threshold_fraction=`` has a context window to take its fraction of.
        **ranges: ``knob=(min, max)`` or ``(min, max, step)`` (tuple or list) for any knob of
            the strategy or ``keep_last_tool_results``; knobs not named get
            :func:`default_range`. A knob whose current value is None gets a slider only when
            its range is given.
    """

    def __init__(
        self,
        scenario: Scenario | str,
        strategy: WindowStrategy | str,
        *,
        values: Mapping[str, Any] | None = None,
        provider_options: Mapping[str, Any] | None = None,
        **ranges: Any,
    ) -> None:
        super().__init__()
        self.provider_options: dict[str, Any] = dict(provider_options or {})
        if isinstance(scenario, str):
            if scenario not in SCENARIOS:
                raise ValueError(f"no scenario {scenario!r}; scenarios are {', '.join(SCENARIOS)}")
            scenario = SCENARIOS[scenario]()
        self.scenario: Scenario = scenario
        if isinstance(strategy, str):
            shipped = scenario.strategies()
            if strategy not in shipped:
                raise ValueError(
                    f"{scenario.name} has no strategy {strategy!r}; it ships {', '.join(shipped)}"
                )
            strategy = shipped[strategy]
        self.base: WindowStrategy = strategy
        knobs = _knobs_of(strategy)
        current: dict[str, Any] = {**knobs, PIN_KNOB: 2, **dict(values or {})}
        unknown = (set(ranges) | set(values or {})) - set(knobs) - {PIN_KNOB}
        if unknown:
            raise ValueError(
                f"{', '.join(sorted(unknown))}: not a knob of {getattr(strategy, 'name', strategy)}"
                f" (its knobs: {', '.join([*knobs, PIN_KNOB])})"
            )
        self.sliders: dict[str, Any] = {}
        for name in [*knobs, PIN_KNOB]:
            value = current.get(name)
            if name in ranges:
                lo, hi, step = _parse_range(name, ranges[name])
            elif _numeric(value):
                lo, hi, step = default_range(name, value)
            else:
                continue
            floating = any(isinstance(v, float) for v in (lo, hi, step, value))
            start = lo if not _numeric(value) else min(max(value, lo), hi)
            cls = widgets.FloatSlider if floating else widgets.IntSlider
            self.sliders[name] = cls(
                value=start,
                min=lo,
                max=hi,
                step=step,
                description=name,
                continuous_update=False,
                style={"description_width": "180px"},
                layout=widgets.Layout(width="560px"),
            )
        self.strategy: WindowStrategy = strategy
        self.config: dict[str, Any] = {}
        self.error: Exception | None = None
        self.runs = 0
        self._hold = False
        self.summary_html = widgets.HTML()
        self.records_html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.output = widgets.Output()
        self._rerun(initial=True)
        self.figures: dict[str, Any] = {
            "window_size": _figure_widget(plots.window_size(self.frames)),
            "window_map": _figure_widget(plots.window_map(self.frames)),
        }
        header = widgets.HTML(
            f'<h3 style="margin: 4px 0;">Tuner — {html.escape(scenario.name)} · '
            f"{html.escape(str(getattr(strategy, 'name', type(strategy).__name__)))}</h3>"
            f'<p style="{_MUTED} {_FONT}">{html.escape(scenario.description)} Each slider '
            "change re-runs the scripted scenario and redraws the charts.</p>"
        )
        self.children = [
            header,
            widgets.VBox(list(self.sliders.values())),
            self.summary_html,
            self.output,
            self.figures["window_size"],
            self.figures["window_map"],
            widgets.HTML(f'<div style="{_FONT}"><b>Window records</b></div>'),
            self.records_html,
        ]
        for slider in self.sliders.values():
            slider.observe(self._on_change, names="value")

    def set(self, **values: Any) -> Tuner:
        """Move several sliders at once and re-run once. Returns the tuner."""
        unknown = set(values) - set(self.sliders)
        if unknown:
            raise ValueError(
                f"no slider for {', '.join(sorted(unknown))}; sliders: {', '.join(self.sliders)}"
            )
        self._hold = True
        try:
            for name, value in values.items():
                self.sliders[name].value = value
        finally:
            self._hold = False
        self._rerun()
        return self

    def _on_change(self, change: Mapping[str, Any]) -> None:
        if not self._hold:
            self._rerun()

    def _values(self) -> tuple[dict[str, Any], int]:
        knobs = {n: s.value for n, s in self.sliders.items() if n != PIN_KNOB}
        pins = self.sliders[PIN_KNOB].value if PIN_KNOB in self.sliders else 2
        return knobs, int(pins)

    def _rerun(self, *, initial: bool = False) -> None:
        knobs, pins = self._values()
        config = {**knobs, PIN_KNOB: pins}
        with self.output:
            bar = progress(total=3, desc=f"{self.scenario.name}: {_format_config(config)}")
            shown = not getattr(bar, "disable", True)  # tqdm sets disable on close
            try:
                try:
                    strategy = _with_knobs(self.base, knobs)
                    run = self.scenario.run(
                        strategy,
                        keep_last_tool_results=pins,
                        provider=self.scenario.provider(**self.provider_options),
                    )
                except (WindowConfigError, TypeError, ValueError) as exc:
                    # a configuration the strategy or the agent refuses: say so, keep the charts
                    self.error = exc
                    self.summary_html.value = (
                        f'<p style="color: #E45756; {_FONT}"><b>Not run:</b> '
                        f"{html.escape(str(exc))}</p>"
                    )
                    if initial:
                        raise
                    return
                bar.update(1)
                label = _format_config(config, True)  # the strategy is named in the header
                frames = capture(run, label=label)
                bar.update(1)
                self.error = None
                self.strategy = strategy
                self.config = config
                self.run = run
                self.frames = frames
                self.numbers = key_numbers(run)
                self.runs += 1
                if not initial:
                    update_figure(self.figures["window_size"], plots.window_size(frames))
                    update_figure(self.figures["window_map"], plots.window_map(frames))
                self.summary_html.value = self._summary()
                self.records_html.value = _records_table(frames)
                bar.update(1)
            finally:
                bar.close()
                if shown:
                    # a closed notebook bar leaves a dead view behind in the Output
                    self.output.clear_output()

    def _summary(self) -> str:
        n = self.numbers
        parts = [
            f"<b>{html.escape(_format_config(self.config))}</b>",
            f"status {html.escape(str(n['status']))}",
            f"{n['iterations']} iterations",
            f"{n['removals']} removal(s), {n['removed_messages']} message(s) removed",
            f"{n['refusals']} refusal(s)",
            f"{n['pins']} pin(s)",
            f"peak {n['peak_window_chars']} chars",
            f"last {n['final_window_chars']} chars sent",
        ]
        return f'<p style="{_FONT}">' + " · ".join(parts) + "</p>"


# -- compare ----------------------------------------------------------------------------------


def _label_runs(runs: Mapping[str, Run] | Sequence[Run]) -> dict[str, Run]:
    if isinstance(runs, Mapping):
        return {str(label): run for label, run in runs.items()}
    labelled: dict[str, Run] = {}
    for run in runs:
        base = run.strategy or "none"
        if run.meta.get("counterfactual"):
            base += " (replay)"
        label, n = base, 1
        while label in labelled:
            n += 1
            label = f"{base} ({n})"
        labelled[label] = run
    return labelled


class Compare(widgets.VBox):  # type: ignore[misc]
    """Several runs side by side — usually one scenario under each strategy: the compare chart
    (characters sent or reported input tokens per iteration, one line per run), a summary
    table (:data:`SUMMARY_COLUMNS`, one row per run) and each run's window map in a tab.

    Parts: ``runs`` (label -> run), ``frames`` (label -> capture), ``summary`` (DataFrame
    indexed by label), ``summary_html``, ``figures`` (``compare``), ``maps`` (label ->
    window-map ``FigureWidget``), ``metric`` (toggle between ``chars`` and ``input_tokens``;
    the chart is redrawn in place).

    Args:
        runs: ``{label: run}``, or a list of runs (labelled by strategy).
        metric: ``"chars"`` or ``"input_tokens"``.
    """

    def __init__(self, runs: Mapping[str, Run] | Sequence[Run], *, metric: str = "chars") -> None:
        super().__init__()
        self.runs: dict[str, Run] = _label_runs(runs)
        if not self.runs:
            raise ValueError("Compare needs at least one run")
        self.frames: dict[str, Frames] = {
            label: capture(run, label=label) for label, run in self.runs.items()
        }
        rows = [key_numbers(run) for run in self.runs.values()]
        self.summary = pd.DataFrame(
            rows, index=pd.Index(list(self.runs), name="run"), columns=list(SUMMARY_COLUMNS)
        )
        self.summary_html = widgets.HTML(
            _html_table(self.summary.reset_index(), empty="no runs"),
            layout=widgets.Layout(overflow="auto"),
        )
        self.metric = widgets.ToggleButtons(
            options=[("characters sent", "chars"), ("input tokens (reported)", "input_tokens")],
            value=metric,
            description="metric",
        )
        self.figures: dict[str, Any] = {
            "compare": _figure_widget(plots.compare(self.frames, metric=metric))
        }
        self.maps: dict[str, Any] = {
            label: _figure_widget(plots.window_map(frames)) for label, frames in self.frames.items()
        }
        scenarios = sorted({str(r.meta.get("scenario")) for r in self.runs.values()} - {"None"})
        title = "Compare" + (f" — {html.escape(', '.join(scenarios))}" if scenarios else "")
        banners = "".join(
            _counterfactual_banner(r) for r in self.runs.values() if r.meta.get("counterfactual")
        )
        self.children = [
            widgets.HTML(f'<h3 style="margin: 4px 0;">{title}</h3>{banners[:2000]}'),
            self.metric,
            self.figures["compare"],
            self.summary_html,
            widgets.Tab(children=list(self.maps.values()), titles=list(self.maps)),
        ]
        self.metric.observe(self._on_metric, names="value")

    def _on_metric(self, change: Mapping[str, Any]) -> None:
        update_figure(self.figures["compare"], plots.compare(self.frames, metric=change["new"]))

    @classmethod
    def from_scenario(
        cls,
        scenario: Scenario | str,
        strategies: Mapping[str, WindowStrategy] | None = None,
        *,
        keep_last_tool_results: int | bool = 2,
        include_none: bool = False,
        metric: str = "chars",
    ) -> Compare:
        """Run ``scenario`` under each strategy (default: the three it ships, tuned for it;
        ``include_none`` adds a run without window management) and compare the runs."""
        if isinstance(scenario, str):
            scenario = SCENARIOS[scenario]()
        chosen: dict[str, WindowStrategy | None] = {}
        if include_none:
            chosen["none"] = None
        chosen.update(strategies if strategies is not None else scenario.strategies())
        runs: dict[str, Run] = {}
        for label, strategy in progress(list(chosen.items()), desc=f"{scenario.name}: runs"):
            runs[label] = scenario.run(strategy, keep_last_tool_results=keep_last_tool_results)
        return cls(runs, metric=metric)
