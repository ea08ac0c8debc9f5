"""Real saved runs as JSON documents, for the meaning-level edits of
``test_run_file_meaning``: the runs, how the writer signs a document, and a reader of what an
edit needs (messages, windows as of a commit, sizes, the request), plus a forger of visits."""

from __future__ import annotations

import atexit
import copy
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from footprint_lab import (
    Agent,
    Message,
    Reply,
    ScriptedProvider,
    clear_tool_results,
    sliding_window,
    tool,
)
from footprint_lab.agent._runfile_io import with_checksum
from footprint_lab.agent.run import Run
from footprint_lab.scenarios import deploy_audit, parallel_tools
from footprint_lab.window.records import Violation, WindowRecord

Doc = dict[str, Any]

FOLDER = Path(tempfile.mkdtemp(prefix="run-file-meaning-"))
atexit.register(shutil.rmtree, FOLDER, ignore_errors=True)


@tool
def lookup(key: str) -> str:
    """Look something up."""
    return f"{key}: " + "value " * 30


@tool(check_in=True)
def drop_table(name: str) -> str:
    """Acts on the world: needs consent."""
    return f"dropped {name}"


# -- the real runs edited -----------------------------------------------------------------


def _conversation() -> Run:
    scenario = deploy_audit()
    agent = scenario.agent(scenario.strategies()["sliding-window"])
    agent.run(scenario.request)
    return agent.run("Now summarise d4's log in one line.")


def _small(replies: list[Reply]) -> Run:
    agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=6)
        .tools(lookup, drop_table)
        .window(sliding_window(keep_recent_turns=1))
        .build()
    )
    return agent.run("go")


def _clearing(inputs: bool) -> Run:
    scenario = deploy_audit()
    return scenario.run(clear_tool_results(keep_results=1, clear_tool_inputs=inputs))


BASES: dict[str, Callable[[], Run]] = {
    "sliding-window": lambda: deploy_audit().run(deploy_audit().strategies()["sliding-window"]),
    "token-budget": lambda: deploy_audit().run(deploy_audit().strategies()["token-budget"]),
    "summarize-oldest": lambda: deploy_audit().run(deploy_audit().strategies()["summarize-oldest"]),
    "no-strategy": lambda: deploy_audit().run(None),
    "parallel": lambda: parallel_tools().run(parallel_tools().strategies()["sliding-window"]),
    "clear-results": lambda: _clearing(False),
    "clear-inputs": lambda: _clearing(True),
    "conversation": _conversation,
    "paused": lambda: _small(
        [
            Reply.tool_call("lookup", key="a"),
            Reply.tool_call("lookup", key="b"),
            Reply.tool_calls([("lookup", {"key": "c"}), ("drop_table", {"name": "t"})]),
        ]
    ),
    "error": lambda: _small(
        [Reply.tool_call("lookup", key="a"), Reply.tool_call("lookup", key="b"), Reply.fail("503")]
    ),
}
DOCS: dict[str, Doc] = {}


def doc_of(name: str) -> Doc:
    if name not in DOCS:
        run = BASES[name]()
        assert run.status in ("done", "paused", "error"), run.error
        doc: Doc = json.loads(run.save(FOLDER / f"{name}.json").read_text(encoding="utf-8"))
        del doc["checksum"]
        DOCS[name] = doc
    return copy.deepcopy(DOCS[name])


def resigned(doc: Doc, name: str) -> Path:
    """``doc`` written as the writer writes a run file: compact JSON, checksum in front."""
    path = FOLDER / name
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    path.write_text(with_checksum(text), encoding="utf-8")
    return path


# -- reading the document -----------------------------------------------------------------


class View:
    """What an editor needs to know of a run document: messages, windows, sizes."""

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        ledger = doc["ledger"]
        self.messages = [Message.model_validate(m) for m in ledger["messages"]]
        self.commits: list[Doc] = ledger["commits"]

    def runs_at(self, index: int) -> list[tuple[int, int]]:
        """The ledger's window as of commit ``index``, as runs of positions."""
        end, last, appended_from = 0, None, 0
        for commit in self.commits[: index + 1]:
            if commit["key"] == "history":
                end = commit["value"][1]
            elif commit["key"] == "window":
                last, appended_from = commit["value"], end
        if last is None:
            return [(0, end)] if end else []
        runs = [(a, b) for a, b in last]
        return [*runs, (appended_from, end)] if end > appended_from else runs

    def window_at(self, index: int) -> list[int]:
        """The ledger's window as of commit ``index``, as positions."""
        return [p for a, b in self.runs_at(index) for p in range(a, b)]

    def chars(self, positions: list[int]) -> int:
        """Exact characters of the messages at ``positions``."""
        return sum(self.messages[p].chars for p in positions)

    def request(self) -> int:
        """Position of the current request (the last a person wrote, by a seed stage)."""
        return max(
            p
            for p, m in enumerate(self.messages)
            if m.role == "user" and (m.stage_id or "").startswith("seed#") and m.authored is None
        )


def runs_of(positions: list[int]) -> list[list[int]]:
    """``positions`` as the runs a window commit stores."""
    out: list[list[int]] = []
    for p in positions:
        if out and out[-1][1] == p:
            out[-1][1] = p + 1
        else:
            out.append([p, p + 1])
    return out


def forge_visit(doc: Doc, window: list[int], violations: list[Violation] | None) -> None:
    """Append a visit to the ledger that sets ``window``, with a record whose sizes, count and
    names are exactly the ledger's — what a careful forger writes."""
    view = View(doc)
    ledger = doc["ledger"]
    before = doc["window"]
    left = [p for p in before if p not in set(window)]
    counter = ledger["stage_counter"]
    stage = f"window#{counter}"
    ledger["stage_counter"] = counter + 1
    at_ms = view.commits[-1]["at_ms"]
    index = len(view.commits)
    record = WindowRecord(
        strategy=doc["strategy"] or "sliding-window",
        iteration=doc["iterations"],
        removed_stage_ids=list(
            dict.fromkeys(s for p in left if (s := view.messages[p].stage_id) is not None)
        ),
        removed_message_count=len(left),
        window_chars_before=view.chars(before),
        window_chars_after=view.chars(window),
        violations=violations,
        commit=index + 1,
    ).model_dump(mode="json")
    ledger["commits"] += [
        {
            "index": index,
            "stage_id": stage,
            "key": "window",
            "at_ms": at_ms,
            "value": runs_of(window),
        },
        {"index": index + 1, "stage_id": stage, "key": "record", "at_ms": at_ms, "value": record},
    ]
    doc["records"].append(record)
    doc["window"] = window
