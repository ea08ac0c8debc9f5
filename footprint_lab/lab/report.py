"""The HTML report: one standalone, offline file for several runs.

Layer: lab (on top of capture, plots, views and render). ``write_report({scenario: {strategy:
run}}, path)`` writes a single HTML file with plotly.js embedded once, so it opens without a
network: per scenario the compare chart and a summary table (from
:func:`~footprint_lab.lab.summary.run_summary`), per strategy the window size, the window map,
the pins, the refusals, every visit of the strategy in words (what left, the rule that fired,
what refused and why: :func:`~footprint_lab.lab.views.record_sentence`), the Boundary view
(the static counterpart of the Inspector's Boundary tab: an iteration slider over the exact
messages sent at that call, which were pinned or refused, what left and the record filed
there — a :class:`~footprint_lab.lab.views.BoundaryView` embedded as JSON, rendered by
``render/boundary.js``, the script the Inspector's Boundary pane runs too; no kernel), the
record table and each record in full (``record.html.j2``). A counterfactual run
(``replay``) is labelled as such in its heading, the summary table and every figure title. The
page is the template ``report.html.j2``, autoescaped. :func:`write_run_report` is the report
of one run (``Inspector(run).to_html(path)``), :func:`write_captured_report` that of runs
already captured (every widget's ``to_html(path)``).

The output is deterministic: no timestamps, no random ids (figure divs are numbered), no
wall-clock facts (``at_ms`` and ``survival_ms`` are left out), so the same runs write the same
bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.lab import plots
from footprint_lab.lab.frames import Frames, capture
from footprint_lab.lab.parting import parting_frame, parting_lines
from footprint_lab.lab.render import (
    boundary_css,
    boundary_script,
    page_theme_context,
    render,
    table_context,
)
from footprint_lab.lab.schema import build_frame, spec
from footprint_lab.lab.summary import run_summary
from footprint_lab.lab.views import (
    BOUNDARY_TEXT_CHARS,
    IMPORT_PROBLEMS_SHOWN,
    RECORD_TABLE_COLUMNS,
    REFUSAL_MEANINGS,
    STATE_MEANINGS,
    boundary_views,
    compactions_view,
    counterfactual_banner,
    describe,
    import_problem_items,
    part_badges,
    record_pairs,
    record_sentence,
    records_view,
    run_notes,
    strategy_facts,
    truncation,
)
from footprint_lab.messages import storable_text

__all__ = [
    "RECORD_TABLE_COLUMNS",
    "VISITS_LISTED",
    "FigureDivs",
    "Report",
    "boundary_anchor",
    "import_problems_html",
    "part_badges",
    "render_report",
    "write_captured_report",
    "write_report",
    "write_run_report",
]

DEFAULT_REPORT_NAME = "footprint-report.html"
"""The file name the CLI writes by default."""

TABLE_MAX_ROWS = 400
"""A record table shows at most this many rows (the first ones), and says so."""

RECORD_CARDS_SHOWN = 50
"""Records shown in full per run (the first ones), under its record table."""

VISITS_LISTED = 400
"""Visits of a strategy listed in words per run (the first ones), and says so."""

VISITS_OPEN = 20
"""A run's list of visits in words is unfolded when it has at most this many."""

SUMMARY_TABLE_COLUMNS: dict[str, str] = spec("report_summary").headers()
"""The :func:`~footprint_lab.lab.summary.run_summary` keys in the summary table, and their
headings (the ``report_summary`` spec)."""

_PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}
_DEFAULT_FIGURE_HEIGHT = 440

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


class FigureDivs:
    """Numbers figure divs and gives plotly.js with the first one only: inlined (``plotlyjs``
    True, the single-file report) or as a ``<script src>`` of that path (a ``.js`` path
    relative to the page: the pages of a corpus report share one copy)."""

    def __init__(self, plotlyjs: bool | str = True) -> None:
        self.count = 0
        self.plotlyjs = plotlyjs

    def html(self, fig: go.Figure) -> str:
        self.count += 1
        height = fig.layout.height or _DEFAULT_FIGURE_HEIGHT
        div: str = pio.to_html(
            fig,
            include_plotlyjs=self.plotlyjs if self.count == 1 else False,
            full_html=False,
            div_id=f"footprint-figure-{self.count}",
            config=_PLOTLY_CONFIG,
            default_height=f"{height}px",
            validate=False,
        )
        return div


