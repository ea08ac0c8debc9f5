"""Rendering: autoescape everywhere, one record rendering, one run summary."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from footprint_lab import (
    Agent,
    Reply,
    Run,
    ScriptedProvider,
    ask_human,
    replay,
    sliding_window,
    sweep,
    tool,
)
from footprint_lab import cli as footprint_cli
from footprint_lab.lab import Compare, Inspector, Tuner, capture, key_numbers, run_summary
from footprint_lab.lab.render import ENV, boundary_script, render
from footprint_lab.lab.report import render_report
from footprint_lab.lab.summary import RUN_SUMMARY_KEYS, SUMMARY_COLUMNS
from footprint_lab.lab.views import record_pairs, record_text
from footprint_lab.lab.widgets._html import records_html
from footprint_lab.scenarios import deploy_audit
from footprint_lab.sweeps import run_configuration, summarize_run
from tests.lab.test_report_boundary import embedded

SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
LAB = Path(__file__).parents[2] / "footprint_lab" / "lab"


@tool
def lookup(key: str) -> str:
    """Look something up."""
    return f"{SCRIPT} {key}: " + "value " * 40


@pytest.fixture(scope="module")
def hostile_run() -> Run:
    """A run whose request, tool results and answer are all a script tag."""
    provider = ScriptedProvider(
        [
            Reply.tool_call("lookup", key="a"),
            Reply.tool_call("lookup", key="b"),
            Reply.tool_call("lookup", key="c"),
            Reply.text(SCRIPT),
        ]
    )
    agent = Agent.create(provider=provider).tools(lookup).window(sliding_window(1)).build()
    run = agent.run(SCRIPT)
    assert run.status == "done" and any(r.removed_message_count for r in run.records)
    return run


@pytest.fixture(scope="module")
def audit_run() -> Run:
    scenario = deploy_audit()
    return scenario.run(scenario.strategies()["sliding-window"])


# -- autoescape -------------------------------------------------------------------------------


def test_the_environment_autoescapes() -> None:
    assert ENV.autoescape is True
    assert render("note.html.j2", text=SCRIPT, strong=SCRIPT, tone="plain").count(ESCAPED) == 2


def test_a_script_in_a_message_is_escaped_in_the_report(hostile_run: Run) -> None:
    page = render_report({SCRIPT: {SCRIPT: hostile_run}}).html
    assert SCRIPT not in page
    assert f"<h2>{ESCAPED}</h2>" in page and f"<q>{ESCAPED}</q>" in page
    assert f"<h3>{ESCAPED}</h3>" in page


def test_a_script_in_a_message_is_escaped_in_the_inspector(hostile_run: Run) -> None:
    insp = Inspector(hostile_run, label=SCRIPT)
    assert insp.iterations
    for iteration in insp.iterations:
        insp.slider.value = iteration
        # the pane holds the script as data (its JSON), which boundary.js writes as text only
        texts = [m.text for m in insp.boundary.messages]
        assert any(SCRIPT in text for text in texts)
        static = insp._static_boundary()  # the snapshot's tables: escaped
        assert SCRIPT not in static and ESCAPED in static
    script = boundary_script()
    for writes_markup in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert writes_markup not in script
    assert SCRIPT not in insp.overview_html.value and ESCAPED in insp.overview_html.value
    assert SCRIPT not in insp.children[0].value and ESCAPED in insp.children[0].value


def test_a_script_in_the_records_table_is_escaped(hostile_run: Run) -> None:
    frames = capture(hostile_run)
    frames.records["notice"] = frames.records["notice"].astype(object)
    frames.records.loc[0, "notice"] = SCRIPT
    widget_table = records_html(frames)
    report_page = render_report({"s": {"frames": frames}}).html
    for html in (widget_table, report_page):
        assert SCRIPT not in html and ESCAPED in html


def test_no_html_is_assembled_in_python() -> None:
    tag = re.compile(r"""f?["']<[a-zA-Z/!]""")
    sources = [
        LAB / "views.py",
        LAB / "summary.py",
        LAB / "report.py",
        *(LAB / "render").glob("*.py"),
        *(LAB / "widgets").glob("*.py"),
    ]
    for path in sources:
        assert not tag.search(path.read_text(encoding="utf-8")), path


