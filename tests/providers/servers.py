"""Local wire-protocol servers for the real-provider tests.

Two small HTTP servers on 127.0.0.1 (stdlib ``ThreadingHTTPServer`` in a background thread,
HTTP/1.1 with chunked transfer encoding) speak the OpenAI Chat Completions and the Anthropic
Messages wire protocols, SSE streaming included. The official SDKs talk to them unmodified.

They validate requests the way the real APIs do and answer a bad one with the API's own 400
error shape:

- OpenAI: a ``tool`` message whose ``tool_call_id`` does not answer the preceding assistant
  ``tool_calls``; an assistant ``tool_calls`` message not followed by a result for every id;
  arguments that are not JSON strings; an empty ``messages`` or ``tools`` array.
- Anthropic: the first message not ``user``; roles not alternating; a ``system`` role in
  ``messages``; empty text blocks; a ``tool_result`` whose ``tool_use_id`` has no ``tool_use``
  in the previous assistant message; ``tool_use`` blocks not answered in the next message;
  ``tool_result`` blocks after other content; no ``max_tokens``.
- Both: an input over the configured ``context_window`` (tokens counted deterministically as
  ceil(chars / 4) of all message text, tool-call arguments and the system prompt) is the API's
  own context-length error.

Replies come from a script (``footprint_lab.Reply`` objects: text, tool calls, parallel calls,
or ``failure``; an :class:`HttpError`; or a :class:`Fault`, a reply streamed wrong on purpose:
cut by the output cap, without its terminator, with garbage or invalid JSON in the stream, the
connection dropped mid-body, or a repeated call id) and stream exactly as the real APIs do,
text and argument JSON split into small fragments. Every request is recorded (``requests``,
with its ``queries``), and so is every rejection (``rejections``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

from footprint_lab import Reply
from tests.providers.anthropic_policies import (
    Outcome,
    apply_policies,
    context_management_error,
    default_summary,
    drop_before_compaction,
    kept_block_error,
    sign_thinking,
    thinking_enabled,
    thinking_error,
)

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class HttpError:
    """A scripted API error: ``status`` with ``body`` (the API's JSON shape).

    With ``mid_stream=True`` the server starts a 200 stream and then sends the error inside it,
    as both APIs do for overload errors.
    """

    status: int
    body: dict[str, Any]
    mid_stream: bool = False


FaultMode = Literal[
    "length", "no-terminator", "garbage", "invalid-json", "drop", "cut-mid-event", "duplicate-ids"
]
"""How a :class:`Fault` streams its reply wrong:

- ``length``: the whole reply, ended by the output cap (OpenAI ``finish_reason="length"``,
  Anthropic ``stop_reason="max_tokens"``);
- ``no-terminator``: the reply's content, then the body ends cleanly without the finishing
  chunk, the usage and ``[DONE]`` (OpenAI) or ``message_delta`` / ``message_stop`` (Anthropic);
- ``garbage``: after the first event, lines that are not an event stream (invalid UTF-8
  included), then the body ends;
- ``invalid-json``: a ``data:`` line whose JSON is cut in the middle, then the rest as usual;
- ``drop``: after some content, the connection is closed without finishing the HTTP body;
- ``cut-mid-event``: half of an event is sent, then the connection is closed;
- ``duplicate-ids``: every tool call of the batch carries the same id.
"""


@dataclass(frozen=True)
class Fault:
    """A scripted reply streamed wrong on purpose (see :data:`FaultMode`)."""

    mode: FaultMode
    reply: Reply = dataclass_field(default_factory=lambda: Reply.text("The answer is forty-"))


class _Dropped(Exception):
    """Raised inside a stream to stop it after the connection was closed on purpose."""


ScriptItem = Reply | HttpError | Fault
Script = Sequence[ScriptItem] | Callable[[dict[str, Any]], ScriptItem]

_server_ids = itertools.count(1)


def _fragments(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _text_of(content: Any) -> str:
    """All text inside a content value (a string, or a list of blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else [content]:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            parts.append(str(block.get("name", "")))
            parts.append(json.dumps(block.get("input", {}), sort_keys=True))
        elif kind == "tool_result":
            parts.append(_text_of(block.get("content")))
        elif kind == "thinking":
            parts.append(str(block.get("thinking") or ""))
        elif kind == "redacted_thinking":
            parts.append(str(block.get("data") or ""))
        elif kind == "compaction":
            parts.append(str(block.get("content") or ""))
    return "".join(parts)


def count_input_tokens(body: dict[str, Any]) -> int:
    """Deterministic input tokens: ceil(chars / 4) over system, messages and call arguments
    (thinking text, redacted-thinking data and compaction summaries included). Blocks before
    the latest Anthropic ``compaction`` block are not counted: the API drops them."""
    chars = len(_text_of(body.get("system")))
    for message in drop_before_compaction(body.get("messages") or []):
        if not isinstance(message, dict):
            continue
        chars += len(_text_of(message.get("content")))
        for call in message.get("tool_calls") or []:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            chars += len(str(function.get("name", ""))) + len(str(function.get("arguments", "")))
    return max(1, math.ceil(chars / CHARS_PER_TOKEN))


def _reply_tokens(reply: Reply, *, thinking: bool = False) -> int:
    """A reply's output tokens (its thinking included when ``thinking``: it was streamed)."""
    chars = len(reply.content) + sum(
        len(name) + len(json.dumps(args, sort_keys=True)) for name, args in reply.calls
    )
    if thinking and reply.thinking:
        chars += len(reply.thinking)
    return max(1, math.ceil(chars / CHARS_PER_TOKEN))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Many small SSE writes: without TCP_NODELAY, Nagle + delayed ACK add ~40 ms per call.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        self.server.owner.dispatch(self, raw)

    # -- writing -----------------------------------------------------------------------

    def send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def send_chunk(self, data: str) -> None:
        payload = data.encode()
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def send_raw_chunk(self, payload: bytes) -> None:
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def drop(self, partial: bytes = b"") -> None:
        """Send ``partial`` (as a chunk claiming to be longer), then close the connection
        without finishing the body, and stop the stream."""
        if partial:
            self.wfile.write(f"{len(partial) + 64:x}\r\n".encode() + partial)
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise _Dropped

    def send_garbage(self) -> None:
        """Lines that are not an event stream, invalid UTF-8 included."""
        self.send_raw_chunk(b"this is not an event stream\n{{{ ]]\n\xff\xfe\xfa broken\n\n")

    def wait_for_disconnect(self, seconds: float) -> bool:
        """Block until the client closes the connection (True) or ``seconds`` pass."""
        sock: socket.socket = self.connection
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], 0.02)
            if readable:
                try:
                    if sock.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
        return False


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: WireServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Keep the test output clean: a client hanging up mid-connection is routine here.
        self.owner.errors.append(sys.exc_info()[1])


