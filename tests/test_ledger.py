"""The ledger: append-only commits, stage ids, value_at, resolution, structural sharing, and
the one reading of its stored form (the view the lab and the evidence layer read)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import footprint_lab
from footprint_lab import Ledger, Message
from footprint_lab.ledger import LedgerView, positions, runs_length
from tests.budget import examples


def _clock() -> object:
    ticks = iter(range(0, 10_000, 10))
    return lambda: next(ticks)


def test_stage_ids_and_history_value_at() -> None:
    ledger = Ledger(clock=_clock())  # type: ignore[arg-type]
    seed = ledger.begin_stage("seed")
    call = ledger.begin_stage("call-llm")
    assert (seed, call) == ("seed#0", "call-llm#1")
    (req,) = ledger.append(seed, [Message.user("hi")])
    assert req.stage_id == "seed#0"
    ledger.put(call, "usage", {"input": 3})
    (reply,) = ledger.append(call, [Message.assistant("yo")])
    assert [c.key for c in ledger.commits] == ["history", "usage", "history"]
    assert [c.at_ms for c in ledger.commits] == [0, 10, 20]
    assert ledger.value_at(0, "history") == [req]
    assert ledger.value_at(2, "history") == [req, reply]
    assert ledger.value_at(-1, "usage") == {"input": 3}
    with pytest.raises(KeyError, match="usage"):
        ledger.value_at(0, "usage")
    with pytest.raises(IndexError):
        ledger.value_at(3, "history")


def test_window_is_last_window_commit_plus_appended_since() -> None:
    ledger = Ledger()
    a, b, c = ledger.append("seed#0", [Message.user("a"), Message.user("b"), Message.user("c")])
    assert ledger.window_at(0) == [a, b, c]
    ledger.set_window("window#1", [a, c])
    (d,) = ledger.append("call-llm#2", [Message.assistant("d")])
    assert ledger.window_at(1) == [a, c]
    assert ledger.window_at(2) == [a, c, d]
    assert ledger.value_at(2, "window") == [a, c, d]
    assert ledger.value_at(2, "history") == [a, b, c, d]
    assert ledger.commits[1].stored == ((0, 1), (2, 3))


def test_window_may_only_hold_committed_messages() -> None:
    ledger = Ledger()
    ledger.append("seed#0", [Message.user("a")])
    with pytest.raises(ValueError, match="never committed"):
        ledger.set_window("window#1", [Message.user("stranger")])


def test_messages_are_stored_once() -> None:
    ledger = Ledger()
    (m,) = ledger.append("seed#0", [Message.user("a")])
    with pytest.raises(ValueError, match="once"):
        ledger.append("seed#0", [m])


def test_message_resolution_by_stage_id() -> None:
    ledger = Ledger()
    ledger.append("tool-calls#4", [Message.tool("c1", "x", "one"), Message.tool("c2", "y", "two")])
    assert [m.content for m in ledger.messages_of("tool-calls#4")] == ["one", "two"]
    assert ledger.message("tool-calls#4").content == "one"
    with pytest.raises(KeyError, match="window#9"):
        ledger.messages_of("window#9")


def test_reserved_keys_need_their_own_writers() -> None:
    with pytest.raises(ValueError):
        Ledger().put("x#0", "history", [])


def test_window_commits_share_structure_not_copies() -> None:
    """A sliding window over a long run stores a constant handful of position runs per commit."""
    from footprint_lab import Agent, Reply, ScriptedProvider, sliding_window, tool

    @tool
    def fetch(i: int) -> str:
        return "payload " * 50

    replies = [Reply.tool_call("fetch", i=i) for i in range(300)] + [Reply.text("done")]
    run = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=400)
        .tool(fetch)
        .window(sliding_window(3))
        .build()
        .run("go")
    )
    assert run.status == "done"
    window_commits = [c for c in run.ledger.commits if c.key == "window"]
    assert len(window_commits) > 250
    # request, notice, recent turns: a constant handful of runs, however long the run.
    assert max(len(c.stored) for c in window_commits) <= 6
    # Every message object is stored once: history is exactly the distinct messages.
    assert len({id(m) for m in run.ledger.messages}) == len(run.ledger.messages)


# -- the ledger package owns its reading (#25 item 4) ----------------------------------------

_PACKAGE = Path(footprint_lab.__file__).parent
_DECODERS = frozenset({"HISTORY", "WINDOW", "history_span", "window_runs_of"})
"""The ledger's names for its stored form: only the ledger package reads it."""


def _storage_reads(path: Path) -> list[str]:
    """Where ``path`` decodes commit storage: reads ``<commit>.stored`` (an object's own
    ``self.stored`` is not a commit's), imports the keys or the decoders of the stored form, or
    compares a ``.key`` with ``"history"``/``"window"``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        where = f"{path.relative_to(_PACKAGE)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute) and node.attr == "stored":
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                continue
            found.append(f"{where} reads .stored")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "footprint_lab.ledger"
        ):
            found += [f"{where} imports {a.name}" for a in node.names if a.name in _DECODERS]
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            keyed = any(isinstance(s, ast.Attribute) and s.attr == "key" for s in sides)
            named = {s.value for s in sides if isinstance(s, ast.Constant)}
            if keyed and named & {"history", "window"}:
                found.append(f"{where} compares a commit key with {sorted(named)}")
    return found


def test_only_the_ledger_decodes_its_storage_the_lab_and_evidence_read_its_view() -> None:
    readers = sorted(p for folder in ("lab", "evidence") for p in (_PACKAGE / folder).rglob("*.py"))
    assert len(readers) > 40
    assert [r for p in readers for r in _storage_reads(p)] == []
    # The scan finds what it looks for: the ledger's view is made of it.
    assert len(_storage_reads(_PACKAGE / "ledger" / "view.py")) >= 3


def _random_ledger(data: st.DataObject) -> Ledger:
    """A ledger of random appends (0-3 messages), window commits (any committed messages, in
    any order) and ordinary puts."""
    ledger = Ledger(clock=lambda: 0)
    committed: list[Message] = []
    for step in range(data.draw(st.integers(0, 14), label="steps")):
        kind = data.draw(st.sampled_from(["append", "window", "put"]))
        stage = ledger.begin_stage(kind)
        if kind == "append":
            count = data.draw(st.integers(0, 3))
            committed += ledger.append(stage, [Message.user(f"m{step}.{j}") for j in range(count)])
        elif kind == "window":
            order = data.draw(st.permutations(range(len(committed))))
            kept = order[: data.draw(st.integers(0, len(order)))]
            ledger.set_window(stage, [committed[p] for p in kept])
        else:
            ledger.put(stage, "usage", step)
    return ledger


@settings(max_examples=examples(1_000), deadline=None)
@given(st.data())
def test_the_view_reads_every_window_as_window_at_does(data: st.DataObject) -> None:
    ledger = _random_ledger(data)
    if data.draw(st.booleans(), label="restored"):
        ledger = Ledger.restore(*ledger.export())
    view = LedgerView(ledger)
    messages = ledger.messages
    assert len(view) == len(ledger)
    assert view.message_commit == [ledger.commit_of_message(p) for p in range(len(messages))]
    for i in range(len(ledger)):
        runs = view.window_runs(i)
        assert [messages[p] for p in positions(runs)] == ledger.window_at(i)
        assert ledger.window_runs_at(i) == runs
        assert runs_length(runs) == len(ledger.window_at(i))
        assert view.history_end[i] == ledger.history_end(i)
        assert view.window_positions(i) == [ledger.position(m) for m in ledger.window_at(i)]
    assert view.window_runs(-1) == []
