"""Helpers the importer tests share: a saved-and-reloaded run, the fields problems name, an
OpenAI tool call, and a small image payload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from footprint_lab import Run, load_run

PNG = "iVBORw0KGgo" * 20
URL = "data:image/png;base64," + PNG


def saved(run: Run, tmp_path: Path) -> Run:
    """``run`` saved to a file and loaded back."""
    return load_run(run.save(tmp_path / "run.json"))


def fields(run: Run) -> list[str]:
    """The fields the run's import problems name, in order."""
    return [p.field for p in run.import_problems]


def openai_tool_call(id_: str, name: Any, arguments: Any) -> dict[str, Any]:
    """One entry of an OpenAI ``tool_calls`` list (name and arguments taken as given)."""
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}
