"""How the lab's widgets end: a widget closes with all its parts, and a new one closes the one
it replaces.

Layer: lab. Every ipywidgets object — a box, a slider, a ``FigureWidget``, even a ``Layout`` or
a slider's style — opens a comm to the front-end and stays in ipywidgets' registry (and keeps
everything it refers to alive: the run, its frames, the figures) until it is closed. An
Inspector is some sixty of them. :class:`LabWidget` is the base of the Inspector, the Tuner and
Compare: its :meth:`~LabWidget.close` closes every widget the dashboard is made of (see
:func:`parts`), and its ``_adopt`` (called at the end of each ``__init__``) closes the widget
the new one *replaces*:

* **In a notebook cell** (the kernel knows the cell's id: JupyterLab and Notebook 7 send it
  with every execution): when a cell runs again, the first lab widget it makes closes every lab
  widget the cell's previous run made. Their views went away with the cell's old outputs, so
  nothing that is shown is closed; widgets made by one run of a cell (a loop, or the same run
  shown twice) all stay.
* **Anywhere else** (a script, a test, a front-end or executor that sends no cell id, such as
  nbconvert and nbval): a new widget of the same class on the same *subject* closes the last
  one — an Inspector's subject is its run, a Compare's its runs, a Tuner's its scenario and
  strategy (compared by identity, or by name when given as a string).

Each lab widget also carries a :class:`~footprint_lab.lab._theme_probe.ThemeProbe` (added
by ``_adopt``), so its charts follow the front-end's light or dark theme
(:mod:`footprint_lab.lab._theme_probe`).

A closed widget still works in Python — its values, figures and frames can be read, its
sliders moved — it just has no front-end any more.
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from footprint_lab.lab._theme_probe import follow_theme

__all__ = ["LabWidget", "current_cell", "parts", "subject_of"]

_CELLS: dict[str, tuple[str, list[weakref.ref[Any]]]] = {}
"""Cell id -> (the execution that last made lab widgets in it, weak references to them)."""

_LAST: dict[tuple[type, Hashable], weakref.ref[Any]] = {}
"""(class, subject) -> the last lab widget made outside a notebook cell on that subject."""


def _widgets_in(value: Any) -> Iterator[Any]:
    """The widgets a trait or attribute value holds: itself, or those in a tuple, list or
    dict's values, and one level further down (so a link's ``(widget, "value")`` pairs and a
    box's ``children`` in a trait dict count)."""
    if isinstance(value, widgets.Widget):
        yield value
        return
    if isinstance(value, Mapping):
        items: Iterable[Any] = value.values()
    elif isinstance(value, tuple | list):
        items = value
    else:
        return
    for item in items:
        if isinstance(item, widgets.Widget):
            yield item
        elif isinstance(item, tuple | list):
            yield from (x for x in item if isinstance(x, widgets.Widget))


def parts(root: Any, extra: Iterable[Any] = ()) -> list[Any]:
    """``root`` and every widget it is made of, ``root`` first.

    Walks the synced traits of each widget (``children``, ``layout``, ``style``, a link's
    ``source`` and ``target`` ...) as stored, so a ``FigureWidget``'s plotly ``layout`` property
    does not hide anything; ``extra`` adds more starting points (the widgets a dashboard keeps as
    attributes but does not show, such as ``jslink`` links).
    """
    found: dict[int, Any] = {}
    stack: list[Any] = [root, *extra]
    while stack:
        widget = stack.pop(0)
        if not isinstance(widget, widgets.Widget) or id(widget) in found:
            continue
        found[id(widget)] = widget
        stored: dict[str, Any] = getattr(widget, "_trait_values", {})
        for name in widget.keys:
            stack.extend(_widgets_in(stored.get(name)))
    return list(found.values())


def subject_of(*things: Any) -> Hashable:
    """A hashable stand-in for what a widget shows: strings as themselves, anything else by
    identity (the widget keeps those objects alive, so an identity is never reused while it
    matters)."""
    return tuple(t if isinstance(t, str) else ("id", id(t)) for t in things)


