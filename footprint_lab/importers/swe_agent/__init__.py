"""Load SWE-agent trajectories (``.traj`` files) as runs, with the windows SWE-agent's own
history processors sent wherever the file records them.

Layer: importers. A ``.traj`` file is one JSON object: ``history`` (every message of the
attempt, in order: the system prompt, the instance prompt, then one ``assistant`` entry per
accepted model reply and one observation after it), ``trajectory`` (one step per model call:
``response``, ``thought``, ``action``, ``observation``, ``state`` and, depending on the
version, ``messages`` or ``query``), ``info`` (``exit_status``, ``submission``,
``model_stats``) and ``replay_config`` (the run's configuration, an object or its JSON text).

* **Messages.** A history entry becomes the message SWE-agent's model layer sends for it
  (``sweagent.agent.models._history_to_messages``): ``system`` / ``user`` / ``assistant``
  entries keep their role and text; function-calling replies keep their ``tool_calls`` and a
  ``tool`` entry answers the first id of its ``tool_call_ids``. Both fields may be stored as
  lists or as *text* (a Python literal, as ``str()`` writes it, or JSON): text is parsed with
  :func:`ast.literal_eval` (literals only, never code) and then as JSON; text that is neither is a
  :class:`TranscriptError`. The first entry, the system prompt, becomes ``run.system``;
  ``thinking_blocks`` are kept as ``thinking`` parts. Demonstration entries (``is_demo``) are
  kept as the messages they were sent as.
* **Roles.** The instance prompt (the first user entry that is not a demonstration: the
  problem statement) is the run's one request. A user demonstration entry is committed as a
  ``demonstration`` and every later user entry — what the environment printed after an
  action, format-error feedback, ``Wrong flag!`` — as an ``observation``
  (:func:`~footprint_lab.messages.is_observation`): sent as user messages, never the request
  (SWE-agent marks the instance prompt ``message_type: observation`` too, so that field does
  not tell them apart; the order does).
* **Tool loop.** A function-calling run is already a tool loop (``meta['tool_loop'] =
  'native'``). A text-mode run (an assistant entry with an ``action`` and no ``tool_calls``,
  its observation the user entry after it) is rebuilt as one (``'rebuilt'``, with
  ``meta['rebuilt_tool_calls']``): the assistant message keeps its text and gets one call, id
  ``swe-agent-action-<n>`` (:data:`ACTION_CALL_ID`; ``n`` is the entry's place in
  ``history``), arguments ``{"command": <the action, less its trailing newline>}``, named by
  the action's first word when the system prompt's ``COMMANDS:`` section documents it
  (:func:`special_commands`), else ``bash`` (:data:`SHELL_TOOL`, as SWE-agent's
  function-calling mode names shell commands); the observation becomes that call's tool
  result (its text unchanged). An assistant entry without an action (or with a blank one),
  a demonstration, and an action nothing answers (the final ``submit``, whose output
  SWE-agent does not write back to history) stay text. Recorded inputs get the same calls
  and results, so they still match the history. ``tool_loop=False`` keeps the file's literal
  form — assistant text and ``observation`` user messages (``'literal'``, also the value for a
  text-mode file with nothing to rebuild). Sizes: a rebuilt call's arguments repeat the
  action the assistant text already holds, so a rebuilt run's windows count each action
  twice; the literal form counts exactly what SWE-agent sent. Evidence: a rebuilt call has
  one argument, the whole command line, so :func:`~footprint_lab.evidence.dependencies`
  finds a dependency only where an earlier result held that line verbatim.
* **Agents.** SWE-agent sends a model only the history entries of its own agent (those whose
  ``agent`` is the agent's name, the one its system prompt names): entries of another agent
  (demonstrations put in history keep the name of the trajectory they came from) were never
  sent, so they are not imported; ``meta['agent']`` names the agent and
  ``meta['other_agent_entries']`` counts what was left out. Errors still name each entry by
  its place in ``history``.
* **Steps.** Steps are matched to the history's assistant entries in order, by their response
  text (where the text was edited: by their action and thought, or by the action alone for the
  very next step). A step that matches none (a reply SWE-agent rejected and re-queried, or a
  final step not written back to history) is listed in ``meta['steps_not_in_history']``.
* **Recorded windows.** A step's ``query`` (SWE-agent 1.1 and later) is the exact input of that
  call. Before 1.1 a step's ``messages`` was the processed history *after* the step, so it is
  the input of the *next* call (SWE-agent's own note on the change). It is used for that call
  only when the two steps are consecutive and the list has exactly the roles of the history
  before the call. These inputs go to :func:`build_run` as ``sent``: where SWE-agent's
  ``last_n_observations`` processor had replaced an old observation with
  ``Old environment output: (N lines omitted)``, the run records an observed window
  (policy ``'swe-agent'``) naming what left.
* **Usage.** The file holds no per-call token counts, so every call's usage is None; the
  totals (``model_stats``) are in ``run.meta``.

Anything malformed raises :class:`TranscriptError` naming the file, the history entry (or
step) and the field; problems a provider would have accepted are listed in
``run.import_problems`` (source ``'swe-agent'``), or raised when ``strict``.
"""

