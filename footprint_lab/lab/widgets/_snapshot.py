"""Snapshots: a widget's charts as PNG images and its key table as HTML, for readers without a
kernel.

Layer: lab. A notebook's committed outputs are what GitHub and other static viewers show, and a
live widget shows nothing there. ``widget.snapshot()`` (Inspector, Tuner, Compare) returns a
:class:`Snapshot` of the widget as it is now: its heading and key table as HTML and its charts
as PNG images. Displayed in a notebook it becomes ordinary outputs — one HTML, one image per
chart — that any viewer shows.

The images come from kaleido, which drives a headless Chrome or Chromium (it finds Debian's
``chromium`` on the ``PATH``; ``BROWSER_PATH`` names another). Rendering is offline — plotly.js
from the plotly package, MathJax off — and deterministic: the same figure gives the same bytes.
Without kaleido or a browser the snapshot keeps its HTML and says why it has no images,
instead of failing.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.lab.plots import TITLE_BREAK
from footprint_lab.lab.widgets._html import note_html

__all__ = ["SNAPSHOT_HEIGHT", "SNAPSHOT_WIDTH", "Snapshot", "SnapshotUnavailable", "render_png"]

SNAPSHOT_WIDTH = 900
"""Width in pixels of a chart's image (a figure with its own ``layout.width`` keeps it)."""

SNAPSHOT_HEIGHT = 450
"""Height in pixels of a chart's image when the figure sets none."""


class SnapshotUnavailable(RuntimeError):
    """The charts cannot be rendered to images here (no kaleido, or no browser for it)."""


def _figure_spec(figure: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    spec: dict[str, Any] = figure.to_dict()
    layout: dict[str, Any] = spec.get("layout", {})
    opts = {
        "format": "png",
        "width": int(layout.get("width") or SNAPSHOT_WIDTH),
        "height": int(layout.get("height") or SNAPSHOT_HEIGHT),
        "scale": 1,
    }
    return spec, opts


_RENDERER_LOGGERS = ("kaleido", "choreographer", "logistro")
"""The loggers of kaleido and the browser driver it uses (choreographer)."""


@contextmanager
def _quiet_renderer() -> Iterator[None]:
    """Keep the renderer's log lines out of the notebook while it runs (with no handler of its
    own, Python writes them to stderr: choreographer logs the browser's goodbye as a message it
    could not decode, now and then). Failures still raise."""
    loggers = [logging.getLogger(name) for name in _RENDERER_LOGGERS]
    saved = [(logger.propagate, logger.handlers[:]) for logger in loggers]
    sink = logging.NullHandler()
    for logger in loggers:
        logger.propagate = False
        logger.handlers = [sink]
    try:
        yield
    finally:
        for logger, (propagate, handlers) in zip(loggers, saved, strict=True):
            logger.propagate = propagate
            logger.handlers = handlers


def render_png(figures: Mapping[str, Any]) -> dict[str, bytes]:
    """Each plotly figure (or ``FigureWidget``) of ``figures`` as PNG bytes, rendered by
    kaleido in one browser session (the same figure gives the same bytes).

    Raises:
        SnapshotUnavailable: kaleido is not installed, finds no browser, or fails.
    """
    try:
        import kaleido  # type: ignore[import-untyped]
    except ImportError as exc:
        raise SnapshotUnavailable(
            "static images need kaleido (`pip install kaleido`) and Chrome or Chromium"
        ) from exc
    jobs = [(name, *_figure_spec(figure)) for name, figure in figures.items()]
    if not jobs:
        return {}

    async def render_all() -> list[bytes]:
        async with kaleido.Kaleido(n=1, mathjax=False) as renderer:
            return [bytes(await renderer.calc_fig(spec, opts=opts)) for _, spec, opts in jobs]

    # in a notebook the kernel's event loop is running: render in a thread of our own
    with _quiet_renderer(), ThreadPoolExecutor(max_workers=1) as pool:
        try:
            images = pool.submit(lambda: asyncio.run(render_all())).result()
        except Exception as exc:
            raise SnapshotUnavailable(
                f"kaleido could not render the charts ({type(exc).__name__}: {exc}); it needs "
                "Chrome or Chromium on the PATH or named by BROWSER_PATH"
            ) from exc
    return {name: png for (name, _, _), png in zip(jobs, images, strict=True)}


def _title_of(figure: Any, name: str) -> str:
    text = getattr(getattr(figure.layout, "title", None), "text", None)
    # a long title is drawn on several lines; its plain-text stand-in is one
    return str(text).replace(TITLE_BREAK, " ") if text else name


@dataclass(frozen=True)
class Snapshot:
    """A widget's current state as static outputs: what a notebook keeps for a reader without a
    kernel. Displayed in a notebook (the last expression of a cell, or ``display(...)``), it
    shows ``html`` and then each image; ``problem`` says why images are missing, if they are.

    Attributes:
        title: The widget's title (the outputs' plain-text stand-in).
        html: Its heading and key table, inline-styled.
        images: Chart name -> PNG bytes, in display order.
        captions: Chart name -> the chart's title (each image's plain-text stand-in).
        problem: Why there are no images (no kaleido or no browser), or None.
    """

    title: str
    html: str
    images: dict[str, bytes] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)
    problem: str | None = None

    @classmethod
    def of(cls, title: str, html: str, figures: Mapping[str, Any]) -> Snapshot:
        """Render ``figures`` (name -> figure) and keep them with ``title`` and ``html``."""
        captions = {name: _title_of(figure, name) for name, figure in figures.items()}
        try:
            images = render_png(figures)
        except SnapshotUnavailable as exc:
            return cls(title, html, {}, captions, str(exc))
        return cls(title, html, images, captions)

    def bundles(self) -> list[dict[str, str]]:
        """The outputs it displays, as MIME bundles: the HTML, then one PNG (base64) per chart,
        then a note of the problem, if any."""
        out = [{"text/html": self.html, "text/plain": self.title}]
        for name, png in self.images.items():
            caption = f"[chart: {self.captions.get(name, name)}]"
            out.append({"image/png": base64.b64encode(png).decode("ascii"), "text/plain": caption})
        if self.problem:
            note = note_html(self.problem, strong="No static images:", tone="muted")
            out.append({"text/html": note, "text/plain": f"No static images: {self.problem}"})
        return out

    def _ipython_display_(self) -> None:
        from IPython.display import display

        for bundle in self.bundles():
            display(bundle, raw=True)  # type: ignore[no-untyped-call]

    def __repr__(self) -> str:
        shown = ", ".join(self.images) or "no images"
        return f"Snapshot({self.title!r}: {shown})"
