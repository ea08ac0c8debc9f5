"""Any text is storable: a lone surrogate never makes hashing, saving, capture or replay raise.

The rule (footprint_lab.messages): lone surrogates are escaped on the way in, at the one place
messages are built, as the visible text ``\\udcff``; valid text is kept exactly.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Agent,
    Message,
    Reply,
    ScriptedProvider,
    ToolCall,
    content_hash,
    load_run,
    replay,
    sliding_window,
    tool,
)
from footprint_lab.importers import from_openai
from footprint_lab.lab import capture
from tests.budget import examples

NOT_UTF8 = "report-\udcff.txt"  # what os.listdir gives for a file name that is not UTF-8


def test_a_tool_result_with_a_lone_surrogate_survives_the_whole_run(tmp_path: Path) -> None:
    @tool
    def list_files() -> str:
        """List files."""
        return f"{NOT_UTF8}\nnotes.md " + "pad " * 60

    provider = ScriptedProvider([Reply.tool_call("list_files")] * 4 + [Reply.text("ok")])
    run = (
        Agent.create(provider=provider, max_iterations=6)
        .tool(list_files)
        .window(sliding_window(keep_recent_turns=1))
        .build()
        .run("List my files.")
    )
    assert run.status == "done", run.error
    stored = next(m for m in run.ledger.messages if m.role == "tool")
    assert stored.content.startswith("report-\\udcff.txt")  # escaped, visibly, losslessly
    stored.content.encode("utf-8")
    content_hash(stored)
    path = run.save(tmp_path / "run.json")
    loaded = load_run(path)
    assert [m.content for m in loaded.ledger.messages] == [m.content for m in run.ledger.messages]
    capture(run)
    capture(loaded)
    assert replay(loaded, sliding_window(keep_recent_turns=2)).status == "done"


def test_an_imported_message_with_a_lone_surrogate_imports_and_replays() -> None:
    run = from_openai(
        [
            {"role": "user", "content": f"open {NOT_UTF8}"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "open", "arguments": '{"path": "report-\\udcff.txt"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": f"{NOT_UTF8}: 3 lines"},
            {"role": "assistant", "content": "done"},
        ]
    )
    capture(run)
    run.checkpoint().model_dump_json()
    assert replay(run, sliding_window(keep_recent_turns=1)).status == "done"


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(alphabet=st.characters(codec=None), max_size=40))
def test_every_text_is_storable(text: str) -> None:
    message = Message.assistant(text, tool_calls=[ToolCall("c", text or "t", {text: [text]})])
    message.model_dump_json().encode("utf-8")
    content_hash(message)
    if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        assert message.content == text  # valid text is kept exactly
