"""The layers of DESIGN.md are enforced: import-linter's contracts hold on the real tree, break
on a deliberate upward import, and no module imports itself round a cycle."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(config: Path, cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_real_tree_keeps_every_contract() -> None:
    done = _lint_imports(ROOT / "pyproject.toml", ROOT, ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_an_upward_import_from_the_window_core_breaks_the_contracts(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "footprint_lab",
        tmp_path / "footprint_lab",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    apply = tmp_path / "footprint_lab" / "window" / "apply.py"
    apply.write_text(apply.read_text() + "\nimport footprint_lab.lab  # deliberately upward\n")
    done = _lint_imports(tmp_path / "pyproject.toml", tmp_path, tmp_path)
    assert done.returncode != 0, done.stdout
    assert "BROKEN" in done.stdout
    assert "footprint_lab.window.apply -> footprint_lab.lab" in done.stdout


def _tree_with(tmp_path: Path, relative: str, line: str) -> subprocess.CompletedProcess[str]:
    """lint-imports on a copy of the tree with ``line`` added to the module at ``relative``."""
    shutil.copytree(
        ROOT / "footprint_lab",
        tmp_path / "footprint_lab",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    module = tmp_path / "footprint_lab" / relative
    module.write_text(module.read_text() + line)
    return _lint_imports(tmp_path / "pyproject.toml", tmp_path, tmp_path)


def test_a_type_only_import_back_round_a_circle_breaks_the_contracts(tmp_path: Path) -> None:
    """#25 item 8: the run model names its agent by a protocol; naming the agent class, even
    only for type checking, closes the circle of the agent's modules again."""
    done = _tree_with(
        tmp_path,
        "agent/run.py",
        "\nif TYPE_CHECKING:\n    from footprint_lab.agent.agent import Agent  # noqa\n",
    )
    assert done.returncode != 0, done.stdout
    assert "No cycles are allowed in footprint_lab.agent" in done.stdout


def test_importing_another_packages_private_module_breaks_the_contracts(tmp_path: Path) -> None:
    done = _tree_with(
        tmp_path, "lab/report.py", "\nimport footprint_lab.agent._runfile_io  # deliberately\n"
    )
    assert done.returncode != 0, done.stdout
    assert "footprint_lab.lab.report -> footprint_lab.agent._runfile_io" in done.stdout


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[tuple[str, ...]]:
    """Every direct import a -> b (both in ``modules``) for which b also reaches a: the
    chain b -> ... -> a, closed by the import a -> b."""
    found: list[tuple[str, ...]] = []
    for importer in sorted(modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if imported not in modules or imported == importer:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                found.append((importer, *back))
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # Function-level imports count (they run); imports under ``if TYPE_CHECKING:`` do not
    # (they never run: an annotation may name a class of a module above).
    return grimp.build_graph("footprint_lab", exclude_type_checking_imports=True, cache_dir=None)


def test_no_module_imports_itself_round_a_cycle(graph: grimp.ImportGraph) -> None:
    assert _cycles(graph, set(graph.modules)) == []


def test_the_cycle_check_sees_a_cycle() -> None:
    graph = grimp.build_graph("footprint_lab", exclude_type_checking_imports=True, cache_dir=None)
    graph.add_import(importer="footprint_lab.messages", imported="footprint_lab.agent.run")
    cycles = _cycles(graph, set(graph.modules))
    assert ("footprint_lab.messages", "footprint_lab.agent.run", "footprint_lab.messages") in [
        (c[0], c[1], c[-1]) for c in cycles
    ]
