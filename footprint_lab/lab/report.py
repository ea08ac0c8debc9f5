"""The HTML report: one standalone, offline file for several runs.

Layer: lab (on top of capture and plots). ``write_report({scenario: {strategy: run}}, path)``
writes a single HTML file with plotly.js embedded once, so it opens without a network: per
scenario the compare chart and a summary table, per strategy the window size, the window map,
the pins, the refusals and the record table. A counterfactual run (``replay``) is labelled as
such in its heading, the summary table and every figure title.

The output is deterministic: no timestamps, no random ids (figure divs are numbered), no
wall-clock facts (``at_ms`` and ``survival_ms`` are left out), so the same runs write the same
bytes.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.lab import plots
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.messages import Message

__all__ = [
    "RECORD_TABLE_COLUMNS",
    "Report",
    "import_problems_html",
    "part_badges",
    "render_report",
    "write_report",
]

DEFAULT_REPORT_NAME = "footprint-report.html"
"""The file name the CLI writes by default."""

RECORD_TABLE_COLUMNS: tuple[str, ...] = (
    "iteration",
    "removed_message_count",
    "removed_stage_ids",
    "window_chars_before",
    "window_chars_after",
    "refusal_reasons",
    "pinned_tools",
    "yielded",
    "stand_down",
    "measured_tokens",
    "threshold_tokens",
    "notice",
    "summary_chars",
    "forced",
)
"""The ``records`` columns shown in each strategy's table."""

TABLE_MAX_ROWS = 400
"""A record table shows at most this many rows (the first ones), and says so."""

_PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}
_DEFAULT_FIGURE_HEIGHT = 440

_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 0;
       color: #1f2933; background: #f7f8fa; }
