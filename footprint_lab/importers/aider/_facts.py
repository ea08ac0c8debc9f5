"""What Aider's own output lines say: usage reports, the startup announcements, commands,
confirmations and reasoning blocks.

Layer: importers (private to :mod:`footprint_lab.importers.aider`). Every pattern here is the
text Aider's source writes (``aider/coders/base_coder.py``: ``get_announcements``,
``calculate_and_show_tokens_and_cost``; ``aider/io.py``: ``confirm_ask``; ``aider/utils.py``:
``format_tokens``; ``aider/reasoning_tags.py``), across the versions that wrote them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from footprint_lab.messages import ContentPart
from footprint_lab.reading.usage import MAX_USAGE
from footprint_lab.usage import Usage

__all__ = [
    "Printed",
    "Startup",
    "command_word",
    "is_confirm_answer",
    "printed_usage",
    "split_reasoning",
]

_TOKENS = re.compile(r"(\d[\d,]*(?:\.\d+)?)(k?) (sent|cache write|cache hit|cached|received)")
"""One count of a ``Tokens:`` report: ``12,345 sent`` (v0.51 and before: exact, with thousands
separators), ``2.3k sent`` / ``12k sent`` (v0.52 on: ``format_tokens`` rounds 1,000 and more)."""
_COST = re.compile(r"Cost: \$(\S+?) (?:message|request), \$(\S+?) session")
_FIELDS = {
    "sent": "input_tokens",
    "received": "output_tokens",
    "cache hit": "cache_read_tokens",
    "cached": "cache_read_tokens",
    "cache write": "cache_write_tokens",
}


@dataclass(frozen=True)
class Printed:
    """One usage report as Aider printed it."""

    text: str
    """The report as written (``Tokens: 2.3k sent, 120 received. Cost: ...``)."""
    counts: dict[str, int]
    """Each count by its ``Usage`` field, at the value printed (``2.3k`` is 2300)."""
    exact: bool
    """Every count was printed whole (none rounded to thousands)."""
    cost_message: str | None
    """The printed cost of this message (``0.01``), or None."""
    cost_session: str | None
    """The printed cost of the session so far, or None."""

    def usage(self) -> Usage | None:
        """The counts as a :class:`Usage` when every one was printed whole and in range (a
        rounded report is no count a provider reported), else None."""
        if not self.exact or "input_tokens" not in self.counts:
            return None
        if any(v > MAX_USAGE for v in self.counts.values()):
            return None
        return Usage(**self.counts)

    def as_meta(self, line: int) -> dict[str, Any]:
        """The report as a JSON value for ``meta`` (its counts approximate when rounded)."""
        return {"line": line, "printed": self.text, "approximately": dict(self.counts)}


def printed_usage(text: str) -> Printed | None:
    """The usage report in a ``Tokens:`` entry, or None when no count can be read."""
    counts: dict[str, int] = {}
    exact = True
    for number, thousands, label in _TOKENS.findall(text):
        digits = number.replace(",", "")
        if thousands or "." in digits:
            exact = False
            value = round(float(digits) * (1000 if thousands else 1))
        else:
            value = int(digits)
        key = _FIELDS[label]
        counts[key] = counts.get(key, 0) + value
    if not counts:
        return None
    cost = _COST.search(text)
    return Printed(
        text=text,
        counts=counts,
        exact=exact,
        cost_message=cost.group(1) if cost else None,
        cost_session=cost.group(2) if cost else None,
    )


_CONFIRM = re.compile(r".*\? \([Yy]\)es/\([Nn]\)o.*\]: ?\S*")
"""A confirmation Aider logged as typed input (a ``ConfirmGroup``'s remembered answer)."""


def is_confirm_answer(text: str) -> bool:
    """Whether a ``####`` block is a confirmation Aider answered itself, not input."""
    return len(text) < 400 and "\n" not in text and _CONFIRM.fullmatch(text) is not None


def command_word(text: str) -> str | None:
    """The command a ``####`` block ran (``/clear``, ``/ask``, ``!`` for a shell command), or
    None when it is not a command (Aider runs any input that starts with ``/`` or ``!``)."""
    if text.startswith("!"):
        return "!"
    if not text.startswith("/"):
        return None
    words = text.split()
    return words[0].lower() if words else "/"


_REASONING = re.compile(
    r"\s*<(thinking-content-[0-9a-f]+|think|thinking|reasoning)>(.*?)</\1>\s*", re.DOTALL
)
"""A reasoning block at the start of a reply: Aider's own tag (``thinking-content-<hash>``)
or a model's ``<think>`` tag, which Aider removes before the reply goes back into the chat."""


def split_reasoning(text: str) -> tuple[str, list[ContentPart]]:
    """A reply's text without its leading reasoning block, and that block as a ``thinking``
    part (Aider shows and logs it, but strips it from the history it sends)."""
    found = _REASONING.match(text)
    if found is None:
        return text, []
    part = ContentPart(
        kind="thinking",
        text=found.group(2).strip(),
        original={"tag": found.group(1)},
    )
    return text[found.end() :], [part]


_VERSION = re.compile(r"Aider v(\S+)")
_MODEL = re.compile(r"(Main model|Models|Model): (\S+)(?: (?:with|using) (.*?) edit format)?(.*)")
_WEAK = re.compile(r"(?:Weak model: |.*, weak model )(\S+)")
_EDITOR = re.compile(r"Editor model: (\S+)(?: with (.*?) edit format)?")


@dataclass
class Startup:
    """What a session's announcements said (``get_announcements``): the first of each, and
    every main model named (``/model`` announces a new one mid-session)."""

    facts: dict[str, Any] = field(default_factory=dict)
    models: list[str] = field(default_factory=list)
    command_line: str | None = None
    _previous: str | None = None

    def read(self, text: str) -> None:
        """Take what one ``>`` entry announces, if anything."""
        previous, self._previous = self._previous, text
        version = _VERSION.fullmatch(text.strip())
        if version is not None:
            self.facts.setdefault("aider_version", version.group(1))
            if self.command_line is None and previous is not None and "aider" in previous:
                self.command_line = previous
            return
        model = _MODEL.fullmatch(text.strip())
        if model is not None:
            name = model.group(2)
            if name not in self.models:
                self.models.append(name)
            if model.group(3):
                self.facts.setdefault("edit_format", model.group(3).split()[-1])
            weak = _WEAK.fullmatch(text.strip())
            if weak is not None:
                self.facts.setdefault("weak_model", weak.group(1))
            return
        for pattern, key in ((_WEAK, "weak_model"), (_EDITOR, "editor_model")):
            found = pattern.fullmatch(text.strip())
            if found is not None and text.startswith(("Weak model: ", "Editor model: ")):
                self.facts.setdefault(key, found.group(1))
                return
        if text.startswith("Repo-map: ") and text[10:].startswith(("using", "disabled")):
            self.facts.setdefault("repo_map", text[10:].strip())
        elif text.startswith("Git repo: "):
            self.facts.setdefault("git_repo", text[10:].strip())
        elif text.strip() == "Restored previous conversation history.":
            self.facts["restored_history"] = True
