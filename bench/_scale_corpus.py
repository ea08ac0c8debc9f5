"""A corpus of any size made from the repository's real transcripts: varied, never one file copied.

Layer: bench (a helper of :mod:`bench.corpus_scale`; reads ``data/``, writes real-format files).

:func:`write_corpus` ``(folder, runs, seed)`` writes files that hold exactly ``runs`` runs, every
file one of a real format that :func:`footprint_lab.importers.load` reads, made from the real
files under ``data/transcripts`` and ``data/tau-bench`` (Inspect ``.eval`` zips are left out:
a zip is not rewritten here). Each output file draws one source with a seeded
``random.Random`` (a tau-bench file three times in four, else one of the other real files, evenly),
then:

* **tau-bench** (``gpt-4o-airline-<n>.json``, so the importer still reads the model from the
  name): 1-4 entries drawn without replacement from the 50 real trajectories, in a new order;
  each entry gets a new ``task_id`` (unique across the corpus) and a resampled ``trial`` (0-4);
  half of them keep their whole conversation, the others are cut after a random user turn or
  an assistant reply that calls no tool (a conversation that stopped earlier, never a call
  without its result).
* **Claude Code** sessions (``.jsonl``): half of them cut to a random prefix of their lines
  (at least two).
* **OpenHands** event lists (``.json``): half of them cut to a random prefix of their events
  (at least two); OpenHands instance files (``.jsonl``) and SWE-agent ``.traj`` files, and
  Inspect logs (``.json``) are kept whole.
* Every file (of a tau-bench file, each conversation) is then **relabelled**: each
  identifier string (a value under ``id``, ``uuid``, ``parentUuid``, ``sessionId``,
  ``leafUuid``, ``requestId``, ``tool_call_id``, ``tool_use_id``, ``tool_call_ids``,
  ``instance_id``, ``run_id``, ``eval_id`` or a text ``task_id``) is replaced, the same
  value always by the same new one within a file (so a tool call and its result still
  pair), by its alphabetic prefix and twelve seeded hex digits;
  integer event ids and ``cause`` references (OpenHands) and Inspect sample ids are shifted by
  a per-file offset; a SWE-agent file's ``environment`` gets the file's number.

So no two files share a content hash (checked as they are written), lengths vary with the
source and the cut, and the same seed writes the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from footprint_lab.corpus import source_files

ROOT = Path(__file__).resolve().parents[1]
TAU_BENCH = ROOT / "data" / "tau-bench" / "gpt-4o-airline-dev.json"
TRANSCRIPTS = ROOT / "data" / "transcripts"
TAU_SHARE = 0.75
"""The share of files that are tau-bench files."""

_ID_KEYS = frozenset(
    {
        "id",
        "uuid",
        "parentUuid",
        "sessionId",
        "leafUuid",
        "requestId",
        "tool_call_id",
        "tool_use_id",
        "instance_id",
        "run_id",
        "eval_id",
        "task_id",
    }
)
_INT_KEYS = frozenset({"id", "cause"})
_PREFIX = re.compile(r"^[A-Za-z]+[_-]")


@dataclass(frozen=True)
class Source:
    """One real file the generator draws from."""

    path: Path
    """The real file."""
    kind: str
    """``claude-code``, ``openhands-events``, ``openhands-instances``, ``swe-agent`` or
    ``inspect``."""
    runs: int
    """How many runs the file holds (and every file made from it)."""


def _kind(path: Path) -> str | None:
    family = path.parent.name
    if path.suffix == ".eval":
        return None  # a zip: not rewritten here
    if family == "openhands":
        return "openhands-instances" if path.suffix == ".jsonl" else "openhands-events"
    return family if family in ("claude-code", "swe-agent", "inspect") else None


def sources() -> list[Source]:
    """The real non-tau-bench files drawn from, with their run counts."""
    out: list[Source] = []
    for path in source_files(TRANSCRIPTS):
        kind = _kind(path)
        if kind is None:
            continue
        if kind == "inspect":
            runs = len(json.loads(path.read_text(encoding="utf-8"))["samples"])
        elif kind == "openhands-instances":
            runs = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line)
        else:
            runs = 1
        out.append(Source(path, kind, runs))
    return out


class _Relabel:
    """One file's relabelling: the same old identifier always gets the same new one."""

    def __init__(self, rng: random.Random, offset: int) -> None:
        self.rng = rng
        self.offset = offset
        self.names: dict[str, str] = {}

    def name(self, old: str) -> str:
        if old not in self.names:
            match = _PREFIX.match(old)
            self.names[old] = f"{match.group() if match else ''}{self.rng.getrandbits(48):012x}"
        return self.names[old]

    def walk(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self.walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            if key == "tool_call_ids":
                return [self.name(v) if isinstance(v, str) else v for v in value]
            return [self.walk(v) for v in value]
        if key in _ID_KEYS and isinstance(value, str) and value:
            return self.name(value)
        if key in _INT_KEYS and isinstance(value, int) and not isinstance(value, bool):
            return value + self.offset
        return value


def _cut_conversation(traj: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """``traj`` whole, or cut after a user turn or an assistant reply that calls no tool."""
    ends = [
        i + 1
        for i, m in enumerate(traj)
        if i >= 2
        and (m.get("role") == "user" or (m.get("role") == "assistant" and not m.get("tool_calls")))
    ]
    if not ends or rng.random() < 0.5:
        return traj
    return traj[: rng.choice(ends)]


def _tau_file(
    entries: list[dict[str, Any]], count: int, task_id: int, number: int, rng: random.Random
) -> str:
    """A tau-bench file of ``count`` resampled entries (see the module docstring)."""
    relabel = _Relabel(rng, offset=(number + 1) * 1_000_000)
    picked = rng.sample(entries, count)
    out = []
    for k, entry in enumerate(picked):
        out.append(
            {
                **entry,
                "task_id": task_id + k,
                "trial": rng.randrange(5),
                "traj": relabel.walk(_cut_conversation(entry["traj"], rng)),
            }
        )
    return json.dumps(out)


def _prefix(items: list[Any], rng: random.Random) -> list[Any]:
    if len(items) <= 2 or rng.random() < 0.5:
        return items
    return items[: rng.randint(2, len(items))]


def _rewrite(source: Source, number: int, rng: random.Random) -> str:
    """A relabelled (and perhaps cut) copy of ``source`` (see the module docstring)."""
    relabel = _Relabel(rng, offset=(number + 1) * 1_000_000)
    text = source.path.read_text(encoding="utf-8")
    if source.kind in ("claude-code", "openhands-instances"):
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        if source.kind == "claude-code":
            lines = _prefix(lines, rng)
        return "".join(json.dumps(relabel.walk(line)) + "\n" for line in lines)
    data = json.loads(text)
    if source.kind == "openhands-events":
        data = _prefix(data, rng)
    data = relabel.walk(data)
    if source.kind == "swe-agent" and isinstance(data.get("environment"), str):
        data["environment"] = f"{data['environment']}-{number}"
    return json.dumps(data)


def write_corpus(folder: Path, runs: int, seed: int = 0) -> list[Path]:
    """Write files holding exactly ``runs`` runs under ``folder``; see the module docstring.

    Returns:
        The files written, in order.

    Raises:
        ValueError: ``runs`` is below 1.
        RuntimeError: two files came out the same (a defect of the generator).
    """
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    rng = random.Random(seed)
    tau = json.loads(TAU_BENCH.read_text(encoding="utf-8"))
    others = sources()
    written: list[Path] = []
    hashes: set[str] = set()
    left = runs
    task_id = 100_000
    number = 0
    while left:
        source = None if rng.random() < TAU_SHARE else rng.choice(others)
        if source is not None and source.runs > left:
            source = None  # the last few runs: a tau-bench file of that many entries
        if source is None:
            count = min(left, rng.randint(1, 4))
            text = _tau_file(tau, count, task_id, number, rng)
            task_id += count
            target = folder / "tau-bench" / f"gpt-4o-airline-{number:05d}.json"
        else:
            count = source.runs
            text = _rewrite(source, number, rng)
            target = folder / source.kind / f"{number:05d}-{source.path.name}"
        data = text.encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()
        if digest in hashes:
            raise RuntimeError(f"{target}: the same bytes as an earlier file (seed {seed})")
        hashes.add(digest)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(target)
        left -= count
        number += 1
    return written