def current_cell() -> tuple[str, str] | None:
    """``(cell id, execution id)`` of the notebook cell running now, or None when there is no
    kernel, the front-end sent no cell id, or the code runs for a widget's message (a slider
    moved) rather than a cell."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipywidgets depends on IPython
        return None
    kernel = getattr(get_ipython(), "kernel", None)
    get_parent = getattr(kernel, "get_parent", None)
    if not callable(get_parent):
        return None
    try:
        parent = get_parent()
    except Exception:  # a kernel without a current request
        return None
    if not isinstance(parent, Mapping):
        return None
    header = parent.get("header") or {}
    metadata = parent.get("metadata") or {}
    cell, execution = metadata.get("cellId"), header.get("msg_id")
    if header.get("msg_type") != "execute_request" or not cell or not execution:
        return None
    return str(cell), str(execution)


def _close(ref: weakref.ref[Any], keep: Any) -> None:
    widget = ref()
    if widget is not None and widget is not keep:
        widget.close()


class LabWidget(widgets.VBox):  # type: ignore[misc]
    """A dashboard of the lab: a ``VBox`` that closes with all its parts and closes the lab
    widget it replaces (see the module docstring)."""

    def close(self) -> None:
        """Close this widget and every widget it is made of — shown or kept as an attribute
        (figures, sliders, links, layouts, styles) — so none keeps a comm or stays in
        ipywidgets' registry. Closing twice does nothing more."""
        for widget in self._parts():
            if widget is not self and getattr(widget, "comm", None) is not None:
                widget.close()
        super().close()

    def _parts(self) -> list[Any]:
        """This widget and every widget it is made of, shown or kept as an attribute."""
        own = [value for value in vars(self).values() if not isinstance(value, LabWidget)]
        return parts(self, extra=[w for value in own for w in _widgets_in(value)])

    def _close_replaced(self, replaced: Sequence[Any]) -> None:
        """Close every part of ``replaced`` this widget is no longer made of (a redraw's old
        panes, their layouts and styles too); a part still in use, such as a slider the new
        panes show again, stays open."""
        keep = {id(widget) for widget in self._parts()}
        for widget in parts(None, extra=replaced):
            if id(widget) not in keep and getattr(widget, "comm", None) is not None:
                widget.close()

    @property
    def closed(self) -> bool:
        """True once the widget is closed (it has no comm any more)."""
        return getattr(self, "comm", None) is None

    def _chosen_figures(self, names: tuple[str, ...], default: tuple[str, ...]) -> dict[str, Any]:
        """The figures a snapshot draws: ``names`` of ``self.figures`` (``default`` when none).

        Raises:
            ValueError: a name that is not one of the widget's figures.
        """
        figures: dict[str, Any] = self.figures
        chosen = names or default
        unknown = set(chosen) - set(figures)
        if unknown:
            raise ValueError(
                f"no figure {', '.join(sorted(unknown))}; figures: {', '.join(figures)}"
            )
        return {name: figures[name] for name in chosen}

    def _figure_widgets(self) -> list[Any]:
        """Every ``FigureWidget`` the dashboard shows (in its tabs too)."""
        return [w for w in parts(self) if isinstance(w, go.FigureWidget)]

    def _adopt(self, subject: Hashable) -> None:
        """Register this widget, just built, close the one it replaces, and let its charts
        follow the front-end's theme."""
        self.theme_probe = follow_theme(self, self._figure_widgets)
        """The probe telling the kernel the front-end's theme
        (:mod:`footprint_lab.lab._theme_probe`)."""
        cell = current_cell()
        if cell is not None:
            cell_id, execution = cell
            made = _CELLS.get(cell_id)
            if made is None or made[0] != execution:
                for ref in made[1] if made is not None else []:
                    _close(ref, self)
                made = (execution, [])
                _CELLS[cell_id] = made
            made[1].append(weakref.ref(self))
            return
        key = (type(self), subject)
        previous = _LAST.get(key)
        if previous is not None:
            _close(previous, self)

        def forget(ref: weakref.ref[Any], key: tuple[type, Hashable] = key) -> None:
            if _LAST.get(key) is ref:
                del _LAST[key]

        _LAST[key] = weakref.ref(self, forget)
