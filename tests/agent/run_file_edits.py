"""The family of meaning-level edits of a run document (see ``test_run_file_meaning``).

Each edit changes what a run file *means* while keeping its shape valid, and always so that
the document no longer follows from its ledger (an edit that could leave an honest run is not
in the family): a window without the request, a kept result whose call left, a reversed
window, a pin limit below 0, record sizes, counts or names off (in both the record and the
ledger's copy), a tool message turned into a user one, a ghost call id, calls off, a window
commit edited, a forged lawless visit with honest sizes, a pause, requests or a folded span
unlike the ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.agent.run_file_docs import Doc, View, forge_visit, runs_of

# -- the family of meaning-level edits ----------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """One kind of meaning-level edit: where it applies, and how it is made."""

    name: str
    applies: Callable[[Doc], bool]
    make: Callable[[Doc, st.DataObject], None]


def _pick(data: st.DataObject, items: list[Any], label: str) -> Any:
    return data.draw(st.sampled_from(items), label=label)


def _nonzero(data: st.DataObject) -> int:
    return data.draw(st.integers(-(10**6), 10**6).filter(bool), label="delta")


def _tool_results(doc: Doc, placeholders: bool = False) -> list[int]:
    return [
        p
        for p, m in enumerate(doc["ledger"]["messages"])
        if m["role"] == "tool" and (placeholders or m.get("authored") is None)
    ]


def _callers_with_kept_results(doc: Doc) -> list[int]:
    """Window indices of assistant messages with calls whose results stand in the window."""
    view = View(doc)
    window = doc["window"]
    answered = {view.messages[p].tool_call_id for p in window if view.messages[p].role == "tool"}
    return [
        i
        for i, p in enumerate(window)
        if any(c.id in answered for c in view.messages[p].tool_calls)
    ]


def _without(items: list[int], index: int) -> list[int]:
    return items[:index] + items[index + 1 :]


def _drop_request(doc: Doc, data: st.DataObject) -> None:
    doc["window"].remove(View(doc).request())


def _drop_caller(doc: Doc, data: st.DataObject) -> None:
    doc["window"] = _without(doc["window"], _pick(data, _callers_with_kept_results(doc), "caller"))


def _reverse(doc: Doc, data: st.DataObject) -> None:
    doc["window"] = doc["window"][::-1]


def _swap(doc: Doc, data: st.DataObject) -> None:
    window = doc["window"]
    i = data.draw(st.integers(0, len(window) - 2), label="at")
    window[i], window[i + 1] = window[i + 1], window[i]


def _drop_one(doc: Doc, data: st.DataObject) -> None:
    doc["window"] = _without(doc["window"], data.draw(st.integers(0, len(doc["window"]) - 1)))


def _outside(doc: Doc) -> list[int]:
    kept = set(doc["window"])
    return [p for p in range(len(doc["ledger"]["messages"])) if p not in kept]


def _add_one(doc: Doc, data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(doc["window"])), label="at")
    doc["window"].insert(at, _pick(data, _outside(doc), "position"))


def _pins(doc: Doc, data: st.DataObject) -> None:
    doc["keep_last_tool_results"] = data.draw(st.integers(-(10**6), -1), label="limit")


def _both_copies(doc: Doc, data: st.DataObject) -> list[Doc]:
    """A record and the ledger's copy of it (the commit it names), edited alike."""
    i = data.draw(st.integers(0, len(doc["records"]) - 1), label="record")
    record = doc["records"][i]
    return [record, doc["ledger"]["commits"][record["commit"]]["value"]]


def _record_sizes(doc: Doc, data: st.DataObject) -> None:
    field = _pick(data, ["window_chars_before", "window_chars_after"], "field")
    delta = _nonzero(data)
    for record in _both_copies(doc, data):
        # A size below 0 is refused by the count rule; keep the edit at the level of meaning.
        value = record[field] + delta
        record[field] = value if value >= 0 else record[field] - delta


def _record_count(doc: Doc, data: st.DataObject) -> None:
    copies = _both_copies(doc, data)
    count = data.draw(
        st.sampled_from([10**6, 0, 1, 2]).filter(lambda n: n != copies[0]["removed_message_count"]),
        label="count",
    )
    for record in copies:
        record["removed_message_count"] = count


