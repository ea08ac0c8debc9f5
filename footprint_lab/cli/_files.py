"""``footprint-lab report``'s reading: every run of the files and folders named, grouped for
the report, and what a folder held that was left out, with why. Layer: top (the CLI).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from footprint_lab.agent import Run
from footprint_lab.agent.origin import Import
from footprint_lab.cli._text import closing_lines, report_lines

if TYPE_CHECKING:
    from footprint_lab.importers import TranscriptError

__all__ = [
    "Skipped",
    "gather",
    "gather_or_say",
    "load_or_say",
    "pick_run",
    "report",
    "run_label",
    "say",
]

Skipped = list[tuple[Path, str]]
"""Files of a folder the report leaves out, each with why."""


def _label(run: Run, path: Path) -> tuple[str, str]:
    """The report section (scenario) and the label of one run read from ``path``: a run this
    lab made (live, a replay, a fork: saved by ``run.save``), its scenario and strategy; an
    imported run's file and its label (``meta['label']``, else the file's name)."""
    if not isinstance(run.origin, Import):
        scenario = str(run.meta.get("scenario") or path.stem)
        return scenario, f"{run.strategy or 'no strategy'} ({path.stem})"
    label = str(run.meta.get("label") or path.stem)
    if run.strategy:  # an observed policy: the stack's own (e.g. swe-agent)
        label = f"{label} ({run.strategy})"
    return str(path), label


def _add(grouped: dict[str, dict[str, Run]], path: Path, runs: Sequence[Run]) -> None:
    for run in runs:
        scenario, label = _label(run, path)
        section = grouped.setdefault(scenario, {})
        unique, n = label, 2
        while unique in section:
            unique, n = f"{label} #{n}", n + 1
        section[unique] = run


_DOCUMENTATION = "documentation (README, LICENSE, SOURCE, .md, .txt, .rst): not read"


def _why(error: TranscriptError, path: Path) -> str:
    """Why a folder's file was skipped: its error less the file's name (the line names it);
    for a file no format claims, the formats tried by name only (the error of a file named
    on the command line says how each is told)."""
    from footprint_lab.importers import FORMATS

    if error.source == "load":
        problem = error.problem.partition("; formats tried: ")[0]
        return f"{problem}; formats tried: {', '.join(FORMATS)}"
    text = str(error)
    head = f"{path}: "
    return text[len(head) :] if text.startswith(head) else text


def _walk(folder: Path, grouped: dict[str, dict[str, Run]], skipped: Skipped) -> None:
    """Every file under ``folder`` that :func:`footprint_lab.importers.load` reads, into
    ``grouped``; what it does not (documentation, hidden files, files of no format or broken
    for theirs), into ``skipped`` with why."""
    from footprint_lab.importers import TranscriptError, detect_format, folder_entries, load

    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        skipped.append((folder, f"cannot list the folder: {exc.strerror or exc}"))
        return
    kept = set(folder_entries(folder))
    for entry in entries:
        if entry not in kept:
            why = "hidden" if entry.name.startswith(".") else _DOCUMENTATION
            skipped.append((entry, why))
            continue
        if entry.is_dir():
            try:
                detect_format(entry)  # a folder is read whole only when it is one (tau-bench)
            except TranscriptError:
                _walk(entry, grouped, skipped)
                continue
        try:
            runs = load(entry)
        except TranscriptError as exc:
            skipped.append((entry, _why(exc, entry)))
            continue
        _add(grouped, entry, runs)


def gather(paths: Sequence[Path]) -> tuple[dict[str, dict[str, Run]], Skipped]:
    """The runs of every path, for the report: each file is read by
    :func:`footprint_lab.importers.load` (a saved run, or a transcript of any stack it reads;
    one file may hold many runs), each folder file by file (a tau-bench folder whole).

    Returns:
        ``{section: {label: run}}`` — one section per file (a saved run's section is its
        scenario) — and the files of the folders that were left out, each with why.

    Raises:
        TranscriptError: a file named in ``paths`` does not load (the message names the file,
            and the formats tried when none claims it).
    """
    from footprint_lab.importers import TranscriptError, detect_format, load

    grouped: dict[str, dict[str, Run]] = {}
    skipped: Skipped = []
    for path in paths:
        if path.is_dir():
            try:
                detect_format(path)
            except TranscriptError:
                _walk(path, grouped, skipped)
                continue
        _add(grouped, path, load(path))
    return grouped, skipped


def gather_or_say(
    paths: Sequence[Path], command: str
) -> tuple[dict[str, dict[str, Run]], Skipped] | None:
    """:func:`gather`, saying on stderr (as ``footprint-lab COMMAND: ...``) what a folder's
    files left out and why; None, with the error said, when a file named does not load."""
    from footprint_lab.importers import TranscriptError

    try:
        grouped, skipped = gather(paths)
    except TranscriptError as exc:
        print(f"footprint-lab {command}: {exc}", file=sys.stderr)
        return None
    for path, why in skipped:
        print(f"footprint-lab {command}: skipped {path}: {why}", file=sys.stderr)
    return grouped, skipped


def report(paths: Sequence[Path], output: Path) -> int:
    """Read saved runs and transcripts (files or folders) and write one report; a file that
    does not load is a clear error and exit code 2, a folder's files that do not load are
    skipped and named (on stderr)."""
    from footprint_lab.lab.report import write_report

    gathered = gather_or_say(paths, "report")
    if gathered is None:
        return 2
    grouped, skipped = gathered
    if not grouped:
        named = ", ".join(str(p) for p in paths)
        print(f"footprint-lab report: no runs to report in {named}", file=sys.stderr)
        return 2
    written = write_report(grouped, output)
    runs = sum(len(section) for section in grouped.values())
    lines = [f"{runs} run(s) from {len(grouped)} file(s)"]
    if skipped:
        lines.append(f"{len(skipped)} file(s) skipped (listed on stderr)")
    for line in [*lines, "", *closing_lines(grouped), "", *report_lines(written)]:
        print(line)
    return 0


def say(command: str, message: str) -> None:
    """Say an error of ``footprint-lab COMMAND`` on stderr, wrapped to the terminal."""
    from footprint_lab.cli._text import wrap

    for line in wrap(f"footprint-lab {command}: {message}"):
        print(line, file=sys.stderr)


def load_or_say(path: Path, command: str) -> list[Run] | None:
    """Every run of the file (or folder) ``path`` (:func:`footprint_lab.importers.load`);
    None, with the error said on stderr (naming the file, and the formats tried when none
    claims it), when it does not load or holds no run."""
    from footprint_lab.importers import TranscriptError, load

    if not path.exists():
        say(command, f"{path}: no such file or folder; give the path of a transcript or of a run")
        return None
    try:
        runs = load(path)
    except TranscriptError as exc:
        say(command, str(exc))
        return None
    if not runs:
        say(command, f"{path}: the file holds no run (nothing to read in it)")
        return None
    return runs


def pick_run(runs: Sequence[Run], index: int | None, path: Path, command: str) -> Run | None:
    """The run ``--run INDEX`` names (counted from 0, as ``load(path)[INDEX]``), or the only
    one; None, with the error said, when the index is out of range or the file holds several
    runs and none was named."""
    if index is None:
        if len(runs) == 1:
            return runs[0]
        say(
            command,
            f"{path} holds {len(runs)} runs; pick one with --run N (0 to {len(runs) - 1}, "
            "as footprint_lab.importers.load(path)[N])",
        )
        return None
    if not 0 <= index < len(runs):
        say(
            command,
            f"{path} holds {len(runs)} run(s); --run {index} is not one of them "
            f"(give 0 to {len(runs) - 1})",
        )
        return None
    return runs[index]


def run_label(run: Run, index: int) -> str:
    """How a run of a file is named: its label (``meta['label']``), else its index."""
    label = run.meta.get("label")
    return f"run {index}" + (f" ({label})" if label else "")
