"""A corpus: thousands of runs from every stack in one store you can query.

Layer: corpus (above the lab and the importers; only the CLI sits above it). Needs the
``corpus`` extra (pyarrow, DuckDB).

* :meth:`Corpus.build` ``(paths, store, executor=None, strict=False)`` imports every file of
  a folder, a glob or a list with :func:`footprint_lab.importers.load`, in parallel, into a
  store: a folder of Parquet datasets, one per frame (:data:`FRAMES`), and each run's
  checkpoint compressed. Building again imports only new or changed files.
* :meth:`Corpus.open` ``(store)``; ``corpus.frame(name, columns=None, where=None)``,
  ``corpus.sql(query)``, ``corpus.runs(where=None)`` (lazy).
* ``corpus.evidence_frame(configs, executor=None)``, ``corpus.cost_frame(pricing)`` and
  ``corpus.sweep(factory, grid)``: grids whose jobs carry the store's path and run ids, never
  the runs; results are written back into the store.
"""

from __future__ import annotations

from footprint_lab.corpus._rows import STORE_CLOCK
from footprint_lab.corpus.build import BuildReport, source_files
from footprint_lab.corpus.corpus import FRAMES, Corpus
from footprint_lab.corpus.store import CorpusError, Entry

__all__ = ["FRAMES", "STORE_CLOCK", "BuildReport", "Corpus", "CorpusError", "Entry", "source_files"]
