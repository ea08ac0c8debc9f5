"""Short reprs and notebook HTML: ``Run``, ``Ledger``, ``WindowRecord`` and ``Frames`` print
as one line and show a small table in a notebook, escaped, from templates; the core's HTML
comes from the bottom layer (``footprint_lab._repr``), which imports nothing of the package
and loads Jinja2 only when asked for HTML."""

from __future__ import annotations

import ast
import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

import footprint_lab
from footprint_lab import (
    Agent,
    Ledger,
    Reply,
    Run,
    ScriptedProvider,
    WindowRecord,
    sliding_window,
    tool,
)

SCRIPT = "<script>alert(1)</script>"
ESCAPED = html.escape(SCRIPT)


@tool
def lookup(key: str) -> str:
    """Look something up."""
    return f"{key}: " + "value " * 40


@pytest.fixture(scope="module")
def run() -> Run:
    replies = [Reply.tool_call("lookup", key=k) for k in "abc"] + [Reply.text(SCRIPT)]
    agent = (
        Agent.create(provider=ScriptedProvider(replies))
        .tools(lookup)
        .window(sliding_window(keep_recent_turns=1))
        .build()
    )
    done = agent.run(SCRIPT)
    assert done.status == "done" and any(r.removed_message_count for r in done.records)
    return done


def _one_line(text: str) -> None:
    assert "\n" not in text and text.startswith("<") and text.endswith(">")
    assert len(text) < 400


def test_a_run_prints_as_one_line(run: Run) -> None:
    text = repr(run)
    _one_line(text)
    assert text == (
        f"<Run done · {run.iterations} iterations · {len(run.records)} records · "
        f"{len(run.ledger.messages)} messages · scripted/sliding-window>"
    )
    assert SCRIPT not in text  # the request is not in the line
    empty = Run(request="x", ledger=Ledger(), iterations=1)
    assert repr(empty) == "<Run done · 1 iteration · 0 records · 0 messages · no strategy>"
    failed = Run(request="x", ledger=Ledger(), status="error", error=ValueError("no"))
    assert repr(failed).startswith("<Run error (ValueError) · ")


def test_a_ledger_prints_as_one_line(run: Run) -> None:
    ledger = run.ledger
    _one_line(repr(ledger))
    assert repr(ledger) == (
        f"<Ledger {len(ledger):,} commits · {len(ledger.messages):,} messages · "
        f"{ledger.stage_count:,} stages>"
    )
    assert repr(Ledger()) == "<Ledger 0 commits · 0 messages · 0 stages>"


def test_a_record_prints_as_one_line_and_stays_a_pydantic_model(run: Run) -> None:
    record = next(r for r in run.records if r.removed_message_count)
    text = repr(record)
    _one_line(text)
    assert text.startswith(f"<WindowRecord iteration {record.iteration} · sliding-window · ")
    assert (
        f"removed {record.removed_message_count} "
        f"({record.window_chars_before:,} → {record.window_chars_after:,} chars)" in text
    )
    n = len(record.refusals)
    assert (f"· {n} refusal{'s' if n != 1 else ''}" in text) == bool(n)
    # the model is untouched: dump, equality, copies, str
    again = WindowRecord(**record.model_dump())
    # given_commit is the ledger's fact, never dumped (a loaded run reads it back from there)
    assert record.given_commit is not None and again.given_commit is None
    assert again == record.model_copy(update={"given_commit": None})
    assert record.model_copy(update={"forced": True}) != record
    assert "forced" in repr(record.model_copy(update={"forced": True}))
    assert str(record).startswith("strategy='sliding-window' iteration=")
    # forked is dumped only when True, and the facts of the providers' policies and their
    # twins only when set (a file from before them saves byte for byte)
    only_when_set = {
        "forked",
        "measured_request",
        "server_edits",
        "keep_thinking_turns",
        "clear_at_least_tokens",
        "cleared_tokens",
    }
    assert set(record.model_dump()) == set(WindowRecord.model_fields) - {
        "given_commit",
        *only_when_set,
    }
    splice = record.model_copy(update={"forked": True})
    assert splice.model_dump()["forked"] is True and "forked" in repr(splice)
    bare = WindowRecord(strategy="mine", iteration=2, window_chars_before=1204)
    assert repr(bare) == "<WindowRecord iteration 2 · mine · removed 0 (1,204 → 0 chars)>"
    assert repr([bare]) == f"[{bare!r}]"


