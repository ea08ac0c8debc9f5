"""Anthropic's server-side context management read back from a stored message list: a
``compaction`` block drops every earlier message from later calls' windows, and a response's
``context_management.applied_edits`` clears the oldest tool results (and thinking) of its own
call — each an observed record naming what left, built through ``build_run(sent=...)``.

No public transcript holds these blocks yet, so every input here is built from the documented
shapes, named in each test:

* compaction — https://platform.claude.com/docs/en/build-with-claude/compaction (and
  ``.../compaction-threshold``): the ``{"type": "compaction", "content": ...}`` block first in
  the response, ``usage.iterations``, ``pause_after_compaction``; the SDK's
  ``anthropic/types/beta/beta_compaction_block.py`` (``content`` null on a failed compaction,
  ``encrypted_content``);
* context editing — https://platform.claude.com/docs/en/build-with-claude/context-editing
  ("Context editing response"): ``context_management.applied_edits`` items of
  ``clear_tool_uses_20250919`` / ``clear_thinking_20251015``; the SDK's
  ``beta_clear_tool_uses_20250919_edit_response.py`` and
  ``beta_clear_thinking_20251015_edit_response.py``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from footprint_lab import load_run, replay, sliding_window
from footprint_lab.agent.run import Run
from footprint_lab.importers import TranscriptError, from_anthropic
from footprint_lab.importers.chat.anthropic import parse_anthropic, read_anthropic
from footprint_lab.lab import capture
from tests.budget import examples
from tests.importers import helpers
from tests.importers.helpers import history

SUMMARY = "Summary of the conversation: The user requested help building a web scraper..."


def use(call_id: str, query: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "web_search", "input": {"query": query}}


def result(call_id: str, text: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}],
    }


def thinking(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "signature": "EuYBCkQY"}


def compacted() -> list[dict[str, Any]]:
    """A conversation whose fourth reply compacted (the docs' "Working with compaction blocks"
    response, with ``usage.iterations`` from "Understanding usage")."""
    return [
        {"role": "user", "content": "Help me build a Python web scraper"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Searching."}, use("t1", "scrapers")],
        },
        result("t1", "requests, beautifulsoup, scrapy " * 20),
        {"role": "assistant", "content": [{"type": "text", "text": "Use requests."}]},
        {"role": "user", "content": "Add support for JavaScript-rendered pages"},
        {
            "role": "assistant",
            "content": [
                {"type": "compaction", "content": SUMMARY},
                {"type": "text", "text": "Based on our conversation so far..."},
            ],
            "usage": {
                "input_tokens": 23000,
                "output_tokens": 1000,
                "iterations": [
                    {"type": "compaction", "input_tokens": 180000, "output_tokens": 3500},
                    {"type": "message", "input_tokens": 23000, "output_tokens": 1000},
                ],
            },
        },
        {"role": "user", "content": "Now add rate limiting and error handling"},
        {"role": "assistant", "content": [{"type": "text", "text": "Added."}]},
    ]


def window(run: Run, call: int) -> list[Any]:
    return list(run.ledger.window_at(run.calls[call - 1].sent_commit))


def downstream(run: Run, tmp_path: Path) -> None:
    assert len(replay(run, sliding_window(2)).calls) == len(run.calls)
    capture(run)
    again = load_run(run.save(tmp_path / "run.json"))
    assert again.records == run.records
    assert [m.content for m in again.ledger.messages] == [m.content for m in run.ledger.messages]


# -- compaction ------------------------------------------------------------------------------


def test_a_compaction_block_drops_every_earlier_message_from_later_calls(tmp_path: Path) -> None:
    """Shape from the compaction docs (see the module docstring)."""
    raw = compacted()
    run = from_anthropic(raw)
    assert run.import_problems == []
    (record,) = run.records
    assert record.observed and record.strategy == "anthropic-context-management"
    assert record.iteration == 4  # the call after the reply that compacted
    left = [run.ledger.message(s) for s in record.removed_stage_ids]
    before = history(run)[:5]  # everything before the reply holding the compaction block
    assert left == before and next(m.content for m in before) == raw[0]["content"]
    sent = window(run, 4)
    assert (sent[0].role, sent[0].content, sent[0].authored) == (
        "user",
        SUMMARY,
        "compaction-frame",
    )
    assert [m.content for m in sent[1:]] == [
        "Based on our conversation so far...",
        "Now add rate limiting and error handling",
    ]
    # The reply keeps its text; its summary is the stand-in only, never history.
    assert all(m.content != SUMMARY and not m.parts for m in history(run))
    assert record.window_chars_after < record.window_chars_before
    assert run.meta["compactions"] == [
        {
            "message": 5,
            "call": 3,
            "block": 0,
            "summary_chars": len(SUMMARY),
            "iterations": raw[5]["usage"]["iterations"],
        }
    ]
    # Usage is the top-level one (the compaction's own step is in meta, as the API reports).
    assert (run.calls[2].usage.input_tokens, run.calls[2].usage.output_tokens) == (23000, 1000)
    assert window(run, 3) == history(run)[:5]  # the compacting call itself got everything
    downstream(run, tmp_path)


def test_the_latest_compaction_replaces_the_earlier_one() -> None:
    """Shape from the compaction docs: "A long-running conversation may result in multiple
    compactions"."""
    raw = compacted()
    raw += [
        {"role": "user", "content": "Deploy it"},
        {
            "role": "assistant",
            "content": [
                {"type": "compaction", "content": "Second summary."},
                {"type": "text", "text": "Deploying."},
            ],
        },
        {"role": "user", "content": "Thanks"},
        {"role": "assistant", "content": "You're welcome."},
    ]
    run = from_anthropic(raw)
    _first, second = run.records
    assert second.iteration == 6
    gone = [run.ledger.message(s) for s in second.removed_stage_ids]
    assert gone[0].content == SUMMARY and gone[0].authored == "compaction-frame"
    assert [m.content for m in window(run, 6)] == ["Second summary.", "Deploying.", "Thanks"]
    assert [c["call"] for c in run.meta["compactions"]] == [3, 5]