class WireServer:
    """Base of the two fake APIs: lifecycle, script, recording.

    Args:
        script: The replies in order, or a function of the request body returning one.
        context_window: Reject requests whose counted input tokens exceed it.
        report_usage: Stream usage (OpenAI: the final usage chunk when ``include_usage``;
            Anthropic: the ``usage`` of message_start / message_delta). False omits it.
        api_key: When set, requests must carry it (else 401 in the API's shape, echoing the
            key as some APIs do).
        hold_seconds: Before streaming a reply, start the stream and wait up to this long for
            the client to hang up (for cancellation tests); ``disconnected`` is set if it did.
        cache_read_tokens: Report this many of the input tokens as read from the cache.
        cache_write_tokens: Report this many of the input tokens as written to the cache
            (Anthropic's ``cache_creation_input_tokens``; OpenAI reports no writes).
        require_query: When set, every request's URL query must hold these items (else 401),
            as gateways that take their key in the query string do.
    """

    kind = "base"

    def __init__(
        self,
        script: Script = (),
        *,
        context_window: int | None = None,
        report_usage: bool = True,
        api_key: str | None = None,
        hold_seconds: float = 0.0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        text_fragment: int = 7,
        json_fragment: int = 5,
        require_query: dict[str, str] | None = None,
    ) -> None:
        self.script: Script = script if callable(script) else list(script)
        self.context_window = context_window
        self.report_usage = report_usage
        self.api_key = api_key
        self.hold_seconds = hold_seconds
        self.cache_read_tokens = cache_read_tokens
        self.cache_write_tokens = cache_write_tokens
        self.text_fragment = text_fragment
        self.json_fragment = json_fragment
        self.require_query = require_query
        self.requests: list[dict[str, Any]] = []
        self.queries: list[dict[str, str]] = []
        self.headers: list[dict[str, str]] = []
        self.rejections: list[tuple[int, dict[str, Any]]] = []
        self.errors: list[BaseException | None] = []
        self.replied = 0
        self.received = threading.Event()
        self.disconnected = threading.Event()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._tag = next(_server_ids)
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> WireServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to give the SDK."""
        raise NotImplementedError

    # -- requests ----------------------------------------------------------------------

    def next_call_id(self) -> str:
        return f"{self._tag}x{next(self._ids)}"

    def _next_item(self, body: dict[str, Any]) -> ScriptItem:
        with self._lock:
            if callable(self.script):
                item = self.script(body)
            elif self.replied < len(self.script):
                item = self.script[self.replied]
            else:
                item = Reply.fail(f"test server script exhausted after {len(self.script)} replies")
            self.replied += 1
        return item

    def reject(self, handler: _Handler, status: int, body: dict[str, Any]) -> None:
        with self._lock:
            self.rejections.append((status, body))
        handler.send_json(status, body)

    def dispatch(self, handler: _Handler, raw: bytes) -> None:
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self.reject(handler, 400, self.error_body("invalid_request_error", "invalid JSON"))
            return
        target = urlsplit(handler.path)
        query = dict(parse_qsl(target.query, keep_blank_values=True))
        with self._lock:
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in handler.headers.items()})
            self.queries.append(query)
        self.received.set()
        required = self.require_query or {}
        if not self.authorized(handler) or any(query.get(k) != v for k, v in required.items()):
            self.reject(handler, 401, self.auth_error())
            return
        if target.path.rstrip("/") != self.path:
            self.reject(
                handler, 404, self.error_body("not_found_error", f"no route {handler.path}")
            )
            return
        problem = self.validate(body)
        if problem is not None:
            self.reject(handler, 400, problem)
            return
        tokens = count_input_tokens(body)
        if self.context_window is not None and tokens > self.context_window:
            self.reject(handler, 400, self.context_length_error(tokens))
            return
        item = self._next_item(body)
        if isinstance(item, HttpError) and not item.mid_stream:
            self.reject(handler, item.status, item.body)
            return
        if isinstance(item, Reply) and item.failure is not None:
            self.reject(handler, 500, self.error_body("api_error", item.failure))
            return
        handler.start_stream()
        try:
            self.stream(handler, body, item, tokens)
            handler.end_stream()
        except _Dropped:
            pass
        except (BrokenPipeError, ConnectionResetError):
            self.disconnected.set()

    def hold(self, handler: _Handler) -> bool:
        """Wait for a hang-up when configured; True (and ``disconnected`` set) if it came."""
        if self.hold_seconds and handler.wait_for_disconnect(self.hold_seconds):
            self.disconnected.set()
            return True
        return False

    # -- per API -----------------------------------------------------------------------

    path = "/"

    def authorized(self, handler: _Handler) -> bool:
        raise NotImplementedError

    def auth_error(self) -> dict[str, Any]:
        raise NotImplementedError

    def error_body(self, type_: str, message: str, code: str | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def validate(self, body: dict[str, Any]) -> dict[str, Any] | None:
        raise NotImplementedError

    def context_length_error(self, tokens: int) -> dict[str, Any]:
        raise NotImplementedError

    def stream(
        self, handler: _Handler, body: dict[str, Any], item: ScriptItem, tokens: int
    ) -> None:
        raise NotImplementedError


class OpenAIServer(WireServer):
    """A fake of ``POST /v1/chat/completions`` (streaming only)."""

    kind = "openai"
    path = "/v1/chat/completions"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def authorized(self, handler: _Handler) -> bool:
        if self.api_key is None:
            return True
        return handler.headers.get("Authorization") == f"Bearer {self.api_key}"

    def auth_error(self) -> dict[str, Any]:
        sent = self.headers[-1].get("authorization", "").removeprefix("Bearer ")
        return {
            "error": {
                "message": f"Incorrect API key provided: {sent}. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        }

    def error_body(
        self, type_: str, message: str, code: str | None = None, param: str | None = None
    ) -> dict[str, Any]:
        return {"error": {"message": message, "type": type_, "param": param, "code": code}}

    def context_length_error(self, tokens: int) -> dict[str, Any]:
        return self.error_body(
            "invalid_request_error",
            f"This model's maximum context length is {self.context_window} tokens. However, "
            f"your messages resulted in {tokens} tokens. Please reduce the length of the "
            "messages.",
            code="context_length_exceeded",
            param="messages",
        )

    def validate(self, body: dict[str, Any]) -> dict[str, Any] | None:
        bad = "invalid_request_error"
        if not isinstance(body.get("model"), str):
            return self.error_body(bad, "you must provide a model parameter")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return self.error_body(
                bad,
                "Invalid 'messages': empty array. Expected an array with minimum length 1, "
                "but got an empty array instead.",
                code="empty_array",
                param="messages",
            )
        if "stream_options" in body and not body.get("stream"):
            return self.error_body(
                bad, "The 'stream_options' parameter is only allowed when 'stream' is enabled."
            )
        if not body.get("stream"):
            return self.error_body(bad, "this test server only streams: send stream=true")
        if "tools" in body:
            tools = body["tools"]
            if not isinstance(tools, list) or not tools:
                return self.error_body(
                    bad,
                    "Invalid 'tools': empty array. Expected an array with minimum length 1, "
                    "but got an empty array instead.",
                    code="empty_array",
                    param="tools",
                )
            for i, spec in enumerate(tools):
                if spec.get("type") != "function" or not spec.get("function", {}).get("name"):
                    return self.error_body(
                        bad, f"Missing required parameter: 'tools[{i}].function.name'."
                    )
        pending: list[str] = []
        block_ids: set[str] = set()
        owner = 0
        for i, message in enumerate(messages):
            role = message.get("role")
            if role not in ("system", "developer", "user", "assistant", "tool"):
                return self.error_body(
                    bad,
                    f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', "
                    "'user', 'function', 'tool', and 'developer'.",
                    code="invalid_value",
                    param=f"messages[{i}].role",
                )
            if role == "tool":
                call_id = message.get("tool_call_id")
                if call_id not in block_ids:
                    return self.error_body(
                        bad,
                        "Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'.",
                        param=f"messages.[{i}].role",
                    )
                if call_id in pending:
                    pending.remove(call_id)
                if not isinstance(message.get("content"), str):
                    return self.error_body(
                        bad, f"Invalid type for 'messages[{i}].content': expected a string."
                    )
                continue
            if pending:
                return self._unanswered(owner, pending)
            block_ids = set()
            calls = message.get("tool_calls")
            if role == "assistant" and calls:
                for j, call in enumerate(calls):
                    arguments = call.get("function", {}).get("arguments")
                    if not isinstance(arguments, str):
                        return self.error_body(
                            bad,
                            f"Invalid type for 'messages[{i}].tool_calls[{j}].function."
                            f"arguments': expected a string, but got "
                            f"{type(arguments).__name__} instead.",
                            code="invalid_type",
                        )
                    try:
                        json.loads(arguments)
                    except ValueError:
                        return self.error_body(
                            bad,
                            f"Invalid 'messages[{i}].tool_calls[{j}].function.arguments': "
                            "expected a JSON string.",
                            code="invalid_value",
                        )
                    if not call.get("id"):
                        return self.error_body(
                            bad, f"Missing required parameter: 'messages[{i}].tool_calls[{j}].id'."
                        )
                pending = [call["id"] for call in calls]
                block_ids = set(pending)
                owner = i
            elif not isinstance(message.get("content"), str):
                return self.error_body(
                    bad,
                    "Invalid value for 'content': expected a string, got null.",
                    param=f"messages.[{i}].content",
                )
        if pending:
            return self._unanswered(owner, pending)
        return None

    def _unanswered(self, index: int, pending: list[str]) -> dict[str, Any]:
        return self.error_body(
            "invalid_request_error",
            "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            f"response messages: {', '.join(pending)}",
            param=f"messages.[{index}].role",
        )

    def stream(
        self, handler: _Handler, body: dict[str, Any], item: ScriptItem, tokens: int
    ) -> None:
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        completion_id = f"chatcmpl-{self.next_call_id()}"

        def chunk(choices: list[dict[str, Any]], **extra: Any) -> None:
            data: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": 1_700_000_000,
                "model": body["model"],
                "system_fingerprint": "fp_test",
                "choices": choices,
            }
            if include_usage:
                data["usage"] = None
            data.update(extra)
            handler.send_chunk(f"data: {json.dumps(data)}\n\n")

        def delta(d: dict[str, Any], finish: str | None = None) -> None:
            chunk([{"index": 0, "delta": d, "logprobs": None, "finish_reason": finish}])

        delta({"role": "assistant", "content": "", "refusal": None})
        if self.hold(handler):
            return
        if isinstance(item, HttpError):
            handler.send_chunk(f"data: {json.dumps(item.body)}\n\n")
            return
        fault = item.mode if isinstance(item, Fault) else None
        item = item.reply if isinstance(item, Fault) else item
        if fault == "garbage":
            handler.send_garbage()
            return
        shared_id = f"call_{self.next_call_id()}"
        for piece in _fragments(item.content, self.text_fragment):
            delta({"content": piece})
        if fault == "invalid-json":
            handler.send_chunk(f'data: {{"id": "{completion_id}", "choices": [{{"index": 0, \n\n')
        elif fault == "drop":
            handler.drop()
        elif fault == "cut-mid-event":
            handler.drop(f'data: {{"id": "{completion_id}", "object": "chat.compl'.encode())
        for index, (name, arguments) in enumerate(item.calls):
            delta(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": shared_id
                            if fault == "duplicate-ids"
                            else f"call_{self.next_call_id()}",
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
            for piece in _fragments(json.dumps(arguments), self.json_fragment):
                delta({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        if fault == "no-terminator":
            return
        delta({}, "length" if fault == "length" else "tool_calls" if item.calls else "stop")
        if include_usage and self.report_usage:
            out = _reply_tokens(item)
            chunk(
                [],
                usage={
                    "prompt_tokens": tokens,
                    "completion_tokens": out,
                    "total_tokens": tokens + out,
                    "prompt_tokens_details": {
                        "cached_tokens": self.cache_read_tokens,
                        "audio_tokens": 0,
                    },
                    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
                },
            )
        handler.send_chunk("data: [DONE]\n\n")


class AnthropicServer(WireServer):
    """A fake of ``POST /v1/messages`` (streaming only), with Anthropic's server-side window
    policies and extended thinking (:mod:`tests.providers.anthropic_policies`).

    A malformed ``thinking`` or ``context_management`` (or one sent without the beta header
    its edits need) is a 400 ``invalid_request_error``. Each accepted request is seen as the
    model would see it: blocks before its latest ``compaction`` block dropped, then its edits
    applied (clear_thinking, clear_tool_uses, compaction); its usage is that of the edited
    request, the final ``message_delta`` reports ``context_management.applied_edits`` when the
    request sent ``context_management``, and a compaction streams its block first with a
    ``compaction`` entry in ``usage.iterations``. A scripted ``Reply.thinking`` streams a
    signed thinking block first when the request enabled thinking.

    Args:
        script: As for :class:`WireServer`.
        compaction_summary: Writes a compaction's summary from the request body as the model
            sees it; default :func:`~tests.providers.anthropic_policies.default_summary`.
        **options: :class:`WireServer`'s options.

    Per request that passed validation, in order: ``cleared`` holds the ids of the tool uses
    clear_tool_uses cleared, ``applied`` the applied edits reported (None without
    ``context_management``), ``seen`` the request as the model saw it.
    """

    kind = "anthropic"
    path = "/v1/messages"

    def __init__(
        self,
        script: Script = (),
        *,
        compaction_summary: Callable[[dict[str, Any]], str] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(script, **options)
        self.compaction_summary = compaction_summary or default_summary
        self.cleared: list[list[str]] = []
        self.applied: list[list[dict[str, Any]] | None] = []
        self.seen: list[dict[str, Any]] = []
        self.compacted: list[bool] = []
        self._outcomes: dict[int, Outcome] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def authorized(self, handler: _Handler) -> bool:
        if self.api_key is None:
            return True
        # x-api-key, or a bearer token (newer SDK releases send the key that way)
        bearer = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        return self.api_key in (handler.headers.get("x-api-key"), bearer)

    def auth_error(self) -> dict[str, Any]:
        return self.error_body("authentication_error", "invalid x-api-key")

    def error_body(self, type_: str, message: str, code: str | None = None) -> dict[str, Any]:
        return {"type": "error", "error": {"type": type_, "message": message}}

    def context_length_error(self, tokens: int) -> dict[str, Any]:
        return self.error_body(
            "invalid_request_error",
            f"prompt is too long: {tokens} tokens > {self.context_window} maximum",
        )

    def _betas_of(self, body: dict[str, Any]) -> set[str]:
        """The ``anthropic-beta`` values of the request that carried ``body`` (its headers
        were recorded with it, under the same lock)."""
        with self._lock:
            pairs = list(zip(self.requests, self.headers, strict=False))
        headers: dict[str, str] = next((h for b, h in reversed(pairs) if b is body), {})
        return {v.strip() for v in headers.get("anthropic-beta", "").split(",") if v.strip()}

    def validate(self, body: dict[str, Any]) -> dict[str, Any] | None:
        def bad(message: str) -> dict[str, Any]:
            return self.error_body("invalid_request_error", message)

        if not isinstance(body.get("model"), str):
            return bad("model: Field required")
        max_tokens = body.get("max_tokens")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
            return bad("max_tokens: Field required")
        if max_tokens < 1:
            return bad("max_tokens: Input should be greater than or equal to 1")
        if not body.get("stream"):
            return bad("this test server only streams: send stream=true")
        for i, spec in enumerate(body.get("tools") or []):
            if not spec.get("name"):
                return bad(f"tools.{i}.custom.name: Field required")
            if not isinstance(spec.get("input_schema"), dict):
                return bad(f"tools.{i}.custom.input_schema: Field required")
        system = body.get("system")
        if system is not None and not isinstance(system, str | list):
            return bad("system: Input should be a valid string or list")
        problem = thinking_error(body) or context_management_error(body, self._betas_of(body))
        if problem:
            return bad(problem)
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return bad("messages: at least one message is required")
        turns: list[tuple[str, list[dict[str, Any]]]] = []
        for i, message in enumerate(messages):
            problem, blocks = self._message_problem(i, message, last=i == len(messages) - 1)
            if problem:
                return bad(problem)
            turns.append((message["role"], blocks))
        problem = self._turns_problem(turns)
        if problem:
            return bad(problem)
        self._apply(body)
        return None

    @staticmethod
    def _message_problem(
        i: int, message: dict[str, Any], *, last: bool
    ) -> tuple[str | None, list[dict[str, Any]]]:
        """What is wrong with ``messages[i]`` on its own, and its blocks."""
        role = message.get("role")
        if role == "system":
            return (
                'messages: Unexpected role "system". The Messages API accepts a top-level '
                '`system` parameter, not "system" as an input message role.'
            ), []
        if role not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'", []
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            return f"messages.{i}.content: Input should be a valid list", []
        if not blocks and not (role == "assistant" and last):
            return f"messages.{i}: all messages must have non-empty content", []
        for j, block in enumerate(blocks):
            kind = block.get("type")
            where = f"messages.{i}.content.{j}"
            if kind == "text":
                if not block.get("text"):
                    return "messages: text content blocks must be non-empty", []
                if not str(block["text"]).strip():
                    return "messages: text content blocks must contain non-whitespace text", []
            elif kind == "tool_use":
                if role != "assistant":
                    return f"{where}: tool_use blocks are only allowed in assistant messages", []
                if not isinstance(block.get("input"), dict):
                    return f"{where}.tool_use.input: Input should be a valid dictionary", []
            elif kind == "tool_result":
                if role != "user":
                    return f"{where}: tool_result blocks are only allowed in user messages", []
            elif kind in ("thinking", "redacted_thinking", "compaction"):
                problem = kept_block_error(block, role, where)
                if problem:
                    return problem, []
            else:
                return f"{where}.type: unknown block type {kind!r}", []
        return None, blocks

    @staticmethod
    def _turns_problem(all_turns: list[tuple[str, list[dict[str, Any]]]]) -> str | None:
        """What is wrong with the order of the turns the model sees (those from the latest
        compaction block on) and with their tool_use / tool_result pairing."""
        seen = drop_before_compaction([{"role": r, "content": b} for r, b in all_turns])
        turns = [(m["role"], m["content"]) for m in seen]
        # After a compaction the request may start at the assistant turn whose first block is
        # the compaction block (our reading of "the API drops all message blocks prior to the
        # compaction block"): that turn stands first in place of a user turn.
        opens_with_compaction = bool(turns[0][1]) and turns[0][1][0].get("type") == "compaction"
        if turns[0][0] != "user" and not opens_with_compaction:
            return 'messages: first message must use the "user" role'
        for i in range(1, len(turns)):
            if turns[i][0] == turns[i - 1][0]:
                return (
                    'messages: roles must alternate between "user" and "assistant", but found '
                    f'multiple "{turns[i][0]}" roles in a row'
                )
        for i, (role, blocks) in enumerate(turns):
            if role == "user":
                kinds = [b["type"] for b in blocks]
                first_other = next(
                    (k for k, kind in enumerate(kinds) if kind != "tool_result"), len(kinds)
                )
                if "tool_result" in kinds[first_other:]:
                    return (
                        f"messages.{i}: `tool_result` blocks must come first in the content "
                        "of a user message, before any other content"
                    )
                previous = turns[i - 1][1] if i > 0 else []
                offered = {b["id"] for b in previous if b.get("type") == "tool_use"}
                for j, block in enumerate(blocks):
                    if block["type"] == "tool_result" and block.get("tool_use_id") not in offered:
                        return (
                            f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                            f"`tool_result` blocks: {block.get('tool_use_id')}. Each "
                            "`tool_result` block must have a corresponding `tool_use` block in "
                            "the previous message."
                        )
                continue
            asked = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            following = turns[i + 1][1] if i + 1 < len(turns) else []
            answered = {b.get("tool_use_id") for b in following if b["type"] == "tool_result"}
            missing = [a for a in asked if a not in answered]
            if missing:
                return (
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing)}. Each `tool_use` block must "
                    "have a corresponding `tool_result` block in the next message."
                )
        return None

    def _apply(self, body: dict[str, Any]) -> None:
        """Run the request's policies; keep the outcome for :meth:`stream` and the record."""
        outcome = apply_policies(body, count_input_tokens, self.compaction_summary)
        with self._lock:
            self._outcomes[id(body)] = outcome
            self.cleared.append(list(outcome.cleared_ids))
            self.applied.append(outcome.applied)
            self.seen.append(outcome.body)
            self.compacted.append(outcome.compaction is not None)

    # -- streaming ---------------------------------------------------------------------

    def stream(
        self, handler: _Handler, body: dict[str, Any], item: ScriptItem, tokens: int
    ) -> None:
        with self._lock:
            outcome = self._outcomes.pop(id(body), None) or Outcome(body=body)
        compaction = outcome.compaction
        tokens = compaction.context_tokens if compaction else count_input_tokens(outcome.body)
        usage = self._input_usage(tokens)

        def event(name: str, data: dict[str, Any]) -> None:
            handler.send_chunk(f"event: {name}\ndata: {json.dumps(data)}\n\n")

        message: dict[str, Any] = {
            "id": f"msg_{self.next_call_id()}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
        }
        if self.report_usage:
            message["usage"] = {**usage, "output_tokens": 1}
        event("message_start", {"type": "message_start", "message": message})
        event("ping", {"type": "ping"})
        if self.hold(handler):
            return
        if isinstance(item, HttpError):
            event("error", item.body)
            return
        fault = item.mode if isinstance(item, Fault) else None
        reply = item.reply if isinstance(item, Fault) else item
        if fault == "garbage":
            handler.send_garbage()
            return
        index = 0
        if compaction is not None:
            self._stream_block(event, index, compaction.block)
            index += 1
            if compaction.pause:
                self._give_back()
                self._finish(event, outcome, usage, "compaction", 0)
                return
        thinks = bool(reply.thinking) and thinking_enabled(body)
        if thinks:
            self._stream_thinking(event, index, reply.thinking or "")
            index += 1
        if not self._stream_reply(handler, event, index, reply, fault):
            return
        stop_reason = (
            "max_tokens" if fault == "length" else "tool_use" if reply.calls else "end_turn"
        )
        self._finish(event, outcome, usage, stop_reason, _reply_tokens(reply, thinking=thinks))

    def _input_usage(self, tokens: int) -> dict[str, int]:
        """The input side of usage for ``tokens`` input tokens, split by the cache settings."""
        cached = min(self.cache_read_tokens, tokens)
        written = min(self.cache_write_tokens, tokens - cached)
        return {
            "input_tokens": tokens - cached - written,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": cached,
        }

    def _give_back(self) -> None:
        """A paused compaction used no scripted reply: the next request gets it."""
        if not callable(self.script):
            with self._lock:
                self.replied -= 1

    @staticmethod
    def _stream_block(
        event: Callable[[str, dict[str, Any]], None], index: int, block: dict[str, Any]
    ) -> None:
        """A compaction block: its start (content null), one delta with the content, stop."""
        start = {"type": "compaction", "content": None}
        event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        event(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "compaction_delta", "content": block["content"]},
            },
        )
        event("content_block_stop", {"type": "content_block_stop", "index": index})

    def _stream_thinking(
        self, event: Callable[[str, dict[str, Any]], None], index: int, thinking: str
    ) -> None:
        """A thinking block: fragments of its text, then its signature."""
        start = {"type": "thinking", "thinking": "", "signature": ""}
        event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        for piece in _fragments(thinking, self.text_fragment):
            event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "thinking_delta", "thinking": piece},
                },
            )
        event(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "signature_delta", "signature": sign_thinking(thinking)},
            },
        )
        event("content_block_stop", {"type": "content_block_stop", "index": index})

    def _stream_reply(
        self,
        handler: _Handler,
        event: Callable[[str, dict[str, Any]], None],
        index: int,
        reply: Reply,
        fault: FaultMode | None,
    ) -> bool:
        """The reply's text and tool calls from block ``index`` on, with the fault; False
        when the fault ends the stream here."""
        shared_id = f"toolu_{self.next_call_id()}"
        if reply.content:
            event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            for piece in _fragments(reply.content, self.text_fragment):
                event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                )
            event("content_block_stop", {"type": "content_block_stop", "index": index})
            index += 1
        if fault == "invalid-json":
            handler.send_chunk('event: content_block_delta\ndata: {"type": "content_block_de\n\n')
        elif fault == "drop":
            handler.drop()
        elif fault == "cut-mid-event":
            handler.drop(b'event: content_block_delta\ndata: {"type": "content_blo')
        for name, arguments in reply.calls:
            block_id = shared_id if fault == "duplicate-ids" else f"toolu_{self.next_call_id()}"
            start = {"type": "tool_use", "id": block_id, "name": name, "input": {}}
            event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
            for piece in ["", *_fragments(json.dumps(arguments), self.json_fragment)]:
                event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
            event("content_block_stop", {"type": "content_block_stop", "index": index})
            index += 1
        return fault != "no-terminator"

    def _finish(
        self,
        event: Callable[[str, dict[str, Any]], None],
        outcome: Outcome,
        usage: dict[str, int],
        stop_reason: str,
        output_tokens: int,
    ) -> None:
        """The final ``message_delta`` (usage, iterations after a compaction, applied edits)
        and ``message_stop``."""
        delta: dict[str, Any] = {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        }
        if self.report_usage:
            delta["usage"] = {"output_tokens": output_tokens}
            compaction = outcome.compaction
            if compaction is not None:
                iterations: list[dict[str, Any]] = [
                    {
                        "type": "compaction",
                        "input_tokens": compaction.input_tokens,
                        "output_tokens": compaction.output_tokens,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 0,
                    }
                ]
                if stop_reason != "compaction":
                    iterations.append({"type": "message", **usage, "output_tokens": output_tokens})
                delta["usage"] = {**usage, "output_tokens": output_tokens, "iterations": iterations}
        if outcome.applied is not None:
            delta["context_management"] = {"applied_edits": outcome.applied}
        event("message_delta", delta)
        event("message_stop", {"type": "message_stop"})


def provider_for(server: WireServer, **kwargs: Any) -> Any:
    """The real provider (official SDK inside) pointed at ``server``; SDK retries off."""
    from footprint_lab.providers import AnthropicProvider, OpenAIProvider

    kwargs.setdefault("max_retries", 0)
    if isinstance(server, OpenAIServer):
        return OpenAIProvider(base_url=server.url, **kwargs)
    return AnthropicProvider(base_url=server.url, **kwargs)


MODEL = {"openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5"}
"""A model id per wire protocol (the fake servers accept any)."""
