"""Importers: recorded conversations from other stacks, as runs the lab and replay accept.

Layer: importers (above the agent's run model, beside replay and export).

========================  =========================  =============================================
format                    function                   observed windows it rebuilds
========================  =========================  =============================================
OpenAI Chat Completions   :func:`from_openai`        none (a message list records no inputs)
Anthropic Messages        :func:`from_anthropic`     none
LangChain message dump    :func:`from_langchain`     none
tau-bench trajectories    :func:`load_tau_bench`     none
SWE-agent ``.traj``       :func:`load_swe_agent`     each step's recorded input (``query``, or
                                                     ``messages`` before 1.1): observation masking
OpenHands event stream    :func:`load_openhands`     the view after each ``condensation``
Inspect AI log            :func:`load_inspect`       each ``model`` event's ``input``
Claude Code session       :func:`load_claude_code`   the summary and what followed each
                                                     ``compact_boundary``
OpenTelemetry OTLP JSON   :func:`load_otel`          each chat span's input (a trace
                                                     footprint_lab wrote: its own records, exact)
any of the above files,   :func:`load`               as the format's loader; the format is
or a saved run                                       :func:`detect_format`'s, in ``meta["format"]``
========================  =========================  =============================================

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
from footprint_lab.importers._detect import FORMATS, Format, detect_format, folder_entries, load
from footprint_lab.importers.chat.anthropic import from_anthropic
from footprint_lab.importers.chat.langchain import from_langchain
from footprint_lab.importers.chat.openai import from_openai
from footprint_lab.importers.chat.transcript import Transcript, as_run
from footprint_lab.importers.claude_code import load_claude_code
from footprint_lab.importers.inspect import load_inspect
from footprint_lab.importers.openhands import load_openhands
from footprint_lab.importers.otel import load_otel
from footprint_lab.importers.swe_agent import load_swe_agent
from footprint_lab.importers.tau_bench import load_tau_bench
from footprint_lab.reading.files import check_regular

__all__ = [
    "FORMATS",
    "Format",
    "ImportProblem",
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
    "import_clock",
    "load",
    "load_claude_code",
    "load_inspect",
    "load_openhands",
    "load_otel",
    "load_swe_agent",
    "load_tau_bench",
]
