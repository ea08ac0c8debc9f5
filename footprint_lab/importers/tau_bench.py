"""Load tau-bench trajectories (OpenAI message lists with task metadata) as runs.

Layer: importers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from footprint_lab.agent.run import Run
from footprint_lab.importers._build import TranscriptError
from footprint_lab.importers.openai import from_openai

DEFAULT_FILE = "gpt-4o-airline-dev.json"


def load_tau_bench(path: str | Path) -> list[Run]:
    """One run per trajectory, each carrying ``meta`` with ``task_id``, ``trial`` and
    ``reward``.

    Args:
        path: A tau-bench trajectories JSON file, or a folder holding
            ``gpt-4o-airline-dev.json``.

    Raises:
        TranscriptError: the file is not a list of trajectories (naming the entry and field).
    """
    source = Path(path)
    if source.is_dir():
        source = source / DEFAULT_FILE
    data: Any = json.loads(source.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise TranscriptError("tau-bench", None, "trajectories", "expected a list")
    runs: list[Run] = []
    for index, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("traj"), list):
            raise TranscriptError("tau-bench", index, "traj", "expected a message list")
        meta = {
            "task_id": entry.get("task_id"),
            "trial": entry.get("trial"),
            "reward": entry.get("reward"),
            "label": f"task-{entry.get('task_id')}-trial-{entry.get('trial')}",
        }
        try:
            run = from_openai(entry["traj"], **meta)
        except TranscriptError as exc:
            raise TranscriptError(
                "tau-bench", index, f"traj: {exc.field}", f"message {exc.index}: {exc}"
            ) from None
        runs.append(run)
    return runs
