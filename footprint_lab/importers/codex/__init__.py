"""Load Codex CLI rollouts (``rollout-*.jsonl``: JSON lines) as runs, one per file.

Layer: importers (a format module of the registry). Codex (``openai/codex``, ``codex-rs``)
appends one ``RolloutLine`` a line: ``{"timestamp", "type", "payload"}`` where ``type`` is
``session_meta``, ``response_item``, ``event_msg``, ``turn_context`` or ``compacted``. Early
rollouts (before the typed lines, 2025) start with the session itself (``{"id", "timestamp",
"instructions"}``, ``git`` from 0.2x) and write each response item as a bare line, with
``{"record_type": "state"}`` lines between; both shapes are read, line by line.

* **System prompt**: ``session_meta.base_instructions`` (an early rollout's ``instructions``,
  unless the file also sends them as a ``<user_instructions>`` message).
* **Messages** (``response_item``, ``codex-rs/protocol/src/models.rs``): a ``message`` of role
  ``user`` is a **request** when the person typed it; one Codex wrote itself (its
  ``<environment_context>``, ``<user_instructions>``, AGENTS.md instructions, a skill, a shell
  command the person ran, an aborted turn, a sub-agent notice, a hook prompt, a compaction
  summary) and an ``agent_message`` from another agent are **observations**, never requests.
  ``developer`` (and ``system``) messages are system messages in the conversation. Text parts
  are joined; images are kept as parts. ``user_message`` / ``agent_message`` events repeat
  these items and are only counted.
* **Replies**: the output items of one model response — ``reasoning`` (its summary a
  ``thinking`` part, its ``encrypted_content`` a ``redacted-thinking`` part sized but never
  readable), assistant ``message`` text, and the calls — are ONE assistant message; the
  response ends at the next input item, ``token_count`` or turn event.
* **Tool calls and results**: ``function_call`` (``arguments``: JSON text, kept as given when
  it is not an object), ``custom_tool_call`` (its free-form ``input`` is the argument
  ``input``), ``local_shell_call`` (tool ``local_shell``, its ``action`` the arguments),
  ``tool_search_call``; each answered by ``function_call_output`` / ``custom_tool_call_output``
  / ``local_shell_call_output`` / ``tool_search_output`` naming its ``call_id`` (``output``:
  text, content items, or an object with ``content``). Orphans, unanswered and reused ids are
  kept and listed. Provider-run tools (``web_search_call``, ``image_generation_call``) and
  encrypted ``compaction`` items have no result item: they are parts of the reply, sized.
* **Usage** (``event_msg`` ``token_count``): ``info.last_token_usage`` is the usage of the
  call the response just made (input counts ``cached_input_tokens``, read as cache reads;
  output counts ``reasoning_output_tokens``), given to the reply it follows; a repeated
  cumulative ``total_token_usage`` is no new call, and a count no reply awaits (a compaction's
  own call) is counted in ``meta["token_counts"]``. A file without them says so in
  ``run.origin.recorded``.
* **Compaction** (``compacted``, ``codex-rs/core/src/compact.rs``): an **observed record**.
  What Codex kept is exactly its ``replacement_history`` (or ``replacement_history_entries``,
  references resolved to earlier items); without one, the summary (``payload.message``) follows
  the latest user messages up to 20,000 tokens (Codex's rule since its summaries carry the
  ``summary_prefix.md`` prefix; one cut to fit is sent truncated, so it is left out), and
  before that prefix the summary stood alone (the early history bridge). The summary stands in
  when the kept history does not carry it. The first call after is given that window plus what
  came since (``build_run``'s ``sent``), and the record names every message that left.
  ``thread_rolled_back`` events (the last turns dropped) are observed the same way.
* **Status**: a ``task_complete`` ending the last turn is ``done``, a ``turn_aborted`` is
  ``incomplete`` (its word in ``meta["ended"]``); otherwise the file's last message decides.

``meta``: ``session_id`` (``session_ids`` when a fork carries another), ``cli_version``,
``originator``, ``cwd`` (``cwds`` when it changed), ``source``, ``model_provider``, ``git``,
``timestamp``, ``model`` (``models`` and ``model_changes`` — the line of each turn that changed
it — when it changed), ``approval_policy``, ``sandbox_policy``, ``effort``,
``reasoning_summary`` (the first turn's settings),
``model_context_window``, ``compactions`` (each: ``line``, ``summary_chars``, the ``rule`` that
decided the window, its counts), ``rollbacks``, ``token_usage`` (the last cumulative total),
``token_counts``, ``events`` (count per event type), ``ignored`` (lines and items not imported:
``ghost_snapshot``, state records, unknown line types), ``rollout_format``, ``label`` and
``log_file``.

Faults name the file, the line (from 1) and the field inside it (``payload.content[0].text``).
A line that is not JSON, not an object, or has a field of a type Codex never writes raises
:class:`TranscriptError`; what is accepted but wrong is kept and listed (``strict=True``
raises at the first).
"""

from __future__ import annotations

from pathlib import Path

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import build_run
from footprint_lab.importers._parts import (
    EMPTY_TRANSCRIPT,
    Problems,
    TranscriptError,
    files_in,
    parse_json_text,
    read_each,
    read_text_file,
)
from footprint_lab.importers._sniff import FileFormat, Shape, Sniff
from footprint_lab.importers.codex._reader import (
    ITEM_TYPES,
    LEGACY_HEAD,
    ROLLOUT_TYPES,
    Reader,
    is_codex_line,
)

__all__ = ["FILE_FORMAT", "POLICY", "SOURCE", "SUFFIX", "load_codex"]

