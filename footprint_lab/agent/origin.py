"""How a run was made: a typed value, not keys of ``run.meta``.

Layer: agent (below the run model: it imports only pydantic and the window core's token
sources). Every run says where it came from in ``Run.origin``, one of four frozen values:

* :class:`Live` — an agent ran it here;
* :class:`Replay` — ``replay`` re-applied a strategy over a recorded run (counterfactual: the
  replies after the first removal are the source's, not what a model would have said);
* :class:`Import` — an importer read it from another stack's file, and :class:`Recorded` says
  which facts that file recorded;
* :class:`Fork` — ``fork`` went on from a boundary of another run with another policy.

The lab branches on the origin (a replay's note, an import's missing facts, a fork's parting
point); ``run.meta`` is the user's and the source file's. The run file keeps the origin (format
version 2); a file saved before it (version 1) is read by :func:`origin_of_meta`, which takes
the origin from the meta keys those files used and leaves the rest of the meta as it was.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from footprint_lab.applicability import NotApplicable
from footprint_lab.messages import StorableStr
from footprint_lab.window.records import TokenSource

__all__ = [
    "LEGACY_ORIGIN_KEYS",
    "Fork",
    "Import",
    "Live",
    "Origin",
    "Recorded",
    "Replay",
    "imported_source",
    "origin_of_meta",
    "recorded_of_origin",
]


class Recorded(BaseModel):
    """Which facts an imported file recorded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    inputs: bool
    """What each call was sent (its exact input), so the source's own policy can be seen."""
    usage: bool
    """Token usage a provider reported, for at least one call."""
    tool_results: bool
    """Tool results (native, or rebuilt from text-mode actions and observations)."""
    model: bool
    """The model the run called."""
    outcome: bool
    """How the run ended (a submission, a finish action, a score, an exit status)."""


class Live(BaseModel):
    """An agent ran it here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["live"] = "live"
    """The origin's kind."""


class Import(BaseModel):
    """An importer read it from another stack's file (or from messages in memory)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["import"] = "import"
    """The origin's kind."""
    format: StorableStr
    """The stack whose format it was read as (``swe-agent``, ``inspect``, ...; for messages
    given in memory, the importer's own name: ``openai``, ``anthropic``, ``langchain``)."""
    path: StorableStr | None = None
    """The file it was read from (None: messages in memory, or a file saved before the
    origin was kept)."""
    recorded: Recorded | None = None
    """Which facts the file recorded (None: an import saved before these were kept)."""


class Replay(BaseModel):
    """``replay`` re-applied a strategy over a recorded run: counterfactual."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["replay"] = "replay"
    """The origin's kind."""
    source_id: StorableStr
    """The run replayed: its label, else its scenario, else ``run``."""
    strategy: StorableStr | None
    """The strategy replayed (None: no window management)."""
    tokens_from: tuple[TokenSource, ...] = ()
    """Where the replay's token figures came from (``reported`` where it sent what the source
    sent; ``counted``, ``scaled`` or ``estimated`` elsewhere), each once, in that order."""
    source: Origin | None = None
    """How the source run was made (an import's recorded facts carry over to its replay).
    None: a replay saved before the origin was kept."""
    tokens_per_char: float | None = None
    """What a character cost in the source's own reported usage (None: it reported none):
    the ratio the replay's costs are estimated at."""
    estimated_calls: int = 0
    """Calls whose tokens the replay estimated from characters (no provider reported them)."""
    estimated_tokens_per_char: float | None = None
    """The ratio those estimates used (None when none was made)."""
    not_applicable: tuple[NotApplicable, ...] = ()
    """Why the strategy could not apply to the run, in words (empty when it could)."""


class Fork(BaseModel):
    """``fork`` went on from a boundary of another run under another policy."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["fork"] = "fork"
    """The origin's kind."""
    parent_id: StorableStr
    """The run forked: its label, else its scenario, else its format, else ``run``."""
    at: int
    """The iteration whose boundary it forked at."""
    strategy: StorableStr | None = None
    """The strategy the fork ran from there."""
    provider: StorableStr | None = None
    """The provider that answered the fork's calls."""
    window_changed: bool | None = None
    """Whether the fork's first visit changed the window it took over."""
    source: Origin | None = None
    """How the parent was made (a fork of an import keeps its messages as imported). None: a
    fork saved before the origin was kept."""


