"""A local fake of OpenAI's Responses API (``POST /v1/responses``, streaming only), server-side
compaction included, for the ``OpenAIProvider(api="responses")`` tests.

Built on :class:`~tests.providers.servers.WireServer` (lifecycle, script of
``footprint_lab.Reply`` / ``HttpError`` / ``Fault`` items, recording of requests and
rejections). It validates requests the way the real API does and answers a bad one with
OpenAI's 400 error shape: no model; ``input`` not a non-empty list (or string); an item of an
unknown type; a ``function_call_output`` answering no earlier ``function_call``, or a
``function_call`` left without output; arguments that are not JSON text; tools not in the flat
Responses shape; ``context_management`` not a list of ``{"type": "compaction",
"compact_threshold": <int >= 1>}`` objects; no ``stream``.

Tokens are counted deterministically as ceil(chars / 4) of the ``instructions`` and the input
items (message text, call names and arguments, call outputs, a reasoning item's summary text
or else its encrypted content, a compaction item's encrypted content), counting only from the
latest ``compaction`` item on: the API ignores what came before it. Over a configured
``compact_threshold`` the server compacts: the output starts with a ``compaction`` item whose
opaque base64 ``encrypted_content`` is about a tenth of the characters it compacts (a multiple
of 4 long, so it counts exactly len / 4 tokens when sent back). Each counted request is
recorded in :attr:`ResponsesServer.renderings`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from footprint_lab import Reply
from tests.providers.servers import (
    CHARS_PER_TOKEN,
    Fault,
    HttpError,
    OpenAIServer,
    ScriptItem,
    WireServer,
    _fragments,
    _Handler,
    _reply_tokens,
)

ITEM_TYPES = ("message", "function_call", "function_call_output", "reasoning", "compaction")
"""Input item types this fake knows (the real API knows more; an agent sends only these)."""

ROLES = ("user", "assistant", "system", "developer")

COMPACTION_RATIO = 10
"""A compaction item's encrypted content is about 1/10 of the characters it compacts."""


@dataclass(frozen=True)
class Rendering:
    """How the server read one accepted request."""

    counted_tokens: int
    """Tokens of the instructions and the input from the latest compaction item on."""
    compacted: bool
    """Whether the server compacted this request (its output starts with a compaction item)."""
    input_tokens: int
    """The input tokens the response reports: the compacted context's when it compacted."""
    encrypted_content: str | None = None
    """The new compaction item's content, when it compacted."""


def _text(content: Any) -> str:
    """All text of a content value: a string, or a list of ``*_text`` parts."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(part.get("text") or "")
        for part in content
        if isinstance(part, Mapping) and isinstance(part.get("text"), str)
    )


def item_type(item: Mapping[str, Any]) -> str | None:
    """An input item's type (a ``{"role", "content"}`` message has none written)."""
    kind = item.get("type")
    if kind is None and "role" in item:
        return "message"
    return kind if isinstance(kind, str) else None


def item_chars(item: Mapping[str, Any]) -> int:
    """Characters one input item costs (see the module docstring)."""
    kind = item_type(item)
    if kind == "message":
        return len(_text(item.get("content")))
    if kind == "function_call":
        return len(str(item.get("name") or "")) + len(str(item.get("arguments") or ""))
    if kind == "function_call_output":
        return len(_text(item.get("output")))
    if kind == "reasoning":
        summary = _text(item.get("summary"))
        return len(summary) if summary else len(str(item.get("encrypted_content") or ""))
    if kind == "compaction":
        return len(str(item.get("encrypted_content") or ""))
    return 0


