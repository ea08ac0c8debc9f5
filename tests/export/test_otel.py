"""OpenTelemetry out and in: ``to_otel`` writes OTLP JSON in the GenAI conventions and
``load_otel`` reads it back into an equal run, reads foreign GenAI traces, and rejects every
malformed file with a ``TranscriptError``."""

from __future__ import annotations

import base64
import copy
import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

from footprint_lab import (
    Agent,
    Reply,
    ScriptedProvider,
    ask_human,
    replay,
    sliding_window,
    summarize_oldest,
    token_budget,
    tool,
)
from footprint_lab.agent import after_compaction
from footprint_lab.agent.run import Run, checkpoint_of
from footprint_lab.export import to_otel
from footprint_lab.export.otel import otel_document
from footprint_lab.importers import from_openai, load_tau_bench
from footprint_lab.importers._parts import TranscriptError
from footprint_lab.importers.otel import load_otel
from footprint_lab.lab import capture
from footprint_lab.scenarios import SCENARIOS, deploy_audit, parallel_tools
from tests.budget import examples
from tests.builders import EVIDENCE_TRANSCRIPT

FRAMES = ("records", "messages", "calls", "membership", "evictions", "refusals", "commits")
TAU = Path(__file__).resolve().parents[2] / "data" / "tau-bench"


def round_trip(run: Run, folder: Path, name: str = "run.otel.json") -> Run:
    """``run`` written with ``to_otel`` and read back with ``load_otel``."""
    (loaded,) = load_otel(to_otel(run, folder / name))
    return loaded


def assert_same_run(run: Run, loaded: Run) -> None:
    """The whole run state agrees, and so does every frame the lab captures."""
    assert checkpoint_of(loaded).model_dump(mode="json") == checkpoint_of(run).model_dump(
        mode="json"
    )
    original, back = capture(run), capture(loaded)
    for name in FRAMES:
        assert_frame_equal(getattr(original, name), getattr(back, name), check_exact=True)
    # A fault comes back as the text it was saved as (a RestoredError), as from a run file.
    error = original.info.pop("error")
    assert back.info.pop("error") == (None if error is None else f"RestoredError: {error}")
    assert back.info == original.info