Origin = Annotated[Live | Import | Replay | Fork, Field(discriminator="kind")]
"""How a run was made (see the module docstring)."""

Replay.model_rebuild()
Fork.model_rebuild()

LEGACY_ORIGIN_KEYS: tuple[str, ...] = (
    "counterfactual",
    "replay_of",
    "note",
    "imported_from",
    "recorded",
    "format",
    "fork_of",
    "fork_at",
    "fork_strategy",
    "fork_provider",
    "fork_window_changed",
    "tokens_per_char",
    "estimated_calls",
    "estimated_tokens_per_char",
    "not_applicable",
)
"""The ``meta`` keys a run file of version 1 said its origin with; today's files keep the
origin instead, and no library code reads these from ``meta``. (A version-1 replay's
``source_stage_ids``, the map from its renumbered ids to its source's, stays in its meta: it is
the only record of that map.)"""


def imported_source(origin: Origin) -> Import | None:
    """The import at the root of ``origin``: itself, or the source a replay or fork was made
    from, followed back (None when the messages were never imported)."""
    while isinstance(origin, Replay | Fork):
        if origin.source is None:
            return None
        origin = origin.source
    return origin if isinstance(origin, Import) else None


def recorded_of_origin(origin: Origin) -> Recorded | None:
    """What the file behind ``origin`` recorded: an import's facts, and a replay's or fork's
    source's (None for a run that happened here)."""
    found = imported_source(origin)
    return None if found is None else found.recorded


def origin_of_meta(
    meta: Mapping[str, Any], strategy: str | None, tokens_from: tuple[TokenSource, ...]
) -> tuple[Origin, dict[str, Any]]:
    """The origin a version-1 run file said in its meta, and the meta without those keys.

    Args:
        meta: The file's meta.
        strategy: The run's strategy (a replay's).
        tokens_from: Where the run's calls' token figures came from (a replay's).
    """
    rest = {k: v for k, v in meta.items() if k not in LEGACY_ORIGIN_KEYS}
    imported = _import_of(meta)
    if meta.get("counterfactual"):
        source_id = meta.get("replay_of")
        estimated = meta.get("estimated_calls")
        reasons = meta.get("not_applicable")
        return Replay(
            source_id=source_id if isinstance(source_id, str) else "run",
            strategy=strategy,
            tokens_from=tokens_from,
            source=imported,
            tokens_per_char=_ratio(meta.get("tokens_per_char")),
            estimated_calls=estimated if type(estimated) is int and estimated > 0 else 0,
            estimated_tokens_per_char=_ratio(meta.get("estimated_tokens_per_char")),
            not_applicable=tuple(
                NotApplicable.model_validate(r)
                for r in (reasons if isinstance(reasons, list) else [])
                if isinstance(r, Mapping)
            ),
        ), rest
    if isinstance(meta.get("fork_of"), str):
        at = meta.get("fork_at")
        changed = meta.get("fork_window_changed")
        return Fork(
            parent_id=meta["fork_of"],
            at=at if type(at) is int and at >= 0 else 0,
            strategy=_text(meta.get("fork_strategy")),
            provider=_text(meta.get("fork_provider")),
            window_changed=changed if isinstance(changed, bool) else None,
            source=imported,
        ), rest
    return (imported if imported is not None else Live()), rest


def _import_of(meta: Mapping[str, Any]) -> Import | None:
    source = meta.get("imported_from")
    if not isinstance(source, str):
        return None
    facts = meta.get("recorded")
    recorded = Recorded.model_validate(facts) if isinstance(facts, Mapping) else None
    return Import(format=_text(meta.get("format")) or source, recorded=recorded)


def _ratio(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < math.inf
    return float(value) if ok else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