def _frames(value: RunLike, label: str) -> Frames:
    return value if isinstance(value, Frames) else capture(value, label=label)


def _replayed(frames: Frames) -> bool:
    return bool(frames.info.get("counterfactual"))


def _summary_table(by_strategy: Mapping[str, Frames], sources: Mapping[str, RunLike]) -> Any:
    rows: list[dict[str, Any]] = []
    for label, frames in by_strategy.items():
        source = sources[label]
        numbers = run_summary(source if isinstance(source, Run) else frames)
        numbers["strategy"] = label + (" (counterfactual replay)" if _replayed(frames) else "")
        rows.append(numbers)
    frame = build_frame(
        "report_summary", {key: [row[key] for row in rows] for key in SUMMARY_TABLE_COLUMNS}
    ).rename(columns=SUMMARY_TABLE_COLUMNS)
    return table_context(frame, inline=False, css_class="dataframe summary", empty="no runs")


def _identical_runs(by_strategy: Mapping[str, Frames]) -> list[str]:
    """A line for each set of runs that sent the same characters at every call (their lines
    lie on one another in the compare chart, whose legend names them too)."""
    groups: dict[tuple[Any, ...], list[str]] = {}
    for label, frames in by_strategy.items():
        calls = frames.calls
        key = (tuple(calls["iteration"].tolist()), tuple(calls["chars"].tolist()))
        if key[0]:
            groups.setdefault(key, []).append(label)
    return [
        f"{', '.join(labels[:-1])} and {labels[-1]} sent the same characters at every call: "
        "their lines lie on one another above (the later ones dotted, with markers)."
        for labels in groups.values()
        if len(labels) > 1
    ]


def _problems_context(
    problems: Sequence[ImportProblem], limit: int = IMPORT_PROBLEMS_SHOWN
) -> dict[str, Any] | None:
    if not problems:
        return None
    items, more = import_problem_items(problems, limit)
    return {"items": items, "more": more, "total": len(problems)}


def import_problems_html(
    problems: Sequence[ImportProblem], limit: int = IMPORT_PROBLEMS_SHOWN
) -> str:
    """A compact, collapsible list of what an importer found wrong (empty when nothing)."""
    context = _problems_context(problems, limit)
    if context is None:
        return ""
    return render(
        "import_problems.html.j2",
        items=context["items"],
        more=context["more"],
        total=context["total"],
    )


def _records_context(frames: Frames, source: RunLike | None) -> dict[str, Any]:
    records = frames.records
    t = table_context(
        records_view(frames),
        inline=False,
        css_class="dataframe records",
        max_rows=TABLE_MAX_ROWS,
        empty="No window records: the strategy never engaged on this run.",
        unit="records",
    )
    cards: list[tuple[Any, Any]] = []
    note = None
    if isinstance(source, Run):
        shown = source.records[:RECORD_CARDS_SHOWN]
        cards = [(record, record_pairs(record)) for record in shown]
        if len(source.records) > len(shown):
            note = f"The first {len(shown)} of {len(source.records)} records in full."
    return {"t": t, "count": len(records), "cards": cards, "cards_note": note}


def _visits_context(source: RunLike | None, limit: int = VISITS_LISTED) -> dict[str, Any] | None:
    """Every visit of the strategy in words (the first ``limit``), or None without the run."""
    if not isinstance(source, Run):
        return None
    records = source.records
    items = [
        (record.iteration, record_sentence(record, with_iteration=False))
        for record in records[:limit]
    ]
    note = None
    if len(records) > limit:
        note = f"The first {limit} of {len(records)} visits; the record table below has them all."
    return {
        "items": items,
        "count": len(records),
        "removals": sum(1 for record in records if record.removed_message_count),
        "open": len(records) <= VISITS_OPEN,
        "note": note,
    }