def test_pause_after_compaction_sends_the_summary_then_continues() -> None:
    """Shape from the compaction docs ("Pausing after compaction"): the paused response holds
    only the compaction block and is appended before the request is sent again."""
    raw = [
        *compacted()[:5],
        {"role": "assistant", "content": [{"type": "compaction", "content": SUMMARY}]},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Continuing from the summary."}],
        },
    ]
    run = from_anthropic(raw)
    (record,) = run.records
    assert record.iteration == 4
    assert [m.content for m in window(run, 4)] == [SUMMARY, ""]
    assert len(record.removed_stage_ids) == 5


def test_a_compaction_block_after_other_blocks_drops_them_too() -> None:
    """Shape from the compaction docs ("all content blocks before it are ignored"), with a
    block before the compaction block (as server tools may give)."""
    raw = compacted()
    raw[5]["content"].insert(0, {"type": "text", "text": "Searching again first."})
    run = from_anthropic(raw)
    (record,) = run.records
    reply = history(run)[5]
    assert reply.content == "Searching again first.Based on our conversation so far..."
    assert run.ledger.message(record.removed_stage_ids[-1]) is reply
    assert [(m.content, m.authored) for m in window(run, 4)][:2] == [
        (SUMMARY, "compaction-frame"),
        ("Based on our conversation so far...", "compaction-frame"),
    ]


@pytest.mark.parametrize("content", [None, ""])
def test_a_failed_or_empty_compaction_changes_nothing(content: Any) -> None:
    """Shape from the SDK's BetaCompactionBlock: ``content`` null when compaction failed
    ("the server treats them as no-ops"); an empty one is refused by the API."""
    raw = compacted()
    raw[5]["content"][0] = {"type": "compaction", "content": content}
    run = from_anthropic(raw)
    assert run.records == [] and "compactions" not in run.meta
    assert [p.kind for p in history(run)[5].parts] == ["compaction"]
    assert [p.field for p in run.import_problems] == (
        [] if content is None else ["content[0].content"]
    )


def test_an_opaque_compaction_payload_counts_on_the_stand_in() -> None:
    """Shape from the SDK's BetaCompactionBlock (``encrypted_content``, round-tripped)."""
    raw = compacted()
    raw[5]["content"][0]["encrypted_content"] = "EpwBCioIDxgCEAEYASJALd_opaque"
    run = from_anthropic(raw)
    stand_in = window(run, 4)[0]
    assert [(p.kind, p.data_chars) for p in stand_in.parts] == [("compaction", 29)]


