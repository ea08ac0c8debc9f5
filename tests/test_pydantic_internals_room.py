"""Only ``footprint_lab/_models.py`` touches pydantic's internals (#25 item 6a).

Trusted construction, shared fields-sets and values a model computes once are the library's
speed plumbing: one private module owns them, every other module calls its helpers. The check
reads the source: a name of pydantic's internals in any other module fails it, and so does an
instance ``__dict__`` read or written outside a plain class's pickling hooks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import footprint_lab

PACKAGE = Path(footprint_lab.__file__).parent
ROOM = PACKAGE / "_models.py"

# Pydantic's internals and the shortcuts around validation: what only the room may name.
INTERNALS = re.compile(r"model_construct|__pydantic_|model_fields_set|object\.__new__")
# A plain (non-pydantic) class may hand its own ``__dict__`` to pickle.
PICKLING_HOOKS = frozenset({"__getstate__", "__setstate__"})


def _dict_uses(tree: ast.AST) -> list[int]:
    """Lines where ``<something>.__dict__`` is used outside a pickling hook."""
    lines: list[int] = []

    def walk(node: ast.AST, hook: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = hook
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inside = child.name in PICKLING_HOOKS
            if isinstance(child, ast.Attribute) and child.attr == "__dict__" and not inside:
                lines.append(child.lineno)
            walk(child, inside)

    walk(tree, False)
    return lines


def test_no_module_but_models_touches_pydantic_internals() -> None:
    offenders: list[str] = []
    modules = sorted(PACKAGE.rglob("*.py"))
    assert ROOM in modules and len(modules) > 100  # the walk reads the real package
    for path in modules:
        if path == ROOM:
            continue
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(PACKAGE.parent)
        for number, line in enumerate(text.splitlines(), 1):
            if INTERNALS.search(line):
                offenders.append(f"{where}:{number}: {line.strip()}")
        offenders += [f"{where}:{n}: instance __dict__" for n in _dict_uses(ast.parse(text))]
    assert not offenders, (
        "only footprint_lab/_models.py may touch pydantic's internals; call its helpers "
        "(construct_trusted, copy_trusted, update_trusted, share_fields_set, stamp_computed, "
        "recompute) instead:\n" + "\n".join(offenders)
    )


def test_the_room_itself_is_seen_by_the_check() -> None:
    """The check finds what it forbids: the room names the internals it owns."""
    text = ROOM.read_text(encoding="utf-8")
    assert INTERNALS.search(text)
    assert _dict_uses(ast.parse(text))
