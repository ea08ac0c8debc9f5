"""Importers: recorded conversations from other stacks, as runs the lab and replay accept.

Layer: importers (above the agent's run model, beside replay and export).

========================  ==========================  ============================================
format                    function                    observed windows it rebuilds
========================  ==========================  ============================================
OpenAI Chat Completions   :func:`from_openai`         none (a message list records no inputs)
Anthropic Messages        :func:`from_anthropic`      server ``compaction`` blocks and
                                                      ``context_management.applied_edits``
OpenAI Responses / Agents :func:`load_openai_responses`,  each ``compaction`` item (opaque: its
SDK items                 :func:`from_openai_responses`  summary is encrypted)
LangChain message dump    :func:`from_langchain`      none
tau-bench trajectories    :func:`load_tau_bench`      none
SWE-agent ``.traj``       :func:`load_swe_agent`      each step's recorded input (``query``, or
                                                      ``messages`` before 1.1): observation masking
mini-swe-agent            :func:`load_mini_swe_agent`  none (it never trims its history)
``.traj.json``
OpenHands V0 event stream :func:`load_openhands`      the view after each ``condensation``
OpenHands V1 conversation :func:`load_openhands_v1`   each ``Condensation`` (its forgotten events)
Inspect AI log            :func:`load_inspect`        each ``model`` event's ``input``
Claude Code session       :func:`load_claude_code`    the summary and what followed each
                                                      ``compact_boundary`` (on the live branch)
Codex CLI rollout         :func:`load_codex`          each ``compacted`` entry
Gemini CLI recording      :func:`load_gemini_cli`     see the module (what the file records)
pi session                :func:`load_pi`             each ``compaction`` entry (on the live
                                                      branch)
Aider chat history        :func:`load_aider`          none (the file records no inputs)
OpenTelemetry OTLP JSON   :func:`load_otel`           each chat span's input (a trace
                                                      footprint_lab wrote: its own records, exact)
any of the above files,   :func:`load`                as the format's loader; the format is
or a saved run                                        :func:`detect_format`'s, in ``run.origin``
========================  ==========================  ============================================

Formats are a registry (:data:`REGISTRY`): each lives in its own module and claims its own
files from their first bytes (:class:`FileFormat`, :class:`Sniff`); no file is claimed by two.

An observed window is what a source's own context policy really sent a call, where the source
recorded it: the run's window at that call is that input, and a
:class:`~footprint_lab.window.records.WindowRecord` with ``observed=True`` names what left.

Each importer knows its source's roles. What the person (or the benchmark) asked is a request
(``run.requests``): SWE-agent's instance prompt, OpenHands' user messages, the prompts typed
into Claude Code, an Inspect sample's input, every user message of an OpenAI, Anthropic,
LangChain or tau-bench list (a person's, or a simulated user's). What the environment answered
as text — SWE-agent and OpenHands observations sent as user messages, the text Claude Code
writes into user messages itself — is committed as an ``observation`` (SWE-agent
demonstrations as a ``demonstration``): sent, never the request
(:func:`~footprint_lab.messages.is_observation`). Text-mode agents are tool loops too:
:func:`load_swe_agent` and :func:`load_openhands` (and :func:`load`) take ``tool_loop=True``
and rebuild an action written as text and the observation that answered it as a tool call
(stable synthetic id, the assistant's text kept) and its result; ``run.meta["tool_loop"]``
says ``'native'``, ``'rebuilt'`` (with ``rebuilt_tool_calls``) or ``'literal'``
(``tool_loop=False``, or nothing to rebuild).

Every importer takes ``strict=False``: malformed input raises :class:`TranscriptError` (naming
the file, the source, the index — of a message, entry, line, sample, event or span: its
``unit`` — and the field); what is accepted but wrong (orphan results, duplicate call ids in
one message or reused from an earlier one, a call the next reply came without an answer to,
an empty transcript, arguments that are not an object or are text where the format has one,
``null`` text, empty names, negative usage, a tau-bench entry without ``task_id`` or with an
earlier entry's label) is kept as it is — never renamed — and listed in
``run.import_problems`` as :class:`ImportProblem` records naming the same file, unit, index
and field — or, with ``strict=True``, raises at the first one. A loader handed another
format's file raises naming the format it expected. Typed content (images, documents, audio,
thinking, refusals, legacy ``function_call``, LangChain ``invalid_tool_calls``, Anthropic
system blocks) is kept as ``Message.parts``.
"""

from __future__ import annotations

from footprint_lab.agent.run import ImportProblem
from footprint_lab.importers._build import TranscriptError, build_run, import_clock
from footprint_lab.importers._detect import (
    FORMATS,
    REGISTRY,
    Format,
    detect_format,
    folder_entries,
    is_whole_folder,
    load,
)
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.aider import load_aider
from footprint_lab.importers.chat.anthropic import from_anthropic
from footprint_lab.importers.chat.langchain import from_langchain
from footprint_lab.importers.chat.openai import from_openai
from footprint_lab.importers.chat.responses import from_openai_responses, load_openai_responses
from footprint_lab.importers.chat.transcript import Transcript, as_run
from footprint_lab.importers.claude_code import load_claude_code
from footprint_lab.importers.codex import load_codex
from footprint_lab.importers.gemini_cli import load_gemini_cli
from footprint_lab.importers.inspect import load_inspect
from footprint_lab.importers.mini_swe_agent import load_mini_swe_agent
from footprint_lab.importers.openhands import load_openhands
from footprint_lab.importers.openhands_v1 import load_openhands_v1
from footprint_lab.importers.otel import load_otel
from footprint_lab.importers.pi import load_pi
from footprint_lab.importers.swe_agent import load_swe_agent
from footprint_lab.importers.tau_bench import load_tau_bench
from footprint_lab.reading.files import check_regular

__all__ = [
    "FORMATS",
    "REGISTRY",
    "FileFormat",
    "Format",
    "ImportProblem",
    "Sniff",
    "Transcript",
    "TranscriptError",
    "as_run",
    "build_run",
    "check_regular",
    "detect_format",
    "folder_entries",
    "from_anthropic",
    "from_langchain",
    "from_openai",
    "from_openai_responses",
    "import_clock",
    "is_whole_folder",
    "load",
    "load_aider",
    "load_claude_code",
    "load_codex",
    "load_gemini_cli",
    "load_inspect",
    "load_mini_swe_agent",
    "load_openai_responses",
    "load_openhands",
    "load_openhands_v1",
    "load_otel",
    "load_pi",
    "load_swe_agent",
    "load_tau_bench",
]
