"""A run's recorded conversation: what the model was sent and said, without what window
stages and injections wrote.

Layer: agent (reads a run's ledger). Replay re-applies a strategy over it; the evidence layer
measures dependencies and losses on it (:mod:`footprint_lab.evidence.dependencies` re-exports
:func:`transcript`, its old home).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import compress, count

from footprint_lab.agent.run import Run
from footprint_lab.agent.writer import RunWriter
from footprint_lab.messages import (
    Message,
    is_library_authored,
    is_observation,
    window_chars,
)
from footprint_lab.usage import Usage

__all__ = ["Walk", "in_call_order", "recorded", "transcript"]


def recorded(run: Run) -> list[Message]:
    """The recorded conversation in the order its run committed it (each batch's results as
    its calls finished): what :class:`Walk` commits again, commit for commit."""
    return [m for m in run.ledger.messages if not is_library_authored(m)]


def transcript(run: Run) -> list[Message]:
    """The recorded conversation, in order: every message except what a window stage wrote
    (notices, frames, an audited policy's rewrites) and library-authored injections — each
    batch's results in the order of its calls, as the model is sent them (the agent commits
    them in the order the calls finished)."""
    return in_call_order(recorded(run))


def in_call_order(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with the results that follow each assistant message in the order of its
    calls (a result answering none of them keeps its place after those that do); linear but
    for the sort inside each batch."""
    out = list(messages)
    n = len(out)
    # Only the results after a message making two or more calls can be out of order: those
    # messages are found at C speed, and every other message stays where it is.
    for i in compress(count(), map(_SEVERAL.__lt__, map(len, map(_CALLS, out)))):
        head = out[i]
        j = i + 1
        while j < n and out[j].role == "tool":
            j += 1
        if j - i > 2:
            rank = {c.id: k for k, c in enumerate(head.tool_calls)}
            out[i + 1 : j] = sorted(
                out[i + 1 : j], key=lambda m: rank.get(m.tool_call_id or "", len(rank))
            )
    return out


_CALLS = operator.attrgetter("tool_calls")
_SEVERAL = 1  # a message making more than one call