def spans_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        span
        for resource in document["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]


def attrs(holder: dict[str, Any]) -> dict[str, Any]:
    """OTLP attributes as key -> the AnyValue's one value (arrays as lists)."""
    out: dict[str, Any] = {}
    for kv in holder.get("attributes", []):
        ((kind, value),) = kv["value"].items()
        if kind == "arrayValue":
            value = [next(iter(v.values())) for v in value.get("values", [])]
        elif kind == "intValue":
            value = int(value)
        out[kv["key"]] = value
    return out


def write_json(folder: Path, document: Any, name: str = "trace.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


# -- runs to round-trip -----------------------------------------------------------------------


def _scripted(name: str, strategy: str | None) -> Run:
    scenario = SCENARIOS[name]()
    return scenario.run(None if strategy is None else scenario.strategies()[strategy])


@pytest.mark.parametrize("strategy", [None, "sliding-window", "token-budget", "summarize-oldest"])
@pytest.mark.parametrize("scenario", ["deploy-audit", "screen-driver", "parallel-tools"])
def test_scripted_runs_round_trip_under_every_strategy(
    tmp_path: Path, scenario: str, strategy: str | None
) -> None:
    run = _scripted(scenario, strategy)
    assert_same_run(run, round_trip(run, tmp_path))


def test_a_long_conversation_of_four_requests_round_trips(tmp_path: Path) -> None:
    scenario = SCENARIOS["long-session"]()
    run = scenario.run(scenario.strategies()["sliding-window"])
    assert len(run.requests) == 4
    assert_same_run(run, round_trip(run, tmp_path))


def test_parallel_tool_calls_round_trip_one_tool_span_per_result(tmp_path: Path) -> None:
    run = parallel_tools().run(token_budget(threshold_tokens=400, keep_recent_turns=2))
    document = otel_document(run)
    tools = [s for s in spans_of(document) if attrs(s)["gen_ai.operation.name"] == "execute_tool"]
    results = [m for m in run.ledger.messages if m.role == "tool" and m.authored is None]
    assert [attrs(s)["gen_ai.tool.call.id"] for s in tools] == [m.tool_call_id for m in results]
    assert any(len(m.tool_calls) == 2 for m in run.ledger.messages)
    assert_same_run(run, round_trip(run, tmp_path))


@pytest.mark.parametrize("entry", [0, 7, 23])
def test_tau_bench_runs_and_their_replays_round_trip(tmp_path: Path, entry: int) -> None:
    imported = load_tau_bench(TAU)[entry]
    replayed = replay(imported, sliding_window(keep_recent_turns=2))
    assert replayed.records
    assert_same_run(imported, round_trip(imported, tmp_path, "imported.json"))
    assert_same_run(replayed, round_trip(replayed, tmp_path, "replayed.json"))


@tool(check_in=True)
def wire_money(amount: int) -> str:
    """Send money (asks a person first)."""
    return f"sent {amount}"


@tool
def dump() -> str:
    """A bulky result."""
    return "x" * 2000


def _asking(replies: list[Reply], *tools: Any) -> Agent:
    agent: Agent = (
        Agent.create(provider=ScriptedProvider(replies), max_iterations=4)
        .tools(ask_human, *tools)
        .system("You help.")
        .window(sliding_window(3))
        .build()
    )
    return agent


def _paused() -> Run:
    return _asking([Reply.tool_call("ask_human", question="which?"), Reply.text("ok")]).run("ask")


def _resumed() -> Run:
    return _paused().resume("the second one")


def _check_in() -> Run:
    replies = [Reply.tool_call("wire_money", amount=5), Reply.text("sent")]
    return _asking(replies, wire_money).run("pay")


def _provider_error() -> Run:
    return _asking([Reply.tool_call("dump"), Reply.fail("503 overloaded")], dump).run("x")


def _forced_recovery() -> Run:
    scenario = deploy_audit()
    agent: Agent = (
        Agent.create(
            provider=ScriptedProvider(scenario.replies(), context_window=1_200),
            max_iterations=scenario.max_iterations,
        )
        .system(scenario.system)
        .tools(*scenario.tools)
        .window(token_budget(threshold_tokens=100_000, keep_recent_turns=2))
        .inject(after_compaction("Standing order: cite the deployment id."))
        .build()
    )
    return agent.run(scenario.request)


def _context_length_error() -> Run:
    provider = ScriptedProvider([Reply.text("never")], context_window=2)
    return Agent.create(provider=provider).window(sliding_window(1)).build().run("a long request")


def _max_iterations() -> Run:
    scenario = deploy_audit()
    agent: Agent = (
        Agent.create(provider=scenario.provider(), max_iterations=3)
        .system(scenario.system)
        .tools(*scenario.tools)
        .window(sliding_window(keep_recent_turns=1))
        .build()
    )
    return agent.run(scenario.request)


def _follow_up() -> Run:
    agent = _asking([Reply.text("one"), Reply.tool_call("dump"), Reply.text("two")], dump)
    agent.run("first request")
    return agent.run("second request")


def _imported() -> Run:
    return from_openai(EVIDENCE_TRANSCRIPT, task="evidence")


EDGE_RUNS: dict[str, Callable[[], Run]] = {
    "paused-ask-human": _paused,
    "resumed-after-answer": _resumed,
    "paused-check-in": _check_in,
    "provider-error": _provider_error,
    "forced-recovery-with-injection": _forced_recovery,
    "context-length-error": _context_length_error,
    "max-iterations-unsent-results": _max_iterations,
    "follow-up-request": _follow_up,
    "imported-transcript": _imported,
}


@pytest.mark.parametrize("name", list(EDGE_RUNS))
def test_paused_failed_forced_unfinished_and_imported_runs_round_trip(
    tmp_path: Path, name: str
) -> None:
    run = EDGE_RUNS[name]()
    assert_same_run(run, round_trip(run, tmp_path))


def test_the_edge_runs_cover_what_they_are_named_for() -> None:
    assert _paused().status == "paused" and _check_in().pause is not None
    assert _provider_error().status == "error" and _context_length_error().status == "error"
    forced = _forced_recovery()
    assert any(r.forced for r in forced.records) and any(c.retry for c in forced.calls)
    assert any(m.authored == "injection" for m in forced.ledger.messages)
    unfinished = _max_iterations()
    document = otel_document(unfinished)
    (root,) = [s for s in spans_of(document) if "parentSpanId" not in s]
    assert "footprint_lab.messages" in attrs(root)  # the last results no call received
    assert len(_follow_up().requests) == 2


def test_a_loaded_run_writes_the_same_bytes_again(tmp_path: Path) -> None:
    run = _scripted("screen-driver", "summarize-oldest")
    first = to_otel(run, tmp_path / "a.json").read_bytes()
    assert to_otel(run, tmp_path / "b.json").read_bytes() == first
    loaded = round_trip(run, tmp_path, "c.json")
    assert to_otel(loaded, tmp_path / "d.json").read_bytes() == first


def test_different_runs_are_different_traces() -> None:
    ids = {
        spans_of(otel_document(_scripted("deploy-audit", strategy)))[0]["traceId"]
        for strategy in (None, "sliding-window", "token-budget")
    }
    assert len(ids) == 3


# -- the OTLP shape and the GenAI conventions -------------------------------------------------


def _base64_ids(document: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(document)
    for span in spans_of(out):
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return out


def test_the_file_is_an_otlp_export_trace_service_request(tmp_path: Path) -> None:
    from google.protobuf import json_format  # type: ignore[import-untyped, unused-ignore]
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    run = _scripted("parallel-tools", "sliding-window")
    document = json.loads(to_otel(run, tmp_path / "run.json").read_text(encoding="utf-8"))
    spans = spans_of(document)
    for span in spans:
        assert len(span["traceId"]) == 32 and int(span["traceId"], 16)
        assert len(span["spanId"]) == 16 and int(span["spanId"], 16)
        assert isinstance(span["startTimeUnixNano"], str) and span["startTimeUnixNano"].isdigit()
        assert isinstance(span["kind"], int)
    assert len({s["traceId"] for s in spans}) == 1
    assert len({s["spanId"] for s in spans}) == len(spans)
    (root,) = [s for s in spans if "parentSpanId" not in s]
    assert all(s["parentSpanId"] == root["spanId"] for s in spans if s is not root)
    request = ExportTraceServiceRequest()
    json_format.ParseDict(_base64_ids(document), request)  # strict: unknown fields refused
    parsed = request.resource_spans[0].scope_spans[0].spans
    assert len(parsed) == 1 + len(run.calls) + sum(
        1 for m in run.ledger.messages if m.role == "tool" and m.authored is None
    )
    assert parsed[0].trace_id.hex() == root["traceId"]
    commit_ns = {c.at_ms * 1_000_000 for c in run.ledger.commits}
    assert {s.start_time_unix_nano for s in parsed} <= commit_ns  # times are commit times


def _messages_attr(span: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value: list[dict[str, Any]] = json.loads(attrs(span)[key])
    return value


def _assert_genai_message(message: dict[str, Any], output: bool = False) -> None:
    assert message["role"] in ("system", "user", "assistant", "tool")
    assert isinstance(message["parts"], list)
    for part in message["parts"]:
        if part["type"] == "text":
            assert isinstance(part["content"], str)
        elif part["type"] == "tool_call":
            assert {"id", "name", "arguments"} <= set(part)
            assert isinstance(part["arguments"], dict)
        elif part["type"] == "tool_call_response":
            assert {"id", "response"} <= set(part)
    if output:
        assert isinstance(message["finish_reason"], str)
    assert set(message["footprint_lab"]) >= {"position", "stage_id"}


def test_spans_carry_the_genai_attributes(tmp_path: Path) -> None:
    run = _scripted("deploy-audit", "summarize-oldest")
    spans = spans_of(otel_document(run))
    by_op: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        by_op.setdefault(attrs(span)["gen_ai.operation.name"], []).append(span)
    (agent,) = by_op["invoke_agent"]
    assert agent["name"] == "invoke_agent deploy-audit"
    agent_attrs = attrs(agent)
    assert agent_attrs["gen_ai.agent.name"] == "deploy-audit"
    assert agent_attrs["gen_ai.usage.input_tokens"] == run.usage.input_tokens
    assert json.loads(agent_attrs["gen_ai.system_instructions"]) == [
        {"type": "text", "content": run.system}
    ]
    assert len(by_op["chat"]) == len(run.calls)
    for k, (span, call) in enumerate(zip(by_op["chat"], run.calls, strict=True)):
        a = attrs(span)
        assert span["name"] == "chat scripted" and span["kind"] == 3  # SPAN_KIND_CLIENT
        assert a["gen_ai.provider.name"] == a["gen_ai.system"] == "scripted"
        assert a["gen_ai.request.model"] == "scripted"
        assert call.usage is not None
        assert a["gen_ai.usage.input_tokens"] == call.usage.input_tokens
        assert a["gen_ai.usage.output_tokens"] == call.usage.output_tokens
        assert a["gen_ai.response.finish_reasons"] == [call.finish_reason]
        inputs = _messages_attr(span, "gen_ai.input.messages")
        outputs = _messages_attr(span, "gen_ai.output.messages")
        for message in inputs:
            _assert_genai_message(message)
        (reply,) = outputs
        _assert_genai_message(reply, output=True)
        window = run.window_sent(k)
        assert [m["footprint_lab"]["position"] for m in inputs] == [
            run.ledger.position(m) for m in window
        ]
        assert [m["footprint_lab"]["stage_id"] for m in inputs] == [m.stage_id for m in window]
    for span in by_op["execute_tool"]:
        a = attrs(span)
        assert span["name"] == f"execute_tool {a['gen_ai.tool.name']}"
        assert a["gen_ai.tool.call.id"] and a["gen_ai.tool.type"] == "function"
        assert json.loads(a["gen_ai.tool.call.arguments"])["deployment"].startswith("d")


def test_attribute_names_are_the_semantic_conventions_own() -> None:
    semconv = pytest.importorskip("opentelemetry.semconv._incubating.attributes.gen_ai_attributes")
    from footprint_lab.export import otel as out
    from footprint_lab.importers import otel as back
    from footprint_lab.otlp import names

    pairs = {
        "OPERATION": "GEN_AI_OPERATION_NAME",
        "PROVIDER": "GEN_AI_PROVIDER_NAME",
        "SYSTEM": "GEN_AI_SYSTEM",
        "REQUEST_MODEL": "GEN_AI_REQUEST_MODEL",
        "AGENT_NAME": "GEN_AI_AGENT_NAME",
        "INPUT_MESSAGES": "GEN_AI_INPUT_MESSAGES",
        "OUTPUT_MESSAGES": "GEN_AI_OUTPUT_MESSAGES",
        "SYSTEM_INSTRUCTIONS": "GEN_AI_SYSTEM_INSTRUCTIONS",
        "INPUT_TOKENS": "GEN_AI_USAGE_INPUT_TOKENS",
        "OUTPUT_TOKENS": "GEN_AI_USAGE_OUTPUT_TOKENS",
        "CACHE_READ_TOKENS": "GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS",
        "CACHE_WRITE_TOKENS": "GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS",
        "FINISH_REASONS": "GEN_AI_RESPONSE_FINISH_REASONS",
        "TOOL_NAME": "GEN_AI_TOOL_NAME",
        "TOOL_CALL_ID": "GEN_AI_TOOL_CALL_ID",
        "TOOL_TYPE": "GEN_AI_TOOL_TYPE",
        "TOOL_ARGUMENTS": "GEN_AI_TOOL_CALL_ARGUMENTS",
        "TOOL_RESULT": "GEN_AI_TOOL_CALL_RESULT",
    }
    for ours, theirs in pairs.items():
        assert getattr(names, ours) == getattr(semconv, theirs)
    # The reader and the writer spell no name of their own: each one they expose is otlp's.
    for side, at_least in ((back, 20), (out, 4)):
        shared = [n for n in dir(side) if n.isupper() and hasattr(names, n)]
        assert len(shared) > at_least
        assert all(getattr(side, n) is getattr(names, n) for n in shared)


def test_each_record_is_an_event_on_the_call_it_preceded() -> None:
    run = _scripted("screen-driver", "sliding-window")
    spans = spans_of(otel_document(run))
    seen: dict[int, tuple[int | None, dict[str, Any]]] = {}
    for span in spans:
        call = attrs(span).get("footprint_lab.call_index")
        for e in span.get("events", []):
            if e["name"] == "footprint_lab.window":
                a = attrs(e)
                seen[a["footprint_lab.record_index"]] = (call, a)
    assert sorted(seen) == list(range(len(run.records)))
    for j, record in enumerate(run.records):
        call, a = seen[j]
        assert record.commit is not None
        following = [k for k, c in enumerate(run.calls) if c.sent_commit >= record.commit]
        assert call == (following[0] if following else None)
        assert a["footprint_lab.strategy"] == record.strategy
        assert a["footprint_lab.removed_stage_ids"] == record.removed_stage_ids
        assert a["footprint_lab.refusals"] == [r.reason for r in record.refusals]
        assert a["footprint_lab.window_chars_before"] == record.window_chars_before
        assert a["footprint_lab.window_chars_after"] == record.window_chars_after
        assert json.loads(a["footprint_lab.record"]) == record.model_dump(mode="json")
    assert any(a["footprint_lab.removed_stage_ids"] for _, a in seen.values())


# -- foreign traces ---------------------------------------------------------------------------


def _text(content: str) -> dict[str, Any]:
    return {"type": "text", "content": content}


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}


def _response(call_id: str, response: Any) -> dict[str, Any]:
    return {"type": "tool_call_response", "id": call_id, "response": response}


USER: dict[str, Any] = {"role": "user", "parts": [_text("Find the booking of user_1.")]}
ASK_1: dict[str, Any] = {"role": "assistant", "parts": [_call("c1", "get_user", user_id="user_1")]}
RESULT_1: dict[str, Any] = {
    "role": "tool",
    "parts": [_response("c1", "reservations: R1, R2 " + "x" * 80)],
}
ASK_2: dict[str, Any] = {"role": "assistant", "parts": [_call("c2", "get_reservation", id="R1")]}
RESULT_2: dict[str, Any] = {"role": "tool", "parts": [_response("c2", "flight F9 " + "y" * 80)]}
ANSWER: dict[str, Any] = {"role": "assistant", "parts": [_text("Your flight is F9.")]}
SYSTEM_TEXT = "You book flights."
# The third call's input is trimmed: the first call and its result are gone.
CALLS = [
    ([USER], ASK_1, (50, 5)),
    ([USER, ASK_1, RESULT_1], ASK_2, (90, 6)),
    ([USER, ASK_2, RESULT_2], ANSWER, (80, 4)),
]


def _hex_ids(document: dict[str, Any]) -> dict[str, Any]:
    for span in spans_of(document):
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = base64.b64decode(span[key]).hex()
    return document


@pytest.fixture
def sdk() -> Iterator[tuple[Any, Callable[[], dict[str, Any]]]]:
    """A tracer of the real OpenTelemetry SDK, and what it exported as OTLP JSON."""
    pytest.importorskip("opentelemetry.sdk.trace")
    encoder = pytest.importorskip("opentelemetry.exporter.otlp.proto.common.trace_encoder")
    from google.protobuf import json_format  # type: ignore[import-untyped, unused-ignore]
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    def exported() -> dict[str, Any]:
        request = encoder.encode_spans(exporter.get_finished_spans())
        return _hex_ids(json.loads(json_format.MessageToJson(request)))

    yield provider.get_tracer("genai-test"), exported
    provider.shutdown()


def _chat_attributes(inputs: list[Any], output: Any, usage: tuple[int, int]) -> dict[str, Any]:
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.system_instructions": json.dumps([_text(SYSTEM_TEXT)]),
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps([{**output, "finish_reason": "stop"}]),
        "gen_ai.usage.input_tokens": usage[0],
        "gen_ai.usage.output_tokens": usage[1],
        "gen_ai.response.finish_reasons": ["stop"],
    }


def _agent_trace(tracer: Any, *, tool_spans: bool = True, last_result: bool = False) -> None:
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "booker"}
    with tracer.start_as_current_span("invoke_agent booker", attributes=agent):
        for inputs, output, usage in CALLS:
            with tracer.start_as_current_span(
                "chat gpt-4o", attributes=_chat_attributes(inputs, output, usage)
            ):
                pass
            for part in output["parts"]:
                if part["type"] != "tool_call" or not tool_spans:
                    continue
                tool_attributes = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": part["name"],
                    "gen_ai.tool.call.id": part["id"],
                }
                with tracer.start_as_current_span(
                    f"execute_tool {part['name']}", attributes=tool_attributes
                ):
                    pass
        if last_result:
            ask = {"role": "assistant", "parts": [_call("c3", "cancel", id="R2")]}
            inputs = [USER, ANSWER, {"role": "user", "parts": [_text("Cancel R2.")]}]
            with tracer.start_as_current_span(
                "chat gpt-4o", attributes=_chat_attributes(inputs, ask, (99, 3))
            ):
                pass
            tool_attributes = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "cancel",
                "gen_ai.tool.call.id": "c3",
                "gen_ai.tool.call.result": "cancelled R2",
            }
            with tracer.start_as_current_span("execute_tool cancel", attributes=tool_attributes):
                pass


