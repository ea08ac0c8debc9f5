"""The cache lens: each call's common prefix with the previous request, exact."""

from __future__ import annotations

from footprint_lab import Message, sliding_window
from footprint_lab.agent import Agent, tool
from footprint_lab.evidence.prefix import call_prefixes, common_prefix_chars
from footprint_lab.lab import capture
from footprint_lab.providers import Reply, ScriptedProvider

SYSTEM = "You are careful."


@tool
def read(k: int) -> str:
    """Read part k."""
    return f"part {k} " + "r" * 200


def _run(strategy: object = None, n: int = 6):  # type: ignore[no-untyped-def]
    script = [Reply.tool_call("read", k=k) for k in range(n)] + [Reply.text("done")]
    builder = (
        Agent.create(
            provider=ScriptedProvider(script), max_iterations=n + 2, keep_last_tool_results=0
        )
        .tool(read)
        .system(SYSTEM)
    )
    if strategy is not None:
        builder = builder.window(strategy)
    return builder.build().run("the request")


def test_a_run_that_removes_nothing_reuses_the_whole_previous_request() -> None:
    calls = capture(_run()).calls
    request = calls["request_chars"].tolist()
    prefix = calls["prefix_chars"].tolist()
    share = calls["prefix_share"].tolist()
    assert prefix[0] == 0
    for k in range(1, len(calls)):
        assert prefix[k] == request[k - 1]
        assert share[k] == request[k - 1] / request[k]
    assert request == [len(SYSTEM) + c for c in calls["chars"]]


def test_a_drop_at_the_front_keeps_only_the_system_prompt_and_the_request() -> None:
    run = _run(sliding_window(1))
    calls = capture(run).calls
    dropped = [r.iteration for r in run.records if r.removed_anything]
    assert dropped
    request_chars = len("the request")
    for _, row in calls.iterrows():
        if row["iteration"] in dropped:
            # The notice (a user message) now follows the request where an assistant stood.
            assert row["prefix_chars"] == len(SYSTEM) + request_chars
            assert row["prefix_share"] < 0.5


def test_the_first_differing_message_counts_its_common_text() -> None:
    messages = [
        Message.user("the request"),
        Message.assistant("hello world"),
        Message.assistant("hello there"),
        Message.user("tail"),
    ]
    cumulative = [0]
    for m in messages:
        cumulative.append(cumulative[-1] + m.chars)
    # Same positions for the request, then 'hello world' vs 'hello there': 6 shared chars.
    assert common_prefix_chars([(0, 2)], [(0, 1), (2, 4)], messages, cumulative) == 11 + 6
    # A copy of a message counts whole.
    copy = [*messages, messages[1].model_copy()]
    cumulative.append(cumulative[-1] + copy[-1].chars)
    assert common_prefix_chars([(0, 2)], [(0, 1), (4, 5)], copy, cumulative) == 11 + 11
    # Nothing shared when the first messages differ in role.
    assert common_prefix_chars([(1, 2)], [(3, 4)], messages, cumulative) == 0


def test_the_frame_and_the_pure_lens_agree() -> None:
    run = _run(sliding_window(2), n=8)
    calls = capture(run).calls
    request, prefix = call_prefixes(run)
    assert calls["request_chars"].tolist() == request
    assert calls["prefix_chars"].tolist() == prefix
