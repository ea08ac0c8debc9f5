"""The corpus frames' specs: the tables a corpus store holds beside the capture frames.

Layer: lab (private; :mod:`footprint_lab.lab.schema` is the public face). A corpus
(:mod:`footprint_lab.corpus`) stores, for every imported run, the capture frames of
:data:`~footprint_lab.lab.schema.FRAME_SPECS` with two columns in front (:data:`CORPUS_KEYS`:
which run, from which file), and two tables of its own, specified here: ``corpus_runs`` (one row
per run: where it came from, its facts and its summary numbers) and ``corpus_problems`` (what
did not import, or imported with a problem).
"""

from __future__ import annotations

from footprint_lab.lab._schema_base import FLOAT, INT, TEXT, Column, FrameSpec, columns_of
from footprint_lab.lab._schema_results import RESULT_SPECS

__all__ = ["CORPUS_FRAMES", "CORPUS_KEYS", "CORPUS_SPECS"]

CORPUS_KEYS: dict[str, Column] = columns_of(
    run_id=(
        TEXT,
        "The run's id in the corpus: its file's content hash (16 hex digits), '-', its index "
        "in the file. Stable: the same file gives the same ids wherever it lies.",
    ),
    source_path=(TEXT, "The file the run was imported from (absolute)."),
)
"""The two columns every corpus table of runs starts with."""

CORPUS_FRAMES: tuple[str, ...] = (
    "calls",
    "messages",
    "records",
    "refusals",
    "evictions",
    "findings",
)
"""The capture frames a corpus store keeps (beside its own ``runs`` and ``problems``), each
with :data:`CORPUS_KEYS` in front."""

_RUNS = FrameSpec(
    "One row per run of a corpus: where it came from, its facts and its summary numbers "
    "(:func:`~footprint_lab.lab.summary.run_summary`).",
    {
        **CORPUS_KEYS,
        **columns_of(
            content_hash=(TEXT, "SHA-256 of the file's bytes."),
            index=(INT, "The run's index among the runs its file holds."),
            format=(TEXT, "The format the file was read as (``importers.detect_format``)."),
            label=(TEXT, "``meta['label']`` as text; <NA> when the source gave none."),
            task_id=(TEXT, "``meta['task_id']`` as text; <NA> when absent."),
            reward=(FLOAT, "``meta['reward']``; NaN when absent."),
            model=(TEXT, "The model the run names."),
            provider=(TEXT, "The provider the run names."),
            request=(TEXT, "The run's current request."),
            requests=(INT, "Requests in the conversation."),
            imported_from=(TEXT, "``meta['imported_from']``: the importer's source."),
            tokens_per_char=(
                FLOAT,
                "Input tokens per character the run's own reported usage shows; NaN without.",
            ),
            import_problems=(INT, "Problems the importer listed for the run."),
            meta=(TEXT, "``run.meta`` as JSON (keys sorted)."),
            checkpoint_bytes=(INT, "Bytes of the run's compressed checkpoint in the store."),
        ),
        **RESULT_SPECS["run_summary"].columns,
    },
    "corpus_runs",
)

_PROBLEMS = FrameSpec(
    "One row per thing a corpus build found wrong: a file that did not import (its "
    "``TranscriptError``), a file it could not read (a FIFO, a device), a file whose content "
    "another file of the corpus already holds, or a problem an importer listed for a run.",
    columns_of(
        source_path=(TEXT, "The file."),
        content_hash=(TEXT, "SHA-256 of its bytes; <NA> when it could not be read."),
        run_id=(TEXT, "The run the problem is of; <NA> for a file-level problem."),
        kind=(
            TEXT,
            "'error' (the file did not import), 'duplicate' (its content is another file's) or "
            "'import-problem' (a run imported with it).",
        ),
        source=(TEXT, "Who found it: the format's loader, 'load', or 'corpus'."),
        unit=(TEXT, "What ``index`` counts: 'message', 'entry', 'line', 'sample', ..."),
        index=(INT, "Where in the file, counted in ``unit`` s; <NA> for the file as a whole."),
        field=(TEXT, "The field at fault, as a path inside that item."),
        problem=(TEXT, "What is wrong (the rule broken)."),
        message=(TEXT, "The whole message, as the error or the problem reads."),
    ),
    "corpus_problems",
)

CORPUS_SPECS: dict[str, FrameSpec] = {spec.name: spec for spec in (_RUNS, _PROBLEMS)}
"""The corpus tables of their own, by name."""
