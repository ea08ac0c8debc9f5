"""How a run was made is a typed value, not keys of ``run.meta`` (#37 item 2).

``Run.origin`` says whether an agent ran it, ``replay`` re-applied a strategy over it, an
importer read it, or ``fork`` went on from it; the lab branches on that value. This fitness
test reads the AST of every module of the package: no library code reads one of the meta keys
a run file of version 1 said its origin with (``counterfactual``, ``replay_of``,
``imported_from``, ``recorded``, ``format``, ``fork_*`` ...) — from ``x.meta[...]``,
``x.meta.get(...)``, ``... in x.meta`` or a ``meta`` name bound to one — but the one reader of
those files, :func:`footprint_lab.agent.origin.origin_of_meta`. Nor does any write them.

Not yet covered (said in #37's note): the other facts the library keeps in meta (``label``,
``scenario``, ``not_applicable``, ``estimated_calls``, ``tokens_per_char`` ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

import footprint_lab
from footprint_lab.agent.origin import LEGACY_ORIGIN_KEYS

PACKAGE = Path(footprint_lab.__file__).parent
READER = PACKAGE / "agent" / "origin.py"
KEYS = frozenset(LEGACY_ORIGIN_KEYS)


def _is_meta(node: ast.AST) -> bool:
    """``x.meta``, ``x.meta or {}`` or a name ``meta``."""
    if isinstance(node, ast.BoolOp):
        return any(_is_meta(v) for v in node.values)
    return (isinstance(node, ast.Attribute) and node.attr == "meta") or (
        isinstance(node, ast.Name) and node.id == "meta"
    )


def _key(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _uses(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Subscript) and _is_meta(node.value):
            key = _key(node.slice)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and _is_meta(node.func.value)
            and node.args
        ):
            key = _key(node.args[0])
        elif (
            isinstance(node, ast.Compare)
            and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            and any(_is_meta(c) for c in node.comparators)
        ):
            key = _key(node.left)
        if key in KEYS:
            found.append((getattr(node, "lineno", 0), key))
    return found


def _meta_dict_writes(tree: ast.AST) -> list[tuple[int, str]]:
    """``x.meta = {..., "counterfactual": ...}`` and ``meta={...}`` keyword literals."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        literal = None
        if (isinstance(node, ast.Assign) and any(_is_meta(t) for t in node.targets)) or (
            isinstance(node, ast.keyword) and node.arg == "meta"
        ):
            literal = node.value
        if isinstance(literal, ast.Dict):
            keys = [_key(k) for k in literal.keys if k is not None]
            found += [(literal.lineno, k) for k in keys if k is not None and k in KEYS]
    return found


def test_no_library_code_reads_or_writes_an_origin_key_of_meta() -> None:
    offenders: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == READER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, key in _uses(tree) + _meta_dict_writes(tree):
            offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line} meta[{key!r}]")
    assert not offenders, (
        "how a run was made is Run.origin (footprint_lab.agent.origin), not meta: "
        + "; ".join(offenders)
    )


def test_the_check_finds_what_it_looks_for() -> None:
    """The fitness test is not blind: each form it forbids is found in a sample."""
    sample = ast.parse(
        "a = run.meta['counterfactual']\n"
        "b = run.meta.get('imported_from')\n"
        "c = 'fork_at' in run.meta\n"
        "meta = {}\nd = meta.get('format')\n"
        "run.meta = {'replay_of': 'x'}\n"
        "Run(meta={'recorded': {}})\n"
        "e = run.meta.get('label')\n"
    )
    keys = sorted(k for _, k in _uses(sample) + _meta_dict_writes(sample))
    assert keys == sorted(
        ["counterfactual", "imported_from", "fork_at", "format", "replay_of", "recorded"]
    )
