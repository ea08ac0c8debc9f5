"""Bulk work with CPython's cyclic garbage collector paused — only when the caller asks.

Layer: bottom (standard library only). Building a long run (an import, a replay) or measuring
many (capture, evidence) allocates hundreds of thousands of small acyclic objects that live as
long as the run. Every full collection rescans all of them, so the collector's share grows with
the heap and turns linear work super-linear. No library function pauses the collector itself
(the collector is the process's, not the library's): a caller doing such work wraps it in
:func:`bulk_work`. Reference counting frees acyclic garbage as usual meanwhile; a reference
cycle made inside waits for the first collection after the block.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["bulk_work", "in_bulk_work"]

_LOCK = threading.Lock()
_depth = 0  # bulk_work blocks open in this process, across threads
_restore = False  # whether the collector was on when the outermost block opened


@contextmanager
def bulk_work() -> Iterator[None]:
    """Pause automatic cyclic collection for the duration of the block (a context manager, or
    a decorator: ``@bulk_work()``).

    For code that builds or analyses long runs — importing large transcripts, ``capture``,
    ``replay``, ``evidence_frame`` over many runs — in a script or a notebook cell; the work
    inside must not rely on the collector to free reference cycles before it ends. Blocks nest
    and may overlap across threads: the collector comes back on when the last one closes, and
    only if it was on when the first one opened. ``evidence_frame`` with an executor pauses the
    collector in its workers' jobs too when it is called inside a block.

    Example::

        from footprint_lab import bulk_work

        with bulk_work():
            runs = load_tau_bench("data/tau-bench/runs.json")
            frame = evidence_frame(runs, configs)
    """
    global _depth, _restore
    with _LOCK:
        if _depth == 0:
            _restore = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0 and _restore:
                gc.enable()


def in_bulk_work() -> bool:
    """Whether a :func:`bulk_work` block is open in this process (so work handed to other
    processes may pause their collectors too)."""
    return _depth > 0