def _record_names(doc: Doc, data: st.DataObject) -> None:
    copies = _both_copies(doc, data)
    named = list(copies[0]["removed_stage_ids"])
    committed = sorted({m["stage_id"] for m in doc["ledger"]["messages"]} - set(named))
    drop: bool = data.draw(st.booleans(), label="drop a name")
    if named and drop:
        named.pop(data.draw(st.integers(0, len(named) - 1)))
    else:
        named.append(_pick(data, committed, "extra"))
    for record in copies:
        record["removed_stage_ids"] = named


def _record_alone(doc: Doc, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(doc["records"]) - 1), label="record")
    record = doc["records"][i]
    field = _pick(data, ["iteration", "strategy", "observed", "forced", "notice"], "field")
    record[field] = {
        "iteration": record["iteration"] - 1 if record["iteration"] else 1,
        "strategy": record["strategy"] + "-other",
        "observed": not record["observed"],
        "forced": not record["forced"],
        "notice": "plain" if record["notice"] != "plain" else "named",
    }[field]


def _drop_record(doc: Doc, data: st.DataObject) -> None:
    doc["records"].pop(data.draw(st.integers(0, len(doc["records"]) - 1), label="record"))


def _tool_to_user(doc: Doc, data: st.DataObject) -> None:
    message = doc["ledger"]["messages"][_pick(data, _tool_results(doc, True), "result")]
    message["role"] = "user"
    if data.draw(st.booleans(), label="clear its call id and name"):
        message["tool_call_id"] = message["name"] = None


def _ghost_id(doc: Doc, data: st.DataObject) -> None:
    message = doc["ledger"]["messages"][_pick(data, _tool_results(doc, True), "result")]
    message["tool_call_id"] = "ghost-" + data.draw(st.text("abc123", min_size=1, max_size=6))


def _assistants(doc: Doc, with_calls: bool) -> list[int]:
    return [
        p
        for p, m in enumerate(doc["ledger"]["messages"])
        if m["role"] == "assistant"
        and m.get("authored") is None
        and (m["tool_calls"] or not with_calls)
    ]


def _assistant_to_user(doc: Doc, data: st.DataObject) -> None:
    message = doc["ledger"]["messages"][_pick(data, _assistants(doc, False), "reply")]
    message["role"] = "user"
    message["tool_calls"] = []


def _calls_taken(doc: Doc, data: st.DataObject) -> None:
    doc["ledger"]["messages"][_pick(data, _assistants(doc, True), "reply")]["tool_calls"] = []


def _call_sizes(doc: Doc, data: st.DataObject) -> None:
    call = _pick(data, doc["calls"], "call")
    field = _pick(data, ["messages", "chars"], "field")
    call[field] = call[field] + data.draw(st.integers(1, 10**6), label="more")


def _call_commit(doc: Doc, data: st.DataObject) -> None:
    view = View(doc)
    call = _pick(data, doc["calls"], "call")
    sent = view.window_at(call["sent_commit"])
    other = [
        i
        for i in range(len(view.commits))
        if (len(w := view.window_at(i)), view.chars(w)) != (len(sent), view.chars(sent))
    ]
    call["sent_commit"] = _pick(data, other, "commit")


def _window_commit(doc: Doc, data: st.DataObject) -> None:
    commit = _pick(data, [c for c in doc["ledger"]["commits"] if c["key"] == "window"], "commit")
    positions = [p for a, b in commit["value"] for p in range(a, b)]
    dropped = _without(positions, data.draw(st.integers(0, len(positions) - 1), label="at"))
    commit["value"] = runs_of(dropped)
    if data.draw(st.booleans(), label="and the window field too"):
        doc["window"] = View(doc).window_at(len(doc["ledger"]["commits"]) - 1)


def _forged(doc: Doc, data: st.DataObject) -> None:
    window = list(doc["window"])
    moves: dict[str, Callable[[], list[int]]] = {
        "drop the request": lambda: [p for p in window if p != View(doc).request()],
        "reverse": lambda: window[::-1],
        "drop a lone result": lambda: _without(
            window,
            _pick(data, [i for i, p in enumerate(window) if p in _tool_results(doc)], "result"),
        ),
        "bring back a message": lambda: [
            *window[:1],
            _pick(
                data,
                [p for p in _outside(doc) if doc["ledger"]["messages"][p].get("authored") is None],
                "p",
            ),
            *window[1:],
        ],
    }
    usable = [name for name in moves if _forgeable(doc, name)]
    new = moves[_pick(data, usable, "move")]()
    forge_visit(doc, new, _pick(data, [None, []], "violations"))


