"""Peers on their own ground: LangChain's context-editing middleware (``ClearToolUsesEdit``, the
edit ``ContextEditingMiddleware`` applies) against footprint_lab's ``clear_tool_results``, both
set to keep the three newest tool results and clear every older one in place.

Measured: one cold edit of a whole tool-loop history (``bench.peers.history``) at each size, and,
over every boundary of a shorter history, how many outputs a provider would reject or that no
longer hold every call and result under its original ids, and how many rewrote or lost the
current request. The peer edits its list in place, so every timed repetition gets a fresh copy
built beforehand; converting messages and building copies is not timed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench import peers
from bench._common import Section, median_seconds, verdict
from footprint_lab import Message, ToolCall, apply_window, clear_tool_results
from footprint_lab.evidence import wire_problems
from footprint_lab.window import Window

KEEP_RESULTS = 3
REQUEST = "the request"  # what bench.peers.history opens with
# The peer's placeholder, worded like ours and about as long (ours, ~196 characters here, also
# names the tool and the iteration), so a cleared result saves about as much either way.
PLACEHOLDER = (
    "[cleared tool result — output of this tool call cleared by LangChain's 'clear_tool_uses' "
    "edit. Call the tool again if you need it; do not reconstruct it from memory. The original "
    "is not kept.]"
)


@dataclass(frozen=True)
class Editor:
    """One policy under test: ``edit(prepare(history))`` is timed without ``prepare``;
    ``read(state, edited)`` maps the outcome back to our messages (not timed)."""

    label: str
    prepare: Callable[[list[Message]], Any]
    edit: Callable[[Any], Any]
    read: Callable[[Any, Any], list[Message]]


def ours(*, as_window: bool) -> Editor:
    """``clear_tool_results`` with no threshold (it engages at every visit), the last turn and
    the three newest results kept, pins off (``keep_results`` does their job here); handed a
    ``Window`` (its facts read once and kept, as the agent loop keeps them from visit to
    visit; not timed, like the peer's conversion) or the bare list (the facts read inside the
    edit), as *Side by side with peers* does."""
    strategy = clear_tool_results(keep_recent_turns=1, keep_results=KEEP_RESULTS)
    where = "a Window" if as_window else "a list"
    return Editor(
        f"footprint_lab clear_tool_results(keep_results={KEEP_RESULTS}), from {where}",
        # apply_window is pure: the input needs no copy, only (optionally) its facts.
        (lambda h: Window(h)) if as_window else (lambda h: h),
        lambda h: (
            apply_window(strategy, h, iteration=9, request=REQUEST, keep_last_tool_results=0).window
        ),
        lambda _state, window: list(window),
    )


def langchain() -> Editor:
    """``ClearToolUsesEdit(trigger=0, keep=3)``: the trigger always passes, and the token
    counter is ``len`` so counting costs nothing (with the trigger at zero it decides nothing).

    Raises:
        ImportError: ``langchain`` (or ``langchain_core``) is not installed.
    """
    from langchain.agents.middleware import ClearToolUsesEdit
    from langchain_core.messages import AIMessage, ToolMessage

    convert, _ = peers.langchain(0, "messages")  # its converter; its trim is not used here
    clear = ClearToolUsesEdit(trigger=0, keep=KEEP_RESULTS, placeholder=PLACEHOLDER)

    def prepare(h: list[Message]) -> Any:
        native, back = convert(h)
        # The originals stay referenced, so no rewritten message can reuse one of their ids
        # and be mapped back to the message it replaced.
        return native, list(native), back

    def edit(state: Any) -> Any:
        native = state[0]
        clear.apply(native, count_tokens=len)
        return native

    def read(state: Any, native: list[Any]) -> list[Message]:
        back = state[2]
        names = {m.tool_call_id: m.name for m in back.values() if m.role == "tool"}
        out: list[Message] = []
        for m in native:
            if id(m) in back:
                out.append(back[id(m)])
            elif isinstance(m, ToolMessage):
                out.append(
                    Message.tool(m.tool_call_id, names.get(m.tool_call_id) or "", str(m.content))
                )
            elif isinstance(m, AIMessage):
                calls = [
                    ToolCall(id=c["id"] or "", name=c["name"], arguments=c["args"])
                    for c in m.tool_calls
                ]
                out.append(Message.assistant(str(m.content), tool_calls=calls))
            else:  # a rewritten request: a new message, so the identity check counts it
                out.append(Message.user(str(m.content)))
        return out

    return Editor(f"LangChain ClearToolUsesEdit(keep={KEEP_RESULTS})", prepare, edit, read)


def _shape(window: Sequence[Message]) -> list[tuple[str, str | None, tuple[str, ...]]]:
    """Role, result id and call ids of every message: what in-place clearing must not change."""
    return [(m.role, m.tool_call_id, tuple(c.id for c in m.tool_calls)) for m in window]


def _cold(editor: Editor, h: list[Message], repeat: int) -> float:
    """Median seconds of one edit of ``h``, each run on its own copy prepared beforehand."""
    # median_seconds calls fn once to warm up, then `repeat` times: one fresh copy per call.
    states = iter([editor.prepare(h) for _ in range(repeat + 1)])
    return median_seconds(lambda: editor.edit(next(states)), repeat)


def run(sizes: tuple[int, ...], repeat: int, validity_messages: int) -> Section:
    """Cold edit times and ratios at each size; invalid outputs over every boundary of a
    ``validity_messages``-message history."""
    mine = [ours(as_window=True), ours(as_window=False)]
    editors = list(mine)
    missing: list[str] = []
    try:
        editors.append(langchain())
    except ImportError as exc:
        missing.append(f"LangChain ClearToolUsesEdit: not installed ({exc.name})")
    peer = editors[-1] if len(editors) > len(mine) else None
    h = peers.history(validity_messages)
    bounds = peers._boundaries(h)
    section = Section(
        "9. Peers on their own ground: clearing tool results",
        "The policy family the field uses most, clearing old tool results in place, on the "
        "tool-loop history of *Side by side with peers* (parallel batches of 1-3 calls). "
        f"footprint_lab: `clear_tool_results(keep_recent_turns=1, keep_results={KEEP_RESULTS})` "
        "through `apply_window`, no threshold (it engages at every visit), pins off, handed "
        "the history as a `Window` (its facts read once and kept, as the agent loop keeps them "
        "from visit to visit; not timed) and once as the bare list (the facts read inside the "
        "edit); it refuses a placeholder that is not smaller than the result, and guards the "
        "request. "
        f"LangChain: `ClearToolUsesEdit(trigger=0, keep={KEEP_RESULTS}, placeholder=...)` (the "
        "edit `ContextEditingMiddleware` applies), its `apply` called directly with `len` as "
        "the token counter so the trigger always passes at no cost, on the history converted "
        "to LangChain messages (not timed), a fresh copy per timed run, its placeholder "
        f"worded like ours ({len(PLACEHOLDER)} characters). *Cold* = one edit of the whole "
        "history. Ratios are peer / ours (>1 = the peer is slower). Validity over all "
        f"{len(bounds)} boundaries of a {validity_messages:,}-message history: an output is "
        "invalid if a provider would reject it or if any call or result is gone or has "
        "another id. Targets: ours 0 invalid, and no slower (ratio >= 1) at each size from a "
        "Window (like for like: the peer's conversion is not timed either).",
        [
            "policy",
            *(f"cold at {n:,} msgs (ms)" for n in sizes),
            *(f"peer / ours at {n:,}" for n in sizes),
            "invalid outputs",
            "request rewritten or lost",
            "results cleared (last boundary)",
            "chars kept (last boundary)",
        ],
    )
    cold: dict[str, list[float]] = {e.label: [] for e in editors}
    for n in sizes:
        sized = peers.history(n)
        for e in editors:
            cold[e.label].append(_cold(e, sized, repeat))
    request = h[0]
    bad = 0
    for e in editors:
        invalid = request_bad = 0
        out: list[Message] = []
        window: list[Message] = []
        for b in bounds:
            window = h[:b]
            state = e.prepare(window)
            out = e.read(state, e.edit(state))
            invalid += bool(wire_problems(out)) or _shape(out) != _shape(window)
            request_bad += not any(m is request for m in out)
        if e in mine:
            bad += invalid + request_bad
        cleared = sum(
            o.content != m.content for o, m in zip(out, window, strict=False) if m.role == "tool"
        )
        kept = sum(m.chars for m in out) / max(1, sum(m.chars for m in window))
        ratios: list[Any] = ["—"] * len(sizes)
        if peer is not None and e is not peer:
            ratios = [p / t for p, t in zip(cold[peer.label], cold[e.label], strict=True)]
        section.rows.append(
            [
                e.label,
                *(t * 1e3 for t in cold[e.label]),
                *ratios,
                invalid,
                request_bad,
                cleared,
                f"{kept:.0%}",
            ]
        )
    section.notes.append(
        f"footprint_lab clear_tool_results invalid outputs or request rewritten/lost: {bad} "
        f"(target 0: {verdict(bad == 0)})."
    )
    if peer is not None:
        for n, theirs, from_window, from_list in zip(
            sizes, cold[peer.label], *(cold[m.label] for m in mine), strict=True
        ):
            section.notes.append(
                f"Cold edit at {n:,} messages: LangChain {theirs * 1e3:.2f} ms; ours "
                f"{from_window * 1e3:.2f} ms from a Window, ratio {theirs / from_window:.2f} "
                f"(target >= 1: {verdict(theirs >= from_window)}); ours "
                f"{from_list * 1e3:.2f} ms from a list, ratio {theirs / from_list:.2f} "
                f"({verdict(theirs >= from_list)})."
            )
        section.notes.append(
            "The two clear different results where a result is shorter than its placeholder: "
            "ours keeps it (a placeholder would make the window larger), the peer replaces it. "
            "The peer also finds each result's call by slicing the list up to it, so its edit "
            "grows quadratically with the history; ours walks it once."
        )
        section.notes.append(_middleware_extras(peer, peers.history(sizes[-1]), repeat))
    section.notes.extend(missing)
    return section


def _middleware_extras(peer: Editor, h: list[Message], repeat: int) -> str:
    """What ``ContextEditingMiddleware`` adds around the edit at every model call."""
    from langchain_core.messages.utils import count_tokens_approximately

    native = peer.prepare(h)[0]
    copying = median_seconds(lambda: copy.deepcopy(list(native)), repeat)
    counting = median_seconds(lambda: count_tokens_approximately(native), repeat)
    return (
        "Not counted above: at every model call `ContextEditingMiddleware` first deep-copies "
        "the message list and counts its tokens (approximately, by default) — at "
        f"{len(h):,} messages {copying * 1e3:.1f} ms and {counting * 1e3:.1f} ms."
    )
