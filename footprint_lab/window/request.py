"""Which message is the current request: known by where it came from, never by its text.

Layer: window core (see the law in ``footprint_lab.window``). The anchor is the latest thing
the person said, matched against the message the run was started with. Library-authored
messages — drop notices, compaction frames, placeholders, injections, anything a ``window#``
stage committed — never anchor, whatever their text says; nor does what an imported agent's
environment answered as text (a user message an ``observation#`` or ``demonstration#`` stage
committed: :func:`~footprint_lab.messages.is_observation`).
"""

from __future__ import annotations

from collections.abc import Sequence

from footprint_lab.messages import Message, is_observation

# Provenance is defined once, with the message; re-exported here, where it has always been.
from footprint_lab.messages import is_library_authored as is_library_authored


def current_request_index(
    messages: Sequence[Message],
    request: str | None = None,
    user_indices: Sequence[int] | None = None,
) -> int | None:
    """Index of the current request: the last user message whose text equals ``request``, else
    the last user message; library-authored messages and observations never count.

    ``user_indices``, when the caller already knows them, are the indices of the user messages
    in order (the walk then visits only those).
    """
    fallback: int | None = None
    order = reversed(user_indices) if user_indices is not None else range(len(messages) - 1, -1, -1)
    for i in order:
        message = messages[i]
        if message.role != "user" or is_library_authored(message) or is_observation(message):
            continue
        if request is None or message.content == request:
            return i
        if fallback is None:
            fallback = i
    return fallback
