"""Replay a run or a transcript: the root's ``footprint_lab.replay``, and replay's old home.

Layer: a shim (top, above the importers). :func:`replay` and :func:`areplay` take a run or a
transcript (our messages, or OpenAI / Anthropic / LangChain dicts): a transcript is read into a
run by :func:`footprint_lab.importers.as_run`, then replayed by
:func:`footprint_lab.agent.replay.replay`, which takes runs. Reading transcripts here, above
both, keeps the agent layer free of the importers.

It imports nothing when it loads, because the root imports it first (see
``footprint_lab/__init__.py``): ``footprint_lab.replay`` names both this module and the root's
function. Every other name it had (``as_run``, ``transcript_of``, ...) loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from footprint_lab.agent.replay import COUNTERFACTUAL_NOTE as COUNTERFACTUAL_NOTE
    from footprint_lab.agent.replay import transcript_of as transcript_of
    from footprint_lab.agent.run import Run
    from footprint_lab.importers.chat.transcript import Transcript as Transcript
    from footprint_lab.importers.chat.transcript import as_run as as_run
    from footprint_lab.window.strategies import WindowStrategy

__all__ = [
    "COUNTERFACTUAL_NOTE",
    "Transcript",
    "areplay",
    "as_run",
    "replay",
    "transcript_of",
]

_HOMES = {
    "COUNTERFACTUAL_NOTE": "footprint_lab.agent.replay",
    "transcript_of": "footprint_lab.agent.replay",
    "Transcript": "footprint_lab.importers.chat.transcript",
    "as_run": "footprint_lab.importers.chat.transcript",
}


def _run_of(source: Run | Transcript) -> Run:
    """``source`` as a run: the importers load only when a transcript is given."""
    from footprint_lab.agent.run import Run

    if isinstance(source, Run):
        return source
    from footprint_lab.importers.chat.transcript import as_run

    return as_run(source)


def replay(
    source: Run | Transcript,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool = 2,
    tokens_per_char: float | None = None,
    *,
    provider: object | None = None,
    estimate: bool = True,
    context_window: int | None = None,
    events: bool = True,
) -> Run:
    """Re-apply ``strategy`` over a run's or a transcript's recorded history; calls no model.

    ``source`` is a run (from an agent, ``load_run`` or an importer) or a transcript, read
    into a run first (:func:`footprint_lab.importers.as_run`); every other argument, what it
    returns and what it raises are :func:`footprint_lab.agent.replay.replay`'s.

    Raises:
        TranscriptError: the transcript's shape is not one of the known ones, or malformed.
    """
    from footprint_lab.agent.replay import replay as replay_run

    return replay_run(
        _run_of(source),
        strategy,
        keep_last_tool_results,
        tokens_per_char,
        provider=provider,
        estimate=estimate,
        context_window=context_window,
        events=events,
    )


async def areplay(
    source: Run | Transcript,
    strategy: WindowStrategy | None,
    keep_last_tool_results: int | bool = 2,
    tokens_per_char: float | None = None,
    *,
    provider: object | None = None,
    estimate: bool = True,
    context_window: int | None = None,
    events: bool = True,
) -> Run:
    """The async form of :func:`replay`."""
    from footprint_lab.agent.replay import areplay as areplay_run

    return await areplay_run(
        _run_of(source),
        strategy,
        keep_last_tool_results,
        tokens_per_char,
        provider=provider,
        estimate=estimate,
        context_window=context_window,
        events=events,
    )


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'footprint_lab.replay' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
