"""Notebook hygiene: the committed notebooks run in the project's kernel, check their numbers,
and carry no volatile or private facts in their outputs.

nbval (``pytest --nbval-lax notebooks/``) runs them and compares the outputs of cells marked
``# NBVAL_CHECK_OUTPUT``; this test checks what nbval does not: that such cells exist and have
committed outputs, that no output holds memory addresses, temporary or absolute paths,
timestamps, epoch milliseconds, random ids, widget state or anything that looks like a key.

To commit a notebook's outputs, execute it in the project's kernel, then strip what an
execution adds that is volatile (cell timings, widget state and widget views)::

    .venv/bin/jupyter nbconvert --to notebook --execute --inplace notebooks/NN-name.ipynb
    .venv/bin/python tests/test_notebooks_clean.py notebooks/NN-name.ipynb
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TEACHING = (
    "01-quickstart.ipynb",
    "02-three-strategies.ipynb",
    "03-the-request-and-the-evidence.ipynb",
    "04-tune-thresholds.ipynb",
    "05-write-your-own-strategy.ipynb",
    "06-real-provider.ipynb",
)
"""The teaching notebooks, in order; later numbers may follow (every notebook is checked)."""
ALL = tuple(sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
CHECK = "# NBVAL_CHECK_OUTPUT"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PLOTLY_JSON = "application/vnd.plotly.v1+json"

VOLATILE: dict[str, re.Pattern[str]] = {
    "memory address": re.compile(r"0x[0-9a-fA-F]{4,}"),
    "temporary path": re.compile(r"/tmp/|/var/folders/|\\Temp\\"),
    "absolute path": re.compile(r"/work/|/home/|/root/|/Users/|[A-Z]:\\\\"),
    "ISO timestamp": re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"),
    "epoch milliseconds": re.compile(r"(?<!\d)1[5-9]\d{11}(?!\d)"),
    "uuid": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    "API key": re.compile(r"\bsk-[A-Za-z0-9_-]{12,}"),
    "at_ms": re.compile(r"\bat_ms\b"),
}


def _notebook(name: str) -> Any:
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def _output_text(output: Any) -> str:
    """Everything an output would show or store, as one string."""
    parts: list[str] = []
    if "text" in output:
        text = output["text"]
        parts.append(text if isinstance(text, str) else "".join(text))
    for kind, value in output.get("data", {}).items():
        if kind.startswith("image/") and kind != "image/svg+xml":
            continue  # base64 of pixels: nothing a reader sees, and any pattern turns up in it
        parts.append(value if isinstance(value, str) else json.dumps(value))
    if output.get("output_type") == "error":
        parts.extend([output.get("ename", ""), output.get("evalue", "")])
    return "\n".join(parts)


def test_the_teaching_notebooks_come_first_in_order() -> None:
    assert ALL[: len(TEACHING)] == TEACHING
    numbers = [name[:3] for name in ALL]
    assert numbers == [f"{i:02d}-" for i in range(1, len(ALL) + 1)], "numbered 01-, 02-, ..."


@pytest.mark.parametrize("name", ALL)
def test_notebook_runs_in_the_projects_python3_kernel(name: str) -> None:
    nb = _notebook(name)
    nbformat.validate(nb)
    spec = nb.metadata["kernelspec"]
    assert spec["name"] == "python3" and spec["language"] == "python"
    assert nb.metadata["language_info"]["name"] == "python"
    # `make` installs the venv's kernel under that name (nbval starts it by name)
    assert "ipykernel install --sys-prefix --name python3" in (ROOT / "Makefile").read_text()


@pytest.mark.parametrize("name", ALL)
def test_notebook_teaches_and_checks_its_numbers(name: str) -> None:
    nb = _notebook(name)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith(f"# {name[:2]} · ")
    markdown = [c for c in nb.cells if c.cell_type == "markdown"]
    assert len(markdown) >= 5, "a teaching notebook explains itself"
    checked = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(CHECK)]
    assert checked, f"{name}: no cell starts with {CHECK}"
    for cell in checked:
        # what nbval compares: printed text, or a displayed value (a frame renders as a table)
        shown = [
            o
            for o in cell.outputs
            if o.get("output_type") == "stream" or "text/plain" in o.get("data", {})
        ]
        assert shown, f"{name}: checked cell {cell.get('id')} has no committed output"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert CHECK not in cell.source.split("\n", 1)[-1], "the marker goes on line 1"


@pytest.mark.parametrize("name", ALL)
def test_committed_outputs_carry_nothing_volatile(name: str) -> None:
    nb = _notebook(name)
    assert "widgets" not in nb.metadata, "widget state is volatile: strip it"
    for cell in nb.cells:
        where = f"{name} cell {cell.get('id')}"
        assert "execution" not in cell.metadata, f"{where}: execution timestamps"
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            kind = output.get("output_type")
            assert kind != "error", f"{where}: an error output"
            assert not (kind == "stream" and output.get("name") == "stderr"), (
                f"{where}: stderr output (warnings or progress bars)"
            )
            assert WIDGET_VIEW not in output.get("data", {}), f"{where}: a widget view"
            text = _output_text(output)
            for what, pattern in VOLATILE.items():
                match = pattern.search(text)
                assert match is None, f"{where}: {what} in output: {match.group(0)!r}"


@pytest.mark.parametrize("name", ALL)
def test_sources_hold_no_machine_paths_or_keys(name: str) -> None:
    nb = _notebook(name)
    for cell in nb.cells:
        for what in ("absolute path", "API key", "memory address"):
            match = VOLATILE[what].search(cell.source)
            assert match is None, f"{name} cell {cell.get('id')}: {what}: {match.group(0)!r}"


def test_the_patterns_catch_what_they_name() -> None:
    samples = {
        "memory address": "<Run object at 0x7f3a2b1c>",
        "temporary path": "saved to /tmp/tmpab12/run.json",
        "absolute path": "/work/main/notebooks",
        "ISO timestamp": "2026-11-30T17:01:24",
        "epoch milliseconds": "at 1796058099687",
        "uuid": "3a05c1b4-d0f7-4add-b125-88508666109f",
        "API key": "key sk-abcdefghijklmnop",
        "at_ms": "at_ms=12",
    }
    for what, sample in samples.items():
        assert VOLATILE[what].search(sample), what
    clean = "status=done iterations=7 peak 127335 chars; tool-calls#3 1483"
    assert not any(p.search(clean) for p in VOLATILE.values())


def strip_volatile(path: Path) -> None:
    """Remove cell timings, saved widget state and widget-view outputs from an executed
    notebook (widget views need a live kernel anyway; their ids change on every run)."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            # a lab figure's output holds plotly's JSON beside its themed widget: keep the JSON
            for output in cell.outputs:
                if PLOTLY_JSON in output.get("data", {}):
                    output["data"].pop(WIDGET_VIEW, None)
            cell.outputs = [o for o in cell.outputs if WIDGET_VIEW not in o.get("data", {})]
    nbformat.validate(nb)
    nbformat.write(nb, path)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        strip_volatile(Path(arg))