from __future__ import annotations

import ast
import bisect
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    blocks_of,
    content_part,
    files_in,
    item_field,
    json_problem,
    nested,
    ordered,
    read_json_file,
    reject_constant,
    short,
)
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.chat.openai import parse_openai
from footprint_lab.importers.recorded import settle_outcome
from footprint_lab.importers.swe_agent._loop import (
    ACTION_CALL_ID,
    SHELL_TOOL,
    Rebuilt,
    loop_window,
    rebuild_tool_loop,
    special_commands,
    user_kinds,
)
from footprint_lab.importers.swe_agent._meta import run_facts, status_of_exit
from footprint_lab.messages import ContentPart, Message

SOURCE = "swe-agent"
"""The ``source`` of runs, errors and problems from this importer."""
POLICY = "swe-agent"
"""The name of SWE-agent's own context policy in the observed window records."""
SUFFIX = ".traj"
"""The file suffix a folder is searched for."""
UNIT = "entry"
"""What an error's index counts: the entry of ``history``."""
__all__ = [
    "ACTION_CALL_ID",
    "FILE_FORMAT",
    "POLICY",
    "SHELL_TOOL",
    "SOURCE",
    "SUFFIX",
    "load_swe_agent",
    "rebuild_tool_loop",
    "special_commands",
]

_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


def load_swe_agent(path: str | Path, *, strict: bool = False, tool_loop: bool = True) -> list[Run]:
    """One run per SWE-agent trajectory file.

    Each run's ``meta`` holds ``trajectory_id`` (the file's stem), ``instance_id`` (the
    problem statement's id where ``replay_config`` names one, else the stem), ``tool_loop``
    (``'native'``, ``'rebuilt'`` with ``rebuilt_tool_calls``, or ``'literal'``: see the module
    docstring) and, where the file has them, ``model``, ``exit_status``, ``has_submission``,
    ``model_stats``, ``environment``, ``history_processors``, ``steps``,
    ``steps_not_in_history``, ``recorded_inputs`` (how many calls' inputs the file recorded),
    ``agent`` and ``other_agent_entries``.

    Args:
        path: A ``.traj`` file, or a folder: every ``.traj`` file in it, sorted by name.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.
        tool_loop: Rebuild a text-mode run's actions and observations as tool calls and their
            results (False: keep them as assistant text and ``observation`` user messages).

    Raises:
        TranscriptError: a file cannot be read as JSON, is not a trajectory, or is malformed
            (naming the file, the history entry or step, and the field); a folder holds no
            ``.traj`` file.
    """
    return [
        _load_file(file, strict=strict, tool_loop=tool_loop)
        for file in files_in(path, (SUFFIX,), SOURCE)
    ]


def _load_file(path: Path, *, strict: bool, tool_loop: bool) -> Run:
    data = read_json_file(path, SOURCE)
    try:
        run = _parse(data, path.stem, strict=strict, tool_loop=tool_loop)
    except TranscriptError as exc:
        raise nested(exc, SOURCE, path=str(path)) from None
    run.import_problems = nested(run.import_problems, SOURCE, path=str(path))
    return run


