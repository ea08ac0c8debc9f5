"""Layering: the window core never imports the lab's libraries; the lab's public names."""

from __future__ import annotations

import ast
from pathlib import Path

import footprint_lab
import footprint_lab.lab as lab

PACKAGE = Path(footprint_lab.__file__).parent
HEAVY = {"pandas", "plotly", "numpy", "ipywidgets", "anywidget", "tqdm", "pyarrow"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_window_core_never_imports_pandas_or_plotly() -> None:
    for path in sorted((PACKAGE / "window").rglob("*.py")):
        assert not (_imports(path) & HEAVY), path
        assert "footprint_lab.lab" not in path.read_text(encoding="utf-8"), path


def test_lab_public_names() -> None:
    for name in ("capture", "capture_many", "Frames", "plots", "write_report"):
        assert name in lab.__all__ and hasattr(lab, name)
    for name in lab.__all__:
        assert hasattr(lab, name), name
    for name in ("window_size", "window_map", "pins_timeline", "refusals_by_reason", "compare"):
        assert callable(getattr(lab.plots, name))
    assert lab.plots.WEBGL_THRESHOLD == 5000
