"""Evidence stays linear in a run's length, and exact: no window is ever materialised, reads
grow with the run (not with its square), memory doubles when the run doubles, and the indexed
answers equal brute force on real and random inputs."""

from __future__ import annotations

import json
import random
import tracemalloc
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import pytest

from footprint_lab import Message, Run, audit, replay, sliding_window, summarize_oldest
from footprint_lab.auditing import keep_last_messages
from footprint_lab.evidence import (
    dependencies,
    dependencies_in,
    losses,
    request_lost,
    request_lost_calls,
    transcript,
    wire_problem_calls,
    wire_problems,
)
from footprint_lab.evidence._text_index import TextIndex
from footprint_lab.evidence.dependencies import argument_leaves
from footprint_lab.importers import from_openai, load_tau_bench
from footprint_lab.lab.evidence import baseline_window_chars, evidence_frame, no_policy
from footprint_lab.ledger import Ledger

DATA = Path(__file__).parents[2] / "data" / "tau-bench"


def long_transcript(rounds: int) -> list[dict[str, Any]]:
    """A request, then ``rounds`` tool rounds whose every call repeats an id a tool result
    gave three rounds earlier (so every call after the first is dependent)."""
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "Policy."},
        {"role": "user", "content": "Check user_abcde."},
    ]
    for i in range(rounds):
        arguments = json.dumps({"reservation_id": f"RES{max(0, i - 3):06d}", "page": i % 50})
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": arguments},
                    }
                ],
            }
        )
        out.append(
            {
                "role": "tool",
                "tool_call_id": f"c{i}",
                "name": "lookup",
                "content": f"reservation RES{i:06d}, flight FL{i % 97:03d} " + "x" * 60,
            }
        )
    out.append({"role": "assistant", "content": "Done."})
    return out


class Counted(Sequence[Any]):
    """A sequence that counts every item read from it, by index or by iteration."""

    def __init__(self, items: Sequence[Any]) -> None:
        self.items = items
        self.reads = 0

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        got = self.items[index]
        self.reads += len(got) if isinstance(index, slice) else 1
        return got

    def __iter__(self) -> Iterator[Any]:
        for item in self.items:
            self.reads += 1
            yield item


# -- no window is materialised ----------------------------------------------------------------


@pytest.fixture
def no_materialised_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any call that builds a list of a window's messages fails the test."""

    def refuse(self: Any, index: int) -> list[Message]:
        raise AssertionError(f"window at commit {index} materialised")

    monkeypatch.setattr(Ledger, "window_at", refuse)
    monkeypatch.setattr(Run, "window_sent", refuse)


def test_evidence_frame_never_materialises_a_window(no_materialised_windows: None) -> None:
    run = from_openai(long_transcript(60))
    frame = evidence_frame(
        [run],
        [
            no_policy(),
            {"label": "k2", "strategy": sliding_window(2), "keep_last_tool_results": 0},
            {"label": "k2 pins", "strategy": sliding_window(2), "keep_last_tool_results": 2},
        ],
        progress=False,
    )
    assert frame["dependent_calls"].tolist() == [59, 59, 59]
    assert frame["lost_calls"].tolist()[0] == 0 and frame["lost_calls"].tolist()[1] > 0
    assert (frame["wire_violations"] == 0).all() and (frame["request_lost"] == 0).all()


# -- reads grow linearly ----------------------------------------------------------------------


def _reads_of_dependencies(rounds: int) -> int:
    run = from_openai(long_transcript(rounds))
    messages = Counted(transcript(run))
    deps = dependencies_in(messages, run.system)
    assert len(deps) == rounds - 1
    return messages.reads


def test_dependencies_read_each_message_a_bounded_number_of_times() -> None:
    small, large = _reads_of_dependencies(200), _reads_of_dependencies(800)
    # Linear: 4x the run reads at most ~4x the messages (the old scan read ~16x).
    assert large <= 4.2 * small
    assert small <= 10 * (2 * 200 + 2)


