"""The Inspector's Boundary pane: an anywidget over the typed Boundary view.

Layer: lab. The pane holds a :class:`~footprint_lab.lab.views.BoundaryView` (the iteration the
Inspector's slider names) and syncs it to the front-end as JSON (``model_dump(mode="json")``,
the ``view`` trait); the front-end renders it with ``render/boundary.js``, the same script the
offline report inlines, in JupyterLab's theme colours (:func:`~footprint_lab.lab.render.
boundary_css`). Nothing is rendered in Python.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from footprint_lab.lab.render import boundary_css, boundary_script
from footprint_lab.lab.views import NO_CALLS, BoundaryView

__all__ = ["BoundaryPane"]


def _empty() -> BoundaryView:
    """The view of nothing: what a pane shows before it is given one."""
    return BoundaryView(
        iterations=(),
        messages=(),
        states=(),
        marks={},
        initial=0,
        total=0,
        note=None,
        no_record="",
        no_calls=NO_CALLS,
        text_chars=0,
    )


class BoundaryPane(anywidget.AnyWidget):
    """A Boundary view in a notebook: :meth:`show` a :class:`BoundaryView`, read it back as
    :attr:`boundary`; the front-end shows the iteration at its ``initial`` index."""

    _esm = boundary_script()
    _css = boundary_css("jupyterlab")
    view = traitlets.Dict().tag(sync=True)
    """The view shown, as JSON (``BoundaryView.model_dump(mode="json")``)."""

    def __init__(self, view: BoundaryView | None = None, **kwargs: Any) -> None:
        shown = _empty() if view is None else view
        # the comm opens with the view in its first state, so no front-end sees an empty trait
        super().__init__(view=shown.model_dump(mode="json"), **kwargs)
        self._boundary = shown

    @property
    def boundary(self) -> BoundaryView:
        """The view shown."""
        return self._boundary

    def show(self, view: BoundaryView) -> None:
        """Show ``view`` (sent to the front-end as JSON)."""
        self._boundary = view
        self.view = view.model_dump(mode="json")