def test_a_trace_written_by_the_opentelemetry_sdk_loads(tmp_path: Path, sdk: Any) -> None:
    tracer, exported = sdk
    _agent_trace(tracer)
    document = exported()
    (run,) = load_otel(write_json(tmp_path, document))
    assert run.system == SYSTEM_TEXT and run.model == "gpt-4o" and run.provider == "otel"
    (agent,) = [s for s in spans_of(document) if s["name"] == "invoke_agent booker"]
    assert run.meta["trace_id"] == agent["traceId"] and run.meta["agent"] == "booker"
    assert run.meta["provider"] == "openai"
    history = [(m.role, m.content, m.tool_call_id) for m in run.ledger.messages]
    assert [h[0] for h in history] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert run.ledger.messages[2].name == "get_user"  # named by the call it answers
    assert run.output == "Your flight is F9." and run.status == "done"
    assert [c.usage.input_tokens if c.usage else None for c in run.calls] == [50, 90, 80]
    assert [c.finish_reason for c in run.calls] == ["stop"] * 3
    # Each call's window is the input it really received: the third lost the first round.
    sent = [[(m.role, m.content) for m in run.window_sent(k)] for k in range(3)]
    assert sent[2] == [("user", USER["parts"][0]["content"]), ("assistant", ""), history[4][:2]]
    (record,) = run.records
    assert record.observed and record.strategy == "otel" and record.removed_message_count == 2
    assert run.import_problems == []
    frames = capture(run)
    assert len(frames.evictions) == 2
    # An imported trace is a run like any other: it round-trips through to_otel exactly.
    assert_same_run(run, round_trip(run, tmp_path, "again.json"))


