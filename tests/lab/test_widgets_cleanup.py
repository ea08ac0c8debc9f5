"""The widgets clean up after themselves, and give static snapshots of their charts.

Re-creating an Inspector, Tuner or Compare closes the widgets it replaced (so ipywidgets'
registry and the front-end's comms do not grow), ``close()`` closes every part, and
``snapshot()`` renders the charts to deterministic PNG images through kaleido and Chromium.
"""

from __future__ import annotations

import base64
import logging
import warnings
import zlib
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import ipywidgets as widgets
import pytest

from footprint_lab import Run, WindowConfigError, sliding_window
from footprint_lab.lab import Compare, Inspector, Tuner
from footprint_lab.lab.widgets import LabWidget, Snapshot, _lifecycle, _snapshot
from footprint_lab.lab.widgets._lifecycle import current_cell, parts
from footprint_lab.scenarios import deploy_audit, screen_driver


def registry() -> dict[str, Any]:
    """ipywidgets' registry of open widgets (``Widget.widgets``, deprecated but still kept)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        found: dict[str, Any] = widgets.Widget.widgets
    return found


def registered(widget: Any) -> bool:
    """Whether ``widget`` itself is in the registry (by identity: figures compare by content)."""
    return any(w is widget for w in registry().values())


def is_closed(widget: Any) -> bool:
    return widget.comm is None and not registered(widget)


@pytest.fixture(scope="module")
def audit_run() -> Run:
    scenario = deploy_audit()
    return scenario.run(scenario.strategies()["sliding-window"])


@pytest.fixture(scope="module")
def screen_run() -> Run:
    return screen_driver().run(sliding_window(keep_recent_turns=2))


@pytest.fixture(autouse=True)
def no_cell(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Outside a notebook cell (as under pytest), and every test's widgets closed after it."""
    monkeypatch.setattr(_lifecycle, "current_cell", lambda: None)
    before = set(registry())
    yield
    for model_id in set(registry()) - before:
        widget = registry().get(model_id)
        if widget is not None:
            widget.close()


# -- replacing --------------------------------------------------------------------------------


def test_a_second_inspector_on_the_run_closes_the_first(audit_run: Run) -> None:
    first = Inspector(audit_run)
    first_parts = parts(first, extra=first.links)
    assert len(first_parts) > 30  # boxes, panes, sliders, figures, layouts, styles, a link
    assert not any(is_closed(w) for w in first_parts)
    second = Inspector(audit_run)
    assert first.closed and not second.closed
    for name, figure in first.figures.items():
        assert figure.comm is None, name
        assert not registered(figure), name
    assert all(is_closed(w) for w in first_parts)
    assert not any(is_closed(w) for w in parts(second, extra=second.links))
    assert {id(w) for w in first_parts}.isdisjoint(id(w) for w in parts(second))


def test_the_registry_does_not_grow_over_five_re_creations(audit_run: Run) -> None:
    scenario = deploy_audit()
    makers = {
        "Inspector": lambda: Inspector(audit_run),
        "Tuner": lambda: Tuner(scenario, "token-budget"),
        "Compare": lambda: Compare({"a": audit_run}),
    }
    for name, make in makers.items():
        start = len(registry())
        make()
        one = len(registry())
        assert one > start, name
        for _ in range(5):
            make()
            assert len(registry()) == one, name


def test_other_subjects_are_not_replaced(audit_run: Run, screen_run: Run) -> None:
    audit = Inspector(audit_run)
    screen = Inspector(screen_run)
    compare = Compare({"audit": audit_run})
    relabelled = Compare({"again": audit_run})  # another label: another subject
    tuner = Tuner(deploy_audit(), "token-budget")
    other = Tuner(deploy_audit(), "token-budget")  # another scenario object
    assert not any(w.closed for w in (audit, screen, compare, relabelled, tuner, other))
    Compare({"audit": audit_run})
    assert compare.closed and not relabelled.closed
    Tuner(tuner.scenario, "token-budget")  # the same scenario object and strategy name
    assert tuner.closed and not other.closed
    named = Tuner("deploy-audit", "token-budget")
    Tuner("deploy-audit", "token-budget")  # by name: the same subject
    assert named.closed and not other.closed


