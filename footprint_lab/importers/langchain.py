"""Import a LangChain message dump (``messages_to_dict``). Layer: importers.

Works on the plain dicts, so LangChain itself need not be installed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import TranscriptError, build_run
from footprint_lab.messages import Message, ToolCall
from footprint_lab.usage import Usage

SOURCE = "langchain"


def _content(data: Mapping[str, Any], index: int) -> str:
    content = data.get("content", "")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in content
        )
    raise TranscriptError(SOURCE, index, "data.content", "expected text or a list of parts")


def from_langchain(dicts: Sequence[Mapping[str, Any]], **meta: Any) -> Run:
    """Import ``langchain_core.messages.messages_to_dict(...)`` output as a run.

    Raises:
        TranscriptError: naming the message index and field that is malformed.
    """
    if isinstance(dicts, (str, bytes)) or not isinstance(dicts, Sequence):
        raise TranscriptError(SOURCE, None, "messages", "expected a list of message dicts")
    out: list[Message] = []
    usages: list[Usage | None] = []
    system: str | None = None
    for index, raw in enumerate(dicts):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("data"), Mapping):
            raise TranscriptError(SOURCE, index, "data", "expected {'type': ..., 'data': {...}}")
        kind = raw.get("type")
        data = raw["data"]
        text = _content(data, index)
        if kind == "system":
            if not out and system is None:
                system = text
            else:
                out.append(Message.system(text))
        elif kind in ("human", "chat"):
            out.append(Message.user(text))
        elif kind in ("ai", "AIMessageChunk"):
            calls = []
            for k, call in enumerate(data.get("tool_calls") or []):
                if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
                    raise TranscriptError(SOURCE, index, f"data.tool_calls[{k}]", "needs a name")
                args = call.get("args") or {}
                if not isinstance(args, dict):
                    raise TranscriptError(SOURCE, index, f"data.tool_calls[{k}].args", "not a dict")
                calls.append(
                    ToolCall(
                        id=str(call.get("id") or f"lc_{index}_{k}"),
                        name=call["name"],
                        arguments=args,
                    )
                )
            out.append(Message.assistant(text, tool_calls=calls))
            usage = data.get("usage_metadata")
            usages.append(
                Usage(
                    input_tokens=int(usage.get("input_tokens", 0) or 0),
                    output_tokens=int(usage.get("output_tokens", 0) or 0),
                )
                if isinstance(usage, Mapping)
                else None
            )
        elif kind == "tool":
            call_id = data.get("tool_call_id")
            if not isinstance(call_id, str):
                raise TranscriptError(SOURCE, index, "data.tool_call_id", "missing")
            name = data.get("name")
            if not isinstance(name, str):
                name = next(
                    (c.name for m in reversed(out) for c in m.tool_calls if c.id == call_id),
                    "unknown",
                )
            out.append(Message.tool(call_id, name, text))
        else:
            raise TranscriptError(SOURCE, index, "type", f"unknown message type {kind!r}")
    return build_run(out, usages, system=system, source=SOURCE, meta=meta)
