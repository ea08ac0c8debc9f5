"""The Boundary view as one typed model: what both of its renderers read.

Layer: lab. :class:`BoundaryView` is the data of a run's Boundary view — the exact messages
sent at some iterations, their membership states in words, what left there and the records
filed there — built by :func:`footprint_lab.lab.views.boundary_view` and rendered by one
script, ``footprint_lab/lab/render/boundary.js``: inlined in the offline report, and the
Inspector's Boundary pane (an anywidget). The script reads ``model_dump(mode="json")`` of this
model and nothing else; :meth:`BoundaryView.model_json_schema` is that JSON's schema, and a
test holds the script to the fields it names. Pydantic only: no pandas, no HTML here.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["BoundaryIteration", "BoundaryMessage", "BoundaryRecord", "BoundaryView", "PairValue"]

PairValue = bool | int | float | str
"""A value in a record's labelled pairs, as the page shows it."""


class _Frozen(BaseModel):
    """Frozen, no extra fields, each field's docstring its schema description."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class BoundaryMessage(_Frozen):
    """One message as the Boundary view shows it (stored once, however often it was sent)."""

    position: int | None
    """Its position in the ledger (None for a message the ledger does not hold)."""
    stage_id: str | None
    """The stage that wrote it."""
    role: str
    """'system', 'user', 'assistant' or 'tool'."""
    who: str
    """Its role, or 'tool <name>' for a tool result, as the tables name it."""
    chars: int
    """Its exact characters."""
    text: str
    """The first ``text_chars`` characters of its content."""
    more: int
    """How many characters of its content ``text`` leaves out."""
    calls: tuple[str, ...]
    """Its tool calls as text, each capped alike."""
    badges: str
    """Its typed parts as plain-text badges (empty when it has none)."""


class BoundaryRecord(_Frozen):
    """A window record filed at the boundary, in words and in full."""

    sentence: str
    """The record in words (``record_sentence``): what left, the rule that fired, what refused."""
    removed: tuple[str, ...]
    """Stage ids of the messages it removed."""
    pairs: tuple[tuple[str, PairValue], ...]
    """Every fact it holds as (label, value) (``record_pairs``)."""


class BoundaryIteration(_Frozen):
    """One iteration's boundary: the window its last call sent, what left, the records filed."""

    iteration: int
    """The ReAct iteration."""
    call: int | None
    """Index in ``run.calls`` of its last call (None when no call was made)."""
    sent: bool
    """The window is the one a call sent (False: the window a record left, with no call)."""
    caption: str
    """The line above the messages: the call, how many messages and characters, the tokens."""
    window: tuple[tuple[int, int], ...]
    """The window, in order, as (index in ``messages``, index in ``states``)."""
    left: tuple[tuple[int, str, int | None], ...]
    """What left the window here, as (index in ``messages``, 'dropped' or 'summarized', the
    iteration that wrote it)."""
    why: tuple[str, ...]
    """Why each of ``left`` left, in its order: how, by which strategy, at which iteration and
    by which rule (``departure_words``)."""
    records: tuple[BoundaryRecord, ...]
    """The records filed here (two when a too-long rejection forced a second visit)."""


class BoundaryView(_Frozen):
    """A run's Boundary view at some of its iterations, each message and state stored once."""

    iterations: tuple[BoundaryIteration, ...]
    """The iterations held, in order."""
    messages: tuple[BoundaryMessage, ...]
    """Every message the iterations name, once each."""
    states: tuple[str, ...]
    """Every membership state the windows name, once each."""
    marks: dict[str, str]
    """Each of ``states`` in words (``state_words``; empty for 'in-window')."""
    initial: int
    """Index in ``iterations`` to open at: the first that removed something, else the last."""
    total: int
    """How many iterations of the run a Boundary view could show (with a call or a record)."""
    note: str | None
    """Which iterations are held, when not all of them are."""
    no_record: str
    """Why an iteration has no record, in words."""
    no_calls: str
    """What to say when ``iterations`` is empty."""
    text_chars: int
    """Characters of a message's text (and of each tool call) held; the rest is counted."""
