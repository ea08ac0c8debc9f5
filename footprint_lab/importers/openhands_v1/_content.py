"""What one OpenHands V1 event says, as text and typed parts: the SDK's content blocks
(``TextContent``, ``ImageContent``), an agent's reasoning (``reasoning_content``,
``thinking_blocks``, ``responses_reasoning_item``), and a tool's observation rendered as the SDK
sends it (``Observation.to_llm_content``).

Layer: importers (private to :mod:`footprint_lab.importers.openhands_v1`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from footprint_lab.importers._parts import (
    Problems,
    content_part,
    json_value,
    optional_str,
    short,
    text_of,
)
from footprint_lab.messages import ContentPart, arguments_json

ERROR_HEADER = "[An error occurred during execution.]\n"
"""What the SDK puts before the content of an observation with ``is_error``."""
TERMINAL_KINDS = frozenset({"TerminalObservation", "ExecuteBashObservation"})
"""Observations of the shell tool, rendered with their command metadata."""
_LEGACY_BASH_ERROR = "[There was an error during command execution.]\n"
"""What a shell observation of SDKs before 1.1 (November 2025) put before an error."""


def blocks_text(
    value: Any, problems: Problems, index: int, field: str
) -> tuple[str, list[ContentPart]]:
    """A content list as the SDK writes it (``TextContent`` / ``ImageContent`` objects; a text
    or ``null`` is read as the SDK coerces it): the texts joined, every other block a part.

    Raises:
        TranscriptError: it is neither, or a block is not a typed object.
    """
    if value is None:
        return "", []
    if isinstance(value, str):
        return value, []
    if not isinstance(value, list):
        problems.fail(index, field, f"expected a list of content blocks, got {short(value)}")
    texts: list[str] = []
    parts: list[ContentPart] = []
    for k, block in enumerate(value):
        at = f"{field}[{k}]"
        if not isinstance(block, Mapping):
            problems.fail(index, at, f"expected a content block, got {short(block)}")
        kind = block.get("type", "text")  # the SDK's TextContent defaults its type
        if kind == "text":
            texts.append(text_of(block.get("text"), problems, index, f"{at}.text"))
        elif kind == "image" and isinstance(block.get("image_urls"), list):
            parts.append(_image(block, problems, index, at))
        elif isinstance(kind, str):
            parts.append(content_part(block, problems, index, at))
        else:
            problems.fail(index, f"{at}.type", f"expected text, got {short(kind)}")
    return "".join(texts), parts


def _image(block: Mapping[str, Any], problems: Problems, index: int, at: str) -> ContentPart:
    """An ``ImageContent``: its URLs (data URLs, mostly) are what it costs."""
    urls = block["image_urls"]
    chars = 0
    for k, url in enumerate(urls):
        if not isinstance(url, str):
            problems.fail(index, f"{at}.image_urls[{k}]", f"expected text, got {short(url)}")
        chars += len(url)
    json_value(block, problems, index, at)
    return ContentPart(kind="image", data_chars=chars, original=dict(block))


def reasoning_parts(
    holder: Mapping[str, Any], problems: Problems, index: int, field: str
) -> list[ContentPart]:
    """The reasoning a reply carries, as thinking parts: Anthropic ``thinking_blocks`` (kept
    whole), else ``reasoning_content`` (litellm's text of the same thinking, so never both),
    and an OpenAI Responses ``responses_reasoning_item`` (its summary as text, its encrypted
    content counted by size)."""
    prefix = f"{field}." if field else ""
    parts: list[ContentPart] = []
    blocks = holder.get("thinking_blocks")
    if blocks is not None:
        if not isinstance(blocks, list):
            problems.fail(index, f"{prefix}thinking_blocks", "expected a list of blocks")
        for k, block in enumerate(blocks):
            at = f"{prefix}thinking_blocks[{k}]"
            if not isinstance(block, Mapping):
                problems.fail(index, at, f"expected a thinking block, got {short(block)}")
            kind = block.get("type", "thinking" if "thinking" in block else "redacted_thinking")
            parts.append(content_part(block, problems, index, at, kind_of=str(kind)))
    reasoning = optional_str(
        holder.get("reasoning_content"), problems, index, f"{prefix}reasoning_content"
    )
    if reasoning and not parts:
        parts.append(
            ContentPart(kind="thinking", text=reasoning, original={"reasoning_content": reasoning})
        )
    item = holder.get("responses_reasoning_item")
    if item is not None:
        parts.extend(_responses_item(item, problems, index, f"{prefix}responses_reasoning_item"))
    return parts


def _responses_item(item: Any, problems: Problems, index: int, at: str) -> list[ContentPart]:
    """An OpenAI Responses reasoning item: its summary (and plain content) as a thinking part,
    its encrypted content as a redacted one."""
    if not isinstance(item, Mapping):
        problems.fail(index, at, f"expected an object, got {short(item)}")
    json_value(item, problems, index, at)
    texts: list[str] = []
    for key in ("summary", "content"):
        value = item.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.fail(index, f"{at}.{key}", "expected a list of texts")
        texts.extend(value)
    encrypted = optional_str(
        item.get("encrypted_content"), problems, index, f"{at}.encrypted_content"
    )
    parts: list[ContentPart] = []
    if texts:
        parts.append(ContentPart(kind="thinking", text="\n".join(texts), original=dict(item)))
    if encrypted:
        original = {} if texts else dict(item)
        parts.append(
            ContentPart(kind="redacted-thinking", data_chars=len(encrypted), original=original)
        )
    return parts


def observation_text(
    observation: Any, problems: Problems, index: int, field: str
) -> tuple[str, list[ContentPart]]:
    """An ``ObservationEvent``'s observation as the SDK sends it: the error header when
    ``is_error``, then its content (a shell observation's output between its metadata
    ``prefix`` and ``suffix``, then the working directory, interpreter and exit code lines);
    a browser screenshot is an image part. Observations of SDKs before 1.1 (no ``content``
    list) are read from their ``output`` / ``message`` / ``content`` text and ``error``; one
    with none of them is kept whole as an ``observation`` part.

    Raises:
        TranscriptError: the observation is not an object, or a field has the wrong type.
    """
    if not isinstance(observation, Mapping):
        problems.fail(index, field, f"expected an observation object, got {short(observation)}")
    kind = observation.get("kind")
    terminal = isinstance(kind, str) and kind in TERMINAL_KINDS
    content = observation.get("content")
    if isinstance(content, list):
        text, parts = blocks_text(content, problems, index, f"{field}.content")
        if terminal:
            text = _terminal(observation, text, problems, index, field)
        if observation.get("is_error") is True:
            text = ERROR_HEADER + text
    else:
        text, parts = _legacy_observation(observation, terminal, problems, index, field)
    screenshot = observation.get("screenshot_data")
    if isinstance(screenshot, str) and screenshot:
        parts.append(
            ContentPart(
                kind="image", data_chars=len(screenshot), original={"screenshot_data": screenshot}
            )
        )
    return text, parts


def _terminal(
    observation: Mapping[str, Any], output: str, problems: Problems, index: int, field: str
) -> str:
    """A shell observation's text as ``TerminalObservation.to_llm_content`` writes it."""
    metadata = observation.get("metadata")
    if not isinstance(metadata, Mapping):
        return output
    at = f"{field}.metadata"
    prefix = optional_str(metadata.get("prefix"), problems, index, f"{at}.prefix") or ""
    suffix = optional_str(metadata.get("suffix"), problems, index, f"{at}.suffix") or ""
    text = f"{prefix}{output}{suffix}"
    cwd = optional_str(metadata.get("working_dir"), problems, index, f"{at}.working_dir")
    if cwd:
        text += f"\n[Current working directory: {cwd}]"
    python = optional_str(
        metadata.get("py_interpreter_path"), problems, index, f"{at}.py_interpreter_path"
    )
    if python:
        text += f"\n[Python interpreter: {python}]"
    code = metadata.get("exit_code", -1)
    if code != -1:
        json_value(code, problems, index, f"{at}.exit_code")
        text += f"\n[Command finished with exit code {_plain(code)}]"
    return text


def _plain(value: Any) -> str:
    """A JSON value as Python's ``str`` prints it (``None``, ``True``, numbers, text)."""
    return value if isinstance(value, str) else str(value)


def _legacy_observation(
    observation: Mapping[str, Any], terminal: bool, problems: Problems, index: int, field: str
) -> tuple[str, list[ContentPart]]:
    """An observation of an SDK before 1.1 (November 2025): each tool class had its own
    fields; the text is its ``output`` (a shell's with its metadata lines), ``message`` or
    ``content`` text, and its ``error`` (a text, or a flag on a shell observation)."""
    texts = {
        key: optional_str(observation.get(key), problems, index, f"{field}.{key}")
        for key in ("output", "message", "content")
    }
    error = observation.get("error")
    if terminal and texts["output"] is not None:
        text = _terminal(observation, texts["output"], problems, index, field)
        return (_LEGACY_BASH_ERROR + text if error is True else text), []
    if isinstance(error, str) and error:
        return error, []
    for value in texts.values():
        if value is not None:
            return value, []
    json_value(observation, problems, index, field)
    whole = ContentPart(
        kind="observation", data_chars=len(arguments_json(observation)), original=dict(observation)
    )
    return "", [whole]