header, section { max-width: 1200px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #4C78A8; padding-bottom: 4px; margin-top: 2em; }
h3 { margin-top: 1.6em; }
p.lead { color: #52606d; max-width: 60em; }
nav ul { columns: 2; }
.figure { background: white; border: 1px solid #e4e7eb; border-radius: 6px; margin: 12px 0;
          padding: 4px; }
table.records, table.summary { border-collapse: collapse; font-size: 12px; background: white;
                                margin: 8px 0 16px; }
table.records th, table.records td, table.summary th, table.summary td {
  border: 1px solid #e4e7eb; padding: 3px 6px; text-align: left; vertical-align: top; }
table.records th, table.summary th { background: #eef2f7; }
details { margin: 8px 0 24px; }
code { background: #eef2f7; padding: 0 3px; border-radius: 3px; }
.badge { font-size: 0.7em; font-weight: normal; background: #fdf0d5; color: #7a4b00;
         border: 1px solid #f0c36d; border-radius: 4px; padding: 1px 6px; vertical-align: middle; }
p.counterfactual { background: #fdf8ec; border-left: 3px solid #f0c36d; padding: 4px 8px; }
p.truncated { background: #fdeeee; border-left: 3px solid #d9534f; padding: 4px 8px; }
.badge.truncated { background: #fdeeee; color: #8a1f1b; border-color: #e8a09d; }
details.import-problems { background: #fff8e6; border-left: 3px solid #e0a100; padding: 4px 8px; }
"""

RunLike = Run | Frames


@dataclass
class Report:
    """A rendered report: the HTML and what is in it."""

    html: str
    """The whole standalone document."""
    figures: int = 0
    """How many plotly figures it holds (each a ``.js-plotly-plot`` once rendered)."""
    sections: list[str] = field(default_factory=list)
    """The scenario sections, in order."""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


class _Figures:
    """Numbers figure divs and embeds plotly.js with the first one only."""

    def __init__(self) -> None:
        self.count = 0

    def html(self, fig: go.Figure) -> str:
        self.count += 1
        height = fig.layout.height or _DEFAULT_FIGURE_HEIGHT
        div: str = pio.to_html(
            fig,
            include_plotlyjs=self.count == 1,
            full_html=False,
            div_id=f"footprint-figure-{self.count}",
            config=_PLOTLY_CONFIG,
            default_height=f"{height}px",
            validate=False,
        )
        return f'<div class="figure">{div}</div>'


def _frames(value: RunLike, label: str) -> Frames:
    return value if isinstance(value, Frames) else capture(value, label=label)


def _summary_table(by_strategy: Mapping[str, Frames]) -> str:
    rows: list[dict[str, Any]] = []
    for label, f in by_strategy.items():
        calls = f.calls
        records = f.records
        rows.append(
            {
                "strategy": label + (" (counterfactual replay)" if _replayed(f) else ""),
                "status": f.info.get("status"),
                "iterations": f.info.get("iterations"),
                "calls": len(calls),
                "records": len(records),
                "messages removed": int(records["removed_message_count"].sum()),
                "refusals": len(f.refusals),
                "pins": int((f.pins["kind"] == "pinned").sum()),
                "peak chars sent": int(calls["chars"].max()) if len(calls) else 0,
                "last chars sent": int(calls["chars"].iloc[-1]) if len(calls) else 0,
                "input tokens (reported)": int(calls["input_tokens"].fillna(0).sum()),
            }
        )
    frame = pd.DataFrame(rows)
    table: str = frame.to_html(index=False, border=0, classes="summary", na_rep="–")
    return table


def _replayed(frames: Frames) -> bool:
    return bool(frames.info.get("counterfactual"))


def _counterfactual_note(frames: Frames) -> str:
    """The paragraph that labels a counterfactual replay (empty for a run that happened)."""
    if not _replayed(frames):
        return ""
    source = frames.info.get("replay_of")
    of = f" of <code>{html.escape(str(source))}</code>" if source else ""
    note = frames.info.get("note") or (
        "the window is what this strategy would have sent; every reply after it is the "
        "original run's"
    )
    return (
        f'<p class="counterfactual"><b>Counterfactual replay</b>{of}: '
        f"{html.escape(str(note).removeprefix('counterfactual: '))}.</p>"
    )


def _truncated_calls(frames: Frames) -> list[int]:
    """Indexes (in ``run.calls``) of the calls whose reply was cut short."""
    calls = frames.calls
    if "truncated" not in calls.columns or not len(calls):
        return []
    return [int(c) for c in calls.loc[calls["truncated"].fillna(False).astype(bool), "call"]]


def _truncation_note(frames: Frames) -> str:
    """The line that says replies were cut short (empty when none was)."""
    cut = _truncated_calls(frames)
    if not cut:
        return ""
    calls = frames.calls.set_index("call")
    iterations = calls["iteration"].to_dict()
    reasons = calls["finish_reason"].to_dict()
    listed = ", ".join(
        f"call {c} (iteration {iterations[c]}, finish reason "
        f"<code>{html.escape(str(reasons[c]))}</code>)"
        for c in cut[:10]
    )
    more = f" and {len(cut) - 10} more" if len(cut) > 10 else ""
    noun = "reply was" if len(cut) == 1 else "replies were"
    return (
        f'<p class="truncated"><b>Truncated</b>: {len(cut)} {noun} cut short by the output '
        f"cap — {listed}{more}. Their text or last tool call may be incomplete.</p>"
    )


IMPORT_PROBLEMS_SHOWN = 20
"""Import problems listed per run before the rest are counted."""


def import_problems_html(
    problems: Sequence[ImportProblem], limit: int = IMPORT_PROBLEMS_SHOWN
) -> str:
    """A compact, collapsible list of what an importer found wrong (empty when nothing)."""
    if not problems:
        return ""
    esc = html.escape
    items = "".join(
        f"<li>{'transcript' if p.index is None else f'message {p.index}'}, "
        f"<code>{esc(p.field)}</code>: {esc(p.problem)}</li>"
        for p in problems[:limit]
    )
    more = f"<li>… and {len(problems) - limit} more</li>" if len(problems) > limit else ""
    return (
        f'<details class="import-problems"><summary><b>Import problems</b> '
        f"({len(problems)}): kept as they were</summary><ul>{items}{more}</ul></details>"
    )


def part_badges(message: Message) -> str:
    """A message's typed parts as plain-text badges: ``[image 1,234 chars]`` ... (empty when it
    has none)."""
    return " ".join(f"[{part.kind} {part.chars:,} chars]" for part in message.parts)


def _records_table(frames: Frames) -> str:
    records = frames.records
    if not len(records):
        return "<p>No window records: the strategy never engaged on this run.</p>"
    shown = records.loc[:, list(RECORD_TABLE_COLUMNS)].head(TABLE_MAX_ROWS)
    table: str = shown.to_html(index=False, border=0, classes="records", na_rep="–")
    note = ""
    if len(records) > TABLE_MAX_ROWS:
        note = f"<p>The first {TABLE_MAX_ROWS} of {len(records)} records.</p>"
    return f"<details><summary>Window records ({len(records)})</summary>{note}{table}</details>"


def render_report(
    runs: Mapping[str, Mapping[str, RunLike]],
    *,
    title: str = "footprint_lab — context window report",
) -> Report:
    """Render the report for ``{scenario: {strategy label: run or frames}}`` (see module)."""
    figs = _Figures()
    esc = html.escape
    parts: list[str] = []
    toc: list[str] = []
    sections: list[str] = []
    for scenario, by_strategy_runs in runs.items():
        sid = _slug(scenario)
        sections.append(scenario)
        toc.append(f'<li><a href="#{sid}">{esc(scenario)}</a></li>')
        by_strategy = {
            str(label): _frames(run, str(label)) for label, run in by_strategy_runs.items()
        }
        sources = {str(label): run for label, run in by_strategy_runs.items()}
        requests = sorted({str(f.info.get("request") or "") for f in by_strategy.values()})
        parts.append(f'<section id="{sid}"><h2>{esc(scenario)}</h2>')
        if requests and requests[0]:
            parts.append('<p class="lead">Request: <q>' + esc(" / ".join(requests)) + "</q></p>")
        if by_strategy:
            parts.append(figs.html(plots.compare(by_strategy)))
            parts.append(_summary_table(by_strategy))
        for label, f in by_strategy.items():
            status = f.info.get("status")
            error = f.info.get("error")
            heading = esc(label)
            if _replayed(f):
                heading += ' <span class="badge">counterfactual replay</span>'
            truncated = len(_truncated_calls(f))
            if truncated:
                heading += f' <span class="badge truncated">{truncated} truncated</span>'
            parts.append(f'<article id="{sid}--{_slug(label)}"><h3>{heading}</h3>')
            line = f"status <code>{esc(str(status))}</code>"
            if error:
                line += f" — {esc(str(error))}"
            parts.append(f"<p>{line}</p>")
            parts.append(_counterfactual_note(f))
            parts.append(_truncation_note(f))
            source = sources.get(label)
            if isinstance(source, Run):
                parts.append(import_problems_html(source.import_problems))
            for fig in (
                plots.window_size(f),
                plots.window_map(f),
                plots.pins_timeline(f),
                plots.refusals_by_reason(f),
            ):
                parts.append(figs.html(fig))
            parts.append(_records_table(f))
            parts.append("</article>")
        parts.append("</section>")
    doc = "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{esc(title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            f"<header><h1>{esc(title)}</h1>",
            '<p class="lead">Each run is shown as what its window strategy kept, dropped, '
            "pinned and refused. <b>Window size</b>: characters sent per call, reported input "
            "tokens and the threshold, with a marker at every removal. <b>Window map</b>: one "
            "row per ledger message in commit order, one column per iteration, coloured by "
            "the message's state at that call. Nothing is ever deleted: every message that "
            "left the window is still in the run's ledger.</p>",
            f"<nav><ul>{''.join(toc)}</ul></nav></header>",
            *parts,
            "</body>",
            "</html>",
            "",
        ]
    )
    return Report(html=doc, figures=figs.count, sections=sections)


def write_report(
    runs: Mapping[str, Mapping[str, RunLike]],
    path: str | os.PathLike[str] = DEFAULT_REPORT_NAME,
    *,
    title: str = "footprint_lab — context window report",
) -> Path:
    """Write the standalone HTML report for ``{scenario: {strategy label: run}}`` to ``path``
    (parent folders are created) and return the path.

    Values may also be :class:`~footprint_lab.lab.Frames` already captured.
    """
    report = render_report(runs, title=title)
    out = Path(path)
    if out.parent != Path():
        out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.html, encoding="utf-8")
    return out
