"""Load OpenHands V1 conversations (the software-agent-sdk's persisted conversations) as runs,
with the windows its condensations left.

Layer: importers (a format module of the registry). A conversation is a **folder** holding
``base_state.json`` (the ``ConversationState``: agent, LLM, execution status, stats) and
``events/event-NNNNN-<event id>.json``, one event a file, read in file-number order; the same
events as **one JSON list** in a file, or as JSON lines (one event a line, as the SDK's own
test fixtures keep them), are read too: the state then is the latest
``ConversationStateUpdateEvent`` with key ``full_state`` among them, if any, and a later
``execution_status`` update. Each event is an object with a text ``id`` and a ``kind``; each
conversation is one run. Events render as the SDK's ``LLMConvertibleEvent.events_to_messages``
renders them for the model:

* ``SystemPromptEvent``: the system prompt (``system_prompt.text``, then ``dynamic_context``
  on the next line); its tools' names go to ``meta['tools']``. A later one is a system
  message.
* ``MessageEvent``: its ``llm_message`` (role, content blocks; ``extended_content`` — the
  text the agent context appends, skills' knowledge — is kept as an ``agent-context`` part).
  A user message from ``source: "user"`` is a request (``run.requests``); a user message from
  another source (a hook, the environment) is committed as an ``observation``. (Adjacent user
  messages, which SDKs since June 2026 send merged into one, stay one message each.) An agent's
  message is assistant text, with its reasoning as parts.
* ``ActionEvent``: one tool call (``tool_call``: ``id``, ``name``, ``arguments`` as JSON
  text). Consecutive ActionEvents sharing one ``llm_response_id`` are ONE assistant message
  with parallel calls; its text is the first's ``thought``, its parts that event's reasoning
  (``thinking_blocks``, else ``reasoning_content``; ``responses_reasoning_item``).
* ``ObservationEvent`` (the tool's ``observation``: its ``content`` blocks, the error header
  when ``is_error``, a shell observation with its metadata lines, as the SDK sends them —
  the SDK's middle truncation of long outputs is not redone), ``AgentErrorEvent`` (its
  ``error``) and ``UserRejectObservation`` (``Action rejected: <reason>``): the tool result
  of the call ``tool_call_id`` names.
* ``Condensation``: OpenHands' condenser forgot events. Each later call's input is rebuilt as
  the SDK's ``View`` builds it — every condensation so far applied in order (its
  ``forgotten_event_ids`` leave; its ``summary`` is inserted at ``summary_offset``, and stays
  until a later condensation forgets ``<condensation id>-summary``), partial batches and
  unmatched calls and results left out — and goes to :func:`build_run` as ``sent`` (policy
  ``'openhands'``): the run holds an observed record naming exactly the messages of the
  forgotten events, the summary as its stand-in (never history). ``meta['condensations']``
  lists each (``event``, ``id``, ``forgotten_event_ids``, ``summary_offset``,
  ``summary_chars``, ``llm_response_id``, the condenser call's ``usage``, and ``observed``:
  whether a later call was sent its view).
* Events never sent (``ConversationStateUpdateEvent``, ``CondensationRequest``, ``PauseEvent``,
  ``ConversationErrorEvent``, hook and log events, an ACP server's own ``ACPToolCallEvent``
  ...) are counted in ``meta['ignored_kinds']``; kinds this importer does not know in
  ``meta['unknown_kinds']`` (one carrying an ``llm_message`` is read as a message).

**Branches.** Since July 2026 events carry a ``parent_id`` (a conversation tree): the run is
the active branch, from the HEAD (``leaf_event_id``, else the last event) to the root;
conversation events on abandoned branches are counted in ``meta['off_branch_events']``.

**Usage** is the SDK's per-response record: each ``TokenUsage`` in ``base_state.json``'s
``stats.usage_to_metrics`` (``service_to_metrics`` before October 2025) whose ``response_id``
is the reply's ``llm_response_id`` (``prompt_tokens`` as input, cached tokens included;
``completion_tokens``; ``cache_read_tokens``; ``cache_write_tokens``); a reply with none has
no usage, and ``meta['usage_matched']`` counts those that do (``meta['recorded']['usage']``
is false when none do: a list of events without a full state records none).

**Outcome.** ``execution_status`` (``agent_status`` before November 2025): ``finished`` is
``done``; ``error`` and ``stuck`` are ``incomplete`` — ``max-iterations`` when the last
``ConversationErrorEvent`` is ``MaxIterationsReached`` / ``MaxBudgetReached``; ``paused`` and
``waiting_for_confirmation`` are ``incomplete``; otherwise a ``FinishAction`` as the agent's
latest step is ``done``, and without one the last message decides.

``meta`` holds ``conversation_id``, ``model`` (``agent.llm.model``), ``execution_status``,
``events``, ``branch_events``, ``off_branch_events``, ``ignored_kinds``, ``unknown_kinds``,
``conversation_error``, ``condensations``, ``tools``, ``usage_matched``, the state's ``cwd``,
``agent_kind``, ``agent_tools``, ``condenser``, ``max_iterations``, ``persistence_dir`` and
``stats`` (each LLM's totals) where present, ``log_file`` (the folder or list file) and
``label`` (the conversation id, else the folder's name).

Malformed input raises :class:`TranscriptError` naming the file (the event file, or
``base_state.json``), the event (``unit`` ``'event'``: its file number, or its place in a
list) and the field; accepted-but-wrong input (orphan results, unanswered calls, a second
result for a call, missing event files, negative usage ...) is kept and listed in
``run.import_problems`` (``strict=True`` raises at the first).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    parse_json_text,
    read_json_file,
    read_text_file,
)
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.openhands_v1._read import (
    BASE_STATE,
    EVENT_FILE,
    EVENTS_DIR,
    UNIT,
    Events,
    read_folder,
    read_list,
)
from footprint_lab.importers.openhands_v1._run import POLICY, build, state_of_list, with_path
from footprint_lab.importers.openhands_v1._state import State, read_state
from footprint_lab.reading.files import check_regular

__all__ = ["FILE_FORMAT", "POLICY", "RESEMBLES", "SOURCE", "SUFFIXES", "load_openhands_v1"]

SOURCE = "openhands-v1"
"""The ``source`` of runs, errors and problems from this importer."""
RESEMBLES = (
    "an OpenHands V1 event/state file: pass the conversation folder (the one holding "
    "base_state.json and events/)"
)
"""What a single event file, ``base_state.json`` or ``events/`` alone is told."""
SUFFIXES = (".json", ".jsonl")
"""The files a folder of conversations is searched for (beside conversation folders)."""
_EXPECTED = "a JSON list of OpenHands V1 events, or a conversation folder"
_V0_KEYS = frozenset({"action", "observation", "history"})
"""Keys of OpenHands V0 events and instances (no ``kind``)."""
_STATE_KEYS = frozenset({"agent", "execution_status", "agent_status", "stats", "persistence_dir"})


def _is_conversation(folder: Path) -> bool:
    """Whether ``folder`` is a conversation folder (its ``events/`` or its state is there)."""
    return (folder / EVENTS_DIR).is_dir() or (folder / BASE_STATE).is_file()


def _load_conversation(folder: Path, strict: bool) -> Run:
    """One conversation folder."""
    problems = Problems(SOURCE, strict=strict, unit=UNIT)
    base = folder / BASE_STATE
    state_problems = Problems(SOURCE, strict=strict, unit=UNIT, path=str(base))
    events = Events(str(folder))
    try:
        if base.is_file():
            state = read_state(read_json_file(base, SOURCE, "a conversation state"), state_problems)
        else:
            state = State()
            problems.note(
                None,
                BASE_STATE,
                "the conversation folder has no base_state.json: the model, usage and status "
                "are not recorded",
            )
        read_folder(events, folder, SOURCE, problems)
        return build(events, state, problems, state_problems, strict=strict, name=folder.name)
    except TranscriptError as exc:
        raise with_path(exc, events, str(folder)) from None


def _lines(path: Path) -> list[Any]:
    """The events of a JSON lines file, one a non-blank line (a line that is not JSON names
    its event)."""
    where = str(path)
    values: list[Any] = []
    for number, line in enumerate(read_text_file(path, SOURCE).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            values.append(parse_json_text(line, SOURCE, where, f"line {number}"))
        except TranscriptError as exc:
            raise TranscriptError(
                SOURCE, len(values), exc.field, exc.problem, path=where, unit=UNIT
            ) from None
    return values


def _json_or_lines(path: Path) -> Any:
    """The JSON value of a file, or its events when it is JSON lines (one event a line: its
    first line alone is an event object)."""
    try:
        return read_json_file(path, SOURCE, _EXPECTED)
    except TranscriptError:
        text = read_text_file(path, SOURCE)
        first = next((line for line in text.split("\n") if line.strip()), "")
        try:
            head = parse_json_text(first, SOURCE, str(path))
        except TranscriptError:
            head = None
        if not (isinstance(head, Mapping) and _event_like(set(head))):
            raise
    return _lines(path)


def _load_list(path: Path, strict: bool) -> Run:
    """One JSON list of events (or a JSON lines file of them)."""
    where = str(path)
    value = _lines(path) if path.suffix == ".jsonl" else _json_or_lines(path)
    if isinstance(value, Mapping) and (bool(_STATE_KEYS & value.keys()) or "kind" in value):
        raise TranscriptError(SOURCE, None, "file", f"{RESEMBLES}", path=where)
    first = value[0] if isinstance(value, list) and value else value
    if isinstance(first, Mapping) and "kind" not in first and _V0_KEYS & first.keys():
        raise TranscriptError(
            SOURCE,
            None,
            "file",
            "an OpenHands V0 event stream: use load_openhands / load",
            path=where,
        )
    if not isinstance(value, list):
        raise TranscriptError(SOURCE, None, "file", f"expected {_EXPECTED}", path=where)
    problems = Problems(SOURCE, strict=strict, unit=UNIT, path=where)
    events = Events(where)
    try:
        events = read_list(path, value, problems)
        state = state_of_list(events, problems)
        quiet = Problems(SOURCE, strict=strict, unit=UNIT, path=where)
        return build(events, state, problems, quiet, strict=strict, name=path.stem)
    except TranscriptError as exc:
        raise with_path(exc, events, where) from None


def load_openhands_v1(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per OpenHands V1 conversation (see the module docstring for the mapping).

    Args:
        path: A conversation folder (``base_state.json`` and ``events/``), a ``.json`` file
            holding a list of events, or a folder of those (each, in name order).
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Raises:
        TranscriptError: a file cannot be read, is not JSON or not events (a single event file
            or ``base_state.json`` alone is named as such), or an event is malformed —
            naming the file, the event and the field.
    """
    source = Path(path)
    where = str(source)
    if not source.is_dir():
        check_regular(source, SOURCE)
        return [_load_list(source, strict)]
    if _is_conversation(source):
        return [_load_conversation(source, strict)]
    try:
        entries = sorted(source.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise TranscriptError(
            SOURCE, None, "path", f"cannot list the folder: {exc.strerror or exc}", path=where
        ) from None
    if any(EVENT_FILE.fullmatch(entry.name) for entry in entries):
        raise TranscriptError(SOURCE, None, "path", f"an events folder: {RESEMBLES}", path=where)
    runs: list[Run] = []
    found = False
    for entry in entries:
        if entry.is_dir() and _is_conversation(entry):
            found = True
            runs.append(_load_conversation(entry, strict))
        elif entry.is_file() and entry.suffix in SUFFIXES and not entry.name.startswith("."):
            found = True
            runs.append(_load_list(entry, strict))
    if not found:
        raise TranscriptError(
            SOURCE,
            None,
            "path",
            f"no OpenHands V1 conversation in the folder: expected {_EXPECTED}",
            path=where,
        )
    return runs


def _event_like(keys: set[str]) -> bool:
    """The keys of an OpenHands V1 event: a ``kind`` beside its ``id`` / ``source`` /
    ``timestamp``."""
    return "kind" in keys and bool(keys & {"id", "source", "timestamp"})


def _claims(sniff: Sniff) -> bool:
    """A folder holding ``base_state.json`` and ``events/``; a JSON list whose first item is a
    V1 event (a ``kind``, or a text ``id`` beside ``source`` and ``timestamp`` when the sniff
    stopped before the event's ``kind``); or JSON lines whose first line is a V1 event (a
    ``.jsonl`` file, or two lines or more: a single event file is not a conversation)."""
    if sniff.is_dir:
        return {BASE_STATE, EVENTS_DIR} <= sniff.entries
    shape = sniff.first
    if shape.kind == "list":
        keys = shape.keys
        return "kind" in keys or (shape.text("id") is not None and {"source", "timestamp"} <= keys)
    lines = sniff.lines
    return (
        bool(lines)
        and lines[0].kind == "object"
        and _event_like(lines[0].keys)
        and not EVENT_FILE.fullmatch(sniff.path.name)
        and (sniff.name.endswith(".jsonl") or len(lines) > 1)
    )


def _resembles(sniff: Sniff) -> str | None:
    """A single V1 event file, ``base_state.json`` alone, or an ``events/`` folder."""
    if sniff.is_dir:
        return RESEMBLES if any(EVENT_FILE.fullmatch(n) for n in sniff.entries) else None
    shape = sniff.first
    if shape.kind != "object":
        return None
    if _event_like(shape.keys) or EVENT_FILE.fullmatch(sniff.path.name):
        return RESEMBLES
    if sniff.name == BASE_STATE or {"agent", "workspace"} <= shape.keys:
        return RESEMBLES
    return None


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="OpenHands V1 conversation: a folder with base_state.json and events/, or a JSON "
    "list of events with kind",
    loader=load_openhands_v1,
    claims=_claims,
    resembles=_resembles,
    folders=True,
)
"""How the registry tells and reads an OpenHands V1 conversation."""
