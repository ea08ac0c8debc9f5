"""Every scenario under every shipped strategy, through both real SDKs: the servers, which
validate requests as the real APIs do, never reject one, and the run matches the scripted one.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from footprint_lab.scenarios import deploy_audit, parallel_tools, screen_driver
from tests.providers.servers import MODEL, WireServer, provider_for

SCENARIOS = {
    "deploy-audit": deploy_audit,
    "screen-driver": screen_driver,
    "parallel-tools": parallel_tools,
}
STRATEGIES = ("sliding-window", "token-budget", "summarize-oldest")


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("scenario_name", list(SCENARIOS))
def test_no_request_is_rejected(
    wire: Callable[..., WireServer], scenario_name: str, strategy: str
) -> None:
    scenario = SCENARIOS[scenario_name]()
    server = wire(scenario.replies())
    run = scenario.run(
        scenario.strategies()[strategy], provider=provider_for(server), model=MODEL[server.kind]
    )
    assert server.rejections == []
    run.raise_for_error()
    assert run.status == "done"
    assert len(server.requests) == len(run.calls) == len(scenario.replies())

    # the same story as the scripted provider tells it: same answer, same window decisions
    scripted = scenario.run(scenario.strategies()[strategy])
    assert run.output == scripted.output
    assert [(r.iteration, r.removed_message_count) for r in run.records] == [
        (r.iteration, r.removed_message_count) for r in scripted.records
    ]
    # every tool call id the model sent came back answered, once (the ledger holds results
    # in the order the calls finished; the window, in the order they were asked)
    sent = [c.id for m in run.ledger.messages for c in m.tool_calls]
    answered = [m.tool_call_id for m in run.ledger.messages if m.role == "tool"]
    assert sorted(sent) == sorted(answered)
    in_window = [m.tool_call_id for m in run.window_sent(len(run.calls) - 1) if m.role == "tool"]
    assert in_window == [c.id for m in run.window_sent(len(run.calls) - 1) for c in m.tool_calls]