def test_tool_spans_supply_results_no_input_carries(tmp_path: Path, sdk: Any) -> None:
    tracer, exported = sdk
    _agent_trace(tracer, last_result=True)
    (run,) = load_otel(write_json(tmp_path, exported()))
    last = run.ledger.messages[-1]
    assert (last.role, last.tool_call_id, last.name, last.content) == (
        "tool",
        "c3",
        "cancel",
        "cancelled R2",
    )
    assert run.requests == ["Find the booking of user_1.", "Cancel R2."]
    # The one rule of imported statuses: a trace that ends on a tool result, recording no
    # outcome, ends mid-loop.
    assert run.status == "incomplete"


def test_the_older_per_message_events_load(tmp_path: Path, sdk: Any) -> None:
    tracer, exported = sdk
    with tracer.start_as_current_span("chat gpt-4o", attributes={"gen_ai.system": "openai"}):
        from opentelemetry import trace

        span = trace.get_current_span()
        span.set_attribute("gen_ai.operation.name", "chat")
        span.set_attribute("gen_ai.usage.prompt_tokens", 30)
        span.set_attribute("gen_ai.usage.completion_tokens", 7)
        span.add_event("gen_ai.system.message", {"content": SYSTEM_TEXT})
        span.add_event("gen_ai.user.message", {"content": "Weather in Oslo?"})
        call = {"id": "w1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
        span.add_event("gen_ai.assistant.message", {"tool_calls": json.dumps([call])})
        span.add_event("gen_ai.tool.message", {"content": "rain", "id": "w1"})
        message = {"role": "assistant", "content": "It rains in Oslo."}
        span.add_event(
            "gen_ai.choice", {"index": 0, "finish_reason": "stop", "message": json.dumps(message)}
        )
    (run,) = load_otel(write_json(tmp_path, exported()))
    assert run.system == SYSTEM_TEXT
    roles = [(m.role, m.content) for m in run.ledger.messages]
    assert roles == [
        ("user", "Weather in Oslo?"),
        ("assistant", ""),
        ("tool", "rain"),
        ("assistant", "It rains in Oslo."),
    ]
    assert run.ledger.messages[1].tool_calls[0].name == "weather"
    assert run.calls[-1].usage is not None and run.calls[-1].usage.input_tokens == 30
    assert run.calls[-1].finish_reason == "stop"
    assert run.meta["provider"] == "openai"


def test_one_run_per_root_agent_span_or_per_trace(tmp_path: Path, sdk: Any) -> None:
    tracer, exported = sdk
    _agent_trace(tracer)
    _agent_trace(tracer, tool_spans=False)
    inputs, output, usage = CALLS[0]
    with tracer.start_as_current_span(
        "chat gpt-4o", attributes=_chat_attributes(inputs, output, usage)
    ):
        pass  # a trace of its own, with no agent span
    runs = load_otel(write_json(tmp_path, exported()))
    assert [len(r.calls) for r in runs] == [3, 3, 1]
    assert len({r.meta["trace_id"] for r in runs}) == 3
    assert "span_id" not in runs[2].meta


def test_structured_attribute_values_and_json_lines(tmp_path: Path) -> None:
    first, second = _scripted("parallel-tools", None), _scripted("deploy-audit", "token-budget")
    # One document per line, as the collector's file exporter writes them.
    path = tmp_path / "lines.jsonl"
    lines = [json.dumps(otel_document(run)) for run in (first, second)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = load_otel(path)
    assert len(loaded) == 2
    assert_same_run(first, loaded[0])
    assert_same_run(second, loaded[1])
    path.write_text(lines[0] + "\n" + lines[0] + "\n", encoding="utf-8")
    with pytest.raises(TranscriptError, match="repeats the span id") as caught:
        load_otel(path)
    assert caught.value.field == "spanId"

    def kv(value: Any) -> dict[str, Any]:
        if isinstance(value, dict):
            return {
                "kvlistValue": {"values": [{"key": k, "value": kv(v)} for k, v in value.items()]}
            }
        if isinstance(value, list):
            return {"arrayValue": {"values": [kv(v) for v in value]}}
        if isinstance(value, bool):
            return {"boolValue": value}
        if isinstance(value, int):
            return {"intValue": value}
        return {"stringValue": value}

    foreign = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "0af7651916cd43dd8448eb211c80319c",
                                "spanId": "b7ad6b7169203331",
                                "name": "chat m",
                                "startTimeUnixNano": 5,
                                "attributes": [
                                    {"key": "gen_ai.operation.name", "value": kv("chat")},
                                    {"key": "gen_ai.input.messages", "value": kv([USER])},
                                    {"key": "gen_ai.output.messages", "value": kv([ANSWER])},
                                    {"key": "gen_ai.usage.input_tokens", "value": kv(12)},
                                ],
                            }
                        ]
                    }
                ]
            }
        ]
    }
    (structured,) = load_otel(write_json(tmp_path, foreign))
    assert [m.content for m in structured.ledger.messages] == [
        USER["parts"][0]["content"],
        "Your flight is F9.",
    ]
    usage = structured.calls[0].usage
    assert usage is not None and usage.input_tokens == 12


