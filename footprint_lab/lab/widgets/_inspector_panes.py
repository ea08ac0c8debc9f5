"""The Inspector's finding and comparing parts: the search box, the calls table, the window
diff and the line naming the call an iteration made.

Layer: lab. Each part is a small ipywidgets box over one view of
:mod:`footprint_lab.lab.views` (:func:`~footprint_lab.lab.views.search_frame`,
:func:`~footprint_lab.lab.views.call_costs`, :func:`~footprint_lab.lab.views.window_diff`),
rendered through the templates (:mod:`._html`). The Inspector (:mod:`.inspector`) composes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets
import pandas as pd

from footprint_lab.agent.run import Run
from footprint_lab.lab.frames import Frames
from footprint_lab.lab.render import state_style
from footprint_lab.lab.views import call_costs, search_frame, window_diff
from footprint_lab.lab.widgets._html import label_html, note_html, table_html
from footprint_lab.pricing import Pricing

__all__ = ["CallsPane", "DiffPane", "SearchPane", "call_line"]

DIFF_STATES: dict[str, str] = {"left": "dropped", "changed": "placeholder"}
"""The membership state whose row style a change of the window diff takes (a message that came
is plain): the palette's colours, as the boundary tables use them."""

_SEARCH_COLUMNS = (
    "stage_id",
    "who",
    "matched",
    "written_at",
    "first_sent",
    "last_sent",
    "left",
    "snippet",
    "explanation",
)
"""The search columns the Search tab shows (the ledger position is in the stage id)."""

_CALL_COLUMNS = (
    "label",
    "stage_id",
    "messages",
    "chars",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cost_usd",
    "latency_ms",
)
"""The ``call_costs`` columns the Calls tab shows."""


class SearchPane(widgets.VBox):  # type: ignore[misc]
    """A search box over one run: type a stage id or any text and see the matching messages —
    where it was found, the iteration that wrote each, when it was sent, whether it left, and
    why (:func:`~footprint_lab.lab.views.search_frame`). ``box`` is the text field, ``html``
    the results, ``results`` the last results as a DataFrame."""

    def __init__(self, run: Run, frames: Frames) -> None:
        self.run = run
        self.frames = frames
        self.box = widgets.Text(
            placeholder="a stage id (call-llm#5) or any text",
            description="find",
            continuous_update=False,
            layout=widgets.Layout(width="520px"),
        )
        self.html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.results = search_frame(run, frames, "")
        super().__init__([self.box, self.html])
        self.add_class("footprint-inspector-search")
        self.box.observe(self._on_query, names="value")
        self._show("")

    def search(self, query: str) -> pd.DataFrame:
        """Search for ``query`` (as typing it in the box does) and return the results."""
        if self.box.value == query:
            self._show(query)
        else:
            self.box.value = query  # the observer shows it
        return self.results

    def _on_query(self, change: Mapping[str, Any]) -> None:
        self._show(str(change["new"]))

    def _show(self, query: str) -> None:
        self.results = search_frame(self.run, self.frames, query)
        if not query.strip():
            self.html.value = note_html(
                "Type a stage id or some text: every ledger message holding it is listed, with "
                "why it left the window or stayed.",
                tone="muted",
            )
            return
        more = int(self.results.attrs.get("more", 0))
        found = len(self.results) + more
        head = f"{found} message{'s' if found != 1 else ''} hold {query.strip()!r}"
        head += f" (the first {len(self.results)} shown)." if more else "."
        self.html.value = note_html(head) + table_html(
            self.results.loc[:, list(_SEARCH_COLUMNS)],
            empty="No message of this run holds it.",
            human=True,
        )


class CallsPane(widgets.VBox):  # type: ignore[misc]
    """Each LLM call with its tokens, cost and latency
    (:func:`~footprint_lab.lab.views.call_costs`), and notes saying how cost and latency were
    found or why they are not shown. ``frame`` is the table as a DataFrame."""

    def __init__(
        self,
        run: Run,
        frames: Frames,
        pricing: Pricing | Mapping[str, Pricing] | None = None,
    ) -> None:
        self.frame = call_costs(run, frames, pricing)
        notes = "".join(note_html(n, tone="muted") for n in self.frame.attrs["notes"])
        self.html = widgets.HTML(
            notes
            + table_html(
                self.frame.loc[:, list(_CALL_COLUMNS)], empty="This run made no calls.", human=True
            ),
            layout=widgets.Layout(overflow="auto"),
        )
        super().__init__([self.html])
        self.add_class("footprint-inspector-calls")


def call_line(calls: pd.DataFrame, call: int | None) -> str:
    """The line beside a boundary naming its call and that call's tokens, cost and latency (a
    row of :func:`~footprint_lab.lab.views.call_costs`), '–' for what is not known."""
    if call is None or call not in set(calls["call"]):
        return note_html("No call was made at this iteration.", tone="muted")
    row = calls[calls["call"] == call].iloc[0]

    def known(name: str, fmt: str) -> str:
        value = row[name]
        return "–" if pd.isna(value) else format(value, fmt)

    cost = "–" if pd.isna(row["cost_usd"]) else f"${float(row['cost_usd']):.6f}"
    return note_html(
        f"{known('input_tokens', ',')} input + {known('output_tokens', ',')} output tokens · "
        f"cost {cost} · latency {known('latency_ms', ',')} ms",
        strong=f"{row['label']}:",
    )


class DiffPane(widgets.VBox):  # type: ignore[misc]
    """The window sent at one iteration against the one before it
    (:func:`~footprint_lab.lab.views.window_diff`): what left (and why), what came, what
    changed in place. :meth:`show` an iteration; ``frame`` is the last diff shown."""

    def __init__(self, run: Run, frames: Frames, call_of: Mapping[int, int]) -> None:
        self.run = run
        self.frames = frames
        self.call_of = call_of
        self.html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.frame = pd.DataFrame()
        super().__init__([self.html])
        self.add_class("footprint-inspector-diff")

    def show(self, iteration: int | None) -> pd.DataFrame:
        """Show the diff at ``iteration`` (nothing for None) and return it."""
        if iteration is None:
            self.frame = pd.DataFrame()
            self.html.value = ""
            return self.frame
        self.frame = window_diff(self.run, self.frames, iteration, self.call_of)
        before = self.frame.attrs["previous"]
        title = (
            f"Window {iteration} against window {before}"
            if before is not None
            else f"Window {iteration}: the first, nothing before it"
        )
        counts = self.frame["change"].value_counts()
        said = ", ".join(f"{int(counts.get(k, 0))} {k}" for k in ("left", "came", "changed"))
        self.html.value = (
            label_html(title)
            + note_html(said + ".", tone="muted")
            + table_html(
                self.frame,
                row_styles=[
                    state_style(DIFF_STATES[str(c)]) if str(c) in DIFF_STATES else ""
                    for c in self.frame["change"]
                ],
                empty="The same messages as the window before it.",
                human=True,
            )
        )
        return self.frame