class Walk:
    """The one loop that turns a recorded conversation into a run's commits, as the live agent
    commits them: the system prompt under the opening seed stage, each request in a seed
    stage, what the environment answered in its own stage, and each tool result in its own
    commit, placed in the window in the order of its calls. :meth:`replies` does all that and
    stops before each assistant reply, so the caller files the boundary and the call its own
    way (an import: the window the source recorded; a replay: its strategy's visit) and then
    commits the reply with :meth:`reply`. The importers' ``build_run`` and ``replay`` both walk
    with it, so an import and a replay of it commit alike.

    Args:
        writer: The writer of the run being built (its ledger empty).
        messages: The conversation, in the order its source committed it.
        system: The system prompt, committed first under the opening seed stage.
        keep_ids: Commit each message under the stage id it already has (a replay keeps its
            source's ids, so an id names one message in both runs); else allocate ids in the
            agent's scheme (an import).
        opening: The opening seed stage's id (default: allocated, ``seed#0`` of a new ledger).
        kinds: For an import, the ``user`` messages a person did not write, by index: each is
            committed under its own ``observation#`` / ``demonstration#`` stage. A replay knows
            them by their stage ids.
        stamp: The copy of message ``i`` to commit under stage ``s`` (default: the ledger
            stamps a copy itself).
        on_commit: Told the messages of each history commit, as committed.
    """

    __slots__ = (
        "_kinds",
        "_on_commit",
        "_pending_seed",
        "_stamp",
        "chars",
        "keep_ids",
        "messages",
        "writer",
    )

    def __init__(
        self,
        writer: RunWriter,
        messages: Sequence[Message],
        *,
        system: str | None,
        keep_ids: bool,
        opening: str | None = None,
        kinds: Mapping[int, str] | None = None,
        stamp: Callable[[int, str], Message] | None = None,
        on_commit: Callable[[Sequence[Message]], object] | None = None,
    ) -> None:
        self.writer = writer
        """The writer of the run being built."""
        self.messages = messages
        """The conversation walked."""
        self.keep_ids = keep_ids
        """Whether messages keep the stage ids they have."""
        self._kinds = kinds or {}
        self._stamp = stamp
        self._on_commit = on_commit
        self.chars = 0
        """Characters of the window as committed so far (a running total: summing the window
        at every call would be quadratic in a run that removes nothing)."""
        # An import numbers its opening seed first, as the agent does; a replay whose source
        # opened with no seed (its first message an observation) allocates none it never uses.
        seed = opening
        if seed is None and (system is not None or not keep_ids):
            seed = writer.stage("seed")
        if seed is not None and system is not None:
            writer.system(seed, system)
        self._pending_seed: str | None = seed

    def replies(self) -> Iterator[int]:
        """Commit everything but the assistant replies; yield each reply's index before it is
        committed (the caller then files its call and commits it with :meth:`reply`)."""
        messages, writer = self.messages, self.writer
        ledger = writer.ledger
        n = len(messages)
        order: dict[str, int] | None = None
        i = 0
        while i < n:
            message = messages[i]
            if message.role == "assistant":
                if len(ledger) == 0:
                    # A reply with nothing before it still follows a commit (the empty seed).
                    self._commit(self._take_seed(), [])
                yield i
                calls = message.tool_calls
                order = {c.id: k for k, c in enumerate(calls)} if len(calls) > 1 else None
                i += 1
                continue
            j = self._group_end(i)
            stage = self._stage_of(i)
            if message.role == "tool":
                # One commit per result, as the agent commits a batch's results as they finish;
                # the window keeps the order the model asked in.
                for k in range(i, j):
                    committed = writer.result(stage, self._copy(k, stage), order)
                    self.chars += committed.chars
                    if self._on_commit is not None:
                        self._on_commit([committed])
            else:
                run = writer.run
                for k in range(i, j):
                    if self._is_request(k):
                        run.request = messages[k].content
                        run.requests.append(messages[k].content)
                self._commit(stage, [self._copy(k, stage) for k in range(i, j)])
            i = j

    def reply(self, index: int, stage: str, usage: Usage | None) -> Message:
        """Commit reply ``index`` under its call's ``stage`` (see :meth:`RunWriter.reply`)."""
        committed = self.writer.reply(stage, self._copy(index, stage), usage)
        self.chars += committed.chars
        if self._on_commit is not None:
            self._on_commit([committed])
        return committed

    def call_stage(self, index: int) -> str:
        """The stage id of the call that answered with reply ``index``: the source's when ids
        are kept, else a new ``call-llm#n``."""
        kept = self.messages[index].stage_id if self.keep_ids else None
        return kept if kept is not None else self.writer.stage("call-llm")

    # -- helpers ---------------------------------------------------------------------------

    def _commit(self, stage: str, batch: list[Message]) -> None:
        committed = self.writer.append(stage, batch)
        self.chars += window_chars(committed)
        if self._on_commit is not None:
            self._on_commit(committed)
        if stage == self._pending_seed:
            self._pending_seed = None

    def _take_seed(self) -> str:
        seed = self._pending_seed
        return seed if seed is not None else self.writer.stage("seed")

    def _copy(self, index: int, stage: str) -> Message:
        return self.messages[index] if self._stamp is None else self._stamp(index, stage)

    def _group_end(self, i: int) -> int:
        """One past the last message committed with message ``i``: a kept id groups the
        messages that share it; else consecutive tool results share a stage and any other
        message has its own."""
        messages = self.messages
        first = messages[i]
        j = i + 1
        if self.keep_ids and first.stage_id is not None:
            while j < len(messages) and messages[j].stage_id == first.stage_id:
                j += 1
        elif first.role == "tool":
            while j < len(messages) and messages[j].role == "tool":
                j += 1
        return j

    def _stage_of(self, i: int) -> str:
        message = self.messages[i]
        if self.keep_ids and message.stage_id is not None:
            return message.stage_id
        if message.role == "tool":
            return self.writer.stage("tool-calls")
        kind = self._kinds.get(i) if message.role == "user" else None
        if kind is not None:
            return self.writer.stage(kind)
        return self._take_seed()

    def _is_request(self, k: int) -> bool:
        """A user message a person wrote: not the library's, not the environment's."""
        message = self.messages[k]
        if message.role != "user" or message.authored is not None:
            return False
        if self.keep_ids:
            return not is_observation(message)
        return k not in self._kinds