def _forgeable(doc: Doc, move: str) -> bool:
    window = doc["window"]
    if move == "drop the request":
        return View(doc).request() in window
    if move == "reverse":
        return len(window) >= 2
    if move == "drop a lone result":
        return any(p in _tool_results(doc) for p in window[1:])
    return any(doc["ledger"]["messages"][p].get("authored") is None for p in _outside(doc))


def _pause(doc: Doc, data: st.DataObject) -> None:
    pause = doc["pause"]
    field = _pick(data, ["call_id", "tool_name", "arguments", "pending"], "field")
    pause[field] = {
        "call_id": pause["call_id"] + "-other",
        "tool_name": pause["tool_name"] + "_other",
        "arguments": {**pause["arguments"], "name": "production"},
        "pending": [*pause["pending"], "call-nowhere"],
    }[field]


def _requests(doc: Doc, data: st.DataObject) -> None:
    field = _pick(data, ["request", "requests"], "field")
    if field == "request":
        others = [r for r in doc["requests"] if r != doc["request"]] or ["something else"]
        doc["request"] = _pick(data, others, "request")
    else:
        doc["requests"] = [*doc["requests"], "a request never made"]


def _folded(doc: Doc, data: st.DataObject) -> None:
    span = _pick(data, doc["folded"], "span")
    view = View(doc)
    kept = sorted({view.messages[p].stage_id for p in doc["window"]} - {None})
    span["removed_stage_ids"] = [*span["removed_stage_ids"], _pick(data, kept, "kept stage")]


def _output(doc: Doc, data: st.DataObject) -> None:
    doc["output"] = doc["output"] + data.draw(st.text(min_size=1, max_size=8), label="more")


def _iterations(doc: Doc, data: st.DataObject) -> None:
    doc["iterations"] += data.draw(st.integers(2, 10**6), label="more")


EDITS = [
    Edit("an answer the model never gave", lambda d: d["output"] is not None, _output),
    Edit("iterations never started", lambda d: True, _iterations),
    Edit("a window without the request", lambda d: View(d).request() in d["window"], _drop_request),
    Edit(
        "a kept result whose call left", lambda d: bool(_callers_with_kept_results(d)), _drop_caller
    ),
    Edit("a reversed window", lambda d: len(d["window"]) >= 2, _reverse),
    Edit("two messages of the window swapped", lambda d: len(d["window"]) >= 2, _swap),
    Edit("a message left the window", lambda d: bool(d["window"]), _drop_one),
    Edit("a message came back to the window", lambda d: bool(_outside(d)), _add_one),
    Edit("keep_last_tool_results below 0", lambda d: True, _pins),
    Edit("record sizes that disagree with the ledger", lambda d: bool(d["records"]), _record_sizes),
    Edit("removed_message_count off", lambda d: bool(d["records"]), _record_count),
    Edit("removed_stage_ids off", lambda d: bool(d["records"]), _record_names),
    Edit("a record unlike the ledger's", lambda d: bool(d["records"]), _record_alone),
    Edit("a record dropped", lambda d: bool(d["records"]), _drop_record),
    Edit(
        "a tool message turned into a user one",
        lambda d: bool(_tool_results(d, True)),
        _tool_to_user,
    ),
    Edit("a ghost tool_call_id", lambda d: bool(_tool_results(d, True)), _ghost_id),
    Edit(
        "a reply turned into a user message",
        lambda d: bool(_assistants(d, False)),
        _assistant_to_user,
    ),
    Edit("a reply's calls taken away", lambda d: bool(_assistants(d, True)), _calls_taken),
    Edit("a call's size off", lambda d: bool(d["calls"]), _call_sizes),
    Edit("a call sent another window", lambda d: bool(d["calls"]), _call_commit),
    Edit(
        "a window commit edited",
        lambda d: any(
            c["key"] == "window" and sum(b - a for a, b in c["value"]) > 1
            for c in d["ledger"]["commits"]
        ),
        _window_commit,
    ),
    Edit(
        "a forged lawless visit",
        lambda d: any(
            _forgeable(d, m)
            for m in ("drop the request", "reverse", "drop a lone result", "bring back a message")
        ),
        _forged,
    ),
    Edit("a pause unlike its call", lambda d: d["pause"] is not None, _pause),
    Edit("a request the ledger does not hold", lambda d: bool(d["requests"]), _requests),
    Edit("a folded span naming a kept stage", lambda d: bool(d["folded"]), _folded),
]