def test_parse_anthropic_keeps_the_block_on_its_message() -> None:
    raw = compacted()
    messages, _usages, _problems = parse_anthropic(raw)
    assert [p.kind for p in messages[5].parts] == ["compaction"]
    read = read_anthropic(raw)
    assert read.messages[5].parts == [] and read.sent is not None and read.sent[3] is not None


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda raw: raw[5]["content"][0].update(content=5), "content[0].content"),
        (
            lambda raw: raw[5]["content"][0].update(encrypted_content=[1]),
            "content[0].encrypted_content",
        ),
        (lambda raw: raw[5].update(context_management="yes"), "context_management"),
        (
            lambda raw: raw[5].update(context_management={"applied_edits": {}}),
            "context_management.applied_edits",
        ),
        (
            lambda raw: raw[5].update(
                context_management={"applied_edits": [{"cleared_tool_uses": 1}]}
            ),
            "context_management.applied_edits[0]",
        ),
        (
            lambda raw: raw[5].update(
                context_management={
                    "applied_edits": [
                        {"type": "clear_tool_uses_20250919", "cleared_tool_uses": "2"}
                    ]
                }
            ),
            "context_management.applied_edits[0].cleared_tool_uses",
        ),
    ],
)
def test_a_malformed_field_is_a_transcript_error_naming_it(edit: Any, field: str) -> None:
    raw = compacted()
    edit(raw)
    with pytest.raises(TranscriptError) as caught:
        from_anthropic(raw)
    assert (caught.value.index, caught.value.field) == (5, field)


# -- context editing -------------------------------------------------------------------------


def searches(edits: list[dict[str, Any]] | None, *, later: Any = "absent") -> list[dict[str, Any]]:
    """Three searches and their results; the fourth reply reports ``edits`` (the docs'
    response shape), the fifth reports ``later`` (or nothing)."""
    raw: list[dict[str, Any]] = [
        {"role": "user", "content": "Search for recent developments in AI"}
    ]
    for k in (1, 2, 3):
        raw.append({"role": "assistant", "content": [thinking(f"plan {k}"), use(f"t{k}", f"q{k}")]})
        raw.append(result(f"t{k}", f"result {k} " * 30))
    raw.append(
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Summarizing."}],
            "context_management": {"applied_edits": edits},
        }
    )
    raw.append({"role": "user", "content": "More detail please"})
    reply: dict[str, Any] = {"role": "assistant", "content": "Here is more."}
    if later != "absent":
        reply["context_management"] = later
    raw.append(reply)
    return raw


CLEAR_TWO = {
    "type": "clear_tool_uses_20250919",
    "cleared_tool_uses": 2,
    "cleared_input_tokens": 50000,
}


def test_applied_edits_clear_the_oldest_tool_results_in_place(tmp_path: Path) -> None:
    """Shape from the context-editing docs ("Context editing response")."""
    run = from_anthropic(searches([CLEAR_TWO]))
    assert run.import_problems == []
    (record,) = run.records
    assert record.iteration == 4 and record.observed
    results = [m for m in history(run) if m.role == "tool"]
    assert record.cleared_stage_ids == [m.stage_id for m in results[:2]]
    assert record.removed_stage_ids == record.cleared_stage_ids
    sent = window(run, 4)
    placeholders = [m for m in sent if m.authored == "cleared-result"]
    assert [(m.role, m.tool_call_id, m.name) for m in placeholders] == [
        ("tool", "t1", "web_search"),
        ("tool", "t2", "web_search"),
    ]
    assert results[2] in sent  # the newest result stays
    assert record.window_chars_after < record.window_chars_before
    assert run.meta["context_edits"] == [
        {
            "message": 7,
            "call": 4,
            "type": "clear_tool_uses_20250919",
            "cleared_tool_uses": 2,
            "cleared_input_tokens": 50000,
            "cleared_tool_call_ids": ["t1", "t2"],
        }
    ]
    # The next response reports nothing: the same results stay cleared (no new record).
    assert [m.authored for m in window(run, 5)].count("cleared-result") == 2
    downstream(run, tmp_path)


def test_a_later_response_with_no_edits_had_everything_sent_again() -> None:
    """Shape from the context-editing docs: every response reports ``applied_edits``; an
    empty list means nothing was cleared for that call."""
    run = from_anthropic(searches([CLEAR_TWO], later={"applied_edits": []}))
    _cleared, restored = run.records
    assert restored.iteration == 5
    assert [run.ledger.message(s).authored for s in restored.removed_stage_ids] == [
        "cleared-result"
    ] * 2
    assert all(m.authored is None for m in window(run, 5))