def _boundary_context(run_id: str, frames: Frames, source: RunLike | None) -> dict[str, Any] | None:
    """The Boundary view's context: ``id``, ``data`` (views.boundary_views, embedded as JSON),
    ``count`` of iterations it holds, the ``initial`` one and the sampling ``note``."""
    if not isinstance(source, Run):
        return None
    data = boundary_views(source, frames)
    return {
        "id": f"{run_id}--boundary",
        "data": data,
        "count": len(data["iterations"]),
        "initial": data["initial"],
        "note": data["note"],
        "text_chars": BOUNDARY_TEXT_CHARS,
    }


def _run_context(
    sid: str, label: str, frames: Frames, source: RunLike | None, figs: FigureDivs
) -> Any:
    cut = truncation(frames)
    figures = [
        figs.html(fig)
        for fig in (
            plots.window_size(frames),
            plots.window_map(frames),
            plots.pins_timeline(frames),
            plots.refusals_by_reason(frames),
        )
    ]
    run_id = f"{sid}--{_slug(label)}"
    return {
        "id": run_id,
        "label": label,
        "replayed": _replayed(frames),
        "truncated": 0 if cut is None else cut.total,
        "status": str(frames.info.get("status")),
        "knobs": strategy_facts(frames, source),
        "error": frames.info.get("error"),
        "banner": counterfactual_banner(frames.info),
        "notes": run_notes(frames.info),
        "truncation": cut,
        "problems": _problems_context(source.import_problems) if isinstance(source, Run) else None,
        "figures": figures,
        "visits": _visits_context(source),
        "compactions": compactions_view(source) if isinstance(source, Run) else None,
        "boundary": _boundary_context(run_id, frames, source),
        "records": _records_context(frames, source),
    }


Entry = tuple[RunLike, Frames]
"""What a run of the report is drawn from: what was given (a run or frames) and its frames."""


def _parting(sources: Mapping[str, object]) -> list[str]:
    """Where each run of a section parts from the first (as Compare says it), when the
    section compares two runs or more and has every run (a capture alone cannot say)."""
    runs = {label: run for label, run in sources.items() if isinstance(run, Run)}
    if len(runs) < 2 or len(runs) != len(sources):
        return []
    return parting_lines(parting_frame(runs))


def _render(
    sections_in: Mapping[str, Mapping[str, Entry]], title: str, plotlyjs: bool | str = True
) -> Report:
    figs = FigureDivs(plotlyjs)
    sections: list[dict[str, Any]] = []
    for scenario, entries in sections_in.items():
        sid = _slug(scenario)
        sources = {label: source for label, (source, _) in entries.items()}
        by_strategy = {label: frames for label, (_, frames) in entries.items()}
        requests = sorted({str(f.info.get("request") or "") for f in by_strategy.values()})
        section: dict[str, Any] = {
            "id": sid,
            "name": scenario,
            "requests": " / ".join(requests) if requests and requests[0] else "",
            "figure": figs.html(plots.compare(by_strategy)) if by_strategy else None,
            "identical": _identical_runs(by_strategy),
            "summary": _summary_table(by_strategy, sources) if by_strategy else None,
            "parting": _parting(sources),
        }
        section["runs"] = [
            _run_context(sid, label, f, sources.get(label), figs)
            for label, f in by_strategy.items()
        ]
        sections.append(section)
    boundaries = any(run["boundary"] for section in sections for run in section["runs"])
    doc = render(
        "report.html.j2",
        title=title,
        sections=sections,
        reasons=REFUSAL_MEANINGS,
        states=STATE_MEANINGS,
        boundaries=boundaries,
        boundary_css=boundary_css() if boundaries else "",
        boundary_js=boundary_script() if boundaries else "",
        **page_theme_context(),
    )
    return Report(html=doc, figures=figs.count, sections=[str(s["name"]) for s in sections])


