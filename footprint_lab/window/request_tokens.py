"""How a provider's own server-side policy, played offline, measures the request it plans.

Layer: window core (see the law in ``footprint_lab.window``). Anthropic's and OpenAI's
server-side policies compare *the request in hand* with their trigger — not the previous call,
as our token strategies do — so their offline twins measure the window a visit is about to
send: counted exactly by the provider when the boundary can count (``Boundary.count_window``:
the agent loop and replay set it for a provider with ``count_tokens``, the scripted one
included), else estimated at the package's one ratio (four characters a token), and the record
says which (``tokens_from``). The engine measures such a record's request again with this same
function (a record says what the engine saw).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from footprint_lab.messages import Message, window_chars
from footprint_lab.window.records import TokenSource

__all__ = ["request_tokens"]


def request_tokens(
    messages: Sequence[Message],
    count_window: Callable[[Sequence[Message]], int | None] | None,
    chars: int | None = None,
) -> tuple[int, TokenSource]:
    """The input tokens of ``messages`` sent as a request, and how they were obtained:
    ``counted`` by ``count_window``, else ``estimated`` from their characters (``chars``, when
    the caller knows them)."""
    if count_window is not None:
        counted = count_window(messages)
        if counted is not None:
            return counted, "counted"
    # The package's one token estimate, loaded only when a twin estimates: importing the
    # window core loads nothing above it.
    from footprint_lab.pricing import estimate_tokens

    size = window_chars(messages) if chars is None else chars
    return max(1, estimate_tokens(size)), "estimated"
