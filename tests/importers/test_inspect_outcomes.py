"""Inspect scores shown as outcomes (#39 item 4): a scored sample's status is "done" whatever
its score, so its score is said beside it, in words — in the Inspector's key numbers and in
``footprint-lab inspect`` — on the real Inspect logs of ``data/``."""

from __future__ import annotations

from pathlib import Path

import pytest

from footprint_lab import load
from footprint_lab.cli import main
from footprint_lab.importers.inspect import outcome_words
from footprint_lab.lab import Inspector

INSPECT = Path(__file__).resolve().parents[2] / "data" / "transcripts" / "inspect"


def test_inspects_value_constants_in_words() -> None:
    assert outcome_words({"match": "C"}) == "correct (match: C)"
    assert outcome_words({"match": "I"}) == "incorrect (match: I)"
    assert outcome_words({"qa": "P", "f1": 0.5}) == "partially correct (qa: P); score 0.5 (f1: 0.5)"
    assert outcome_words({"ok": "N"}) == "no answer (ok: N)"
    assert outcome_words({}) is None and outcome_words(None) is None


def test_the_inspector_says_each_samples_outcome() -> None:
    runs = load(INSPECT / "popularity.json")
    outcomes = [dict(Inspector(run)._key_pairs()).get("outcome (scored)") for run in runs]
    assert outcomes == [
        "correct (match: C)",
        "correct (match: C)",
        "incorrect (match: I)",
    ]
    assert all(run.status == "done" for run in runs)  # the status alone cannot tell them apart


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("browser.json", "  outcome:       correct (includes: C)"),
        ("popularity.json", "  outcomes:      2 correct, 1 incorrect"),
        (
            "vitals.An-R-Eval_solvers_1da30c33.json",
            "  outcomes:      19 incorrect, 7 partially correct",
        ),
    ],
)
def test_the_cli_summary_says_the_outcomes(
    name: str, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", str(INSPECT / name)]) == 0
    assert line in capsys.readouterr().out.splitlines()
