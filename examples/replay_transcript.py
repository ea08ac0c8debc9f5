"""What would a window policy have done to a conversation recorded elsewhere?

Imports an OpenAI-format transcript, replays it under ``sliding_window`` and under an audited
naive trimmer, and prints what each would have sent — no model is called.

Run: ``python examples/replay_transcript.py``
"""

from __future__ import annotations

import json
from typing import Any

from footprint_lab import audit, replay, sliding_window
from footprint_lab.auditing import keep_last_messages
from footprint_lab.importers import from_openai


def _call(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }


TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a travel agent."},
    {"role": "user", "content": "Change my flight on reservation ABC123 to Friday."},
    _call("c1", "get_reservation", reservation_id="ABC123"),
    {"role": "tool", "tool_call_id": "c1", "content": "ABC123: flight HAT100 on Tuesday " * 8},
    _call("c2", "search_flights", day="Friday"),
    {
        "role": "tool",
        "tool_call_id": "c2",
        "content": "HAT200 Friday 09:00; HAT210 Friday 17:00 " * 6,
    },
    _call("c3", "change_flight", reservation_id="ABC123", flight="HAT200"),
    {"role": "tool", "tool_call_id": "c3", "content": "changed"},
    {"role": "assistant", "content": "Done: you now fly HAT200 on Friday."},
]


def main() -> None:
    recorded = from_openai(TRANSCRIPT)
    for policy in (sliding_window(1), audit(keep_last_messages(3))):
        counterfactual = replay(recorded, policy, keep_last_tool_results=0)
        print(f"== {counterfactual.strategy}")
        for i in range(len(counterfactual.calls)):
            sent = counterfactual.window_sent(i)
            roles = " ".join(m.role for m in sent)
            print(f"  call {i + 1}: {len(sent)} messages [{roles}]")
        violations = [v.kind for r in counterfactual.records for v in r.violations or []]
        print(f"  violations: {sorted(set(violations)) or 'none'}")


if __name__ == "__main__":
    main()