def test_close_closes_every_part_and_the_widget_still_reads(audit_run: Run) -> None:
    start = set(registry())
    insp = Inspector(audit_run)
    made = set(registry()) - start
    assert insp.links[0].model_id in made and insp.slider.layout.model_id in made
    insp.close()
    assert set(registry()) == start
    assert insp.closed and all(w.comm is None for w in parts(insp, extra=insp.links))
    insp.close()  # twice: nothing more to do
    # closed, the Inspector still works in Python
    call = audit_run.calls[1]
    insp.slider.value = call.iteration
    assert f"{call.chars} chars sent" in insp.boundary.iterations[0].caption


def test_tuner_and_compare_close_all_their_parts(audit_run: Run) -> None:
    start = set(registry())
    tuner = Tuner(deploy_audit(), "token-budget")
    compare = Compare.from_scenario(deploy_audit())
    assert set(registry()) - start
    tuner.close()
    compare.close()
    assert set(registry()) == start
    tuner.set(threshold_tokens=900)  # a closed Tuner still re-runs
    assert tuner.config["threshold_tokens"] == 900


def test_a_tuner_that_fails_to_start_leaves_nothing_open() -> None:
    start = set(registry())
    with pytest.raises(WindowConfigError):
        Tuner(
            deploy_audit(),
            sliding_window(keep_recent_turns=2),
            values={"keep_recent_turns": 0},
            keep_recent_turns=(0, 4),
        )
    assert set(registry()) == start


def test_in_a_cell_a_new_run_of_the_cell_closes_what_its_last_run_made(
    monkeypatch: pytest.MonkeyPatch, audit_run: Run, screen_run: Run
) -> None:
    cell: list[tuple[str, str]] = [("cell-a", "run-1")]
    monkeypatch.setattr(_lifecycle, "current_cell", lambda: cell[0])
    looped = [Inspector(audit_run), Inspector(audit_run), Compare({"a": audit_run})]
    assert not any(w.closed for w in looped)  # one run of a cell: all of them are shown
    cell[0] = ("cell-b", "run-2")
    elsewhere = Inspector(audit_run)  # another cell: the same run is no reason to close
    assert not any(w.closed for w in looped)
    cell[0] = ("cell-a", "run-3")
    again = Inspector(screen_run)  # the cell ran again: its old outputs are gone
    assert all(w.closed for w in looped)
    assert not elsewhere.closed and not again.closed


def fake_shell(parent: Any) -> SimpleNamespace:
    def get_parent() -> Any:
        if isinstance(parent, Exception):
            raise parent
        return parent

    return SimpleNamespace(kernel=SimpleNamespace(get_parent=get_parent))


def test_current_cell_reads_the_request_the_kernel_is_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import IPython

    monkeypatch.undo()  # the real current_cell, not the autouse fixture's stand-in
    execute = {
        "header": {"msg_id": "m-1", "msg_type": "execute_request"},
        "metadata": {"cellId": "c-1"},
    }
    cases: list[tuple[Any, tuple[str, str] | None]] = [
        (execute, ("c-1", "m-1")),
        ({**execute, "metadata": {}}, None),  # a front-end that sends no cell id
        ({**execute, "header": {"msg_id": "m-2", "msg_type": "comm_msg"}}, None),  # a slider
        (LookupError("no request"), None),
        ({}, None),
    ]
    for parent, expected in cases:
        monkeypatch.setattr(IPython, "get_ipython", lambda parent=parent: fake_shell(parent))
        assert current_cell() == expected, parent
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    assert current_cell() is None
    assert _lifecycle.current_cell is current_cell


def test_the_widgets_are_lab_widgets(audit_run: Run) -> None:
    for widget in (Inspector(audit_run), Tuner(deploy_audit(), "token-budget")):
        assert isinstance(widget, LabWidget) and isinstance(widget, widgets.VBox)


