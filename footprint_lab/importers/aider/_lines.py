"""The lines of an Aider chat history, read into the items Aider wrote: one pass, linear.

Layer: importers (private to :mod:`footprint_lab.importers.aider`).

Aider appends to ``.aider.chat.history.md`` through one method (``InputOutput.
append_chat_history`` in ``aider/io.py``), in four shapes this module reads back:

* a **session header** ``# aider chat started at <time>``, with a blank line before and after;
* a **user block** (``user_input``): a blank line, then each line of what was typed as
  ``#### <line>`` followed by two spaces (a Markdown line break); an empty input is
  ``#### <blank>``;
* a **tool entry** (``tool_output`` / ``tool_error`` / ``tool_warning`` / ``confirm_ask``):
  ``> <text>`` and two spaces. ``tool_error`` and ``tool_warning`` write each line of a
  many-line message as its own entry, but ``tool_output`` quotes only the *first* line of a
  many-line text: its other lines follow unquoted, and the entry ends at the line that ends
  with the two spaces (followed by a blank line, the next ``>`` entry or the end);
* an **assistant block** (``ai_output``): a blank line, the model's reply (stripped), a blank
  line. The reply is Markdown and may itself hold ``>`` quotes and ``####`` headings.

Where the reading is ambiguous — a ``>`` or ``####`` line after a blank line that follows
assistant text — it is an entry or a user block only when written the way Aider writes them
(each line ending in two spaces, a user block followed by a blank line, an entry or the end; an
entry may also be a ``Tokens:`` usage report); otherwise it is the reply's own text. Files
written by hand without the two trailing spaces are read leniently where nothing is ambiguous.
Line endings ``\\r\\n`` are read as ``\\n``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["HEADER", "Item", "ItemKind", "read_items"]

HEADER = "# aider chat started at "
"""How Aider starts every session's record (``aider/io.py``)."""
_MODE_LINE = re.compile(r"-\*-.*-\*-")
"""An Emacs mode line (``-*- mode: fundamental -*-``) someone put on the file's first line."""
_BREAK = "  "
"""The Markdown line break Aider ends every ``####`` line and every entry with."""

ItemKind = Literal["header", "user", "tool", "reply"]


@dataclass(slots=True)
class Item:
    """One thing Aider appended to the history."""

    kind: ItemKind
    """A session header, a user block, a tool entry or an assistant block."""
    line: int
    """Its first line (from 1)."""
    text: str
    """Its text without Aider's markup: the time after the header, the input without
    ``#### ``, the entry without ``> `` and its line break, the reply as written."""


def _user_line(line: str) -> bool:
    """Whether ``line`` is written as a line of typed input (``#### ...``)."""
    return line.startswith("#### ") or line.rstrip() == "####"


def _user_text(lines: list[str]) -> str:
    """The input a user block logged: each line without ``#### `` and its line break."""
    out = []
    for line in lines:
        body = line[:-2] if line.endswith(_BREAK) else line
        out.append(body[5:] if body.startswith("#### ") else "")
    return "\n".join(out)


def _entry_text(lines: list[str]) -> str:
    """The text of a tool entry: its first line without ``> ``, its last without the break."""
    last = lines[-1]
    lines = [*lines[:-1], last[:-2] if last.endswith(_BREAK) else last]
    first = lines[0][1:]
    lines[0] = first[1:] if first.startswith(" ") else first
    return "\n".join(lines)


