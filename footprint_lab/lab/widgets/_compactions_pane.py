"""The Inspector's Compactions pane: each compaction the run's own stack performed, what left,
the stand-in it wrote and what :func:`footprint_lab.judge` finds about it, with a button that
opens its Boundary view.

Layer: lab. A small ipywidgets box over :func:`~footprint_lab.lab.views.compactions_view`,
rendered through the templates the report uses (``compactions.html.j2``, ``compaction.html.j2``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import ipywidgets as widgets

from footprint_lab.agent.run import Run
from footprint_lab.lab.render import render
from footprint_lab.lab.views import CompactionsView, compactions_view

__all__ = ["CompactionsPane"]


class CompactionsPane(widgets.VBox):  # type: ignore[misc]
    """Every compaction of the run, each with a button to its boundary.

    Parts: ``view`` (the :class:`~footprint_lab.lab.views.CompactionsView`), ``html`` (the
    pane's heading and note) and ``buttons`` (one per compaction, in record order: clicking
    one calls ``open_boundary(iteration)``).
    """

    def __init__(self, run: Run, open_boundary: Callable[[int], None]) -> None:
        self.view: CompactionsView = compactions_view(run)
        empty = replace(self.view, items=[])
        self.html = widgets.HTML(render("compactions.html.j2", compactions=empty, boundary_id=None))
        self.buttons: list[widgets.Button] = []
        rows: list[widgets.Widget] = [self.html]
        for item in self.view.items:
            button = widgets.Button(
                description=f"open iteration {item.iteration}",
                tooltip="show this compaction's boundary: the window sent and what left",
                layout=widgets.Layout(width="auto"),
            )
            button.on_click(lambda _, at=item.iteration: open_boundary(at))
            self.buttons.append(button)
            body = render("compaction.html.j2", c=item, boundary_id=None)
            rows.append(widgets.VBox([widgets.HTML(body), button]))
        super().__init__(rows, layout=widgets.Layout(overflow="auto"))
        self.add_class("footprint-compactions")
