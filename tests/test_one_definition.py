"""Things the package states once: the pin knob's name and the token estimate (#25 item 5).

Read from the source (the AST of every module), so a second copy cannot come back unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import footprint_lab
from footprint_lab import Agent, Reply, ScriptedProvider, tool
from footprint_lab.pricing import (
    DEFAULT_TOKENS_PER_CHAR,
    estimate_ratio,
    estimate_tokens,
    source_tokens_per_char,
)
from footprint_lab.replay import replay

PACKAGE = Path(footprint_lab.__file__).parent


def _modules() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(PACKAGE)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def _assigned_at_top(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


@pytest.mark.parametrize("name", ["PIN_KEY", "DEFAULT_TOKENS_PER_CHAR"])
def test_a_constant_is_assigned_in_one_module(name: str) -> None:
    owners = [path for path, tree in _modules().items() if name in _assigned_at_top(tree)]
    assert len(owners) == 1, f"{name} is assigned in {owners}; import it from one place"


def test_the_pin_knobs_name_is_written_once() -> None:
    spelled = [
        f"{path}:{node.lineno}"
        for path, tree in _modules().items()
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and isinstance(node.value, ast.Constant)
        and node.value.value == "keep_last_tool_results"
    ]
    assert len(spelled) == 1 and spelled[0].startswith("window/pins.py:"), (
        f"the pin knob's name is a constant at {spelled}; import window.pins.PIN_KEY"
    )


def test_the_pin_key_is_one_object_wherever_it_is_imported() -> None:
    from footprint_lab import sweeps
    from footprint_lab.lab import evidence
    from footprint_lab.lab.widgets import tuner
    from footprint_lab.window import pins

    assert sweeps.PIN_KEY == evidence.PIN_KEY == tuner.PIN_KNOB == pins.PIN_KEY
    assert pins.PIN_KEY == "keep_last_tool_results"


def _rounds_up_tokens(node: ast.AST) -> bool:
    """A ``math.ceil(...)`` whose argument names a tokens-per-character ratio."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "ceil"
        and node.args
    ):
        return False
    names = {n.id.lower() for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
    names |= {n.attr.lower() for n in ast.walk(node.args[0]) if isinstance(n, ast.Attribute)}
    return any("ratio" in n or "per_token" in n or "per_char" in n for n in names)


def test_characters_become_tokens_in_pricing_only() -> None:
    found = [
        f"{path}:{node.lineno}"
        for path, tree in _modules().items()
        if path != "pricing.py"
        for node in ast.walk(tree)
        if _rounds_up_tokens(node)
    ]
    assert found == [], f"a second token estimate at {found}: call pricing.estimate_tokens"


def test_the_estimate_rounds_up_at_the_ratio() -> None:
    assert estimate_tokens(0) == 0
    assert estimate_tokens(1) == 1
    assert estimate_tokens(8) == 2 == estimate_tokens(5)
    assert estimate_tokens(10, 0.5) == 5
    assert estimate_tokens(-3) == 0
    assert estimate_ratio(None) == estimate_ratio(0) == estimate_ratio(True) == 0.25
    assert DEFAULT_TOKENS_PER_CHAR == 0.25
    assert estimate_ratio(0.3) == 0.3


@tool
def echo(text: str) -> str:
    """Say it back."""
    return text * 3


def test_scripted_usage_and_a_replays_ratio_are_the_one_estimate() -> None:
    provider = ScriptedProvider(
        [Reply.tool_calls([("echo", {"text": "abc"})]), Reply.text("done, all of it")]
    )
    run = Agent.create(provider).tools(echo).build().run("say abc back, please")
    for call in run.calls:
        assert call.usage is not None
        system = len(run.system or "")
        assert call.usage.input_tokens == max(1, estimate_tokens(system + call.chars))
    own = source_tokens_per_char(run)
    assert own is not None and own > 0
    replayed = replay(run, None)
    assert source_tokens_per_char(replayed) == pytest.approx(own)
    assert replayed.origin.tokens_per_char == pytest.approx(own)
