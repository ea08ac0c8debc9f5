"""A typed origin (#37 item 2): every writer says how its run was made in ``Run.origin``, the
run file keeps it (version 2), and the lab reads it there, not from ``run.meta``."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from footprint_lab import (
    Reply,
    ScriptedProvider,
    fork,
    load_run,
    replay,
    sliding_window,
    token_budget,
)
from footprint_lab.agent import Fork, Import, Live, Recorded, Replay
from footprint_lab.export.otel import to_otel
from footprint_lab.importers import load
from footprint_lab.lab import capture
from footprint_lab.lab.views import boundary_caption
from footprint_lab.scenarios import deploy_audit

DATA = Path(__file__).resolve().parents[2] / "data"
SWE = (
    DATA
    / "transcripts"
    / "swe-agent"
    / "marshmallow-1867.function-calling-replace-from-source.traj"
)


def test_every_writer_says_how_its_run_was_made(tmp_path: Path) -> None:
    live = deploy_audit().run(None)
    assert live.origin == Live()

    [imported] = load(SWE)
    assert isinstance(imported.origin, Import)
    assert imported.origin.format == "swe-agent" and imported.origin.path == str(SWE)
    assert imported.origin.recorded == Recorded(
        inputs=True, usage=False, tool_results=True, model=True, outcome=True
    )

    replayed = replay(live, sliding_window(2))
    assert isinstance(replayed.origin, Replay)
    assert replayed.origin.model_dump(exclude={"tokens_per_char"}) == Replay(
        source_id="deploy-audit",
        strategy="sliding-window",
        tokens_from=("reported", "counted"),
        source=Live(),
    ).model_dump(exclude={"tokens_per_char"})
    assert replayed.origin.tokens_per_char is not None and replayed.origin.not_applicable == ()
    of_import = replay(imported, None)
    assert isinstance(of_import.origin, Replay) and of_import.origin.source == imported.origin

    forked = fork(
        live, at=3, strategy=sliding_window(2), provider=ScriptedProvider([Reply.text("done")])
    )
    assert isinstance(forked.origin, Fork)
    assert (forked.origin.parent_id, forked.origin.at) == ("deploy-audit", 3)
    assert forked.origin.strategy == "sliding-window" and forked.origin.source == Live()

    # The run file keeps each, and an OpenTelemetry round trip too.
    for run in (live, imported, replayed, of_import, forked):
        assert load_run(run.save(tmp_path / "run.json")).origin == run.origin
        [back] = load(to_otel(run, tmp_path / "run.otlp.json"))
        assert back.origin == run.origin
        assert capture(run).info["origin"] == run.origin


def test_an_origin_is_frozen_and_checked() -> None:
    origin = Import(format="swe-agent")
    with pytest.raises(ValidationError):
        origin.format = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Fork.model_validate({"kind": "fork", "parent_id": "x", "at": 2, "extra": 1})


def test_a_scaled_figure_says_what_it_was_scaled_from() -> None:
    """#37 item 3: a replay's scaled token count is never called reported: the Boundary view
    says 'N input tokens scaled from the M reported'."""
    source = deploy_audit().run(None)
    # No provider that counts: the source's reported figures are scaled.
    source.provider = "not-a-counter"
    source.agent = None
    replayed = replay(source, token_budget(threshold_tokens=1_500, keep_recent_turns=2))
    scaled = [i for i, c in enumerate(replayed.calls) if c.tokens_from == "scaled"]
    assert scaled
    call = replayed.calls[scaled[0]]
    original = source.calls[scaled[0]].usage
    assert call.usage is not None and original is not None
    assert call.scaled_from == original.input_tokens != call.usage.input_tokens
    caption = boundary_caption(
        capture(replayed), call.iteration, replayed.window_sent(scaled[0]), sent=True
    )
    assert (
        f"{call.usage.input_tokens:,} input tokens scaled from the {call.scaled_from:,} reported"
        in caption
    )
    assert "reported." not in caption.replace(f"{call.scaled_from:,} reported", "")
