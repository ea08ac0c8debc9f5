"""The exact rebuild of a footprint_lab run from the attributes of its own OTel trace.

Layer: importers. A trace :func:`footprint_lab.export.to_otel` wrote carries the run on its
agent span (``footprint_lab.run``, ``footprint_lab.ledger``), each message on the GenAI message
that names its ledger position, records and events on span events and calls on chat spans; they
are assembled into the run file's own :class:`~footprint_lab.agent.checkpoint.Checkpoint` and
restored and checked as a run file is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from footprint_lab.agent.checkpoint import FORMAT as RUN_FORMAT
from footprint_lab.agent.checkpoint import VERSION as RUN_VERSION
from footprint_lab.agent.checkpoint import (
    Checkpoint,
    RunFileProblem,
    check_run,
    check_unknown_fields,
    json_path,
    loc_path,
    run_from_checkpoint,
    upgraded_run_document,
)
from footprint_lab.agent.run import Run
from footprint_lab.importers._parts import short
from footprint_lab.ledger import HISTORY
from footprint_lab.otlp.names import (
    COMPACTION_PART,
    EVENT_PREFIX,
    EXTENSION,
    FL_CALL,
    FL_CALL_INDEX,
    FL_COMMIT,
    FL_EVENT,
    FL_EVENT_INDEX,
    FL_LEDGER,
    FL_MESSAGES,
    FL_RECORD,
    FL_RECORD_INDEX,
    FL_RUN,
    FL_VERSION,
    FORMAT_VERSION,
    INPUT_MESSAGES,
    OUTPUT_MESSAGES,
    WINDOW_EVENT,
)
from footprint_lab.otlp.read import (
    OtelSpan,
    SpanEvent,
    attr_where,
    fail,
    json_attr,
    object_value,
    parse_json,
)
from footprint_lab.otlp.read_genai import typed_parts


@dataclass
class _Carried:
    """A message as a span carried it: the decoded fields and where it was found."""

    message: dict[str, Any]
    index: int
    where: str


def _exact_message(raw: Any, index: int, where: str) -> tuple[int, dict[str, Any]]:
    """A GenAI message footprint_lab wrote: its ledger position and ``Message`` fields."""
    item = object_value(raw, index, where)
    ext = object_value(item.get(EXTENSION), index, f"{where}.{EXTENSION}")
    position = ext.get("position")
    if type(position) is not int or position < 0:
        fail(index, f"{where}.{EXTENSION}.position", f"expected a position, got {short(position)}")
    parts = item.get("parts")
    if not isinstance(parts, list):
        fail(index, f"{where}.parts", f"expected a list of parts, got {short(parts)}")
    role = item.get("role")
    texts: list[str] = []
    calls: list[Any] = []
    call_id = ext.get("tool_call_id")
    for _, part, at in typed_parts(parts, index, where):
        kind = part["type"]
        if kind == "text" or (kind == COMPACTION_PART and "content" in part):
            # A compaction frame's summary is written as the conventions' compaction part.
            text = part.get("content")
            if not isinstance(text, str):
                fail(index, f"{at}.content", f"expected text, got {short(text)}")
            texts.append(text)
        elif kind == "tool_call":
            calls.append(
                {"id": part.get("id"), "name": part.get("name"), "arguments": part.get("arguments")}
            )
        elif kind == "tool_call_response" and role == "tool":
            response = part.get("response")
            if not isinstance(response, str):
                fail(index, f"{at}.response", f"expected text, got {short(response)}")
            texts.append(response)
            call_id = part.get("id")
    message = {
        "role": role,
        "content": "".join(texts),
        "tool_calls": calls,
        "tool_call_id": call_id,
        "name": item.get("name"),
        "stage_id": ext.get("stage_id"),
        "authored": ext.get("authored"),
        "parts": ext.get("parts", []),
    }
    return position, message


def _carry(store: dict[int, _Carried], raw: Any, index: int, where: str) -> int:
    position, message = _exact_message(raw, index, where)
    known = store.get(position)
    if known is None:
        store[position] = _Carried(message, index, where)
    elif known.message != message:
        fail(
            index,
            where,
            f"message {position} differs from the one span {known.index} carries ({known.where})",
        )
    return position


def _indexed(span: OtelSpan, attributes: Mapping[str, Any], key: str, where: str) -> int:
    value = attributes.get(key)
    if type(value) is not int or value < 0:
        fail(span.index, where, f"expected an index, got {short(value)}")
    return value


def _event_json(span: OtelSpan, event: SpanEvent, k: int, key: str) -> Any:
    where = f"events[{k}].attributes[{key!r}]"
    value = event.attributes.get(key)
    if not isinstance(value, str):
        fail(span.index, where, f"expected JSON text, got {short(value)}")
    return parse_json(value, span.index, where)


def _in_order(items: dict[int, Any], what: str, span: OtelSpan, where: str) -> list[Any]:
    missing = next((i for i in range(len(items)) if i not in items), None)
    if missing is not None:
        fail(span.index, where, f"no span carries {what} {missing} (of {len(items)})")
    return [items[i] for i in range(len(items))]


def _commits(span: OtelSpan, ledger: Mapping[str, Any]) -> tuple[Any, list[list[Any]]]:
    where = attr_where(FL_LEDGER)
    commits = ledger.get("commits")
    if not isinstance(commits, list):
        fail(span.index, f"{where}.commits", "expected a list of commits")
    for i, commit in enumerate(commits):
        if (
            not isinstance(commit, list)
            or len(commit) != 4
            or not isinstance(commit[0], str)
            or not isinstance(commit[1], str)
            or type(commit[2]) is not int
        ):
            fail(span.index, f"{where}.commits[{i}]", "expected [stage_id, key, at_ms, value]")
    return ledger.get("stage_counter"), commits


def _message_commit(commits: list[list[Any]], size: int) -> list[int]:
    """For each position, the history commit that appended it (-1 where none does: the
    ledger's own check names that)."""
    out = [-1] * size
    for i, (_, key, _, value) in enumerate(commits):
        if key != HISTORY or not isinstance(value, list) or len(value) != 2:
            continue
        start, end = value
        if type(start) is int and type(end) is int:
            for p in range(max(0, start), min(end, size)):
                out[p] = i
    return out


def _history_size(commits: list[list[Any]]) -> int:
    size = 0
    for _, key, _, value in commits:
        if key == HISTORY and isinstance(value, list) and len(value) == 2 and type(value[1]) is int:
            size = max(size, value[1])
    return size


def _exact(head: OtelSpan, members: Sequence[OtelSpan]) -> Run:
    """Rebuild a run footprint_lab wrote, exactly (see the module docstring)."""
    version = head.attributes.get(FL_VERSION)
    if version != FORMAT_VERSION or type(version) is not int:
        fail(
            head.index,
            attr_where(FL_VERSION),
            f"footprint_lab trace version {version!r} is not supported; this footprint_lab "
            f"reads version {FORMAT_VERSION}",
        )
    state = json_attr(head, FL_RUN, dict)
    stage_counter, commits = _commits(head, json_attr(head, FL_LEDGER, dict))
    store: dict[int, _Carried] = {}
    chats: dict[int, tuple[OtelSpan, list[int], dict[str, Any]]] = {}
    records: dict[int, Any] = {}
    record_at: dict[int, Any] = {}
    events: dict[int, Any] = {}
    for span in members:
        if FL_CALL in span.attributes:
            k = _indexed(span, span.attributes, FL_CALL_INDEX, attr_where(FL_CALL_INDEX))
            if k in chats:
                fail(span.index, attr_where(FL_CALL_INDEX), f"call {k} is carried twice")
            call = json_attr(span, FL_CALL, dict)
            inputs = json_attr(span, INPUT_MESSAGES, list)
            sent = [
                _carry(store, raw, span.index, f"{attr_where(INPUT_MESSAGES)}[{i}]")
                for i, raw in enumerate(inputs)
            ]
            outputs = json_attr(span, OUTPUT_MESSAGES, list, required=False) or []
            for i, raw in enumerate(outputs):
                _carry(store, raw, span.index, f"{attr_where(OUTPUT_MESSAGES)}[{i}]")
            chats[k] = (span, sent, call)
        for e, event in enumerate(span.events):
            at = f"events[{e}].attributes"
            if event.name == WINDOW_EVENT:
                j = _indexed(span, event.attributes, FL_RECORD_INDEX, f"{at}[{FL_RECORD_INDEX!r}]")
                if j in records:
                    fail(span.index, f"events[{e}]", f"record {j} is carried twice")
                records[j] = _event_json(span, event, e, FL_RECORD)
                commit = event.attributes.get(FL_COMMIT)
                if type(commit) is int:
                    record_at[commit] = records[j]
            elif event.name.startswith(EVENT_PREFIX) and FL_EVENT in event.attributes:
                i = _indexed(span, event.attributes, FL_EVENT_INDEX, f"{at}[{FL_EVENT_INDEX!r}]")
                if i in events:
                    fail(span.index, f"events[{e}]", f"event {i} is carried twice")
                events[i] = _event_json(span, event, e, FL_EVENT)
    unsent = json_attr(head, FL_MESSAGES, list, required=False) or []
    for i, raw in enumerate(unsent):
        _carry(store, raw, head.index, f"{attr_where(FL_MESSAGES)}[{i}]")
    size = _history_size(commits)
    beyond = next((p for p in store if p >= size), None)
    if beyond is not None:
        carried = store[beyond]
        fail(
            carried.index, carried.where, f"position {beyond} is past the ledger's {size} messages"
        )
    messages = []
    for p in range(size):
        if p not in store:
            fail(head.index, attr_where(FL_LEDGER), f"message {p} is carried by no span")
        messages.append(store[p].message)
    saved_commits = []
    for i, (stage_id, key, at_ms, value) in enumerate(commits):
        if key == "record" and value is None:
            if i not in record_at:
                fail(
                    head.index,
                    f"{attr_where(FL_LEDGER)}.commits[{i}]",
                    "no window event carries this record",
                )
            value = record_at[i]
        saved_commits.append(
            {"index": i, "stage_id": stage_id, "key": key, "at_ms": at_ms, "value": value}
        )
    calls = _in_order(chats, "call", head, attr_where(FL_CALL_INDEX))
    document = {
        **state,
        "format": RUN_FORMAT,
        # A trace written before the origin was kept says it in meta, as a version-1 run file.
        "version": RUN_VERSION if "origin" in state else 1,
        "records": _in_order(records, "record", head, WINDOW_EVENT),
        "calls": [call for _, _, call in calls],
        "events": _in_order(events, "event", head, FL_EVENT_INDEX),
        "ledger": {
            "messages": messages,
            "message_commit": _message_commit(commits, size),
            "commits": saved_commits,
            "stage_counter": stage_counter,
        },
    }
    run = _restore(head, upgraded_run_document(document), store)
    _check_windows(run, calls)
    return run


def _restore(head: OtelSpan, document: dict[str, Any], store: Mapping[int, _Carried]) -> Run:
    """The run in a rebuilt run document, checked as a run file is."""
    try:
        checkpoint = Checkpoint.model_validate(document)
        check_unknown_fields(document, checkpoint)
        run = run_from_checkpoint(checkpoint)
        check_run(checkpoint, run.ledger)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = list(loc_path(first["loc"], document))
        rule = str(first["msg"])
        at = loc[2] if len(loc) >= 3 and loc[:2] == ["ledger", "messages"] else None
        if isinstance(at, int) and at in store:
            carried = store[at]
            fail(carried.index, json_path([carried.where, *loc[3:]]), rule)
        fail(head.index, f"{attr_where(FL_RUN)}: {json_path(loc)}", rule)
    except RunFileProblem as problem:
        fail(head.index, f"{attr_where(FL_RUN)}: {problem.where}", problem.rule)
    except RecursionError:
        fail(head.index, attr_where(FL_RUN), "nested too deep to be a run")
    return run


def _check_windows(run: Run, calls: Sequence[tuple[OtelSpan, list[int], Any]]) -> None:
    """Each chat span's input must be the window the ledger says that call sent."""
    ledger = run.ledger
    for k, (span, sent, _) in enumerate(calls):
        commit = run.calls[k].sent_commit
        window = ledger.window_at(commit) if 0 <= commit < len(ledger) else []
        expected = [ledger.position(m) for m in window]
        if sent != expected:
            fail(
                span.index,
                attr_where(INPUT_MESSAGES),
                f"holds messages {short(sent)}, but the ledger's window at commit {commit} "
                f"is {short(expected)}",
            )
