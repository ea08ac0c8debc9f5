"""Helpers the importer tests share: a saved-and-reloaded run, the fields problems name, an
OpenAI tool call, a small image payload, the walks the fuzz tests mutate JSON with, the values
they put in, and an imported run's history and counts."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, settings
from hypothesis import strategies as st

from footprint_lab import Message, Run, load_run
from footprint_lab.importers import TranscriptError
from tests.budget import examples

PNG = "iVBORw0KGgo" * 20
URL = "data:image/png;base64," + PNG


FUZZ = settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
"""The importers' fuzz tests: 200 mutated or cut files each, with ``tmp_path``."""


def saved(run: Run, tmp_path: Path) -> Run:
    """``run`` saved to a file and loaded back."""
    return load_run(run.save(tmp_path / "run.json"))


def fields(run: Run) -> list[str]:
    """The fields the run's import problems name, in order."""
    return [p.field for p in run.import_problems]


def openai_tool_call(id_: str, name: Any, arguments: Any) -> dict[str, Any]:
    """One entry of an OpenAI ``tool_calls`` list (name and arguments taken as given)."""
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


def sites(root: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) in ``root``, top down."""
    out: list[tuple[Any, Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node))
        for key in keys:
            out.append((node, key))
            if isinstance(node[key], (dict, list)):
                stack.append(node[key])
    return out


def paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path inside a JSON value (the empty path first)."""
    out = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(paths(item, (*at, key)))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            out.extend(paths(item, (*at, k)))
    return out


def mutate(
    draw: Any, root: Any, wrong: st.SearchStrategy[Any], read: frozenset[str] = frozenset()
) -> Any:
    """``root`` with one value somewhere in it deleted or replaced by one drawn from
    ``wrong``; the place is drawn from every place in it, half the time from those under a
    key in ``read`` (the keys the importer reads, so mutations land where they matter)."""
    every = sites(root) if isinstance(root, (dict, list)) else []
    chosen = [(n, k) for n, k in every if k in read]
    pool = chosen if chosen and draw(st.booleans()) else every
    if not pool:
        return draw(wrong)
    parent, key = pool[draw(st.integers(0, len(pool) - 1))]
    if draw(st.booleans()):
        del parent[key]
    else:
        parent[key] = draw(wrong)
    return root


def history(run: Run) -> list[Message]:
    """The imported history: every committed message the source's policy did not write."""
    return [m for m in run.ledger.messages if m.authored is None]


def run_counts(run: Run) -> tuple[int, int, int, int]:
    """(messages, tool calls, tool results, model calls) of an imported run's history."""
    messages = history(run)
    return (
        len(messages),
        sum(len(m.tool_calls) for m in messages),
        sum(m.role == "tool" for m in messages),
        len(run.calls),
    )


def wrong_values(*words: str) -> st.SearchStrategy[Any]:
    """Values of every JSON type, out of range or nested too deep, plus ``words`` the format
    gives meaning to: what a fuzzed field is replaced by."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.just(10**400),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=8),
        st.sampled_from([*words, ""]),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(
            st.sampled_from(["type", "role", "content", "id"]), st.text(max_size=3), max_size=2
        ),
        st.integers(60, 300).map(lambda n: json.loads("[" * n + "]" * n)),
    )


def reused_call_ids(messages: list[dict[str, Any]], prefix: str) -> list[str]:
    """Counted from the raw OpenAI-shaped messages, independently of the importer: the field
    (``{prefix}[i].tool_calls[k].id``) of each call whose id an earlier assistant message
    already used (SWE-agent's calls given as the text of a Python literal are read as one)."""
    seen: set[str] = set()
    out: list[str] = []
    for i, message in enumerate(messages):
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if isinstance(calls, str):
            calls = ast.literal_eval(calls)
        ids = [call["id"] for call in calls or []]
        out.extend(f"{prefix}[{i}].tool_calls[{k}].id" for k, id_ in enumerate(ids) if id_ in seen)
        seen.update(ids)
    return out


def seen(label: str) -> None:
    """Count ``label`` among a hypothesis test's events (nothing outside one)."""
    if currently_in_test_context():
        event(label)


def one_run_or_transcript_error(loader: Any, path: Path, source: str) -> Run | None:
    """The fuzz tests' one oracle for a loader of one run per file (or conversation folder):
    ``loader(path)`` gives the run — each problem it lists from ``source``, strict raising
    exactly at the first of them, and every reply one call — or None for a
    :class:`TranscriptError` naming the file (one under ``path`` for a folder), the field and
    the rule, which strict raises too."""
    try:
        (run,) = loader(path)
    except TranscriptError as exc:
        seen("rejected")
        assert exc.path is not None and exc.path.startswith(str(path)), exc
        assert path.is_dir() or exc.path == str(path)
        assert exc.field and exc.problem
        with pytest.raises(TranscriptError):
            loader(path, strict=True)
        return None
    assert all(p.source == source for p in run.import_problems)
    try:
        loader(path, strict=True)
    except TranscriptError as exc:
        seen("imported with problems")
        assert run.import_problems, f"strict raised with no problem listed: {exc}"
        first = run.import_problems[0]
        assert (exc.index, exc.field, exc.problem) == (first.index, first.field, first.problem)
        assert exc.path == (first.path if path.is_dir() else str(path))
    else:
        seen("imported clean")
        assert run.import_problems == []
    assert len(run.calls) == sum(m.role == "assistant" for m in history(run))
    return run