def render_report(
    runs: Mapping[str, Mapping[str, RunLike]],
    *,
    title: str = "footprint_lab — context window report",
) -> Report:
    """Render the report for ``{scenario: {strategy label: run or frames}}`` (see module)."""
    entries: dict[str, dict[str, Entry]] = {}
    for scenario, by_strategy_runs in runs.items():
        entries[storable_text(scenario)] = {
            storable_text(str(label)): (run, _frames(run, str(label)))
            for label, run in by_strategy_runs.items()
        }
    return _render(entries, storable_text(title))


def _write(report: Report, path: str | os.PathLike[str]) -> Path:
    out = Path(path)
    if out.parent != Path():
        out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.html, encoding="utf-8")
    return out


def write_report(
    runs: Mapping[str, Mapping[str, RunLike]],
    path: str | os.PathLike[str] = DEFAULT_REPORT_NAME,
    *,
    title: str = "footprint_lab — context window report",
) -> Path:
    """Write the standalone HTML report for ``{scenario: {strategy label: run}}`` to ``path``
    (parent folders are created) and return the path.

    Values may also be :class:`~footprint_lab.lab.Frames` already captured (their report has
    no Boundary view and no visits in words: those need the run's ledger and records).
    """
    return _write(render_report(runs, title=title), path)


def write_captured_report(
    runs: Mapping[str, Mapping[str, tuple[Run, Frames]]],
    path: str | os.PathLike[str],
    *,
    title: str,
    plotlyjs: bool | str = True,
) -> Path:
    """Write the report of ``{section: {label: (run, its capture)}}`` to ``path`` and return
    the path: :func:`write_report` for runs already captured (a widget's), so nothing is
    captured twice and every run keeps its Boundary view and visits in words. What a widget's
    ``to_html(path)`` writes. ``plotlyjs`` as :func:`write_run_report` takes it.

    Raises:
        ValueError: no runs.
    """
    if not any(runs.values()):
        raise ValueError("a report needs at least one run")
    entries = {
        storable_text(section): {
            storable_text(str(label)): entry for label, entry in by_label.items()
        }
        for section, by_label in runs.items()
    }
    return _write(_render(entries, storable_text(title), plotlyjs), path)


def _run_names(run: Run, label: str | None, frames: Frames | None) -> tuple[str, str]:
    """The scenario and the label a run's own report files it under."""
    name = label or (frames.info.get("label") if frames is not None else None)
    name = storable_text(str(name or run.strategy or "no strategy"))
    return storable_text(str(run.meta.get("scenario") or "run")), name


def boundary_anchor(run: Run, *, label: str | None = None, frames: Frames | None = None) -> str:
    """The id of the Boundary view in the page :func:`write_run_report` writes for ``run``
    (with the same ``label`` and ``frames``): ``page.html#<id>`` opens the page at it."""
    scenario, name = _run_names(run, label, frames)
    return f"{_slug(scenario)}--{_slug(name)}--boundary"


def write_run_report(
    run: Run,
    path: str | os.PathLike[str],
    *,
    label: str | None = None,
    frames: Frames | None = None,
    title: str | None = None,
    plotlyjs: bool | str = True,
) -> Path:
    """Write the report of one run to ``path`` and return the path: what
    ``Inspector(run).to_html(path)`` writes — the overview (summary table, window size,
    records), the window map, the pins, the refusals, the visits in words and the Boundary
    view with its slider, in one offline file.

    Args:
        run: The run.
        path: Where to write it (parent folders are created).
        label: Its name in the report (default: the frames' label, else its strategy).
        frames: Its capture, when there is one already (the Inspector's); else captured here.
        title: The page title (default: ``Inspector — <scenario · label · status>``).
        plotlyjs: True to inline plotly.js (one self-contained file), or the path of a copy
            of it relative to the page (``"plotly.min.js"``), for pages that share one.
    """
    scenario, name = _run_names(run, label, frames)
    captured = frames if frames is not None else capture(run, label=name)
    heading = title or f"Inspector — {describe(run, captured)}"
    return write_captured_report(
        {scenario: {name: (run, captured)}}, path, title=heading, plotlyjs=plotlyjs
    )
