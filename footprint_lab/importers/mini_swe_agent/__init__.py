"""Load mini-swe-agent trajectories (``.traj.json`` files) as runs, one per file.

Layer: importers (a format module of the registry). A trajectory is one JSON object: ``info``
(``model_stats`` with ``instance_cost`` and ``api_calls``, ``config``, ``mini_version``,
``exit_status``, ``submission``), ``messages`` (every message of the run, in order: the system
prompt, the instance prompt, then the model's replies and what answered them) and
``trajectory_format``: ``mini-swe-agent-1`` (1.x: every message ``role`` and ``content``, the
reply's raw response in ``extra.response``, the action a fenced block in the reply's text, its
output the next user message), ``mini-swe-agent-1.1`` (2.x: each message as the model's API
wrote it plus ``extra`` — native ``tool_calls`` answered by ``role: "tool"`` messages, or
text-mode replies whose ``extra.actions`` lists the command; a run on a Responses API model
writes each reply as the response object, ``output`` items and all, and each result as a
``function_call_output`` item — ending in a ``role: "exit"`` message). Files before 1.4 carry
no ``trajectory_format`` (before 1.8 no ``mini_version``, before 1.10 no ``config``); a bare
JSON list of messages (mini-swe-agent's own test data) is read as ``messages`` alone.

* **Messages.** Each message is read as the Chat Completions message it is, by
  :func:`~footprint_lab.importers.chat.openai.parse_openai` (a Responses API item first made
  into one: a response's ``message`` text, its ``function_call`` items as calls, its
  ``reasoning`` and other items as parts); the first ``system`` message is ``run.system``.
  ``extra`` is never sent to the model, so it is not message text: a 2.x reply's
  ``thinking_blocks`` / ``reasoning_content`` (sent back as they are) are kept as ``thinking``
  parts; the reasoning inside a 1.x ``extra.response`` (never sent back) is not. A message of a
  role this format does not write is listed as a problem and counted in
  ``meta['ignored_messages']``.
* **Roles.** The instance prompt (the first user message: ``<pr_description>``, "Please solve
  this issue: ...") is the run's request. Every later user message is an ``observation``
  (:func:`~footprint_lab.messages.is_observation`; never a request): a command's output, a
  timeout, the format-error feedback ("Please always provide EXACTLY ONE action ..."; 2.x marks
  it ``extra.interrupt_type: "FormatError"``), a limit's empty message — except a person's
  words in an interactive run (:func:`~._facts.by_person`: a new task, a comment typed at an
  interruption, a rejection's message, a command typed in human mode), which are requests.
  2.x keeps no reply it rejected for its format (the format error carries it in ``extra``): the
  run has only the replies the model was sent again; ``meta['interrupts']`` counts each
  ``interrupt_type``.
* **Tool loop.** 2.x tool-call runs are a tool loop (``meta['tool_loop'] = 'native'``).
  A text-mode reply's action is the command ``extra.actions`` names (2.x) or the one match of
  the configuration's ``action_regex`` in its text (1.x; where the file names none, the
  patterns of mini-swe-agent's own configurations, :data:`~._facts.ACTION_PATTERNS`); with
  ``tool_loop=True`` it is rebuilt as SWE-agent's text mode is
  (:func:`~footprint_lab.importers.swe_agent.rebuild_tool_loop`): the reply keeps its text
  and gets one ``bash`` call, id ``mini-swe-agent-action-<n>`` (``n``: the reply's place in
  ``messages``), arguments ``{"command": <the action>}``, and the observation right after it
  becomes that call's result (``'rebuilt'``, with ``meta['rebuilt_tool_calls']``). A reply with
  no action, or two, and an action a person's words answered stay text. ``tool_loop=False``
  keeps the literal text (``'literal'``).
* **Outcome.** The exit status (``info.exit_status``, else the ``exit`` message's
  ``extra.exit_status``) is the outcome, never a message: ``Submitted`` → ``done``,
  ``LimitsExceeded`` / ``TimeExceeded`` / ``ContextWindowExceededError`` → ``max-iterations``,
  anything else → ``incomplete`` (``meta['ended']`` keeps the word); a file with no exit
  status (saved mid-run) takes its status from its last message. What the submitting command
  printed is the submission: 1.x wrote it as the last user message, so it is that command's
  result; a 2.x ``exit`` message holding it is read the same way — the result of the call (or
  text-mode action) that submitted, named by the submit marker in its command, or the one
  unanswered call (``meta['submission_as_result']``; the interactive agent answers that call
  "not executed" itself, and then the submission stays in the file). Any other exit message
  is not a message: its text (an exception's) is ``meta['exit_message']``, and
  ``info.exception_str`` ``meta['exception_str']``.
* **Usage.** Each reply's usage is its raw response's ``usage`` (``extra.response.usage``, or
  a Responses API reply's own ``usage``): Chat Completions' or the Responses API's counts,
  cached tokens included, read by :func:`~._wire.usage_of`; where no reply records one,
  ``run.meta['recorded']`` says so. ``info.model_stats`` gives ``meta['instance_cost']`` and
  ``meta['api_calls']`` (every billed call, a rejected one too), ``extra.cost`` of each reply
  ``meta['call_costs']`` (one per reply, None where absent).
* **Windows.** mini-swe-agent sends every call the whole history (it has no context policy
  of its own), so every call's window is the history up to it and there is no observed
  record.

``meta`` also holds ``instance_id`` (the file's, else the file name less ``.traj.json``),
``trajectory_format``, ``mini_version``, ``exit_status``, ``has_submission``, ``model``
(``info.config.model.model_name``, else the first response's model; also ``run.model``),
``agent_type`` / ``model_type`` / ``environment_type``, ``step_limit`` / ``cost_limit``,
``label`` (the instance id) and ``log_file``, where the file has them. Anything malformed raises
:class:`TranscriptError` naming the file, the message (``unit`` ``message``: its place in
``messages``, or the transcript for ``info`` and the like) and the field; what a provider would
have accepted but is wrong is listed in ``run.import_problems`` (``strict=True`` raises it).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import UserKind, build_run
from footprint_lab.importers._parts import (
    Problems,
    TranscriptError,
    files_in,
    nested,
    ordered,
    read_json_file,
    short,
)
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.chat.openai import parse_openai
from footprint_lab.importers.mini_swe_agent._facts import (
    SUBMIT_MARKERS,
    Facts,
    action_in,
    by_person,
    outcome_of,
    read_facts,
)
from footprint_lab.importers.mini_swe_agent._wire import Exit, Item, exit_of, item_of
from footprint_lab.importers.swe_agent import rebuild_tool_loop
from footprint_lab.messages import Message

__all__ = ["ACTION_CALL_ID", "FILE_FORMAT", "SOURCE", "SUFFIX", "UNIT", "load_mini_swe_agent"]

SOURCE = "mini-swe-agent"
"""The ``source`` of runs, errors and problems from this importer (the format's name)."""
ACTION_CALL_ID = "mini-swe-agent-action-{index}"
"""The id of a tool call rebuilt from a text-mode action: ``index`` is the reply's place in
the file's ``messages`` (stable: the same file gives the same ids)."""
SUFFIX = ".traj.json"
"""The name a trajectory file ends with (a folder is searched for it)."""
UNIT = "message"
"""What an error's index counts: the place in the file's ``messages``."""
_EXPECTED = "a mini-swe-agent trajectory: an object with info and messages, or a list of messages"


def load_mini_swe_agent(
    path: str | Path, *, strict: bool = False, tool_loop: bool = True
) -> list[Run]:
    """One run per mini-swe-agent trajectory file (see the module docstring for the rules).

    Args:
        path: A ``.traj.json`` file, or a folder: every ``*.traj.json`` file under it (a
            SWE-bench output folder holds one per instance folder), by relative path.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.
        tool_loop: Rebuild a text-mode run's actions and observations as tool calls and their
            results (False: keep them as assistant text and ``observation`` user messages).

    Raises:
        TranscriptError: a file cannot be read as JSON, is not a mini-swe-agent trajectory,
            or is malformed (naming the file, the message and the field); a folder holds no
            ``.traj.json`` file.
    """
    return [_load_file(file, strict=strict, tool_loop=tool_loop) for file in _files(path)]


def _files(path: str | Path) -> list[Path]:
    """``path`` itself, or every ``.traj.json`` file under the folder ``path`` (subfolders
    too: a SWE-bench run writes ``<instance>/<instance>.traj.json``), by relative path."""
    folder = Path(path)
    if not folder.is_dir():
        return files_in(folder, (".json",), SOURCE)
    try:
        found = sorted(
            (file for file in folder.rglob(f"*{SUFFIX}") if file.is_file()),
            key=lambda file: file.relative_to(folder).parts,
        )
    except OSError as exc:
        raise TranscriptError(
            SOURCE, None, "path", f"cannot read: {exc.strerror or exc}", path=str(folder)
        ) from None
    if not found:
        raise TranscriptError(
            SOURCE, None, "path", f"no {SUFFIX} files in the folder", path=str(folder)
        )
    return found


def _load_file(path: Path, *, strict: bool, tool_loop: bool) -> Run:
    data = read_json_file(path, SOURCE, _EXPECTED)
    where = str(path)
    try:
        run = _parse(data, path, strict=strict, tool_loop=tool_loop)
    except TranscriptError as exc:
        raise nested(exc, SOURCE, path=where) from None
    run.import_problems = nested(run.import_problems, SOURCE, path=where)
    return run


def _messages_of(data: Any, problems: Problems) -> tuple[list[Any], Mapping[str, Any]]:
    """The file's message list and its object (``{}`` for a bare list).

    Raises:
        TranscriptError: it is another format's file, or has no message list.
    """
    if isinstance(data, list):
        return data, {}
    if not isinstance(data, Mapping):
        problems.fail(None, "file", f"expected {_EXPECTED}, got {short(data)}")
    if "trajectory" in data or "history" in data:
        problems.fail(
            None,
            "file",
            f"a SWE-agent trajectory (trajectory / history), not {_EXPECTED}: read it with "
            "load_swe_agent",
        )
    given = data.get("trajectory_format")
    if given is not None and not (isinstance(given, str) and given.startswith(SOURCE)):
        problems.fail(None, "trajectory_format", f"{short(given)} is not mini-swe-agent's")
    if "info" not in data and given is None:
        problems.fail(None, "info", f"missing: expected {_EXPECTED}")
    messages = data.get("messages")
    if not isinstance(messages, list):
        problems.fail(None, "messages", f"expected a list of messages, got {short(messages)}")
    return messages, data


def _read_items(
    raw: Sequence[Any], problems: Problems
) -> tuple[list[Item], Exit | None, Counter[str]]:
    """Each message as an :class:`Item`, the ``exit`` message that ends the file, and what
    was not imported (by role)."""
    items: list[Item] = []
    ending: Exit | None = None
    ignored: Counter[str] = Counter()
    for index, message in enumerate(raw):
        if not isinstance(message, Mapping):
            problems.fail(index, "message", f"expected a message object, got {short(message)}")
        role = message.get("role")
        last = index == len(raw) - 1
        extra = message.get("extra")
        documented = role == "user" and isinstance(extra, Mapping) and "exit_status" in extra
        if role == "exit" or (last and documented):
            if last:
                ending = exit_of(message, problems, index)
                continue
            problems.note(index, "role", "an exit message before the end: not imported")
            ignored["exit"] += 1
            continue
        item = item_of(message, problems, index)
        if item is None:
            kind = role if isinstance(role, str) else message.get("type")
            problems.note(
                index,
                "role",
                f"a message of no role this format writes ({short(kind)}): not imported",
            )
            ignored[str(kind)] += 1
            continue
        items.append(item)
    if raw and not items and ending is None:
        problems.fail(None, "messages", f"no message has a chat role: expected {_EXPECTED}")
    return items, ending, ignored


def _submitted_by(items: list[Item], ending: Exit) -> Item | None:
    """The submission of a ``Submitted`` exit as the result of the call that submitted it (a
    tool result for a native call, the observation of a text-mode action), or None."""
    j = len(items) - 1
    while j >= 0 and items[j].wire.get("role") == "tool":
        j -= 1
    if j < 0 or items[j].wire.get("role") != "assistant":
        return None
    calls = items[j].wire.get("tool_calls")
    if not calls:
        if j != len(items) - 1:
            return None
        wire: dict[str, Any] = {"role": "user", "content": ending.content}
        return Item(ending.index, wire, submission=True)
    if not isinstance(calls, list):
        return None
    answered = {item.wire.get("tool_call_id") for item in items[j + 1 :]}
    pending = [
        call
        for call in calls
        if isinstance(call, Mapping)
        and isinstance(call.get("id"), str)
        and call["id"] not in answered
    ]
    marked = [c for c in pending if any(m in str(c.get("function")) for m in SUBMIT_MARKERS)]
    chosen = marked[0] if marked else pending[0] if len(pending) == 1 else None
    if chosen is None:
        return None
    wire = {"role": "tool", "tool_call_id": chosen["id"], "content": ending.content}
    return Item(ending.index, wire, submission=True)


def _kinds(messages: Sequence[Message], items: Sequence[Item], shift: int) -> dict[int, UserKind]:
    """The user messages that are observations: every one after the instance prompt but a
    person's words."""
    kinds: dict[int, UserKind] = {}
    prompt_seen = False
    for k, message in enumerate(messages):
        if message.role != "user":
            continue
        item = items[k + shift]
        if not prompt_seen and not item.submission:
            prompt_seen = True  # the instance prompt: the request
        elif item.submission or not by_person(message.content, item.interrupt):
            kinds[k] = "observation"
    return kinds


def _actions(
    messages: Sequence[Message], items: Sequence[Item], shift: int, facts: Facts
) -> list[dict[str, Any]]:
    """Each message's role and text-mode action, as :func:`rebuild_tool_loop` reads them."""
    entries: list[dict[str, Any]] = []
    for k, message in enumerate(messages):
        action: str | None = None
        if message.role == "assistant" and not message.tool_calls:
            listed = items[k + shift].actions
            if listed is None:
                action = action_in(message.content, facts.patterns)
            elif len(listed) == 1:
                action = listed[0]
        entries.append({"role": message.role, "action": action})
    return entries


def _parse(data: Any, path: Path, *, strict: bool, tool_loop: bool) -> Run:
    problems = Problems(SOURCE, unit=UNIT)  # collected; the first is raised when strict
    raw, top = _messages_of(data, problems)
    stem = path.name.removesuffix(SUFFIX).removesuffix(".json")
    facts = read_facts(top, stem, problems)
    items, ending, ignored = _read_items(raw, problems)
    status = facts.exit_status or (ending.status if ending is not None else None) or None
    meta = dict(facts.meta)
    if ending is not None and status == "Submitted":
        answer = _submitted_by(items, ending)
        if answer is not None:
            items.append(answer)
            meta["submission_as_result"] = True
    said = ending.content if ending is not None and status != "Submitted" else ""
    if said and ending is not None and said != ending.status:
        meta["exit_message"] = said  # an exception's text (a submission stays in the file)

    def place(k: int | None, field: str) -> tuple[int | None, str]:
        if k is None or not 0 <= k < len(items):
            return None, field
        return items[k].index, items[k].field(field)

    try:
        messages, _, system, found = parse_openai([item.wire for item in items], strict=False)
    except TranscriptError as exc:
        raise nested(exc, SOURCE, place, unit=UNIT) from None
    shift = 1 if system is not None else 0
    for k, message in enumerate(messages):
        if items[k + shift].parts:
            parts = [*items[k + shift].parts, *message.parts]
            messages[k] = message.model_copy(update={"parts": parts})
    kinds = _kinds(messages, items, shift)
    native = any(m.tool_calls for m in messages)
    rebuilt = []
    if tool_loop:
        entries = _actions(messages, items, shift, facts)
        kept = [items[k + shift].index for k in range(len(messages))]
        rebuilt = rebuild_tool_loop(
            entries, kept, messages, kinds, 0, frozenset(), call_id=ACTION_CALL_ID
        )
    replies = [items[k + shift] for k, m in enumerate(messages) if m.role == "assistant"]
    model = facts.model or next((r.model for r in replies if r.model), None)
    if model is not None:
        meta["model"] = model
    if status:
        meta["exit_status"] = status
    if any(r.cost is not None for r in replies):
        meta["call_costs"] = [r.cost for r in replies]
    interrupts = Counter(item.interrupt for item in items if item.interrupt)
    if interrupts:
        meta["interrupts"] = dict(interrupts)
    if ignored:
        meta["ignored_messages"] = dict(ignored)
    meta["tool_loop"] = "rebuilt" if rebuilt else "native" if native else "literal"
    if rebuilt:
        meta["rebuilt_tool_calls"] = len(rebuilt)
    meta["label"] = meta["instance_id"]
    meta["log_file"] = str(path)
    listed = ordered(
        [*problems.found, *nested(found.found, SOURCE, place, unit=UNIT)], strict=strict, unit=UNIT
    )
    return build_run(
        messages,
        [r.usage for r in replies],
        system=system,
        source=SOURCE,
        meta=meta,
        problems=listed,
        model=model,
        kinds=kinds,
        outcome=outcome_of(status) if status else None,
        outcome_detail=status or None,
        strict=strict,
    )


_MARKS = re.compile(
    r'"mini_version"\s*:'
    r'|"(?:agent|model|environment)_type"\s*:\s*"minisweagent\.'
    r'|"trajectory_format"\s*:\s*"mini-swe-agent'
)
"""What shows mini-swe-agent in a trajectory's ``info`` (its version, its classes)."""
_STATS = re.compile(r'"model_stats"\s*:\s*\{\s*"instance_cost"\s*:[^{}]*"api_calls"\s*:')
"""The ``model_stats`` every mini-swe-agent trajectory has (before 1.4 its only mark)."""
_RESPONSES_ITEM = re.compile(
    r'(?<!\\)"(?:object"\s*:\s*"response|type"\s*:\s*"(?:function_call(?:_output)?|reasoning|message)")'
)
"""A Responses API item or Response object in a bare list: the OpenAI Responses format's."""


def _claims(sniff: Sniff) -> bool:
    """An object with ``trajectory_format`` ``mini-swe-agent...``; or (cut before that key,
    or written before it existed) an object with ``info`` that shows mini-swe-agent
    (``mini_version``, its classes, or ``model_stats`` beside ``messages``) or is named
    ``*.traj.json``; or a list of plain role/content messages named ``*.traj.json`` (a list
    holding Responses API items is that format's). Never an object with ``trajectory`` or
    ``history`` (SWE-agent's and OpenHands' files)."""
    shape = sniff.first
    if shape.kind == "list":
        plain = "role" in shape.keys and "type" not in shape.keys
        return (
            sniff.name.endswith(SUFFIX)
            and (plain or not shape.keys)
            and _RESPONSES_ITEM.search(sniff.text or "") is None
        )
    if shape.kind != "object" or shape.keys & {"trajectory", "history"}:
        return False
    given = shape.text("trajectory_format")
    if given is not None:
        return given.startswith(SOURCE)
    if "info" not in shape.keys:
        return False
    text = sniff.text or ""
    return (
        sniff.name.endswith(SUFFIX)
        or _MARKS.search(text) is not None
        or ("messages" in shape.keys and _STATS.search(text) is not None)
    )


def _resembles(sniff: Sniff) -> str | None:
    """What to do with a chat-message list or an unmarked ``info`` + ``messages`` object."""
    shape = sniff.first
    if shape.kind == "list" and {"role", "content"} <= shape.keys:
        return (
            "a list of chat messages: if it is a mini-swe-agent trajectory name it *.traj.json, "
            "else read it with footprint_lab.importers.from_openai(json.load(...))"
        )
    if shape.kind == "object" and {"info", "messages"} <= shape.keys:
        return (
            "it looks like a mini-swe-agent trajectory (info and messages) but shows no "
            "mini-swe-agent mark (trajectory_format, info.mini_version): if it is one, name it "
            "*.traj.json"
        )
    return None


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by='mini-swe-agent trajectory: .traj.json, "trajectory_format": "mini-swe-agent-1[.1]"',
    loader=load_mini_swe_agent,
    claims=_claims,
    resembles=_resembles,
    tool_loop=True,
)
"""How the registry tells and reads a mini-swe-agent trajectory."""