def test_frames_print_as_one_line(run: Run) -> None:
    from footprint_lab.lab import Frames, capture, capture_many

    frames = capture(run, label="sliding")
    text = repr(frames)
    _one_line(text)
    assert text.startswith("<Frames 'sliding': records ")
    for name in Frames.NAMES:
        rows = len(frames[name])
        assert f"{name} {rows:,} row{'' if rows == 1 else 's'}" in text
    assert f"({frames.membership_mode})" in text
    stacked = capture_many({"a": frames, "b": frames})
    assert repr(stacked).startswith("<Frames of 2 runs: records ")
    assert repr(Frames.empty()).startswith("<Frames: records 0 rows, ")


def _table_rows(page: str) -> dict[str, str]:
    cells = re.findall(r"<tr><th[^>]*>(.*?)</th>\s*<td[^>]*>(.*?)</td></tr>", page, re.DOTALL)
    return dict(cells)


def test_the_core_objects_show_a_small_escaped_table(run: Run) -> None:
    record = next(r for r in run.records if r.removed_message_count)
    for obj in (run, run.ledger, record):
        page = obj._repr_html_()
        assert html.escape(repr(obj)) in page  # the one line heads the table
        assert page.count("<table") == 1 and "<th" in page and "<td" in page
        assert SCRIPT not in page  # autoescaped
        assert "var(--jp-border-color2, " in page and "var(--jp-layout-color2, " in page
    rows = _table_rows(run._repr_html_())
    assert rows["status"] == "done" and rows["request"] == ESCAPED
    assert rows["output"] == ESCAPED
    assert rows["records"] == str(len(run.records))
    assert rows["strategy"] == "sliding-window"
    ledger = _table_rows(run.ledger._repr_html_())
    assert ledger["commits"] == f"{len(run.ledger):,}"
    assert ledger["messages"] == f"{len(run.ledger.messages):,}"
    card = _table_rows(record._repr_html_())
    assert card["iteration"] == str(record.iteration)
    assert card["removed stage ids"] == ", ".join(record.removed_stage_ids)
    assert card["chars"] == f"{record.window_chars_before:,} → {record.window_chars_after:,}"
    for reason in {r.reason for r in record.refusals}:
        assert reason in card["refusals"]


def test_frames_show_a_table_of_their_frames(run: Run) -> None:
    from footprint_lab.lab import Frames, capture

    frames = capture(run, label=SCRIPT)
    page = frames._repr_html_()
    assert SCRIPT not in page and ESCAPED in page
    for name in Frames.NAMES:
        assert f"<code>{name}</code>" in page
    rows = re.findall(r"<tr[^>]*><td[^>]*><code>(\w+)</code></td><td[^>]*>([\d,]+)</td>", page)
    assert {name: int(n.replace(",", "")) for name, n in rows} == {
        name: len(frames[name]) for name in Frames.NAMES
    }
    assert "var(--jp-ui-font-color1, " in page


def test_the_repr_module_is_bottom_layer_and_loads_jinja_lazily() -> None:
    source = Path(footprint_lab.__file__).with_name("_repr.py")
    tree = ast.parse(source.read_text(encoding="utf-8"))
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not {m for m in imported if m.startswith("footprint_lab")}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from footprint_lab import Ledger, Run, WindowRecord\n"
            "r = WindowRecord(strategy='s', iteration=1)\n"
            "line = repr(r) + repr(Ledger()) + repr(Run(request='x', ledger=Ledger()))\n"
            "assert 'jinja2' not in sys.modules, 'a repr imported jinja2'\n"
            "page = r._repr_html_()\n"
            "assert 'jinja2' in sys.modules and '<table' in page\n"
            "print('ok')\n",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.strip() == "ok", done.stderr