def _literal(value: Any, problems: Problems, index: int | None, field: str) -> Any:
    """A field stored as a value, or as the text of one (a Python literal, else JSON).

    Raises:
        TranscriptError: text that is neither, or a value JSON cannot carry.
    """
    if not isinstance(value, str):
        return value
    try:
        parsed = ast.literal_eval(value)
    except _LITERAL_ERRORS:
        try:
            parsed = json.loads(value, parse_constant=reject_constant)
        except (ValueError, RecursionError):
            problems.fail(
                index, field, f"text that is neither a Python literal nor JSON: {short(value)}"
            )
    why = json_problem(parsed)
    if why is not None:
        problems.fail(index, field, f"the text holds {why}")
    return parsed


def _wire(entry: Any, problems: Problems, index: int | None, at: str) -> dict[str, Any]:
    """A history entry as the OpenAI-shaped message SWE-agent sends for it."""
    if not isinstance(entry, Mapping):
        problems.fail(index, at, f"expected a history entry object, got {short(entry)}")
    role = entry.get("role")
    out: dict[str, Any] = {"role": role, "content": entry.get("content")}
    if role == "tool":
        ids = _literal(entry.get("tool_call_ids"), problems, index, f"{at}.tool_call_ids")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            problems.fail(
                index,
                f"{at}.tool_call_ids",
                "a tool observation needs a non-empty list of call ids",
            )
        if len(ids) > 1:
            problems.note(
                index,
                f"{at}.tool_call_ids",
                f"{len(ids)} call ids on one observation; it answers only the first",
            )
        out["tool_call_id"] = ids[0]
    elif role == "assistant":
        calls = _literal(entry.get("tool_calls"), problems, index, f"{at}.tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                problems.fail(
                    index, f"{at}.tool_calls", f"expected a list of calls, got {short(calls)}"
                )
            out["tool_calls"] = calls
    return out


def _thinking(
    entry: Mapping[str, Any], problems: Problems, index: int, at: str
) -> list[ContentPart]:
    blocks = entry.get("thinking_blocks")
    if blocks is None:
        return []
    field = f"{at}.thinking_blocks"
    if not isinstance(blocks, list):  # not text either, as a message's content may be
        problems.fail(index, field, "expected a list of blocks")
    return [
        content_part(block, problems, index, f"{field}[{k}]")
        for k, block in enumerate(blocks_of(blocks, problems, index, field))
    ]


def _openai(
    wire: Sequence[Mapping[str, Any]],
    *,
    strict: bool,
    index: Callable[[int | None], int | None],
    prefix: str,
    at: Callable[[int | None], int | None] | None = None,
) -> tuple[list[Message], str | None, list[ImportProblem]]:
    """:func:`parse_openai` over converted entries, its errors and problems renamed to the
    entries they came from: ``index`` maps a converted entry's position to the error's index,
    ``at`` to its position in the list ``prefix`` names (default: unchanged)."""

    def place(k: int | None, field: str) -> tuple[int | None, str]:
        return index(k), item_field(prefix, k if at is None else at(k), field)

    try:
        messages, _usages, system, found = parse_openai(wire, strict=strict)
    except TranscriptError as exc:
        raise nested(exc, SOURCE, place, unit=UNIT) from None
    return messages, system, nested(found.found, SOURCE, place, unit=UNIT)


