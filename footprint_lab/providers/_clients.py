"""One SDK client per event loop, closed when that loop shuts down.

Layer: providers. ``Agent.run`` drives each run on its own event loop (``asyncio.run``, or a
worker thread inside Jupyter), and an SDK client's pooled connections belong to the loop that
opened them. So a provider keeps one client per live loop: calls within a run share its
connections, and when ``asyncio.run`` shuts the loop down (``loop.shutdown_asyncgens()``) the
client is closed there, cleanly, instead of leaking sockets bound to a dead loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Generic, TypeVar

C = TypeVar("C")


async def _close_at_loop_shutdown(
    client: C, close: Callable[[C], Awaitable[None]]
) -> AsyncGenerator[None, None]:
    # A suspended async generator is finalized by loop.shutdown_asyncgens(); its finally
    # clause runs inside the loop, where the client's connections can still be closed.
    try:
        yield
    finally:
        await close(client)


class LoopClients(Generic[C]):
    """Lazily built SDK clients, one per running event loop."""

    def __init__(self, factory: Callable[[], C], close: Callable[[C], Awaitable[None]]) -> None:
        self._factory = factory
        self._close = close
        self._lock = threading.Lock()
        self._entries: dict[asyncio.AbstractEventLoop, tuple[C, AsyncGenerator[None, None]]] = {}

    def __repr__(self) -> str:
        return f"LoopClients(loops={len(self._entries)})"

    async def get(self) -> C:
        """The client for the running loop (built on first use)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            for stale in [lp for lp in self._entries if lp.is_closed()]:
                del self._entries[stale]
            entry = self._entries.get(loop)
        if entry is not None:
            return entry[0]
        client = self._factory()
        keeper = _close_at_loop_shutdown(client, self._close)
        await keeper.__anext__()
        with self._lock:
            self._entries[loop] = (client, keeper)
        return client

    async def aclose(self) -> None:
        """Close the running loop's client now (it is rebuilt on the next call)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._entries.pop(loop, None)
        if entry is not None:
            await entry[1].aclose()
