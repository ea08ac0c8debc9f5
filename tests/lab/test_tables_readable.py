"""Tables people can read: in JupyterLab's dark theme as in the light one, with human headers,
blank cells for missing facts, and at any width (a table scrolls in its own box and long text
wraps, so at 1,000 px a boundary table shows its messages without horizontal scrolling).

The browser checks use Playwright driving the system Chromium (/usr/bin/chromium), like
``test_report_browser.py``; a missing browser fails them instead of skipping.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jupyterlab
import pandas as pd
import pytest

from footprint_lab import Agent, Reply, Run, ScriptedProvider, sliding_window, tool
from footprint_lab.lab import Inspector, capture
from footprint_lab.lab.render import render, table_context
from footprint_lab.lab.report import render_report
from footprint_lab.lab.schema import COLUMN_HEADERS, SCHEMAS
from footprint_lab.lab.views import RECORD_TABLE_COLUMNS, record_pairs
from footprint_lab.lab.widgets._html import records_html
from tests.chromium import COLOR_JS
from tests.lab.conftest import pane_html

THEMES = Path(jupyterlab.__file__).parent / "themes" / "@jupyterlab"

TOKEN = "https://example.org/artifacts/" + "a1b2c3d4" * 12
"""A long unbroken token (a URL, a hash) in a tool result: it can only wrap anywhere."""


@tool
def fetch(key: str) -> str:
    """Fetch an artifact."""
    return f"{key}: {TOKEN}"


@pytest.fixture(scope="module")
def long_run() -> Run:
    """A run whose tool results hold long unbroken tokens, trimmed by sliding_window(1)."""
    replies = [Reply.tool_call("fetch", key=k) for k in ("a", "b", "c", "d")] + [Reply.text("ok")]
    agent = (
        Agent.create(provider=ScriptedProvider(replies))
        .tools(fetch)
        .window(sliding_window(keep_recent_turns=1))
        .build()
    )
    run = agent.run("fetch the artifacts")
    assert run.status == "done" and any(r.removed_message_count for r in run.records)
    return run


def jupyter_page(browser: Any, body: str, *, theme: str = "light", width: int = 1000) -> Any:
    """A page like a JupyterLab output area of ``width`` px in ``theme`` showing ``body``."""
    css = (THEMES / f"theme-{theme}-extension" / "index.css").read_text(encoding="utf-8")
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_content(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        + css
        + "</style><style>html, body { margin: 0; padding: 0; }"
        " body { background: var(--jp-layout-color0); color: var(--jp-content-font-color1);"
        " font-family: var(--jp-content-font-family); }</style></head><body>"
        + body
        + "</body></html>"
    )
    return page


_CONTRAST_JS = (
    "() => {"
    + COLOR_JS
    + """
  const out = [];
  for (const el of document.querySelectorAll('th, td')) {
    if (!el.textContent.trim()) continue;
    const bg = background(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    out.push({tag: el.tagName, text: el.textContent.slice(0, 30), ratio: ratio(fg, bg)});
  }
  return out;
}
"""
)


def _removing_inspector(run: Run) -> Inspector:
    """An Inspector of ``run`` at its first removal."""
    inspector = Inspector(run)
    inspector.slider.value = next(r.iteration for r in run.records if r.removed_message_count)
    return inspector


def _notebook_tables(run: Run) -> str:
    """The tables a notebook shows of ``run`` in inline-styled HTML: the records table, the
    Inspector's overview and its snapshot's boundary tables (the live Boundary pane is
    rendered by boundary.js in the page: :func:`pane_html`)."""
    inspector = _removing_inspector(run)
    return "\n".join(
        [
            records_html(capture(run)),
            inspector._static_boundary(),
            inspector.overview_html.value,
        ]
    )


_STYLE = re.compile(r'<(table|th|td)\b[^>]*?style="([^"]*)"')
_HEX = re.compile(r"#[0-9A-Fa-f]{3,8}\b")


_THEMED = re.compile(r"var\(--jp-[a-z0-9-]+, #[0-9A-Fa-f]{3,8}\)")


def test_table_colours_name_jupyterlab_theme_variables_first(long_run: Run) -> None:
    html = _notebook_tables(long_run)
    styled = _STYLE.findall(html)
    assert len(styled) > 20
    for tag, style in styled:
        # every colour a table, header or cell sets is a theme variable, the palette's colour
        # only its fallback
        assert not _HEX.search(_THEMED.sub("", style)), (tag, style)
    colours = {m.group(0).split(",")[0] for _, style in styled for m in _THEMED.finditer(style)}
    assert {
        "var(--jp-ui-font-color1",
        "var(--jp-layout-color1",
        "var(--jp-layout-color2",
        "var(--jp-border-color2",
    } <= colours


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_table_cell_is_readable_in_the_theme(browser: Any, long_run: Run, theme: str) -> None:
    pane = pane_html(_removing_inspector(long_run).boundary)
    page = jupyter_page(browser, _notebook_tables(long_run) + pane, theme=theme)
    try:
        page.wait_for_selector("#pane table.boundary-sent tbody tr", state="attached")
        cells = page.evaluate(_CONTRAST_JS)
        in_pane = page.evaluate("() => document.querySelectorAll('#pane td').length")
    finally:
        page.close()
    assert len(cells) > 20 and in_pane > 10
    poor = [c for c in cells if c["ratio"] < 4.5]
    assert poor == [], poor[:5]


def test_record_tables_have_human_headers_from_one_mapping(long_run: Run) -> None:
    frames = capture(long_run)
    assert set(SCHEMAS["records"]) <= set(COLUMN_HEADERS)
    widget = records_html(frames)
    report = render_report({"s": {"sliding": long_run}}).html
    report_records = report[report.index('<table class="dataframe records">') :]
    for html in (widget, report_records):
        headers = re.findall(r"<th\b[^>]*>([^<]*)</th>", html)[: len(RECORD_TABLE_COLUMNS)]
        assert headers == [COLUMN_HEADERS[c] for c in RECORD_TABLE_COLUMNS]
        for expected in ("Iteration", "Messages removed", "Chars before", "Refusal reasons"):
            assert f">{expected}</th>" in html
        assert ">removed_message_count</th>" not in html
        assert 'title="removed_message_count"' in html  # the column's name is the tooltip


def test_missing_facts_are_blank_cells(long_run: Run) -> None:
    frames = capture(long_run)
    records = frames.records
    assert records["measured_tokens"].isna().all()  # sliding_window measures no tokens
    html = records_html(frames)
    rows = re.findall(r"<tr\b[^>]*>(.*?)</tr>", html, re.DOTALL)[1:]
    assert len(rows) == len(records)
    measured = RECORD_TABLE_COLUMNS.index("measured_tokens")
    for row in rows:
        cells = re.findall(r"<td\b[^>]*>(.*?)</td>", row, re.DOTALL)
        assert len(cells) == len(RECORD_TABLE_COLUMNS)
        assert cells[measured] == ""
        for text in cells:
            assert text not in ("&lt;NA&gt;", "None", "nan", "NaN", "NaT", "–"), cells
    frame = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": [None, float("nan")]})
    table = render("table.html.j2", t=table_context(frame))
    assert re.findall(r"<td\b[^>]*>(.*?)</td>", table) == ["1", "", "", ""]


def test_tables_scroll_inside_their_own_box(long_run: Run) -> None:
    html = _notebook_tables(long_run)
    tables = html.count("<table")
    boxes = re.findall(r'<div class="table-scroll" style="([^"]*)">\s*<table', html)
    assert boxes and len(boxes) >= 3  # records, sent, left (key-value cards are narrow)
    for style in boxes:
        assert "overflow: auto" in style and "max-height:" in style and "max-width: 100%" in style
    assert tables >= len(boxes)


def test_long_message_text_wraps_in_the_boundary_table(long_run: Run) -> None:
    inspector = Inspector(long_run)
    inspector.slider.value = inspector.iterations[-1]
    html = inspector._static_boundary()
    assert TOKEN[:40] in html
    preview = re.search(r'<td style="([^"]*)">[^<]*' + re.escape(TOKEN[:40]), html)
    assert preview is not None
    assert "overflow-wrap: anywhere" in preview.group(1)
    assert "white-space: pre-wrap" in preview.group(1)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_boundary_table_fits_1000_px_without_horizontal_scrolling(
    browser: Any, long_run: Run, theme: str
) -> None:
    inspector = Inspector(long_run)
    inspector.slider.value = inspector.iterations[-1]
    html = inspector._static_boundary() + pane_html(inspector.boundary)
    page = jupyter_page(browser, html, theme=theme, width=1000)
    try:
        page.wait_for_selector("#pane table.boundary-sent tbody tr", state="attached")
        found = page.evaluate(
            """(token) => {
              const doc = document.documentElement;
              const boxes = [...document.querySelectorAll('.table-scroll, .boundary-scroll')].map(
                (b) => ({scroll: b.scrollWidth, client: b.clientWidth}));
              const cells = [...document.querySelectorAll('td')]
                .filter((td) => td.textContent.includes(token))
                .map((td) => ({scroll: td.scrollWidth, client: td.clientWidth,
                               right: td.getBoundingClientRect().right,
                               pane: td.closest('#pane') !== null}));
              return {page: doc.scrollWidth, width: doc.clientWidth, boxes, cells};
            }""",
            TOKEN[:40],
        )
    finally:
        page.close()
    assert found["page"] <= found["width"] <= 1000
    assert found["boxes"] and all(b["scroll"] <= b["client"] for b in found["boxes"])
    assert any(c["pane"] for c in found["cells"]) and not all(c["pane"] for c in found["cells"])
    for cell in found["cells"]:
        assert cell["scroll"] <= cell["client"] and cell["right"] <= 1000, cell


def test_the_record_card_wraps_long_values(long_run: Run) -> None:
    record = next(r for r in long_run.records if r.removed_message_count)
    html = render("record.html.j2", record=record, pairs=record_pairs(record))
    values = re.findall(r'<td style="([^"]*)">', html)
    assert values and all("overflow-wrap: anywhere" in v for v in values)