class _Lines:
    """The file's lines, with what the entry reader looks up in constant time."""

    def __init__(self, text: str) -> None:
        """Split ``text`` into lines and index where entries can close and must stop."""
        lines = text.split("\n")
        self.lines = [line[:-1] if line.endswith("\r") else line for line in lines]
        n = len(self.lines)
        # For each line: the first line at or after it that can close an entry, and the first
        # place at or after it an entry cannot run past (a header, or a blank line before
        # a #### line). Two backward passes keep reading linear.
        self.close = [n] * (n + 1)
        self.stop = [n] * (n + 1)
        for i in range(n - 1, -1, -1):
            line = self.lines[i]
            after = self.lines[i + 1] if i + 1 < n else ""
            closes = line.endswith(_BREAK) and (not after.strip() or after.startswith(">"))
            self.close[i] = i if closes else self.close[i + 1]
            boundary = line.startswith(HEADER) or (not line.strip() and after.startswith("####"))
            self.stop[i] = i if boundary else self.stop[i + 1]

    def entry_end(self, i: int) -> int:
        """The last line of the entry that starts at line ``i``."""
        lines, n = self.lines, len(self.lines)
        if lines[i].startswith("> Tokens: "):
            # A usage report: a line, or up to three more (its cost, a note on caching costs).
            end = self.close[i]
            return end if end <= i + 3 and end < self.stop[i] else i
        if self.close[i] < min(n, self.stop[i]):
            return self.close[i]
        end = i  # not closed the way Aider closes it: the paragraph it starts
        while end + 1 < n:
            following = lines[end + 1]
            if not following.strip() or following.startswith((">", HEADER)):
                break
            if _user_line(following):
                break
            end += 1
        return end

    def user_end(self, i: int, strict: bool) -> int | None:
        """The last line of the user block starting at ``i``, or None when ``strict`` (after
        assistant text) and the block is not written as Aider writes one."""
        lines, n = self.lines, len(self.lines)
        end = i
        while end + 1 < n and _user_line(lines[end + 1]):
            end += 1
        if not strict:
            return end
        after = lines[end + 1] if end + 1 < n else ""
        written = all(line.endswith(_BREAK) for line in lines[i : end + 1])
        ends = not after.strip() or after.startswith(">") or after.startswith(HEADER)
        return end if written and ends else None


def read_items(text: str) -> tuple[list[Item], str | None]:
    """The items of an Aider chat history, in file order, and the Emacs mode line its first
    line holds (or None). Assistant text that runs over blank lines is one block."""
    reader = _Lines(text)
    lines, n = reader.lines, len(reader.lines)
    items: list[Item] = []
    mode_line: str | None = None
    prev: ItemKind | None = None  # the kind of the last item (None: nothing yet)
    blank = True  # a blank line since the last item (or the start)
    reply_start = reply_end = -1
    i = 0

    def close_reply() -> None:
        """End the assistant block being read, if one is."""
        nonlocal reply_start
        if reply_start >= 0:
            body = "\n".join(lines[reply_start : reply_end + 1])
            items.append(Item("reply", reply_start + 1, body))
            reply_start = -1

    while i < n:
        line = lines[i]
        if not line.strip():
            blank, i = True, i + 1
            continue
        after_reply = prev == "reply"
        if line.startswith(HEADER) and (blank or not after_reply):
            close_reply()
            items.append(Item("header", i + 1, line[len(HEADER) :].strip()))
            prev, blank, i = "header", False, i + 1
            continue
        if prev is None and mode_line is None and _MODE_LINE.fullmatch(line.strip()):
            mode_line, i = line.strip(), i + 1
            continue
        if _user_line(line) and (blank or not after_reply):
            end = reader.user_end(i, strict=after_reply)
            if end is not None:
                close_reply()
                items.append(Item("user", i + 1, _user_text(lines[i : end + 1])))
                prev, blank, i = "user", False, end + 1
                continue
        if line.startswith(">") and (
            not after_reply or (blank and (line.endswith(_BREAK) or line.startswith("> Tokens: ")))
        ):
            close_reply()
            end = reader.entry_end(i)
            items.append(Item("tool", i + 1, _entry_text(lines[i : end + 1])))
            prev, blank, i = "tool", False, end + 1
            continue
        if not after_reply:
            reply_start = i
        reply_end = i
        prev, blank, i = "reply", False, i + 1
    close_reply()
    return items, mode_line