def input_items(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``input`` as a list of items (a string input is one user message)."""
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"role": "user", "content": raw}]
    return [item for item in raw or [] if isinstance(item, dict)]


def rendered_items(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The input the model sees: from the latest ``compaction`` item on (all of it if none)."""
    items = input_items(body)
    latest = max((i for i, item in enumerate(items) if item_type(item) == "compaction"), default=0)
    return items[latest:]


def tokens_of(chars: int) -> int:
    """Deterministic tokens of ``chars`` characters: ceil(chars / 4), at least 1."""
    return max(1, math.ceil(chars / CHARS_PER_TOKEN))


def count_response_tokens(body: Mapping[str, Any]) -> int:
    """The rendered input tokens of a Responses request: instructions plus the input from the
    latest compaction item on."""
    chars = len(str(body.get("instructions") or ""))
    return tokens_of(chars + sum(item_chars(item) for item in rendered_items(body)))


def opaque_compaction(items: list[dict[str, Any]]) -> str:
    """Deterministic opaque base64 standing for ``items``: about 1/10 of their characters,
    at least 16 and a multiple of 4 characters long (so no padding and exact token counts)."""
    chars = sum(item_chars(item) for item in items)
    length = max(16, (chars // COMPACTION_RATIO) // 4 * 4)
    seed = json.dumps(items, sort_keys=True).encode()
    raw = b""
    block = seed
    while len(raw) < length * 3 // 4:
        block = hashlib.sha256(block).digest()
        raw += block
    return base64.b64encode(raw[: length * 3 // 4]).decode()


class ResponsesServer(WireServer):
    """A fake of ``POST /v1/responses`` (streaming only), with server-side compaction.

    Args: those of :class:`WireServer`; ``context_window`` applies to the context the model
    samples from (after compaction, when the request compacts).
    """

    kind = "openai-responses"
    path = "/v1/responses"

    # Same auth as the Chat Completions fake: one OpenAI platform.
    authorized = OpenAIServer.authorized
    auth_error = OpenAIServer.auth_error

    def error_body(
        self, type_: str, message: str, code: str | None = None, param: str | None = None
    ) -> dict[str, Any]:
        """OpenAI's error shape (the same on both of its APIs)."""
        return {"error": {"message": message, "type": type_, "param": param, "code": code}}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.renderings: list[Rendering] = []
        """One per request that passed validation, in order."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def compacted(self) -> list[bool]:
        """Whether each counted request compacted."""
        return [r.compacted for r in self.renderings]

    def context_length_error(self, tokens: int) -> dict[str, Any]:
        return self.error_body(
            "invalid_request_error",
            f"Your input exceeds the context window of this model ({tokens} tokens > "
            f"{self.context_window}). Please adjust your input and try again.",
            code="context_length_exceeded",
            param="input",
        )

    # -- validation --------------------------------------------------------------------

    def validate(self, body: dict[str, Any]) -> dict[str, Any] | None:
        problem = self._check_top_level(body) or self._check_items(body)
        if problem is not None:
            return problem
        rendering = self.render(body)
        sampled = rendering.input_tokens if rendering.compacted else rendering.counted_tokens
        if self.context_window is not None and sampled > self.context_window:
            return self.context_length_error(sampled)
        with self._lock:
            self.renderings.append(rendering)
        return None

    def _bad(
        self, message: str, param: str | None = None, code: str | None = None
    ) -> dict[str, Any]:
        return self.error_body("invalid_request_error", message, code=code, param=param)

    def _check_top_level(self, body: dict[str, Any]) -> dict[str, Any] | None:
        if not isinstance(body.get("model"), str) or not body["model"]:
            return self._bad("Missing required parameter: 'model'.", "model")
        raw = body.get("input")
        if isinstance(raw, str):
            if not raw:
                return self._bad("Invalid 'input': empty string.", "input", "empty_string")
        elif not isinstance(raw, list) or not raw:
            return self._bad(
                "Invalid 'input': expected a non-empty array of items or a string.",
                "input",
                "invalid_type",
            )
        if not body.get("stream"):
            return self._bad("this test server only streams: send stream=true")
        if "tools" in body:
            tools = body["tools"]
            if not isinstance(tools, list):
                return self._bad("Invalid type for 'tools': expected an array.", "tools")
            for i, spec in enumerate(tools):
                if not isinstance(spec, dict) or spec.get("type") != "function":
                    return self._bad(f"Invalid value for 'tools[{i}].type'.", f"tools[{i}].type")
                if not spec.get("name"):
                    return self._bad(
                        f"Missing required parameter: 'tools[{i}].name'.", f"tools[{i}].name"
                    )
        if "context_management" in body:
            return self._check_context_management(body["context_management"])
        return None

    def _check_context_management(self, value: Any) -> dict[str, Any] | None:
        if not isinstance(value, list):
            return self._bad(
                "Invalid type for 'context_management': expected an array of objects.",
                "context_management",
                "invalid_type",
            )
        for i, entry in enumerate(value):
            where = f"context_management[{i}]"
            if not isinstance(entry, dict):
                return self._bad(f"Invalid type for '{where}': expected an object.", where)
            if entry.get("type") != "compaction":
                return self._bad(
                    f"Invalid value: {entry.get('type')!r}. Supported values are: 'compaction'.",
                    f"{where}.type",
                    "invalid_value",
                )
            threshold = entry.get("compact_threshold")
            if isinstance(threshold, bool) or not isinstance(threshold, int):
                return self._bad(
                    f"Invalid type for '{where}.compact_threshold': expected an integer.",
                    f"{where}.compact_threshold",
                    "invalid_type",
                )
            if threshold < 1:
                return self._bad(
                    f"Invalid '{where}.compact_threshold': integer below minimum value. "
                    f"Expected a value >= 1, but got {threshold} instead.",
                    f"{where}.compact_threshold",
                    "integer_below_min_value",
                )
        return None

    def _check_items(self, body: dict[str, Any]) -> dict[str, Any] | None:
        raw = body["input"]
        if isinstance(raw, str):
            return None
        calls: set[str] = set()
        answered: set[str] = set()
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                return self._bad(f"Invalid type for 'input[{i}]': expected an object.")
            kind = item_type(item)
            if kind not in ITEM_TYPES:
                return self._bad(
                    f"Invalid value: {kind!r}. Supported values are: {', '.join(ITEM_TYPES)}.",
                    f"input[{i}].type",
                    "invalid_value",
                )
            problem = self._check_item(i, kind, item, calls)
            if problem is not None:
                return problem
            if kind == "function_call":
                calls.add(item["call_id"])
            elif kind == "function_call_output":
                answered.add(item["call_id"])
        missing = sorted(calls - answered)
        if missing:
            return self._bad(f"No tool output found for function call {missing[0]}.", "input")
        return None

    def _check_item(
        self, i: int, kind: str, item: dict[str, Any], calls: set[str]
    ) -> dict[str, Any] | None:
        if kind == "message":
            if item.get("role") not in ROLES:
                return self._bad(
                    f"Invalid value: {item.get('role')!r}. Supported values are: "
                    "'user', 'assistant', 'system', and 'developer'.",
                    f"input[{i}].role",
                )
            if not isinstance(item.get("content"), str | list):
                return self._bad(f"Missing required parameter: 'input[{i}].content'.")
        elif kind == "function_call":
            if not item.get("call_id") or not item.get("name"):
                return self._bad(f"Missing required parameter: 'input[{i}].call_id'.")
            try:
                json.loads(item.get("arguments"))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                return self._bad(
                    f"Invalid 'input[{i}].arguments': expected a JSON string.",
                    f"input[{i}].arguments",
                )
        elif kind == "function_call_output":
            if item.get("call_id") not in calls:
                return self._bad(
                    f"No tool call found for function call output with call_id "
                    f"{item.get('call_id')}.",
                    "input",
                )
            if not isinstance(item.get("output"), str | list):
                return self._bad(f"Missing required parameter: 'input[{i}].output'.")
        elif kind == "compaction":
            if not isinstance(item.get("encrypted_content"), str):
                return self._bad(
                    f"Missing required parameter: 'input[{i}].encrypted_content'.",
                    f"input[{i}].encrypted_content",
                )
        elif kind == "reasoning" and not isinstance(item.get("summary"), list):
            return self._bad(f"Missing required parameter: 'input[{i}].summary'.")
        return None

    # -- compaction ----------------------------------------------------------------------

    def render(self, body: dict[str, Any]) -> Rendering:
        """How this request is counted and whether it compacts (a pure function of ``body``)."""
        counted = count_response_tokens(body)
        thresholds = [entry["compact_threshold"] for entry in body.get("context_management") or []]
        if not thresholds or counted <= min(thresholds):
            return Rendering(counted_tokens=counted, compacted=False, input_tokens=counted)
        encrypted = opaque_compaction(rendered_items(body))
        # The docs do not say what `usage.input_tokens` of a compacting response counts. This
        # fake reports the compacted context the model then samples from: the instructions plus
        # the new compaction item (which stands for the whole rendered input).
        instructions = len(str(body.get("instructions") or ""))
        return Rendering(
            counted_tokens=counted,
            compacted=True,
            input_tokens=tokens_of(instructions + len(encrypted)),
            encrypted_content=encrypted,
        )

    # -- streaming -----------------------------------------------------------------------

    def stream(
        self, handler: _Handler, body: dict[str, Any], item: ScriptItem, tokens: int
    ) -> None:
        _ResponseStream(self, handler, body).run(item)


class _ResponseStream:
    """Streams one response's events, as the Responses API does."""

    def __init__(self, server: ResponsesServer, handler: _Handler, body: dict[str, Any]):
        self.server = server
        self.handler = handler
        self.body = body
        self.rendering = server.render(body)
        self.sequence = 0
        self.output: list[dict[str, Any]] = []
        self.response: dict[str, Any] = {
            "id": f"resp_{server.next_call_id()}",
            "object": "response",
            "created_at": 1_700_000_000,
            "model": body["model"],
            "status": "in_progress",
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": body.get("tools") or [],
            "store": body.get("store", True),
            "usage": None,
        }

    def event(self, type_: str, **data: Any) -> None:
        payload = {"type": type_, "sequence_number": self.sequence, **data}
        self.sequence += 1
        self.handler.send_chunk(f"event: {type_}\ndata: {json.dumps(payload)}\n\n")

    def snapshot(self, **changes: Any) -> dict[str, Any]:
        return {**self.response, "output": list(self.output), **changes}

    def run(self, item: ScriptItem) -> None:
        server, handler = self.server, self.handler
        self.event("response.created", response=self.snapshot())
        self.event("response.in_progress", response=self.snapshot())
        if server.hold(handler):
            return
        if isinstance(item, HttpError):
            error = item.body.get("error", item.body)
            self.event(
                "error",
                code=error.get("code"),
                message=error.get("message"),
                param=error.get("param"),
            )
            return
        fault = item.mode if isinstance(item, Fault) else None
        reply = item.reply if isinstance(item, Fault) else item
        assert isinstance(reply, Reply)
        if fault == "garbage":
            handler.send_garbage()
            return
        if self.rendering.compacted:
            self.compaction()
        thinking = getattr(reply, "thinking", None)
        if thinking:
            self.reasoning(thinking)
        if reply.content:
            self.text(reply.content)
        if fault == "invalid-json":
            handler.send_chunk('event: response.output_text.delta\ndata: {"type": "resp\n\n')
        elif fault == "drop":
            handler.drop()
        elif fault == "cut-mid-event":
            handler.drop(b'event: response.output_item.added\ndata: {"type": "response.out')
        shared_id = f"call_{server.next_call_id()}"
        for name, arguments in reply.calls:
            call_id = shared_id if fault == "duplicate-ids" else f"call_{server.next_call_id()}"
            self.function_call(call_id, name, arguments)
        if fault == "no-terminator":
            return
        self.finish(reply, truncated=fault == "length")

    def add(self, added: dict[str, Any]) -> int:
        index = len(self.output)
        self.event("response.output_item.added", output_index=index, item=added)
        return index

    def done(self, index: int, item: dict[str, Any]) -> None:
        self.output.append(item)
        self.event("response.output_item.done", output_index=index, item=item)

    def compaction(self) -> None:
        item_id = f"cmp_{self.server.next_call_id()}"
        index = self.add({"type": "compaction", "id": item_id, "encrypted_content": ""})
        self.event("response.compaction.compacting", item_id=item_id, output_index=index)
        encrypted = self.rendering.encrypted_content or ""
        self.done(index, {"type": "compaction", "id": item_id, "encrypted_content": encrypted})

    def reasoning(self, thinking: str) -> None:
        item_id = f"rs_{self.server.next_call_id()}"
        index = self.add({"type": "reasoning", "id": item_id, "summary": []})
        for piece in _fragments(thinking, self.server.text_fragment):
            self.event(
                "response.reasoning_summary_text.delta",
                item_id=item_id,
                output_index=index,
                summary_index=0,
                delta=piece,
            )
        encrypted = base64.b64encode(f"sealed:{thinking}".encode()).decode()
        summary = [{"type": "summary_text", "text": thinking}]
        self.done(
            index,
            {
                "type": "reasoning",
                "id": item_id,
                "summary": summary,
                "encrypted_content": encrypted,
            },
        )

    def text(self, content: str) -> None:
        item_id = f"msg_{self.server.next_call_id()}"
        base = {"type": "message", "id": item_id, "role": "assistant"}
        index = self.add({**base, "status": "in_progress", "content": []})
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        empty = {"type": "output_text", "text": "", "annotations": []}
        self.event("response.content_part.added", **where, part=empty)
        for piece in _fragments(content, self.server.text_fragment):
            self.event("response.output_text.delta", **where, delta=piece, logprobs=[])
        self.event("response.output_text.done", **where, text=content, logprobs=[])
        part = {"type": "output_text", "text": content, "annotations": []}
        self.event("response.content_part.done", **where, part=part)
        self.done(index, {**base, "status": "completed", "content": [part]})

    def function_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        item_id = f"fc_{self.server.next_call_id()}"
        base = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name}
        index = self.add({**base, "arguments": "", "status": "in_progress"})
        text = json.dumps(arguments)
        for piece in _fragments(text, self.server.json_fragment):
            self.event(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=index,
                delta=piece,
            )
        self.event(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            arguments=text,
        )
        self.done(index, {**base, "arguments": text, "status": "completed"})

    def finish(self, reply: Reply, *, truncated: bool) -> None:
        usage = None
        if self.server.report_usage:
            inputs = self.rendering.input_tokens
            out = _reply_tokens(reply)
            usage = {
                "input_tokens": inputs,
                "input_tokens_details": {
                    "cached_tokens": min(self.server.cache_read_tokens, inputs),
                    "cache_write_tokens": 0,
                },
                "output_tokens": out,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": inputs + out,
            }
        if truncated:
            response = self.snapshot(
                status="incomplete",
                incomplete_details={"reason": "max_output_tokens"},
                usage=usage,
            )
            self.event("response.incomplete", response=response)
        else:
            self.event(
                "response.completed", response=self.snapshot(status="completed", usage=usage)
            )