def test_problems_are_listed_or_raised_when_strict(tmp_path: Path) -> None:
    bad_call = {"type": "tool_call", "id": "c1", "name": "f", "arguments": "{not json"}
    output = {"role": "assistant", "parts": [bad_call]}
    orphan = {"role": "tool", "parts": [_response("zz", "late")]}
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "chat m",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps([USER, orphan])}},
            {"key": "gen_ai.output.messages", "value": {"stringValue": json.dumps([output])}},
        ],
    }
    path = write_json(tmp_path, {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
    (run,) = load_otel(path)
    assert [(p.source, p.index) for p in run.import_problems] == [("otel", 0), ("otel", 0)]
    assert "orphan result" in run.import_problems[0].problem
    assert run.import_problems[1].field.endswith("parts[0].arguments")
    with pytest.raises(TranscriptError) as caught:
        load_otel(path, strict=True)
    assert caught.value.path == str(path) and caught.value.index == 0
    assert "orphan result" in caught.value.problem


# -- faults -----------------------------------------------------------------------------------


def _small_document() -> dict[str, Any]:
    return otel_document(_scripted("parallel-tools", "sliding-window"))


def _set_attr(span: dict[str, Any], key: str, value: dict[str, Any]) -> None:
    for kv in span["attributes"]:
        if kv["key"] == key:
            kv["value"] = value
            return
    raise KeyError(key)


def _fault_cases() -> dict[str, tuple[Callable[[dict[str, Any]], Any], int | None, str]]:
    def no_trace_id(d: dict[str, Any]) -> Any:
        del spans_of(d)[2]["traceId"]
        return d

    def bad_span_id(d: dict[str, Any]) -> Any:
        spans_of(d)[1]["spanId"] = "xyz"
        return d

    def messages_not_json(d: dict[str, Any]) -> Any:
        _set_attr(spans_of(d)[1], "gen_ai.input.messages", {"stringValue": "[{"})
        return d

    def part_without_type(d: dict[str, Any]) -> Any:
        value = json.dumps([{"role": "user", "parts": [{"content": "x"}]}])
        _set_attr(spans_of(d)[1], "gen_ai.input.messages", {"stringValue": value})
        return d

    def message_lost(d: dict[str, Any]) -> Any:
        span = spans_of(d)[1]
        inputs = json.loads(attrs(span)["gen_ai.input.messages"])
        _set_attr(span, "gen_ai.input.messages", {"stringValue": json.dumps(inputs[1:])})
        return d

    def bad_int(d: dict[str, Any]) -> Any:
        _set_attr(spans_of(d)[1], "gen_ai.usage.input_tokens", {"intValue": "12x"})
        return d

    def bad_record(d: dict[str, Any]) -> Any:
        (root,) = [s for s in spans_of(d) if "parentSpanId" not in s]
        state = json.loads(attrs(root)["footprint_lab.run"])
        state["status"] = "dancing"
        _set_attr(root, "footprint_lab.run", {"stringValue": json.dumps(state)})
        return d

    return {
        "not-an-object": (lambda d: [d], None, "file"),
        "no-resource-spans": (lambda d: {"resource": {}}, None, "resourceSpans"),
        "no-trace-id": (no_trace_id, 2, "traceId"),
        "bad-span-id": (bad_span_id, 1, "spanId"),
        "messages-not-json": (messages_not_json, 1, "attributes['gen_ai.input.messages']"),
        "part-without-type": (
            part_without_type,
            1,
            "attributes['gen_ai.input.messages'][0].footprint_lab",
        ),
        "input-not-the-window-sent": (message_lost, 1, "attributes['gen_ai.input.messages']"),
        "int-not-an-int": (bad_int, 1, "attributes[4].value.intValue"),
        "run-state-wrong": (bad_record, 0, "attributes['footprint_lab.run']: status"),
    }


@pytest.mark.parametrize("case", list(_fault_cases()))
def test_faults_name_the_file_the_span_and_the_field(tmp_path: Path, case: str) -> None:
    corrupt, index, field = _fault_cases()[case]
    path = write_json(tmp_path, corrupt(_small_document()))
    with pytest.raises(TranscriptError) as caught:
        load_otel(path)
    error = caught.value
    assert (error.path, error.index, error.field) == (str(path), index, field), str(error)
    assert str(path) in str(error) and error.source == "otel"


def test_unreadable_files_are_transcript_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    for path, content in [
        (tmp_path / "bytes.json", b"\xff\xfe{"),
        (tmp_path / "cut.json", b'{"resourceSpans": [{"scopeSp'),
        (tmp_path / "deep.json", b"[" * 100_000),
    ]:
        path.write_bytes(content)
        with pytest.raises(TranscriptError) as caught:
            load_otel(path)
        assert caught.value.path == str(path)
    with pytest.raises(TranscriptError, match="cannot read"):
        load_otel(missing)
    assert load_otel(write_json(tmp_path, {"resourceSpans": []})) == []


# -- fuzzing ----------------------------------------------------------------------------------

FUZZ = settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TEXT = st.one_of(st.text(max_size=8), st.sampled_from(["", "0", "[", "{}", "chat", "\udcff"]))
NUMBERS = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True))
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, TEXT),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
VALUES = st.one_of(
    JSON,
    JSON.map(lambda v: {"stringValue": json.dumps(v, allow_nan=True)}),
    st.integers(50, 500).map(lambda n: "[" * n + "]" * n),
)