def _reads_of_index(n: int) -> int:
    texts = Counted([f"reservation RES{i:06d}, flight FL{i % 97:03d}" for i in range(n)])
    values = [f"RES{i:06d}" for i in range(0, n, 2)] + [f"{i:06d}" for i in range(1, n, 2)]
    index = TextIndex(texts, values)
    for i, value in enumerate(values):
        found = list(index.containing(value))
        assert found == [int(value[-6:]) if value.startswith("RES") else int(value)], i
    return texts.reads


def test_text_index_reads_grow_linearly_with_texts_and_values() -> None:
    small, large = _reads_of_index(500), _reads_of_index(2_000)
    assert large <= 4.2 * small


def _peak_bytes(rounds: int) -> int:
    run = from_openai(long_transcript(rounds))
    tracemalloc.start()
    try:
        evidence_frame([run], [no_policy()], progress=False)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_evidence_frame_memory_doubles_when_the_run_doubles() -> None:
    small, large = _peak_bytes(400), _peak_bytes(800)
    # Windows kept as lists would make this ~3.4x (quadratic); linear is ~2x.
    assert large <= 2.5 * small


# -- exact: the same answers as brute force ---------------------------------------------------


def _brute_dependencies(
    messages: Sequence[Message], system: str | None, min_chars: int
) -> list[tuple[str, str, list[str], int]]:
    """The definition, read literally (every earlier text scanned for every value)."""
    out = []
    tool_seen: list[Message] = []
    said: list[str] = [system] if system else []
    for index, message in enumerate(messages):
        for call in message.tool_calls:
            seen: set[str] = set()
            for value in argument_leaves(call.arguments):
                if len(value) < min_chars or value in seen:
                    continue
                seen.add(value)
                if any(value in text for text in said):
                    continue
                carriers = [m.stage_id or "" for m in tool_seen if value in m.content]
                if carriers:
                    out.append((call.id, value, list(dict.fromkeys(carriers)), index))
        if message.role == "tool":
            tool_seen.append(message)
        elif message.role in ("user", "system"):
            said.append(message.content)
    return out


PIECES = ["RES", "12", "345", "-", " ", ":", "_", "x", "ab", "é", "!!", "00", ",", "é1", "FL9"]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4)))


def _random_transcript(rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"role": "system", "content": _word(rng)},
        {"role": "user", "content": f"{_word(rng)} {_word(rng)}"},
    ]
    for i in range(rng.randint(1, 10)):
        arguments = {"a": _word(rng), "b": [_word(rng), rng.randint(0, 99_999)], "c": True}
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": "t", "arguments": json.dumps(arguments)},
                    }
                ],
                "usage": {"prompt_tokens": rng.randint(1, 900), "completion_tokens": 5},
            }
        )
        for _ in range(rng.randint(1, 2)):
            text = " ".join(_word(rng) for _ in range(rng.randint(0, 6)))
            out.append({"role": "tool", "tool_call_id": f"c{i}", "name": "t", "content": text})
        if rng.random() < 0.2:
            out.append({"role": "user", "content": _word(rng)})
    out.append({"role": "assistant", "content": "done"})
    return out