def test_templates_ship_inside_the_package() -> None:
    names = set(ENV.list_templates())
    for name in (
        "report.html.j2",
        "run_section.html.j2",
        "records_table.html.j2",
        "kv_table.html.j2",
        "messages_table.html.j2",
        "import_problems.html.j2",
        "counterfactual.html.j2",
        "record.html.j2",
    ):
        assert name in names
        assert (LAB / "render" / "templates" / name).is_file()


# -- one record rendering ---------------------------------------------------------------------

_RECORD = re.compile(r'<table class="window-record" data-iteration="(\d+)".*?</table>', re.DOTALL)


def _fragments(html: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for match in _RECORD.finditer(html):
        found.setdefault(int(match.group(1)), []).append(match.group(0))
    return found


def test_a_record_renders_the_same_in_the_report_and_the_inspector(audit_run: Run) -> None:
    html = render_report({"audit": {"sliding": audit_run}}).html
    page = _fragments(html)
    (boundary,) = embedded(html).values()
    in_report = {step["iteration"]: step["records"] for step in boundary["iterations"]}
    insp = Inspector(audit_run)
    assert audit_run.records
    for record in audit_run.records:
        alone = render("record.html.j2", record=record, pairs=record_pairs(record)).strip()
        assert alone in page[record.iteration]
        assert f"{record.window_chars_before} → {record.window_chars_after}" in alone
        # the Inspector's Boundary pane holds the records of the report's Boundary view
        insp.slider.value = record.iteration
        (step,) = insp.boundary.model_dump(mode="json")["iterations"]
        assert step["records"] == in_report[record.iteration]
    # the report holds each record once, in full
    assert sum(len(v) for v in page.values()) == len(audit_run.records)


def test_only_the_record_template_renders_a_record() -> None:
    templates = LAB / "render" / "templates"
    owners = [
        p.name for p in templates.glob("*.j2") if 'class="window-record"' in p.read_text("utf-8")
    ]
    assert owners == ["record.html.j2"]
    including = sorted(
        p.name for p in templates.glob("*.j2") if '"record.html.j2"' in p.read_text("utf-8")
    )
    assert including == ["records_table.html.j2"]


def test_the_cli_prints_the_records_text_form(audit_run: Run) -> None:
    lines = footprint_cli.run_lines("sliding", audit_run)
    text = " ".join(" ".join(lines).split())
    for record in audit_run.records:  # wrapped to the terminal's width: the same words
        assert " ".join(record_text(record).split()) in text
    assert footprint_cli.format_record(audit_run.records[0]) == record_text(audit_run.records[0])


# -- one run summary --------------------------------------------------------------------------


def _paused_run() -> Run:
    provider = ScriptedProvider(
        [
            Reply.tool_call("lookup", key="a"),
            Reply.tool_call("ask_human", question="which?"),
            Reply.text("blue"),
        ]
    )
    agent = Agent.create(provider=provider).tools(lookup, ask_human).window(sliding_window(1))
    run = agent.build().run("pick")
    assert run.status == "paused"
    return run


def test_run_summary_is_key_numbers_and_the_sweep_row(audit_run: Run) -> None:
    numbers = run_summary(audit_run)
    assert tuple(numbers) == RUN_SUMMARY_KEYS
    assert summarize_run(audit_run) == numbers
    assert key_numbers(audit_run) == {name: numbers[name] for name in SUMMARY_COLUMNS}
    assert numbers["final_window_chars"] == audit_run.calls[-1].chars
    assert numbers["input_tokens"] == sum(c.usage.input_tokens for c in audit_run.calls if c.usage)
    assert Inspector(audit_run).numbers == key_numbers(audit_run)
    assert Tuner("deploy-audit", "sliding-window").numbers == key_numbers(audit_run)
    assert Compare({"a": audit_run}).summary.loc["a"].to_dict() == key_numbers(audit_run)


def test_sweep_rows_are_run_summaries() -> None:
    scenario = deploy_audit()

    def factory(keep_recent_turns: int) -> Any:
        return sliding_window(keep_recent_turns)

    grid = {"keep_recent_turns": [1, 3], "keep_last_tool_results": [0, 2]}
    with ThreadPoolExecutor(max_workers=2) as pool:
        frame = sweep(scenario, factory, grid, executor=pool, progress=False)
    for row in frame.to_dict("records"):
        config = {k: row[k] for k in grid}
        expected = run_summary(run_configuration(scenario, factory, config))
        assert {k: row[k] for k in expected} == expected


def test_run_summary_of_a_capture_is_the_same(
    scenario_runs: dict[tuple[str, str], Run], audit_run: Run
) -> None:
    runs = [*scenario_runs.values(), _paused_run(), replay(audit_run, sliding_window(1))]
    for run in runs:
        assert run_summary(capture(run)) == run_summary(run), run.meta.get("scenario")


def test_the_report_summary_table_shows_run_summary(audit_run: Run) -> None:
    numbers = run_summary(audit_run)
    for source in (audit_run, capture(audit_run)):
        page = render_report({"audit": {"sliding": source}}).html
        table = page[page.index('<table class="dataframe summary">') :]
        row = re.search(r"<tr><td>sliding</td>(.*?)</tr>", table, re.DOTALL)
        assert row is not None
        cells = re.findall(r"<td>(.*?)</td>", row.group(1))
        assert cells == [
            str(numbers[k])
            for k in (
                "status",
                "iterations",
                "calls",
                "records",
                "removed_messages",
                "refusals",
                "pins",
                "peak_window_chars",
                "final_window_chars",
                "input_tokens",
                "tokens_from",
            )
        ]


# -- a table's cells --------------------------------------------------------------------------

_CELLS_AS_THE_TEMPLATE_LOOPED = (
    "{% for row in t.rows %}<tr>"
    "{%- for v in row %}{% set wrap = t.wrap is defined and t.wrap[loop.index0] %}"
    '<td{% if v.full is defined %} title="{{ v.full }}"{% endif %}'
    '{% if t.inline %} style="{{ styles.cell_text if wrap else styles.cell if loop.last '
    'else styles.cell_nowrap }}"{% elif wrap %} style="{{ styles.text }}"{% endif %}>'
    "{{ v|cell }}</td>{% endfor -%}</tr>\n{% endfor %}"
)
"""How the ``table`` macro wrote each cell before ``row_cells`` decided them in Python."""

_CELLS_NOW = (
    "{% for row in t.rows %}<tr>"
    "{%- for titled, title, style, v in row_cells(t, row) %}"
    '<td{% if titled %} title="{{ title }}"{% endif %}{% if style %} style="{{ style }}"'
    "{% endif %}>{{ v }}</td>{% endfor -%}</tr>\n{% endfor %}"
)
"""The cells as ``_macros.html.j2`` writes them now."""


class _Full:
    """A cell value with a ``full`` that is None (the template titled it "None")."""

    full = None

    def __str__(self) -> str:
        return "<odd & value>"


def test_a_tables_cells_are_what_the_template_wrote_cell_by_cell(
    scenario_runs: dict[tuple[str, str], Run],
) -> None:
    from footprint_lab.lab.render import table_context
    from footprint_lab.lab.views import records_view

    odd = pd.DataFrame(
        {
            "text": ["a < b & 'c'", SCRIPT, None],
            "number": pd.array([1, None, 3], dtype="Int64"),
            "ratio": [0.5, float("nan"), 2.0],
            "flag": pd.array([True, None, False], dtype="boolean"),
            "numpy": np.array([1, 2, 3], dtype=np.int64),
            "full": [_Full(), {"full": "a dict's"}, ["a", "list"]],
        }
    )
    frames = [odd]
    for run in list(scenario_runs.values())[:8]:
        captured = capture(run)
        frames += [records_view(captured), captured.messages, captured.calls]
    before, now = ENV.from_string(_CELLS_AS_THE_TEMPLATE_LOOPED), ENV.from_string(_CELLS_NOW)
    for frame in frames:
        for inline in (True, False):
            t = table_context(frame, inline=inline)
            assert now.render(t=t) == before.render(t=t)
    abridged = records_view(capture(next(iter(scenario_runs.values()))))
    assert "title=" in now.render(t=table_context(abridged)) or not len(abridged)