# -- snapshots --------------------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n"


def pixels(png: bytes) -> bytes:
    """The decompressed image data of a PNG (its IDAT chunks)."""
    pos, data = len(PNG), b""
    while pos < len(png):
        length = int.from_bytes(png[pos : pos + 4], "big")
        if png[pos + 4 : pos + 8] == b"IDAT":
            data += png[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return zlib.decompress(data)


def test_an_inspector_snapshot_is_its_charts_as_deterministic_pngs(audit_run: Run) -> None:
    insp = Inspector(audit_run)
    snap = insp.snapshot()
    assert isinstance(snap, Snapshot) and snap.problem is None
    assert list(snap.images) == ["window_size", "window_map"]
    for png in snap.images.values():
        assert png.startswith(PNG) and len(png) > 5_000
    width, height = (
        int.from_bytes(snap.images["window_map"][16 + 4 * i : 20 + 4 * i], "big") for i in range(2)
    )
    assert (width, height) == (_snapshot.SNAPSHOT_WIDTH, insp.figures["window_map"].layout.height)
    assert snap.images == insp.snapshot().images  # same figures, same bytes
    assert insp.title in snap.html and "peak chars sent" in snap.html
    bundles = snap.bundles()
    assert [sorted(b) for b in bundles] == [["text/html", "text/plain"]] + [
        ["image/png", "text/plain"]
    ] * 2
    assert bundles[2]["text/plain"] == "[chart: Window map — sliding-window]"
    assert base64.b64decode(bundles[1]["image/png"]) == snap.images["window_size"]
    with pytest.raises(ValueError, match="no figure nope"):
        insp.snapshot("nope")


def test_a_tuner_snapshot_shows_its_current_run() -> None:
    tuner = Tuner(deploy_audit(), "token-budget", threshold_tokens=(200, 3000, 100))
    before = tuner.snapshot("window_size")
    tuner.set(threshold_tokens=300)
    after = tuner.snapshot("window_size")
    assert list(after.images) == ["window_size"]
    assert pixels(after.images["window_size"]) != pixels(before.images["window_size"])
    assert "threshold_tokens=300" in after.html


def test_a_compare_snapshot_has_its_table_and_chosen_charts(
    audit_run: Run, screen_run: Run
) -> None:
    compare = Compare({"audit": audit_run, "screen": screen_run})
    snap = compare.snapshot("compare", "screen")
    assert list(snap.images) == ["compare", "screen"] and snap.problem is None
    assert "peak_window_chars" in snap.html or "peak" in snap.html
    with pytest.raises(ValueError, match="no figure or run nope"):
        compare.snapshot("nope")


def test_without_a_renderer_a_snapshot_says_why(
    monkeypatch: pytest.MonkeyPatch, audit_run: Run
) -> None:
    def unavailable(figures: Any) -> dict[str, bytes]:
        raise _snapshot.SnapshotUnavailable("no browser here")

    monkeypatch.setattr(_snapshot, "render_png", unavailable)
    snap = Inspector(audit_run).snapshot()
    assert snap.images == {} and snap.problem == "no browser here"
    last = snap.bundles()[-1]
    assert "No static images" in last["text/html"] and "no browser here" in last["text/plain"]


def test_the_renderers_log_lines_stay_out_of_the_notebook(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """In a kernel, a log record nobody handles goes to stderr, into the notebook's outputs; the
    render keeps kaleido's and choreographer's records from reaching any handler."""
    pipe = logging.getLogger("choreographer.channels.pipe")
    with caplog.at_level(logging.DEBUG), _snapshot._quiet_renderer():
        pipe.error("JSONError decoding message. Ignoring")  # the browser's goodbye
        logging.getLogger("kaleido").warning("a warning of kaleido")
    assert caplog.records == []
    with caplog.at_level(logging.DEBUG):
        pipe.error("after the render, records go where they went")
    assert [r.getMessage() for r in caplog.records] == [
        "after the render, records go where they went"
    ]