def test_text_index_equals_a_full_scan_on_awkward_values() -> None:
    rng = random.Random(3)
    texts = [" ".join(_word(rng) for _ in range(rng.randint(0, 8))) for _ in range(300)]
    texts += ["RES12345", "12:30 and 12:301", "-----", "naïve café", ""]
    values = [_word(rng) for _ in range(300)]
    values += ["12345", "RES12345", "12:30", "---", "é", "ïve caf", "", "S123", "x", "ab-ab"]
    index = TextIndex(texts, values[: len(values) // 2])  # the rest are asked unannounced
    for value in values:
        expected = [i for i, t in enumerate(texts) if value in t]
        assert list(index.containing(value)) == expected, value


def test_dependencies_equal_the_definition_on_random_transcripts() -> None:
    rng = random.Random(11)
    for _ in range(120):
        run = from_openai(_random_transcript(rng))
        messages = transcript(run)
        for min_chars in (0, 3, 5):
            got = [
                (d.call_id, d.value, d.source_stage_ids, d.message_index)
                for d in dependencies_in(messages, run.system, min_chars)
            ]
            assert got == _brute_dependencies(messages, run.system, min_chars)


def _brute_losses(replayed: Run) -> list[tuple[str, str, int | None, bool]]:
    """Losses read literally: every dependent call checked against its materialised window."""
    made_by: dict[int, int] = {}
    for index, message in enumerate(transcript(replayed)):
        if message.role == "assistant":
            made_by[index] = len(made_by)
    out = []
    for dep in dependencies(replayed):
        call_index = made_by[dep.message_index]
        window = replayed.window_sent(call_index)
        tools = [m for m in window if m.role == "tool"]
        if {m.stage_id for m in tools} & set(dep.source_stage_ids) and any(
            dep.value in m.content for m in tools
        ):
            continue
        iteration = replayed.calls[call_index].iteration
        remover = next(
            (
                r.iteration
                for r in reversed(replayed.records)
                if r.iteration <= iteration and dep.source_stage_ids[-1] in r.removed_stage_ids
            ),
            None,
        )
        summary = any(m.authored == "compaction-frame" and dep.value in m.content for m in window)
        out.append((dep.call_id, dep.value, remover, summary))
    return out


def _verbatim(messages: Any) -> str:
    return " ".join(m.content[:60] for m in messages if m.role == "tool")


def _shorten(messages: list[Any]) -> list[Any]:
    return [
        m.model_copy(update={"content": m.content[:12]}) if m.role == "tool" else m
        for m in messages
    ]


STRATEGIES: list[Any] = [
    None,
    sliding_window(1),
    sliding_window(3),
    summarize_oldest(1, _verbatim, keep_recent_turns=1),
    audit(keep_last_messages(4)),
    audit(_shorten),
]


def _check_against_materialised_windows(run: Run) -> tuple[int, int, int]:
    lost = kept = rejected = 0
    for strategy in STRATEGIES:
        for pins in (0, 2):
            replayed = replay(run, strategy, keep_last_tool_results=pins)
            got = [(x.call_id, x.value, x.removed_by, x.kept_by_summary) for x in losses(replayed)]
            assert got == _brute_losses(replayed)
            calls = range(len(replayed.calls))
            wire = [i for i in calls if wire_problems(replayed.window_sent(i))]
            assert wire_problem_calls(replayed) == wire
            assert request_lost_calls(replayed) == [i for i in calls if request_lost(replayed, i)]
            lost += len(got)
            kept += sum(1 for x in got if x[3])
            rejected += len(wire)
    return lost, kept, rejected


def test_losses_and_window_checks_equal_materialised_windows_on_random_runs() -> None:
    rng = random.Random(5)
    totals = [0, 0, 0]
    for _ in range(200):
        for i, n in enumerate(
            _check_against_materialised_windows(from_openai(_random_transcript(rng)))
        ):
            totals[i] += n
    lost, kept, rejected = totals
    assert lost > 0 and kept > 0 and rejected > 0  # the cases that matter were exercised


def test_losses_and_window_checks_equal_materialised_windows_on_tau_bench() -> None:
    runs = load_tau_bench(DATA)
    lost = sum(_check_against_materialised_windows(run)[0] for run in runs[::7])
    assert lost > 0


def test_baseline_chars_equal_a_replay_with_no_policy() -> None:
    runs = [*load_tau_bench(DATA), from_openai(long_transcript(30))]
    for run in runs:
        assert baseline_window_chars(run) == sum(c.chars for c in replay(run, None).calls)
