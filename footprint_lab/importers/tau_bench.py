"""Load tau-bench trajectories (OpenAI message lists with task metadata) as runs.

Layer: importers. A file that is not UTF-8, not JSON, truncated or nested too deep, and any
malformed trajectory, raises :class:`TranscriptError` naming the file, the entry and the field.
"""

from __future__ import annotations

from pathlib import Path

from footprint_lab._gc import gc_paused
from footprint_lab.agent.run import ImportProblem, Run
from footprint_lab.importers._parts import TranscriptError, json_problem, read_json_file
from footprint_lab.importers.openai import from_openai

DEFAULT_FILE = "gpt-4o-airline-dev.json"
SOURCE = "tau-bench"

__all__ = ["DEFAULT_FILE", "SOURCE", "load_tau_bench"]


@gc_paused
def load_tau_bench(path: str | Path, *, strict: bool = False) -> list[Run]:
    """One run per trajectory, each carrying ``meta`` with ``task_id``, ``trial`` and
    ``reward``; what a trajectory had wrong is in its ``run.import_problems`` (source
    'tau-bench', index = the message's index in ``traj``).

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
    data = read_json_file(source, SOURCE)
    if not isinstance(data, list):
        raise TranscriptError(SOURCE, None, "trajectories", "expected a list", path=where)
    runs: list[Run] = []
    for index, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("traj"), list):
            raise TranscriptError(SOURCE, index, "traj", "expected a message list", path=where)
        meta = {key: entry.get(key) for key in ("task_id", "trial", "reward")}
        why = json_problem(meta)
        if why is not None:
            raise TranscriptError(SOURCE, index, "task_id", f"metadata holds {why}", path=where)
        meta["label"] = f"task-{entry.get('task_id')}-trial-{entry.get('trial')}"
        try:
            run = from_openai(entry["traj"], strict=strict, **meta)
        except TranscriptError as exc:
            at = "" if exc.index is None else f"[{exc.index}]"
            raise TranscriptError(
                SOURCE, index, f"traj{at}.{exc.field}", exc.problem, path=where
            ) from None
        run.import_problems = [
            ImportProblem(
                source=SOURCE,
                index=p.index,
                field=f"entry[{index}].traj.{p.field}",
                problem=p.problem,
            )
            for p in run.import_problems
        ]
        runs.append(run)
    return runs
