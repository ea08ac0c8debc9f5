"""``Inspector.live``: the Inspector of a run while the agent runs it.

Layer: lab (widgets; private to :mod:`footprint_lab.lab.widgets.inspector`). The agent runs as
a task on the running event loop — the kernel's, in a notebook — so the cell returns at once
and the kernel stays free; at every checkpoint the agent reaches (each iteration boundary and
each committed tool result) the Inspector is shown the run so far: its window size, pins,
refusals, records and latest boundary, and the calls' tokens and cost as the provider reports
them. A boundary (a new call or record) always redraws; other checkpoints at most every
``interval`` seconds. When the task ends — done, failed or cancelled — the Inspector shows the
finished run, as ``Inspector(run)`` would (before the task's result is handed to whoever awaits
it). Without a running loop (a script) the run is made
here, blocking, and the Inspector returned shows it finished.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from footprint_lab.agent.checkpoint import run_from_checkpoint
from footprint_lab.agent.run import Checkpoint, Run
from footprint_lab.ledger import Ledger
from footprint_lab.window.strategies.base import strategy_name

if TYPE_CHECKING:
    from footprint_lab.agent.agent import Agent

__all__ = ["Following", "Shows", "starting_run"]


class Shows(Protocol):
    """What a live view does (the Inspector): show a newer run of the same conversation."""

    following: Following | None

    def refresh(self, run: Run) -> None:
        """Show ``run`` in every part."""


def starting_run(agent: Agent, request: str) -> Run:
    """The run as it stands before the agent's first commit: the request, no call yet."""
    return Run(
        request=request,
        ledger=Ledger(),
        system=agent.system_prompt,
        provider=agent.provider.name,
        model=agent.model,
        strategy=strategy_name(agent.strategy),
    )


@dataclass
class Following:
    """What the live Inspector follows: the agent's checkpoints, shown as they come."""

    inspector: Shows
    agent: Agent
    interval: float
    """Seconds between two redraws that show no new boundary."""
    shown: tuple[int, int] = (0, 0)
    """Calls and records of the run last shown."""
    last: float = field(default_factory=time.monotonic)
    """When it was shown (``time.monotonic``)."""
    redraws: int = 0
    """How many times the Inspector was shown a newer run."""

    def on_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Show the run so far when it reached a new boundary, or ``interval`` has passed."""
        seen = (len(checkpoint.calls), len(checkpoint.records))
        now = time.monotonic()
        if seen == self.shown and now - self.last < self.interval:
            return
        self.show(run_from_checkpoint(checkpoint))
        self.shown, self.last = seen, now

    def show(self, run: Run) -> None:
        """Show ``run`` in the Inspector."""
        self.inspector.refresh(run)
        self.redraws += 1

    async def follow(self, request: str) -> Run:
        """Run ``request`` and show each checkpoint, then the finished run — also when the run
        failed or was cancelled (the run records how it ended; the error goes on)."""
        try:
            run = await self.agent.arun(request, on_checkpoint=self.on_checkpoint)
        except BaseException as exc:
            ended = getattr(exc, "run", None) or self.agent.conversation
            if isinstance(ended, Run):
                self.show(ended)
            raise
        self.show(run)
        return run


def start(
    inspector: Shows, agent: Agent, request: str, interval: float
) -> asyncio.Task[Run] | None:
    """Run ``request`` on ``agent`` under ``inspector``'s eyes: as a task of the running loop
    (returned), or, with none running, here and now (None)."""
    following = Following(inspector, agent, interval)
    inspector.following = following
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no loop runs: a script; the run is made here, to its end
        following.show(agent.run(request, on_checkpoint=following.on_checkpoint))
        return None
    return loop.create_task(following.follow(request))
