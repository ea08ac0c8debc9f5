"""A corpus: thousands of runs from every stack in one store you can query.

Layer: corpus (above the lab and the importers; only the CLI sits above it). Needs the
``corpus`` extra (pyarrow, DuckDB).

* :meth:`Corpus.build` ``(paths, store, executor=None, strict=False)`` imports every file of
  a folder, a glob or a list with :func:`footprint_lab.importers.load`, in parallel, into a
  store: a folder of Parquet datasets, one per frame (:data:`FRAMES`), and each run's
  checkpoint compressed. Building again imports only new or changed files.
* :meth:`Corpus.open` ``(store)`` (its manifest checked: names, never paths; every file there
  as sealed); ``corpus.verify()`` hashes every byte (``footprint-lab corpus verify STORE``);
  ``corpus.frame(name, columns=None, where=None)``,
  ``corpus.sql(query)``, ``corpus.runs(where=None)`` (lazy).
* ``corpus.evidence_frame(configs, executor=None)``, ``corpus.cost_frame(pricing)`` and
  ``corpus.sweep(factory, grid)``: grids whose jobs carry the store's path and run ids, never
  the runs; results are written back into the store.
* :class:`CorpusOverview` ``(corpus)`` (a widget) and :func:`write_corpus_report` ``(corpus,
  path)`` (an offline page, a page per run beside it): the lab's overview of a corpus.

Every name here is loaded on first use, so the CLI's ``corpus`` commands (and ``import
footprint_lab.corpus``) load no pyarrow or DuckDB until a corpus is built or opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from footprint_lab._lazy import lazy_names

if TYPE_CHECKING:
    from footprint_lab.corpus._rows import STORE_CLOCK as STORE_CLOCK
    from footprint_lab.corpus.build import BuildReport as BuildReport
    from footprint_lab.corpus.build import source_files as source_files
    from footprint_lab.corpus.corpus import FRAMES as FRAMES
    from footprint_lab.corpus.corpus import Corpus as Corpus
    from footprint_lab.corpus.corpus import Verification as Verification
    from footprint_lab.corpus.manifest import Entry as Entry
    from footprint_lab.corpus.store import CorpusError as CorpusError
    from footprint_lab.lab.corpus_report import write_corpus_report as write_corpus_report
    from footprint_lab.lab.widgets.corpus_overview import CorpusOverview as CorpusOverview

__all__ = [
    "FRAMES",
    "STORE_CLOCK",
    "BuildReport",
    "Corpus",
    "CorpusError",
    "CorpusOverview",
    "Entry",
    "Verification",
    "source_files",
    "write_corpus_report",
]

_LAZY: dict[str, str] = {
    "FRAMES": "footprint_lab.corpus.corpus",
    "STORE_CLOCK": "footprint_lab.corpus._rows",
    "BuildReport": "footprint_lab.corpus.build",
    "Corpus": "footprint_lab.corpus.corpus",
    "Verification": "footprint_lab.corpus.corpus",
    "CorpusError": "footprint_lab.corpus.store",
    "Entry": "footprint_lab.corpus.manifest",
    "source_files": "footprint_lab.corpus.build",
    "CorpusOverview": "footprint_lab.lab.widgets.corpus_overview",
    "write_corpus_report": "footprint_lab.lab.corpus_report",
}
"""Every name the corpus exports, and the module it comes from."""

__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
