"""Rooms by concept (#25 item 8): each importer family lives in its own package instead of a flat
corridor of prefixed modules, and the OpenTelemetry format's names are spelled in one module,
:mod:`footprint_lab.otlp.names`, that the importer and the exporter both read.

Read from the source (the file tree and the AST of every module), so a family laid flat again or
a second spelling of a GenAI attribute cannot come back unnoticed.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

import grimp
import pytest

import footprint_lab

PACKAGE = Path(footprint_lab.__file__).parent
IMPORTERS = PACKAGE / "importers"
ROOT = PACKAGE.parent

OPERATION_NAMES = frozenset({"invoke_agent", "execute_tool"})
"""GenAI operation names that no other vocabulary of the package uses (``chat`` is also a
LangChain message kind, so it is not searched for)."""


def _rooms(folder: Path) -> set[str]:
    """The modules and packages directly inside ``folder``."""
    modules = {p.stem for p in folder.glob("*.py")}
    packages = {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
    return modules | packages


def test_no_family_of_modules_lies_flat_in_the_importers() -> None:
    rooms = _rooms(IMPORTERS)
    families = {name for name in rooms if not name.startswith("_")}
    flat = sorted(
        name
        for name in rooms
        if name.startswith("_") and any(name.startswith(f"_{f}_") for f in families)
    )
    assert not flat, (
        f"{flat} in footprint_lab/importers/ belong to a family by name: move each into its "
        "family's package (importers/<family>/_<part>.py)"
    )


def test_the_chat_formats_share_one_room() -> None:
    assert {"openai", "anthropic", "langchain"} <= _rooms(IMPORTERS / "chat")
    # Their old flat paths are thin re-exports of the room, nothing more.
    for name in {"openai", "anthropic", "langchain"} & _rooms(IMPORTERS):
        tree = ast.parse((IMPORTERS / f"{name}.py").read_text(encoding="utf-8"))
        body = [node for node in tree.body if not isinstance(node, ast.Expr)]
        assert all(
            isinstance(node, ast.ImportFrom)
            and node.module in ("__future__", f"footprint_lab.importers.chat.{name}")
            for node in body
        ), name


def _code_strings(tree: ast.Module) -> list[ast.Constant]:
    """Every text constant of a module's code (docstrings left out)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_the_otel_formats_names_are_spelled_in_one_module() -> None:
    spelled: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _code_strings(tree):
            if node.value.startswith("gen_ai.") or node.value in OPERATION_NAMES:
                where = str(path.relative_to(PACKAGE))
                spelled.setdefault(where, []).append(f"{node.lineno}: {node.value!r}")
    assert set(spelled) == {"otlp/names.py"}, (
        "the OpenTelemetry names are spelled outside footprint_lab/otlp/names.py: "
        f"{ {k: v for k, v in spelled.items() if k != 'otlp/names.py'} }; import them from there"
    )


def test_the_importer_and_the_exporter_read_the_format_from_otlp() -> None:
    graph = grimp.build_graph("footprint_lab")
    for side in ("footprint_lab.importers.otel", "footprint_lab.export.otel"):
        assert "footprint_lab.otlp.names" in graph.find_modules_directly_imported_by(side)
    for above in ("footprint_lab.importers", "footprint_lab.export"):
        assert not graph.chain_exists("footprint_lab.otlp", above, as_packages=True)


def test_otlp_is_a_layer_below_importers_and_export_and_above_the_agent() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "layers" and "containers" not in c
    ]
    layers = [{name.strip() for name in line.split("|")} for line in contract["layers"]]

    def at(module: str) -> int:
        return next(k for k, layer in enumerate(layers) if module in layer)

    assert at("footprint_lab.importers") < at("footprint_lab.otlp") < at("footprint_lab.agent")
    assert at("footprint_lab.export") < at("footprint_lab.otlp")


def test_otlp_holds_the_format_read_and_written_and_the_importer_builds_runs_on_it() -> None:
    # #25 item 8: "one otlp/ for the OpenTelemetry format (names, reading, writing)".
    rooms = {p.stem for p in (PACKAGE / "otlp").glob("*.py")}
    assert {"names", "read", "write", "genai", "read_genai", "groups"} <= rooms
    graph = grimp.build_graph("footprint_lab")
    otel = "footprint_lab.importers.otel"
    assert {p.stem for p in (IMPORTERS / "otel").glob("*.py")} == {"__init__", "_exact", "_foreign"}
    reads = set().union(
        *(graph.find_modules_directly_imported_by(m) for m in graph.find_descendants(otel))
    )
    assert {"footprint_lab.otlp.read", "footprint_lab.otlp.groups"} <= reads
    # The reader stands on the parts every reader of foreign files shares, below both.
    assert not graph.chain_exists("footprint_lab.reading", "footprint_lab.otlp", as_packages=True)
    assert not graph.chain_exists(
        "footprint_lab.reading", "footprint_lab.importers", as_packages=True
    )
    assert graph.chain_exists("footprint_lab.otlp.read", "footprint_lab.reading.problems")


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("footprint_lab.importers.inspect", ["load_inspect"]),
        ("footprint_lab.importers.openhands", ["load_openhands"]),
        ("footprint_lab.importers.swe_agent", ["load_swe_agent"]),
        ("footprint_lab.importers.claude_code", ["load_claude_code"]),
        ("footprint_lab.importers.tau_bench", ["load_tau_bench"]),
        ("footprint_lab.importers.recorded", ["Recorded", "recorded_of"]),
        (
            "footprint_lab.importers.otel",
            ["load_otel", "read_spans", "OtelSpan", "SpanEvent", "SOURCE", "POLICY", "OPERATION"],
        ),
        (
            "footprint_lab.export.otel",
            ["to_otel", "otel_document", "otel_request", "genai_message", "FORMAT", "EXTENSION"],
        ),
    ],
)
def test_the_old_public_paths_still_import(module: str, names: list[str]) -> None:
    loaded = importlib.import_module(module)
    missing = [name for name in names if not hasattr(loaded, name)]
    assert not missing, f"{module} no longer has {missing}"
