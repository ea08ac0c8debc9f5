"""Property tests: whatever an importer is given, it raises TranscriptError or returns a run
that imported whole — every message, call, result and part accounted for — that capture,
replay and save/load accept; strict imports raise exactly when problems would be listed."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from footprint_lab import load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import (
    TranscriptError,
    from_anthropic,
    from_langchain,
    from_openai,
    load_tau_bench,
)
from footprint_lab.lab import capture
from tests.budget import examples

SETTINGS = settings(
    max_examples=examples(int(__import__("os").environ.get("PROP_EXAMPLES", "1000"))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CHARS = st.characters(exclude_categories=())
TEXT = st.one_of(
    st.text(CHARS, max_size=12), st.sampled_from(["", "\udcff", "a\ud800b", "\\udcff", "日本"])
)
NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(0, 4).map(lambda k: (0, 2**63, 10**400, -(10**3000), 2**9000)[k]),
    st.floats(allow_nan=True, allow_infinity=True),
)
LEAVES = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSON = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
DEEP = st.integers(60, 1200).map(lambda n: json.loads("[" * n + "]" * n))
VALUES = st.one_of(JSON, DEEP, JSON.map(lambda v: json.dumps(v, allow_nan=True)))
IDS = st.sampled_from(["c1", "c2", "c3", ""])
NAMES = st.sampled_from(["read_log", "search", ""])
ARGS = st.one_of(
    st.dictionaries(TEXT, JSON, max_size=3).map(json.dumps),
    st.sampled_from(["", "{}", "[1]", "0", "null", "{bad", '{"x": NaN}']),
)
DATA = st.sampled_from(["", "aGVsbG8=", "data:image/png;base64,iVBOR", "https://x.test/a.png"])


def _mutate(draw: Any, value: Any, depth: int = 0) -> Any:
    choice = draw(st.integers(0, 9))
    if isinstance(value, dict) and value and choice >= 2 and depth < 6:
        key = draw(st.sampled_from(sorted(value)))
        out = dict(value)
        if choice == 2:
            del out[key]
        else:
            out[key] = _mutate(draw, value[key], depth + 1)
        return out
    if isinstance(value, list) and value and choice >= 2 and depth < 6:
        k = draw(st.integers(0, len(value) - 1))
        out_list = list(value)
        if choice == 2:
            out_list.insert(k, value[k])  # duplicates: ids, results, messages
        elif choice == 3:
            del out_list[k]
        else:
            out_list[k] = _mutate(draw, value[k], depth + 1)
        return out_list
    return draw(VALUES)


@st.composite
def mutated(draw: Any, valid: st.SearchStrategy[Any]) -> Any:
    value = draw(valid)
    for _ in range(draw(st.integers(0, 3))):
        value = _mutate(draw, value)
    return value


def adversarial(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(valid, mutated(valid), mutated(valid), JSON)


# -- valid transcripts --------------------------------------------------------------------

OPENAI_PARTS = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, TEXT),
    st.builds(lambda u: {"type": "image_url", "image_url": {"url": u}}, DATA),
    st.builds(lambda d: {"type": "file", "file": {"file_data": d}}, DATA),
    st.builds(lambda d: {"type": "input_audio", "input_audio": {"data": d, "format": "wav"}}, DATA),
    st.builds(lambda t: {"type": "refusal", "refusal": t}, TEXT),
)
OPENAI_CONTENT = st.one_of(TEXT, st.none(), st.lists(OPENAI_PARTS, max_size=3))
OPENAI_CALL = st.builds(
    lambda i, n, a: {"id": i, "type": "function", "function": {"name": n, "arguments": a}},
    IDS,
    NAMES,
    ARGS,
)
OPENAI_USAGE = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {"prompt_tokens": st.integers(-5, 10**6), "completion_tokens": st.integers(0, 99)}
    ),
)


def _openai_assistant(content: Any, calls: Any, usage: Any, extra: dict[str, Any]) -> Any:
    message = {"role": "assistant", "content": content, **extra}
    if calls:
        message["tool_calls"] = calls
    if usage is not None:
        message["usage"] = usage
    return message


OPENAI_MESSAGE = st.one_of(
    st.builds(lambda c: {"role": "user", "content": c}, OPENAI_CONTENT),
    st.builds(lambda c: {"role": "system", "content": c}, OPENAI_CONTENT),
    st.builds(
        _openai_assistant,
        OPENAI_CONTENT,
        st.lists(OPENAI_CALL, max_size=3),
        OPENAI_USAGE,
        st.one_of(
            st.just({}),
            st.builds(lambda t: {"refusal": t}, TEXT),
            st.builds(lambda n, a: {"function_call": {"name": n, "arguments": a}}, NAMES, ARGS),
            st.builds(lambda d: {"audio": {"id": "au", "data": d, "transcript": "hi"}}, DATA),
        ),
    ),
    st.builds(lambda i, c: {"role": "tool", "tool_call_id": i, "content": c}, IDS, TEXT),
    st.builds(lambda n, c: {"role": "function", "name": n, "content": c}, NAMES, TEXT),
)
OPENAI = st.lists(OPENAI_MESSAGE, max_size=8)

BLOCKS = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, TEXT),
    st.builds(lambda d: {"type": "image", "source": {"type": "base64", "data": d}}, DATA),
    st.builds(lambda u: {"type": "document", "source": {"type": "url", "url": u}}, DATA),
)
ASSISTANT_BLOCKS = st.one_of(
    BLOCKS,
    st.builds(lambda t: {"type": "thinking", "thinking": t, "signature": "s"}, TEXT),
    st.builds(lambda d: {"type": "redacted_thinking", "data": d}, DATA),
    st.builds(
        lambda i, n, a: {"type": "tool_use", "id": i, "name": n, "input": a},
        IDS,
        NAMES,
        st.dictionaries(TEXT, JSON, max_size=2),
    ),
)
RESULT = st.builds(
    lambda i, c, e: {"type": "tool_result", "tool_use_id": i, "content": c, "is_error": e},
    IDS,
    st.one_of(TEXT, st.none(), st.lists(BLOCKS, max_size=2)),
    st.booleans(),
)
ANTHROPIC_USAGE = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {"input_tokens": st.integers(-5, 10**6), "output_tokens": st.integers(0, 99)},
        optional={"cache_read_input_tokens": st.integers(0, 99)},
    ),
)
ANTHROPIC_MESSAGE = st.one_of(
    st.builds(
        lambda c: {"role": "user", "content": c},
        st.one_of(TEXT, st.lists(st.one_of(BLOCKS, RESULT), max_size=3)),
    ),
    st.builds(
        lambda c, u: {"role": "assistant", "content": c, **({"usage": u} if u else {})},
        st.one_of(TEXT, st.lists(ASSISTANT_BLOCKS, max_size=3)),
        ANTHROPIC_USAGE,
    ),
)
ANTHROPIC = st.tuples(
    st.lists(ANTHROPIC_MESSAGE, max_size=8),
    st.one_of(st.none(), TEXT, st.lists(BLOCKS, max_size=2)),
).map(list)

LC_CONTENT = st.one_of(TEXT, st.lists(st.one_of(TEXT, BLOCKS), max_size=3))
LC_MESSAGE = st.one_of(
    st.builds(lambda c: {"type": "human", "data": {"content": c}}, LC_CONTENT),
    st.builds(lambda c: {"type": "system", "data": {"content": c}}, LC_CONTENT),
    st.builds(
        lambda c, calls, bad, u: {
            "type": "ai",
            "data": {
                "content": c,
                "tool_calls": calls,
                "invalid_tool_calls": bad,
                "usage_metadata": u,
            },
        },
        LC_CONTENT,
        st.lists(
            st.builds(
                lambda n, a, i: {"name": n, "args": a, "id": i},
                NAMES,
                st.dictionaries(TEXT, JSON, max_size=2),
                st.one_of(st.none(), IDS),
            ),
            max_size=3,
        ),
        st.lists(
            st.builds(lambda n, a: {"name": n, "args": a, "id": "x", "error": "e"}, NAMES, ARGS),
            max_size=1,
        ),
        st.one_of(st.none(), st.fixed_dictionaries({"input_tokens": st.integers(-5, 99)})),
    ),
    st.builds(
        lambda i, n, c: {"type": "tool", "data": {"content": c, "tool_call_id": i, "name": n}},
        IDS,
        st.one_of(st.none(), NAMES),
        LC_CONTENT,
    ),
)
LANGCHAIN = st.lists(LC_MESSAGE, max_size=8)

# -- what the input holds, counted independently of the importers ------------------------

TEXT_TYPES = ("text", "input_text", "output_text")


def _non_text(items: Any, skip: tuple[str, ...] = ()) -> int:
    if not isinstance(items, list):
        return 0
    return sum(
        1 for b in items if isinstance(b, Mapping) and b.get("type") not in TEXT_TYPES + skip
    )


def openai_counts(raw: list[Any], run: Run) -> tuple[int, int, int, int]:
    messages = len(raw) - (run.system is not None)
    calls = results = parts = 0
    for m in raw:
        parts += _non_text(m.get("content"))
        if m.get("role") in ("tool", "function"):
            results += 1
        if m.get("role") != "assistant":
            continue
        tool_calls = m.get("tool_calls") or []
        calls += len(tool_calls)
        parts += (m.get("refusal") is not None) + (m.get("audio") is not None)
        if m.get("function_call") is not None:
            if tool_calls:
                parts += 1
            else:
                calls += 1
    return messages, calls, results, parts


def anthropic_counts(raw: list[Any], system: Any) -> tuple[int, int, int, int]:
    lead = _non_text(system) if isinstance(system, list) else 0
    messages, calls, results, parts = (1 if lead else 0), 0, 0, lead
    for m in raw:
        blocks = m["content"] if isinstance(m["content"], list) else []
        if m["role"] == "assistant":
            messages += 1
            calls += sum(b["type"] == "tool_use" for b in blocks)
            parts += _non_text(blocks, ("tool_use",))
            continue
        tool = [b for b in blocks if b["type"] == "tool_result"]
        results += len(tool)
        messages += len(tool) + (len(tool) < len(blocks) or not tool)
        parts += _non_text(blocks, ("tool_result",))
        parts += sum(_non_text(b.get("content")) for b in tool)
    return messages, calls, results, parts


def langchain_counts(raw: list[Any], run: Run) -> tuple[int, int, int, int]:
    messages = len(raw) - (run.system is not None)
    calls = results = parts = 0
    for m in raw:
        data = m["data"]
        parts += _non_text(data.get("content"))
        if m["type"] == "tool":
            results += 1
        if m["type"] == "ai":
            calls += len(data.get("tool_calls") or [])
            parts += len(data.get("invalid_tool_calls") or [])
    return messages, calls, results, parts


def run_counts(run: Run) -> tuple[int, int, int, int]:
    messages = run.ledger.messages
    return (
        len(messages),
        sum(len(m.tool_calls) for m in messages),
        sum(m.role == "tool" for m in messages),
        sum(len(m.parts) for m in messages),
    )


def _view(run: Run) -> list[Any]:
    return [
        (m.role, m.content, m.tool_calls, m.tool_call_id, m.name, m.parts, m.stage_id, m.chars)
        for m in run.ledger.messages
    ]


def check_whole(run: Run, expected: tuple[int, int, int, int]) -> None:
    """Counts match the input; capture, replay and save/load all accept the run."""
    assert run_counts(run) == expected
    sent, total = [], 0
    for message in run.ledger.messages:
        if message.role == "assistant":
            sent.append(total)
        total += message.chars
    assert [c.chars for c in run.calls] == sent
    capture(run)
    replayed = replay(run, sliding_window(keep_recent_turns=2))
    assert len(replayed.calls) == len(run.calls)
    with tempfile.TemporaryDirectory() as folder:
        loaded = load_run(run.save(Path(folder) / "run.json"))
    assert _view(loaded) == _view(run)
    assert loaded.import_problems == run.import_problems
    assert loaded.system == run.system and loaded.meta == run.meta
    assert [c.model_dump() for c in loaded.calls] == [c.model_dump() for c in run.calls]


def import_or_error(importer: Callable[..., Run], *args: Any) -> Run | None:
    """The run, or None for a TranscriptError; strict raises exactly when problems exist."""
    try:
        run = importer(*args)
    except TranscriptError as exc:
        event("rejected")
        assert isinstance(exc, ValueError) and exc.field and exc.problem
        assert f"field {exc.field!r}" in str(exc)
        try:
            importer(*args, strict=True)
        except TranscriptError:
            return None
        raise AssertionError("strict import accepted what the lenient one rejected") from None
    try:
        strict = importer(*args, strict=True)
    except TranscriptError as exc:
        event("imported with problems")
        assert run.import_problems, f"strict raised with no problem listed: {exc}"
        first = run.import_problems[0]
        assert (exc.index, exc.field, exc.problem) == (first.index, first.field, first.problem)
    else:
        event("imported clean")
        assert run.import_problems == []
        assert _view(strict) == _view(run)
    return run


@SETTINGS
@given(adversarial(OPENAI))
def test_from_openai_imports_whole_or_raises(raw: Any) -> None:
    run = import_or_error(from_openai, raw)
    if run is not None:
        check_whole(run, openai_counts(raw, run))


@SETTINGS
@given(adversarial(ANTHROPIC))
def test_from_anthropic_imports_whole_or_raises(pair: Any) -> None:
    if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
        pair = (pair, None)
    raw, system = pair
    run = import_or_error(from_anthropic, raw, system)
    if run is not None:
        check_whole(run, anthropic_counts(raw, system))


@SETTINGS
@given(adversarial(LANGCHAIN))
def test_from_langchain_imports_whole_or_raises(raw: Any) -> None:
    run = import_or_error(from_langchain, raw)
    if run is not None:
        check_whole(run, langchain_counts(raw, run))


TAU = st.lists(
    st.fixed_dictionaries(
        {"task_id": st.integers(0, 9), "trial": st.integers(0, 2), "reward": st.floats(0, 1)},
        optional={"traj": OPENAI},
    ),
    max_size=3,
).map(lambda entries: [{"traj": [], **e} for e in entries])


def _file_bytes(value: Any, cut: int | None, garble: bool) -> bytes:
    data = json.dumps(value, allow_nan=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if cut is not None:
        data = data[:cut]
    return b"\xff" + data if garble else data


@SETTINGS
@given(
    adversarial(TAU),
    st.one_of(st.none(), st.integers(0, 200)),
    st.booleans(),
)
def test_load_tau_bench_imports_whole_or_raises(value: Any, cut: int | None, garble: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tau.json"
        path.write_bytes(_file_bytes(value, cut, garble and cut is None))
        try:
            runs = load_tau_bench(path)
        except TranscriptError as exc:
            event("rejected")
            assert exc.path == str(path) and str(path) in str(exc)
            try:
                load_tau_bench(path, strict=True)
            except TranscriptError:
                return
            raise AssertionError("strict import accepted what the lenient one rejected") from None
        read = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(read, list) and len(runs) == len(read)
        for entry, run in zip(read, runs, strict=True):
            assert run.meta["task_id"] == entry.get("task_id")
            assert all(p.source == "tau-bench" for p in run.import_problems)
            check_whole(run, openai_counts(entry["traj"], run))
        # Strict raises exactly the first problem the lenient import lists, at the same place.
        listed = [p for run in runs for p in run.import_problems]
        try:
            strict = load_tau_bench(path, strict=True)
        except TranscriptError as exc:
            event("imported with problems")
            assert listed, f"strict raised with no problem listed: {exc}"
            first = listed[0]
            assert (exc.index, exc.field, exc.problem) == (first.index, first.field, first.problem)
            assert exc.path == str(path) and exc.unit == "entry"
        else:
            event("imported clean")
            assert listed == []
            assert [_view(r) for r in strict] == [_view(r) for r in runs]