def _text_key(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _align(
    history: Sequence[Mapping[str, Any]], replies: Sequence[int], steps: Sequence[Mapping[str, Any]]
) -> list[int | None]:
    """The step of each assistant entry (by history index), in order: the next step with its
    response, else with its action and thought, else the very next step when it has its
    action; None where there is none."""
    by_response: dict[str, list[int]] = {}
    by_action: dict[tuple[str, str | None], list[int]] = {}
    for j, step in enumerate(steps):
        response = _text_key(step.get("response"))
        if response is not None:
            by_response.setdefault(response, []).append(j)
        action = _text_key(step.get("action"))
        if action is not None:
            by_action.setdefault((action, _text_key(step.get("thought"))), []).append(j)

    def first_after(positions: list[int] | None, start: int) -> int | None:
        if not positions:
            return None
        k = bisect.bisect_left(positions, start)
        return positions[k] if k < len(positions) else None

    out: list[int | None] = []
    start = 0
    for i in replies:
        entry = history[i]
        if entry.get("is_demo") is True:
            out.append(None)
            continue
        found = None
        content = _text_key(entry.get("content"))
        if content is not None:
            found = first_after(by_response.get(content), start)
        action = _text_key(entry.get("action"))
        if found is None and action is not None:
            key = (action, _text_key(entry.get("thought")))
            found = first_after(by_action.get(key), start)
            if found is None and start < len(steps) and steps[start].get("action") == action:
                found = start  # the next step, its text edited
        out.append(found)
        if found is not None:
            start = found + 1
    return out


def _roles_match(entries: Sequence[Any], history: Sequence[Mapping[str, Any]]) -> bool:
    return len(entries) == len(history) and all(
        isinstance(e, Mapping) and e.get("role") == h.get("role")
        for e, h in zip(entries, history, strict=True)
    )


def _window(entries: Sequence[Any], step: int, key: str, system: str | None) -> list[Message]:
    """A step's recorded input as messages (a leading system prompt that differs from the
    run's is kept as a system message)."""
    quiet = Problems(SOURCE)  # what these entries have wrong is listed once, from the history
    prefix = f"trajectory[{step}].{key}"
    wire = [_wire(e, quiet, None, f"{prefix}[{k}]") for k, e in enumerate(entries)]
    messages, sent_system, _ = _openai(wire, strict=False, index=lambda _k: None, prefix=prefix)
    if sent_system is not None and sent_system != system:
        messages.insert(0, Message.system(sent_system))
    return messages


def _steps(data: Mapping[str, Any], problems: Problems) -> list[Mapping[str, Any]]:
    trajectory = data.get("trajectory")
    if trajectory is None:
        return []
    if not isinstance(trajectory, list):
        problems.fail(None, "trajectory", "expected a list of steps")
    for j, step in enumerate(trajectory):
        if not isinstance(step, Mapping):
            problems.fail(None, f"trajectory[{j}]", f"expected a step object, got {short(step)}")
        for key in ("query", "messages"):
            if step.get(key) is not None and not isinstance(step[key], list):
                problems.fail(None, f"trajectory[{j}].{key}", "expected a list of messages")
    return trajectory


def _sent(
    history: Sequence[Mapping[str, Any]],
    replies: Sequence[int],
    steps: Sequence[Mapping[str, Any]],
    system: str | None,
) -> tuple[list[list[Message] | None], list[int]]:
    """Each reply's recorded input (None where the file has none), and the steps that match
    no history entry."""
    aligned = _align(history, replies, steps)
    sent: list[list[Message] | None] = []
    previous: int | None = None
    for i, j in zip(replies, aligned, strict=True):
        window: list[Message] | None = None
        if j is not None:
            query = steps[j].get("query")
            before = steps[j - 1].get("messages") if j > 0 else None
            if query is not None:
                window = _window(query, j, "query", system)
            elif previous == j - 1 and before is not None and _roles_match(before, history[:i]):
                window = _window(before, j - 1, "messages", system)
        sent.append(window)
        previous = j
    used = {j for j in aligned if j is not None}
    return sent, [j for j in range(len(steps)) if j not in used]


def _agent_of(history: Sequence[Mapping[str, Any]]) -> str | None:
    """The name of the agent whose trajectory this is: the ``agent`` of its system prompt
    (SWE-agent writes it as ``self.name``), else of its last entry that names one."""
    for entry in history:
        if entry.get("role") == "system" and isinstance(entry.get("agent"), str):
            return str(entry["agent"])
    named = [e["agent"] for e in history if isinstance(e.get("agent"), str)]
    return str(named[-1]) if named else None


def _parse(data: Any, stem: str, *, strict: bool, tool_loop: bool) -> Run:
    # Problems are collected, then (when strict) the first in entry order is raised.
    problems = Problems(SOURCE, unit=UNIT)
    if not isinstance(data, Mapping):
        problems.fail(None, "file", "expected a trajectory object")
    history = data.get("history")
    if not isinstance(history, list):
        problems.fail(None, "history", "expected a list of history entries")
    wire = [_wire(entry, problems, i, f"history[{i}]") for i, entry in enumerate(history)]
    # SWE-agent sends a model only the entries of its own agent (``Agent.messages`` filters
    # ``entry["agent"] == self.name``): demonstrations put in history keep the agent name of
    # the trajectory they came from, and then were never sent.
    agent = _agent_of(history)
    kept = [
        i
        for i, entry in enumerate(history)
        if not isinstance(entry.get("agent"), str) or entry["agent"] == agent
    ]
    entries = [history[i] for i in kept]

    def original(k: int | None) -> int | None:
        return kept[k] if k is not None and 0 <= k < len(kept) else k

    messages, system, found = _openai(
        [wire[i] for i in kept], strict=False, index=original, prefix="history", at=original
    )
    # parse_openai keeps one message per entry, less a leading system prompt.
    shift = 1 if system is not None else 0
    replies = [p for p, entry in enumerate(entries) if entry.get("role") == "assistant"]
    for p in replies:
        i = kept[p]
        parts = _thinking(history[i], problems, i, f"history[{i}]")
        if parts:
            message = messages[p - shift]
            messages[p - shift] = message.model_copy(update={"parts": [*parts, *message.parts]})
    steps = _steps(data, problems)
    sent, unmatched = _sent(entries, replies, steps, system)
    kinds = user_kinds(entries, shift)
    native = any(m.tool_calls for m in messages)
    rebuilt: list[Rebuilt] = []
    if tool_loop:
        rebuilt = rebuild_tool_loop(entries, kept, messages, kinds, shift, special_commands(system))
        if rebuilt:
            sent = [None if w is None else loop_window(w, rebuilt) for w in sent]
    meta, model = run_facts(data, stem, problems)
    if agent is not None:
        meta["agent"] = agent
    if len(kept) < len(history):
        meta["other_agent_entries"] = len(history) - len(kept)
    meta["steps"] = len(steps)
    meta["steps_not_in_history"] = unmatched
    recorded = sum(window is not None for window in sent)
    meta["recorded_inputs"] = recorded
    meta["tool_loop"] = "rebuilt" if rebuilt else "native" if native else "literal"
    if rebuilt:
        meta["rebuilt_tool_calls"] = len(rebuilt)
    listed = ordered([*problems.found, *found], strict=strict, unit=UNIT)
    run = build_run(
        messages,
        [None] * len(replies),
        system=system,
        source=SOURCE,
        meta=meta,
        problems=listed,
        model=model,
        sent=sent if recorded else None,
        policy=POLICY,
        kinds=kinds,
    )
    # SWE-agent says how the run ended: by the imported-status rule, a submission is a
    # finished run whatever came last, a cost, context or time limit stopped it, anything
    # else (an error, a format failure) left it incomplete.
    exit_status = meta.get("exit_status")
    if isinstance(exit_status, str | int) and str(exit_status):
        settle_outcome(run, status_of_exit(str(exit_status)), str(exit_status), strict=strict)
    return run


def _claims(sniff: Sniff) -> bool:
    """A ``.traj`` file (its content is the loader's to check), or an object with
    ``trajectory`` (mini-swe-agent's ``trajectory_format`` is another key)."""
    return sniff.name.endswith(SUFFIX) or (
        sniff.first.kind == "object" and "trajectory" in sniff.first.keys
    )


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="SWE-agent trajectory: .traj, an object with trajectory / history",
    loader=load_swe_agent,
    claims=_claims,
    tool_loop=True,
)
"""How the registry tells and reads a SWE-agent trajectory."""
