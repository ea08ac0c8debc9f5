"""Short reprs and notebook HTML for the core objects (``Run``, ``Ledger``, ``WindowRecord``).

Layer: bottom (beside ``messages`` and ``usage``): it imports nothing of this package, so the
window core, the ledger and the agent can all use it. A repr here is one line in angle
brackets, ``<Kind fact · fact · fact>`` (:func:`short`); the HTML a notebook shows
(``_repr_html_``) is that line over a small key-value table (:func:`html_table`), rendered
from one Jinja2 template with autoescape on — text from a run (a request, an error) can never
become markup. Jinja2 is imported on first use, so importing the core stays light.

The text keeps the colour of the page it is shown on; borders and header cells take
JupyterLab's theme variables, with translucent grey fallbacks that read on a light and a dark
page alike (the lab's palette lives above this layer).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

__all__ = ["TEXT_CHARS", "clip", "count", "html_table", "short"]

TEXT_CHARS = 80
"""Characters of free text (a request, an answer, an error) a repr shows before cutting."""

_TEMPLATE = """\
<div class="footprint-lab-repr" style="font-size: 12px; line-height: 1.35;">
<div style="font-family: var(--jp-code-font-family, monospace); margin: 2px 0 4px;">{{ line }}</div>
<table style="border-collapse: collapse;">
{% for key, value in rows %}
<tr><th style="{{ cell }} white-space: nowrap; \
background: var(--jp-layout-color2, rgba(127, 127, 127, 0.12));">{{ key }}</th>\
<td style="{{ cell }} overflow-wrap: anywhere; white-space: pre-wrap;">{{ value }}</td></tr>
{% endfor %}
</table>
</div>"""

_CELL = (
    "border: 1px solid var(--jp-border-color2, rgba(127, 127, 127, 0.35)); padding: 2px 6px; "
    "text-align: left; vertical-align: top;"
)


@cache
def _template() -> Any:
    """The repr template, compiled once (Jinja2 imported here, on first use)."""
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return env.from_string(_TEMPLATE)


def short(kind: str, facts: Iterable[str]) -> str:
    """A one-line repr: ``<kind fact · fact · ...>`` (empty facts are left out).

    Args:
        kind: The class name (``"Run"``).
        facts: The facts, in order.

    Returns:
        The line.
    """
    shown = " · ".join(f for f in facts if f)
    return f"<{kind} {shown}>" if shown else f"<{kind}>"


def count(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1: ``count(3, "record")`` is
    ``"3 records"`` (thousands separated).

    Args:
        n: How many.
        word: The singular noun.

    Returns:
        The phrase.
    """
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def clip(text: str, limit: int = TEXT_CHARS) -> str:
    """``text`` on one line (line breaks as spaces), cut to ``limit`` characters with "…".

    Args:
        text: Any text.
        limit: At most this many characters.

    Returns:
        The shortened text.
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def html_table(line: str, rows: Sequence[tuple[str, Any]]) -> str:
    """The notebook HTML of an object: its one-line repr over a key-value table.

    Args:
        line: The object's short repr (shown first, escaped).
        rows: ``(key, value)`` pairs; a None value is shown blank.

    Returns:
        The HTML.
    """
    shown = [(str(key), "" if value is None else str(value)) for key, value in rows]
    html: str = _template().render(line=line, rows=shown, cell=_CELL)
    return html
