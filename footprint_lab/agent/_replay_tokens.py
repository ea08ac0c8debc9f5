"""How a replay obtains the tokens of the windows it sends (see :func:`footprint_lab.replay`).

Layer: agent (beside :mod:`footprint_lab.agent.replay`; reads the run model, providers and
pricing). A token strategy in a replay is handed the tokens of the window the replay sent at
the last call: the original's where it sent the same, else counted by a provider that counts
requests, else the original's reported tokens scaled by the two requests' characters, else
estimated at a stated ratio — and each call says which (``tokens_from``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from footprint_lab.agent.run import CallRecord, Run
from footprint_lab.messages import Message, construct_trusted
from footprint_lab.pricing import estimate_ratio, estimate_tokens, source_tokens_per_char
from footprint_lab.providers.base import ProviderRequest, ToolSpec, count_tokens
from footprint_lab.providers.scripted import SCRIPTED_NAME, ScriptedProvider
from footprint_lab.usage import Usage
from footprint_lab.window.records import TokenSource

__all__ = ["ReplayTokens", "replies_of"]


@dataclass(slots=True)
class ReplayTokens:
    """How a replay obtains the tokens of the windows it sends (see :func:`replay`)."""

    counter: object | None
    """A provider that may count a request (``count_tokens``)."""
    ratio: float | None
    """Tokens per character of an estimate; None when no estimate is allowed."""
    context_window: int | None
    """The model's context window, for a relative threshold."""
    max_output_tokens: int | None
    """The source agent's output cap (a relative threshold's default reserve)."""
    tools: list[ToolSpec]
    """The source agent's tool specs (sent with a request a provider counts)."""
    system: str | None
    """The system prompt every request carries."""
    model: str
    """The model the source ran."""
    estimated: int = 0
    """Calls whose tokens were estimated."""
    unmeasured: int = 0
    """Calls whose tokens nobody reported and no estimate was allowed for."""

    @classmethod
    def of(
        cls,
        source: Run,
        tokens_per_char: float | None,
        provider: object | None,
        estimate: bool,
        context_window: int | None,
        source_ratio: float | None = None,
    ) -> ReplayTokens:
        """How a replay of ``source`` obtains its tokens, under :func:`replay`'s arguments
        (``source_ratio``: what ``source``'s own usage says a character costs, when already
        read; read here when None)."""
        agent = source.agent
        counter = provider if provider is not None else getattr(agent, "provider", None)
        if counter is None and source.provider.startswith(SCRIPTED_NAME):
            # A scripted run that lost its agent (saved, loaded, shipped to a worker) is still
            # counted by the scripted provider's own rule, a pure function of the request.
            reported = any(c.usage is not None and c.usage.reported for c in source.calls)
            counter = ScriptedProvider([], name=source.provider, report_usage=reported)
        if context_window is None and counter is not None:
            window_of = getattr(counter, "context_window", None)
            if callable(window_of):
                found = window_of(source.model)
                context_window = found if isinstance(found, int) else None
        if context_window is None:
            recorded = source.meta.get("context_window")
            context_window = recorded if isinstance(recorded, int) and recorded > 0 else None
        ratio: float | None = None
        if estimate:
            ratio = (
                float(tokens_per_char)
                if tokens_per_char is not None
                else estimate_ratio(
                    source_tokens_per_char(source) if source_ratio is None else source_ratio
                )
            )
        return cls(
            counter=counter,
            ratio=ratio,
            context_window=context_window,
            max_output_tokens=getattr(agent, "max_output_tokens", None),
            tools=[t.spec for t in agent.tools.values()] if agent is not None else [],
            system=source.system,
            model=source.model,
        )

    def request_for(self, window: Sequence[Message]) -> ProviderRequest:
        """The request the source's agent would send for ``window`` (what a counter counts)."""
        return construct_trusted(
            ProviderRequest,
            model=self.model,
            system=self.system,
            messages=list(window),
            tools=self.tools,
            max_output_tokens=self.max_output_tokens,
        )

    def of_call(
        self, window: Sequence[Message], chars: int, original: CallRecord | None, reply: Message
    ) -> tuple[Usage | None, TokenSource | None]:
        """The usage of a call that sent ``window`` (``chars`` characters), whose original
        (the source's call for the same reply) is ``original``, and how it was obtained."""
        reported = original.usage if original is not None else None
        if reported is not None and not reported.reported:
            reported = None
        output = None if reported is None else reported.output_tokens
        if (
            reported is not None
            and original is not None
            and chars == original.chars
            and len(window) == original.messages
        ):
            return reported, "reported"  # the replay sent what the original call sent
        if self.counter is not None:
            counted = count_tokens(self.counter, self.request_for(window))
            if counted is not None:
                return _usage(counted, output), "counted"
        system = len(self.system or "")
        if reported is not None and original is not None:
            before = system + original.chars
            # An original request of no characters has nothing to scale by: its tokens stand.
            scaled = (
                reported.input_tokens
                if before == 0
                else round(reported.input_tokens * (system + chars) / before)
            )
            return _usage(max(1, scaled), output), "scaled"
        if self.ratio is None:
            self.unmeasured += 1
            return None, None
        self.estimated += 1
        inputs = max(1, estimate_tokens(system + chars, self.ratio))
        outputs = estimate_tokens(reply.chars, self.ratio)
        return _usage(inputs, max(1, outputs)), "estimated"


def _usage(input_tokens: int, output: int | None) -> Usage:
    """A usage of ``input_tokens`` with the original reply's output tokens (a replay's replies
    are the original's); no cache figures: the original window's cache split does not carry
    over to another window."""
    # Trusted: two whole numbers computed here (a replay files one at every call).
    return construct_trusted(
        Usage,
        input_tokens=input_tokens,
        output_tokens=output or 0,
        cache_read_tokens=None,
        cache_write_tokens=None,
    )


def replies_of(source: Run, replies: int) -> list[CallRecord | None]:
    """The source's call for each assistant reply of its transcript, in order: every call when
    there is one per reply (an import), else the calls a provider answered (a failed call
    reported no usage and produced no reply)."""
    calls: list[CallRecord | None] = list(source.calls)
    if len(calls) != replies:
        calls = [c for c in source.calls if c.usage is not None]
    return (calls + [None] * replies)[:replies]