SOURCE = "codex"
"""The importer's name, on its runs (``run.provider``), errors and problems."""
POLICY = "codex"
"""The name observed window records give Codex's compaction."""
SUFFIX = ".jsonl"
"""The file names a folder is searched for."""
UNIT = "line"
"""What an error's index counts: the line of the file (from 1)."""
FORMAT = "a Codex CLI rollout (JSON lines of timestamp, type and payload)"
"""The format this loader reads, as its errors name it."""


def _load_file(path: Path, strict: bool) -> Run:
    where = str(path)
    problems = Problems(SOURCE, strict=strict, unit=UNIT, path=where)
    text = read_text_file(path, SOURCE, FORMAT)
    entries: list[tuple[int, object]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                entries.append((number, parse_json_text(line, SOURCE, where, "line", FORMAT)))
            except TranscriptError as exc:
                raise TranscriptError(
                    SOURCE, number, "line", exc.problem, path=where, unit=UNIT
                ) from None
    if entries and not any(is_codex_line(e, k == 0) for k, (_, e) in enumerate(entries)):
        raise TranscriptError(
            SOURCE,
            None,
            "file",
            "not a Codex CLI rollout: no line has a type of "
            f"{', '.join(sorted(ROLLOUT_TYPES))} beside its payload",
            path=where,
        )
    reader = Reader(problems)
    for k, (number, entry) in enumerate(entries):
        reader.line(number, entry, k == 0)
    conv = reader.conv
    conv.flush()
    if not conv.messages:
        problems.note(None, "messages", EMPTY_TRANSCRIPT)
    if reader.events["user_message"] and not any(m.role == "user" for m in conv.messages):
        problems.note(
            None,
            "messages",
            "user_message events but no user message items: the person's messages are only "
            "in events here (not imported as requests)",
        )
    outcome, detail = reader.ended or (None, None)
    return build_run(
        conv.messages,
        conv.usages,
        system=reader.system_prompt(),
        source=SOURCE,
        meta=reader.meta(where, path),
        problems=problems.found,
        model=reader.models[0] if reader.models else None,
        sent=conv.sent if any(w is not None for w in conv.sent) else None,
        policy=POLICY,
        kinds=conv.kinds,
        outcome=outcome,  # type: ignore[arg-type]
        outcome_detail=detail,
        strict=strict,
    )


def load_codex(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per Codex CLI rollout (see the module docstring for the mapping).

    Args:
        path: A rollout ``.jsonl`` file, or a folder: every ``.jsonl`` file directly in it, in
            name order.
        strict: Raise at the first problem instead of listing it in ``run.import_problems``.

    Returns:
        The runs, one per file.

    Raises:
        TranscriptError: a file cannot be read, is not a rollout, a line is not JSON or holds
            a field of the wrong type, or (when ``strict``) something is wrong — naming the
            file, the line and the field.
    """
    files = files_in(path, (SUFFIX,), SOURCE)
    return read_each(files, SOURCE, lambda file: [_load_file(file, strict)])


def _typed(line: Shape) -> bool:
    return line.kind == "object" and "payload" in line.keys and line.text("type") in ROLLOUT_TYPES


_LINE_KEYS = ("timestamp", "ordinal", "type", "payload")
"""The keys of a rollout line."""


def _cut_first_line(sniff: Sniff) -> bool:
    """A whole file that is one rollout line cut before its payload: it starts as Codex
    writes a line (``{"timestamp":"``), holds no key a rollout line lacks (the last one
    perhaps cut), and its ``type`` (as far as it goes) begins a rollout type."""
    text = sniff.text
    if text is None or not sniff.complete or "\n" in text.strip() or len(sniff.lines) != 1:
        return False
    line = sniff.lines[0]
    kind = line.text("type")
    return (
        text.startswith('{"timestamp":"')
        and all(any(key.startswith(k) for key in _LINE_KEYS) for k in line.keys)
        and "type" in line.keys
        and kind is not None
        and any(t.startswith(kind) for t in ROLLOUT_TYPES)
    )


def _claims(sniff: Sniff) -> bool:
    """JSON lines of which one of the first is a typed rollout line (``type`` one of
    :data:`ROLLOUT_TYPES` beside ``payload``), or whose first line is an early rollout's
    session (``id`` and ``timestamp``, nothing but ``instructions`` and ``git`` beside, no
    ``type``) followed by its bare response items or state records (or carrying
    ``instructions``)."""
    lines = sniff.lines
    if any(_typed(line) for line in lines):
        return True
    if _cut_first_line(sniff):
        return True
    if not lines or lines[0].kind != "object":
        return False
    head = lines[0].keys
    if not ({"id", "timestamp"} <= head <= LEGACY_HEAD):
        return False
    return "instructions" in head or any(
        line.kind == "object"
        and "payload" not in line.keys
        and (line.text("type") in ITEM_TYPES or line.text("record_type") == "state")
        for line in lines[1:]
    )


def _resembles(sniff: Sniff) -> str | None:
    if any(line.kind == "object" and {"type", "payload"} <= line.keys for line in sniff.lines):
        return (
            "it looks like a Codex CLI rollout (lines with type and payload), but no line's type "
            f"is one Codex writes ({', '.join(sorted(ROLLOUT_TYPES))}): pass the rollout-*.jsonl "
            "file from ~/.codex/sessions as Codex wrote it"
        )
    return None


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="Codex CLI rollout: JSON lines of timestamp, type (session_meta, response_item, "
    "event_msg, turn_context, compacted) and payload",
    loader=load_codex,
    claims=_claims,
    resembles=_resembles,
)
"""How the registry tells and reads a Codex CLI rollout."""
