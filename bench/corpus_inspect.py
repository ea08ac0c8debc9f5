"""A corpus store beside Inspect's own dataframes, on the same Inspect logs.

Run with ``python -m bench.corpus_inspect [--copies N] [--rounds R]``; prints a markdown section.

The logs are :func:`bench._inspect_corpus.write_inspect_logs`: ``copies`` relabelled copies of
each real Inspect log in ``data/`` (``.json`` logs and ``.eval`` zips), so both sides read the
same files. Contenders, interleaved round by round (one warm-up round first; the ratio is
taken per round, so both sides of a ratio ran under the same load), each on one core:

* ours: ``Corpus.build(logs, store, executor="inline")`` into a new folder each round (all
  removed at the end) — import,
  capture every run's calls, messages, records, refusals, evictions and findings, write each
  run's checkpoint and each file's Parquet parts, seal them in the manifest;
* Inspect: ``samples_df(logs)`` and ``messages_df(logs)`` (``inspect_ai.analysis``, serial,
  its default; each reads the logs afresh);
* reading what was built: ``Corpus.open(store).frame("runs")`` and ``.frame("messages")``.

Wall time and the process's CPU time (``time.process_time``: every thread of the process, as
Inspect reads its logs through an async file system) are both reported; the ratios are of
wall time on an otherwise idle machine, the load printed.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._common import Section, _fmt, load_words, per_round_ratio, verdict
from bench._inspect_corpus import write_inspect_logs
from footprint_lab.corpus import Corpus

COPIES = 67
"""Copies of each real log: 402 logs, as the issue's measurement (400 logs)."""
ROUNDS = 5

TARGETS: dict[tuple[str, str], float] = {
    ("build", "Inspect samples_df"): 2.0,
    ("build", "Inspect messages_df"): 1.0,
    ("read runs", "Inspect samples_df"): 0.5,
    ("read messages", "Inspect messages_df"): 0.5,
}
"""(ours, theirs): the largest ratio the issue allows."""


def _timed(
    contenders: dict[str, Callable[[], Any]], rounds: int
) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and process CPU seconds of each contender, once a round, in turn (after a warm-up
    round)."""
    for fn in contenders.values():
        fn()
    out: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in contenders}
    for _ in range(rounds):
        for label, fn in contenders.items():
            cpu, wall = time.process_time(), time.perf_counter()
            fn()
            out[label][0].append(time.perf_counter() - wall)
            out[label][1].append(time.process_time() - cpu)
    return out


def run(copies: int = COPIES, rounds: int = ROUNDS) -> Section:
    """Write the logs, time both sides; one section."""
    section = Section(
        "13. Corpus beside Inspect",
        f"{copies} relabelled copies of each real Inspect log in `data/` (see "
        "`bench/_inspect_corpus.py`), read by both sides on one core each, contenders "
        f"interleaved over {rounds} rounds after a warm-up round, ratios per round (median). "
        "Ours: `Corpus.build(..., executor='inline')` into a new folder each round (import, "
        "capture, checkpoints, Parquet parts, manifest), then reading the store's `runs` and "
        "`messages` frames; Inspect: `samples_df` and `messages_df` of `inspect_ai.analysis`, "
        "serial (its default). CPU is the process's (every thread).",
        ["contender", "rows", "wall (median)", "CPU (median)"],
    )
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        logs = write_inspect_logs(base / "logs", copies)
        paths = [str(p) for p in logs]
        mb = sum(p.stat().st_size for p in logs) / 1e6
        stores: list[Path] = []
        rows: dict[str, int] = {}

        def build() -> None:
            # a new folder each round, none removed until the end: a build right after a
            # store's thousands of files were deleted pays for the deletion (measured: two to
            # three times the system time on ext4), which a user's build does not
            stores.append(base / f"store-{len(stores)}")
            built = Corpus.build(logs, stores[-1], executor="inline", progress=False)
            rows["build"] = len(built)

        def read(family: str) -> Callable[[], None]:
            def go() -> None:
                rows[f"read {family}"] = len(Corpus.open(stores[-1]).frame(family))

            return go

        contenders: dict[str, Callable[[], Any]] = {
            "build": build,
            "read runs": read("runs"),
            "read messages": read("messages"),
        }
        try:
            from inspect_ai.analysis import messages_df, samples_df
        except ImportError as exc:
            section.notes.append(
                f"Inspect: not installed ({exc.name}; `pip install -e '.[bench]'`): our side "
                "only, no ratio judged."
            )
        else:

            def inspect(fn: Callable[..., Any], label: str) -> Callable[[], None]:
                def go() -> None:
                    rows[label] = len(fn(paths, quiet=True))

                return go

            contenders["Inspect samples_df"] = inspect(samples_df, "Inspect samples_df")
            contenders["Inspect messages_df"] = inspect(messages_df, "Inspect messages_df")
        timed = _timed(contenders, rounds)
    labels = {
        "build": "ours: Corpus.build, inline",
        "read runs": "ours: read the store's runs",
        "read messages": "ours: read the store's messages",
    }
    for key, (wall, cpu) in timed.items():
        section.rows.append(
            [
                labels.get(key, key),
                f"{rows[key]:,}",
                f"{_fmt(statistics.median(wall))} s",
                f"{_fmt(statistics.median(cpu))} s",
            ]
        )
    section.notes.insert(
        0,
        f"{len(logs)} logs, {mb:.1f} MB, {rows['build']:,} runs (samples). Rows: ours a run "
        "per sample and a message per message of the run as the lab reads it; Inspect's "
        "`messages_df` reads the messages of a sample's model events, which the older `.json` "
        "logs here hold few of, so it has fewer rows than there are messages.",
    )
    for (ours, theirs), target in TARGETS.items():
        if theirs not in timed:
            continue
        ratio = per_round_ratio(timed[ours][0], timed[theirs][0])
        cpu_ratio = per_round_ratio(timed[ours][1], timed[theirs][1])
        section.notes.append(
            f"{labels[ours]} / {theirs}: {ratio:.2f}x wall, {cpu_ratio:.2f}x CPU "
            f"(target <= {target:g}x: {verdict(ratio <= target)})."
        )
    section.notes.append(f"{load_words()} at the end.")
    return section


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.corpus_inspect", description=__doc__)
    parser.add_argument("--copies", type=int, default=COPIES)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    print(run(args.copies, args.rounds).markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
