"""Load tau-bench trajectories (OpenAI message lists with task metadata) as runs.

Layer: importers. A file that is not UTF-8, not JSON, truncated or nested too deep, and any
malformed trajectory, raises :class:`TranscriptError` naming the file, the entry (``index``,
unit ``'entry'``) and the field inside it (``traj[3].tool_call_id``); a trajectory's problems
name the same two, so a strict import raises exactly the first problem a lenient one lists.
"""

from __future__ import annotations

from pathlib import Path

from footprint_lab.agent.run import Run
from footprint_lab.importers._parts import (
    Place,
    Problems,
    TranscriptError,
    item_field,
    json_problem,
    nested,
    read_json_file,
)
from footprint_lab.importers._sniff import FileFormat, Sniff
from footprint_lab.importers.chat.openai import from_openai
from footprint_lab.importers.recorded import note_recorded, settle_outcome
from footprint_lab.messages import storable_text

DEFAULT_FILE = "gpt-4o-airline-dev.json"
"""The file a tau-bench folder is read from."""
SOURCE = "tau-bench"
"""The ``source`` of runs, errors and problems from this importer."""
UNIT = "entry"
"""What an error's index counts: the entry (one trajectory) of the file's list."""

__all__ = ["DEFAULT_FILE", "FILE_FORMAT", "SOURCE", "load_tau_bench", "model_of"]


def model_of(path: Path) -> str | None:
    """The model a tau-bench results file is named after (``gpt-4o-airline-dev.json`` ->
    ``gpt-4o``: the benchmark names its files ``{model}-{environment}-...``), or None."""
    stem = path.stem
    for environment in ("-airline", "-retail"):
        if environment in stem:
            return stem.split(environment, 1)[0] or None
    return None


def _in_entry(index: int) -> Place:
    """Where a place in the trajectory of entry ``index`` is in the file: the entry, and the
    field under ``traj``."""
    return lambda k, field: (index, item_field("traj", k, field))


def load_tau_bench(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per trajectory, each carrying ``meta`` with ``task_id``, ``trial`` and
    ``reward``, and ``label`` (``task-{task_id}-trial-{trial}``); what a trajectory had wrong
    is in its ``run.import_problems`` (source 'tau-bench', unit 'entry', index = the entry's
    index in the file, field = the place in it: ``traj[3].tool_call_id``), with what its
    entry has wrong: a missing ``task_id``, a label an earlier entry has.

    Args:
        path: A tau-bench trajectories JSON file, or a folder holding
            ``gpt-4o-airline-dev.json``.
        strict: Raise at the first problem instead of listing it.

    Raises:
        TranscriptError: the file cannot be read as JSON, is not a list of trajectories, or a
            trajectory is malformed (naming the file, the entry and the field).
    """
    source = Path(path)
    if source.is_dir():
        source = source / DEFAULT_FILE
    where = str(source)
    model = model_of(source)
    data = read_json_file(source, SOURCE)
    if not isinstance(data, list):
        raise TranscriptError(SOURCE, None, "trajectories", "expected a list", path=where)
    runs: list[Run] = []
    labels: dict[str, int] = {}
    for index, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("traj"), list):
            raise TranscriptError(
                SOURCE, index, "traj", "expected a message list", path=where, unit=UNIT
            )
        meta = {key: entry.get(key) for key in ("task_id", "trial", "reward")}
        why = json_problem(meta)
        if why is not None:
            raise TranscriptError(
                SOURCE, index, "task_id", f"metadata holds {why}", path=where, unit=UNIT
            )
        label = f"task-{entry.get('task_id')}-trial-{entry.get('trial')}"
        meta["label"] = label
        notes = Problems(SOURCE, strict=strict, unit=UNIT, path=where)
        if entry.get("task_id") is None:
            notes.note(index, "task_id", f"missing: the run's label is {label!r}")
        if label in labels:
            notes.note(
                index,
                "trial",
                f"duplicate label {label!r}: entry {labels[label]} has the same task_id and "
                "trial (both kept)",
            )
        labels.setdefault(label, index)
        place = _in_entry(index)
        reward = entry.get("reward")
        try:
            run = from_openai(entry["traj"], strict=strict, **meta)
            if isinstance(reward, int | float) and not isinstance(reward, bool):
                # tau-bench scores an episode once it ended: the run finished, whatever came
                # last.
                settle_outcome(run, "done", f"reward {reward}", strict=strict)
        except TranscriptError as exc:
            raise nested(exc, SOURCE, place, unit=UNIT, path=where) from None
        run.import_problems = [
            *notes.found,
            *nested(run.import_problems, SOURCE, place, unit=UNIT, path=where),
        ]
        if model is not None:
            run.model = run.meta["model"] = storable_text(model)
            note_recorded(run, model=True)
        runs.append(run)
    return runs


def _claims(sniff: Sniff) -> bool:
    """A list of trajectories (its first item has ``traj`` or ``task_id``), or a folder that
    holds tau-bench's results file."""
    if sniff.is_dir:
        return DEFAULT_FILE in sniff.entries
    return sniff.first.kind == "list" and bool(sniff.first.keys & {"traj", "task_id"})


FILE_FORMAT = FileFormat(
    name=SOURCE,
    told_by="tau-bench trajectories: a list of entries with task_id and traj",
    loader=load_tau_bench,
    claims=_claims,
    folders=True,
)
"""How the registry tells and reads tau-bench trajectories."""
