"""footprint_lab's benchmark suite: ``make bench`` (or ``python -m bench.run``) writes
``bench/results.md``. Timings are medians of repeated runs in one process; every comparison is
a ratio measured in the same run."""