def test_more_cleared_than_the_window_holds_is_listed() -> None:
    """Shape from the context-editing docs, with a count larger than the results there are."""
    run = from_anthropic(searches([{**CLEAR_TWO, "cleared_tool_uses": 5}]))
    assert [p.field for p in run.import_problems] == [
        "context_management.applied_edits[0].cleared_tool_uses"
    ]
    assert len(run.records[0].cleared_stage_ids) == 3


def test_an_unknown_edit_and_a_negative_count_are_listed() -> None:
    """Shape from the context-editing docs, with an edit type the docs do not name and a
    negative count (kept, listed)."""
    edits = [{"type": "clear_everything_20990101"}, {**CLEAR_TWO, "cleared_input_tokens": -1}]
    run = from_anthropic(searches(edits))
    assert [p.field for p in run.import_problems] == [
        "context_management.applied_edits[0].type",
        "context_management.applied_edits[1].cleared_input_tokens",
    ]
    assert run.meta["context_edits"][0]["cleared_input_tokens"] == 0
    with pytest.raises(TranscriptError):
        from_anthropic(searches(edits), strict=True)


def test_thinking_clearing_is_reported_with_the_replies_it_names() -> None:
    """Shape from the context-editing docs (the ``clear_thinking_20251015`` response item):
    the oldest replies holding thinking are the cleared ones (the docs' rule keeps the most
    recent turns)."""
    edit = {
        "type": "clear_thinking_20251015",
        "cleared_thinking_turns": 2,
        "cleared_input_tokens": 15000,
    }
    run = from_anthropic(searches([edit]))
    assert run.meta["context_edits"] == [
        {
            "message": 7,
            "call": 4,
            "type": "clear_thinking_20251015",
            "cleared_thinking_turns": 2,
            "cleared_input_tokens": 15000,
            "cleared_calls": [1, 2],
        }
    ]
    assert run.import_problems == []


def test_thinking_clearing_is_an_observed_record() -> None:
    """Shape from the context-editing docs (as above)."""
    edit = {
        "type": "clear_thinking_20251015",
        "cleared_thinking_turns": 2,
        "cleared_input_tokens": 15000,
    }
    run = from_anthropic(searches([edit]))
    (record,) = run.records
    replies = [m for m in history(run) if m.role == "assistant"]
    assert record.cleared_stage_ids == [m.stage_id for m in replies[:2]]


def test_clearing_after_a_compaction_reaches_only_what_the_call_was_sent() -> None:
    """Shapes from both docs: a compaction, then a response that cleared one tool result of
    the compacted window (the result sent after the summary, the older one being gone)."""
    raw = [
        *compacted()[:-1],
        {"role": "assistant", "content": [use("t9", "rate limits")]},
        result("t9", "token bucket " * 20),
        {
            "role": "assistant",
            "content": "Done.",
            "context_management": {"applied_edits": [{**CLEAR_TWO, "cleared_tool_uses": 1}]},
        },
    ]
    run = from_anthropic(raw)
    _compaction, clearing = run.records
    assert clearing.iteration == 5
    (cleared,) = [run.ledger.message(s) for s in clearing.cleared_stage_ids]
    assert cleared.tool_call_id == "t9"
    assert run.meta["context_edits"][0]["cleared_tool_call_ids"] == ["t9"]


# -- fuzzing ---------------------------------------------------------------------------------

WRONG = helpers.wrong_values("compaction", "clear_tool_uses_20250919", "clear_thinking_20251015")
READ = frozenset(
    {
        "content",
        "type",
        "encrypted_content",
        "context_management",
        "applied_edits",
        "cleared_tool_uses",
        "cleared_thinking_turns",
        "cleared_input_tokens",
        "iterations",
        "usage",
        "tool_use_id",
        "id",
    }
)
INPUTS = [
    compacted(),
    searches([CLEAR_TWO]),
    searches(
        [
            {
                "type": "clear_thinking_20251015",
                "cleared_thinking_turns": 1,
                "cleared_input_tokens": 9,
            }
        ]
    ),
]


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data(), st.sampled_from(range(len(INPUTS))))
def test_a_mutated_list_imports_or_raises_transcript_error(data: st.DataObject, which: int) -> None:
    raw = copy.deepcopy(INPUTS[which])
    for _ in range(data.draw(st.integers(1, 3))):
        raw = helpers.mutate(data.draw, raw, WRONG, READ)
    try:
        run = from_anthropic(raw)
    except TranscriptError as exc:
        assert exc.field and exc.problem
        return
    assert len(run.calls) == sum(m.role == "assistant" for m in history(run))
    for record in run.records:
        assert all(run.ledger.message(s) is not None for s in record.removed_stage_ids)
