"""Runs of every writer, built the same way every time: the golden run files' sources.

Test support (not collected). ``tests/data/golden_runs/*.json`` were saved from these builders
in run file version 2 (#37 item 2, the origin kept); ``v1/`` holds what they saved in version 1
(see the folder's README). ``test_golden_runs.py`` holds the writers of today to them: the same
run saves to the same document (clock readings aside), every file of today's version loads and
saves again byte for byte, and every version-1 file reads as today's run. Regenerate only on
purpose, with ``python -m tests.agent.golden_runs`` (it says what it wrote).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from footprint_lab import (
    Agent,
    Reply,
    Run,
    ScriptedProvider,
    ask_human,
    replay,
    sliding_window,
    tool,
)
from footprint_lab.importers import load
from footprint_lab.scenarios import deploy_audit, parallel_tools, screen_driver

FOLDER = Path(__file__).resolve().parent.parent / "data" / "golden_runs"
DATA = Path(__file__).resolve().parents[2] / "data"  # the real files, with their licences


@tool
def lookup(key: str) -> str:
    """Look something up."""
    return f"{key}: " + "value " * 60


def _paused_then_answered() -> Run:
    agent = (
        Agent.create(
            provider=ScriptedProvider(
                [
                    Reply.tool_calls(
                        [("lookup", {"key": "a"}), ("ask_human", {"question": "which?"})]
                    ),
                    Reply.tool_calls([("lookup", {"key": "b"}), ("lookup", {"key": "c"})]),
                    Reply.text("going with blue"),
                ]
            ),
            max_iterations=10,
        )
        .tools(ask_human, lookup)
        .window(sliding_window(keep_recent_turns=2))
        .build()
    )
    return agent.run("pick a colour").resume("blue")


def _paused() -> Run:
    agent = (
        Agent.create(
            provider=ScriptedProvider(
                [Reply.tool_calls([("lookup", {"key": "a"}), ("ask_human", {"question": "?"})])]
            ),
            max_iterations=10,
        )
        .tools(ask_human, lookup)
        .build()
    )
    return agent.run("pick a colour")


def _import(relative: str, index: int = 0) -> Callable[[], Run]:
    def build() -> Run:
        return load(DATA / relative)[index]

    return build


BUILDERS: dict[str, Callable[[], Run]] = {
    "deploy-sliding": lambda: deploy_audit().run(sliding_window(keep_recent_turns=3)),
    "parallel-budget": lambda: parallel_tools().run(parallel_tools().strategies()["token-budget"]),
    "parallel-unmanaged": lambda: parallel_tools().run(),
    "screen-summary": lambda: screen_driver().run(screen_driver().strategies()["summarize-oldest"]),
    "paused": _paused,
    "paused-answered": _paused_then_answered,
    "replay-budget": lambda: replay(
        deploy_audit().run(), deploy_audit().strategies()["token-budget"]
    ),
    "import-openhands": _import("transcripts/openhands/multi-swe-bench-example-1.jsonl"),
    "import-inspect": _import("transcripts/inspect/browser.json"),
    "import-swe-agent": _import(
        "transcripts/swe-agent/marshmallow-1867.function-calling-replace-from-source.traj"
    ),
    "import-claude-code": _import("transcripts/claude-code/edge_cases.jsonl"),
    "import-tau-bench": _import("tau-bench/gpt-4o-airline-dev.json"),
}
"""Each golden run by file name: three live strategies, a pause and its answer, a replay, and
an import from every stack with a real file."""


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, build in BUILDERS.items():
        path = build().save(FOLDER / f"{name}.json")
        print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