_EXPORTED: dict[str, str] = {}


def _exported(kind: str) -> str:
    """A small exported run (or a foreign trace made from it) as JSON text, built once."""
    if kind not in _EXPORTED:
        document = _small_document()
        if kind == "foreign":
            for span in spans_of(document):
                span["attributes"] = [
                    kv for kv in span["attributes"] if not kv["key"].startswith("footprint_lab.")
                ]
        _EXPORTED[kind] = json.dumps(document)
    return _EXPORTED[kind]


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from _paths(item, (*at, k))
    elif isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            inner = json.loads(value)
        except ValueError:
            return
        for path in _paths(inner):
            if path:
                yield (*at, "<json>", *path)


def _replace(value: Any, path: tuple[Any, ...], new: Any, delete: bool) -> Any:
    if not path:
        return new
    head, *rest = path
    if head == "<json>":
        return json.dumps(_replace(json.loads(value), tuple(rest), new, delete))
    out = copy.copy(value)
    if delete and not rest:
        del out[head]
        return out
    out[head] = _replace(value[head], tuple(rest), new, delete)
    return out


@st.composite
def mutated_files(draw: Any) -> bytes:
    document = json.loads(_exported(draw(st.sampled_from(["ours", "foreign"]))))
    paths = list(_paths(document))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        delete = bool(path) and draw(st.booleans())
        document = _replace(document, path, draw(VALUES), delete)
        paths = list(_paths(document))
    return json.dumps(document, allow_nan=True, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _load_or_error(data: bytes) -> list[Run] | None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.json"
        path.write_bytes(data)
        try:
            runs = load_otel(path)
        except TranscriptError as exc:
            event("rejected")
            assert exc.path == str(path) and exc.field and exc.problem
            return None
        event("loaded")
        return runs


@FUZZ
@given(mutated_files())
def test_mutated_files_load_or_raise_transcript_error(data: bytes) -> None:
    runs = _load_or_error(data)
    for run in runs or []:
        capture(run)  # a loaded run is whole: the lab reads it


@FUZZ
@given(st.sampled_from(["ours", "foreign"]), st.floats(0, 1, exclude_max=True))
def test_truncated_files_always_raise_transcript_error(kind: str, cut: float) -> None:
    data = _exported(kind).encode("utf-8")
    assert _load_or_error(data[: int(len(data) * cut)]) is None


@FUZZ
@given(st.one_of(JSON, st.binary(max_size=40).map(lambda b: b.decode("latin-1"))))
def test_arbitrary_json_raises_transcript_error(value: Any) -> None:
    data = json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")
    assert _load_or_error(data) is None


def test_a_usage_beyond_int64_is_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    from footprint_lab import Agent, Reply, ScriptedProvider
    from footprint_lab.usage import Usage

    run = Agent.create(provider=ScriptedProvider([Reply.text("ok")]), max_iterations=2).build()
    done = run.run("hi")
    done.calls[0] = done.calls[0].model_copy(
        update={"usage": Usage(input_tokens=2**63, output_tokens=1)}
    )
    target = tmp_path / "trace.json"
    with pytest.raises(ValueError, match=r"gen_ai\.usage\.input_tokens.*64-bit"):
        to_otel(done, target)
    assert not target.exists()


# -- compactions as the conventions write them ------------------------------------------------


def _foreign(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with footprint_lab's own attributes left out: a trace another tool wrote."""
    for span in spans_of(document):
        span["attributes"] = [
            kv for kv in span["attributes"] if not kv["key"].startswith("footprint_lab.")
        ]
    return document


def test_a_compaction_is_the_conventions_compacted_flag_and_compaction_part(
    tmp_path: Path,
) -> None:
    """Each model call after a compaction carries ``gen_ai.conversation.compacted`` (true, and
    only there); the summary that stood in is a ``compaction`` part of its input; a trace
    another tool wrote that way (footprint_lab's attributes left out) loads back with an
    observed record per compaction, naming what left, the summary its stand-in."""
    summarizer = lambda ms: f"{len(ms)} earlier messages: deployments checked"  # noqa: E731
    run = deploy_audit().run(
        summarize_oldest(threshold_tokens=300, keep_recent_turns=2, summarizer=summarizer)
    )
    compactions = [r for r in run.records if r.removed_message_count]
    assert compactions, "the scenario compacts"
    document = otel_document(run)
    chats = [s for s in spans_of(document) if attrs(s).get("gen_ai.operation.name") == "chat"]
    flagged = [attrs(s).get("gen_ai.conversation.compacted") for s in chats]
    assert flagged == [
        True if call.iteration in {r.iteration for r in compactions} else None for call in run.calls
    ]
    parts = [
        part
        for s in chats
        for message in json.loads(attrs(s)["gen_ai.input.messages"])
        for part in message["parts"]
        if part["type"] == "compaction"
    ]
    assert parts and all(p["content"].endswith("deployments checked") for p in parts)
    path = tmp_path / "foreign.otel.json"
    path.write_text(json.dumps(_foreign(document)))
    [back] = load_otel(path)
    observed = [r for r in back.records if r.observed]
    assert [r.iteration for r in observed] == [r.iteration for r in compactions]
    for ours, theirs in zip(compactions, observed, strict=True):
        left = [run.ledger.message(s).content for s in ours.removed_stage_ids]
        gone = [back.ledger.message(s).content for s in theirs.removed_stage_ids]
        assert [c for c in gone if not c.endswith("deployments checked")] == [
            c for c in left if not c.endswith("deployments checked")
        ]
        stage = back.ledger.commits[theirs.commit].stage_id
        [stand_in] = [m for m in back.ledger.messages_of(stage) if m.authored]
        assert stand_in.content.endswith("deployments checked")
